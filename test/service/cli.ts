/**
 * `npm run service`: the reference lookup service on PORT (or a free port) until Ctrl-C.
 * Point the extension's service address at the printed URL and use the demo token.
 */
import { DEMO_APP_ID, DEMO_SECRET, DEMO_TOKEN, DEMO_UNBOUND_TOKEN, startReferenceService } from './server';

const port = process.env.PORT ? Number(process.env.PORT) : 0;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not ${process.env.PORT}`);
  process.exit(2);
}

const service = await startReferenceService({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  log: process.env.QUIET ? undefined : (line) => console.log(`${new Date().toISOString()} ${line}`),
});

const sample = service.index.groups.find((group) => group.length >= 5)?.[0];
const account = service.data.accounts.find((entry) => ![...service.data.tokens].some((t) => t.bound?.site === entry.site && t.bound.user_id === entry.user_id));
console.log(`Reference lookup service listening on ${service.url}`);
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
