/**
 * `npm run service`: the reference lookup service on PORT (or a free port) until Ctrl-C.
 * Point the extension's service address at the printed URL and use the demo token.
 * `npm run service -- --realistic` (or `--shapes realistic`, or SHAPES=realistic) answers in the
 * live service's untidy shapes, first lookups failing transiently as it sometimes does.
 */
import { DEMO_APP_ID, DEMO_SECRET, DEMO_TOKEN, DEMO_UNBOUND_TOKEN, startReferenceService, type Shapes } from './server';

function shapesFromArgs(args: readonly string[]): Shapes | undefined {
  let shapes: string | undefined = process.env.SHAPES || undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--realistic') shapes = 'realistic';
    else if (arg === '--strict') shapes = 'strict';
    else if (arg === '--shapes') shapes = args[++i];
    else if (arg.startsWith('--shapes=')) shapes = arg.slice('--shapes='.length);
    else {
      console.error(`unknown argument ${arg}; use --realistic, --strict or --shapes strict|realistic`);
      process.exit(2);
    }
  }
  if (shapes !== undefined && shapes !== 'strict' && shapes !== 'realistic') {
    console.error(`shapes must be strict or realistic, not ${shapes}`);
    process.exit(2);
  }
  return shapes as Shapes | undefined;
}
const shapes = shapesFromArgs(process.argv.slice(2)) ?? 'strict';

const port = process.env.PORT ? Number(process.env.PORT) : 0;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not ${process.env.PORT}`);
  process.exit(2);
}

const service = await startReferenceService({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  shapes,
  log: process.env.QUIET ? undefined : (line) => console.log(`${new Date().toISOString()} ${line}`),
});

const sample = service.index.groups.find((group) => group.length >= 5)?.[0];
const account = service.data.accounts.find((entry) => ![...service.data.tokens].some((t) => t.bound?.site === entry.site && t.bound.user_id === entry.user_id));
console.log(`Reference lookup service listening on ${service.url} (${shapes} answer shapes)`);
console.log(`  token (bound):     ${DEMO_TOKEN}`);
console.log(`  token (unbound):   ${DEMO_UNBOUND_TOKEN}`);
console.log(`  signed lookup:     appid ${DEMO_APP_ID}, secret ${DEMO_SECRET}`);
if (account) console.log(`  bindable account:  ${account.site} user ${account.user_id}, passkey ${account.passkey}`);
if (sample) console.log(`  a hash to look up: ${sample.info_hash} (${sample.site} #${sample.torrent_id})`);
console.log('Ctrl-C stops it.');

let stopping = false;
const stop = () => {
  if (stopping) process.exit(1);
  stopping = true;
  void service.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
