/**
 * A one-click cross-seed until its result, and its result after the client's check ended (issue 26
 * item 4, Bench: "one-click until its result, every client (≤ 1 s after the check ends)"), in Node
 * against every client build the tests start (test/clients/daemons.ts clientBuilds({ all: true }):
 * qBittorrent 4.5/5.1/5.3, Transmission 3.00/4.1, Deluge 2.0/2.2, rTorrent 0.9).
 *
 * Each build seeds RUNS pairs of test/e2e/support/cross-seed-world.ts; each run is crossSeed() as
 * the background calls it on a click (the candidate's .torrent downloaded from its test tracker
 * through the e2e router with the user's session, checked, added stopped, the client's check, the
 * start at 100 %), timed from its call until its result ("added" required). The check's end is
 * what a second connection to the client sees first, asking back to back (10 ms apart): every piece
 * verified, read where the client reads it live (liveState: qBittorrent's files' progress, Deluge's
 * one-torrent status), else in its list (Transmission and rTorrent list live) out of its checking
 * states. Where the engine saw it first, the watcher's last reading that did not is taken (an upper
bound). The site's pace is waited out between runs, not counted.
 *
 * Which way each build took is read from what the engine asked of the client (issue 33 item 13):
 * its check asked as soon as the client listed the add (qBittorrent 4.5 and later: rechecksAtOnce),
 * once the add had settled (a reading showing it out of the checking states first; Transmission
 * too since its version 4 was found taking a copy as complete unchecked), or none asked.
 *
 *   node --import tsx bench/check-end-node.ts [kind]   → JSON on the last line (bench/run.ts reads it)
 */
import { pathToFileURL } from 'node:url';
import type { ClientKind, TorrentClient } from '../utils/clients/client-types';
import { median, type Figure } from './figures';
import type { NodeBenchOutput } from './lookup-node';
import { buildLabel } from './crossseed-browser';

const RUNS = 7;
const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const round = (ms: number) => Math.round(ms * 10) / 10;
const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * When `hash`'s check is seen ended with every piece verified (performance.now() as the reading that
 * saw it was sent), until `stop()`. Not seen by then (the engine saw it first): when the last
 * reading that did not see it was sent, which the end came after.
 */
function watchCheckEnd(client: TorrentClient, hash: string, checking: ReadonlySet<string>): { stop: () => Promise<number | undefined> } {
  let stopped = false;
  let seen: number | undefined;
  let notYet: number | undefined;
  const watching = (async () => {
    while (!stopped && seen === undefined) {
      const at = performance.now();
      const done = client.liveState
        ? (await client.liveState(hash))?.complete === true
        : ((torrent) => torrent !== undefined && torrent.progress === 1 && !checking.has(torrent.state))((await client.lookup([hash])).get(hash));
      if (done) seen = at;
      else {
        notYet = at;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await watching;
      return seen ?? notYet;
    },
  };
}

/** How the engine had the client check a copy (from the calls it made, in order). */
type Way = 'at once' | 'once settled' | 'by itself';
const WAY_WORDS: Record<Way, string> = {
  'at once': 'its check asked as soon as the client listed the add',
  'once settled': 'its check asked once the add had settled',
  'by itself': 'the client checks a new torrent by itself',
};

/** `client` with the calls the engine makes recorded: the add (its hash), the readings of one torrent (listed or not), the recheck. */
function recording(client: TorrentClient, calls: { name: string; hash?: string; listed?: boolean }[]): TorrentClient {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || !['add', 'lookup', 'recheck'].includes(String(key))) return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        const answer = await method.apply(target, args);
        if (key === 'add') calls.push({ name: 'add', hash: (answer as { hash: string }).hash });
        else if (key === 'recheck') calls.push({ name: 'recheck', hash: args[0] as string });
        else {
          const hashes = args[0] as string[];
          if (hashes.length === 1) calls.push({ name: 'lookup', hash: hashes[0], listed: (answer as Map<string, unknown>).has(hashes[0]!) });
        }
        return answer;
      };
    },
  });
}

/** The way of the run whose copy is `hash`: its recheck right after the first reading that listed the add, later, or none. */
function wayOf(calls: { name: string; hash?: string; listed?: boolean }[], hash: string): Way {
  const about = calls.filter((call) => call.hash === hash);
  const add = about.findIndex((call) => call.name === 'add');
  const recheck = about.findIndex((call, index) => index > add && call.name === 'recheck');
  if (recheck < 0) return 'by itself';
  const listings = about.slice(add + 1, recheck).filter((call) => call.listed).length;
  return listings <= 1 ? 'at once' : 'once settled';
}

async function measureBuild(build: import('../test/clients/daemons').ClientBuild): Promise<{ label: string; click: number[]; afterCheck: number[]; ways: Way[]; decided?: boolean }> {
  const { startClient } = await import('../test/clients/daemons');
  const { startCrossSeedWorld } = await import('../test/e2e/support/cross-seed-world');
  const { nodeClientFetch } = await import('../test/clients/node-fetch');
  const { createClient } = await import('../utils/clients/index');
  const { clientOriginRule } = await import('../utils/clients/csrf');
  const { crossSeed, SitePace } = await import('../utils/cross-seed-engine');
  const { CHECKING } = await import('../utils/cross-seed-engine/cross-seed');
  const daemon = await startClient(build);
  const cs = await startCrossSeedWorld({ pairs: RUNS });
  try {
    // qBittorrent keeps its CSRF protection on: the Origin the background's session rule sets.
    const origin = build.kind === 'qbittorrent' ? clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders[0]!.value : undefined;
    const calls: { name: string; hash?: string; listed?: boolean }[] = [];
    const client = recording(createClient(daemon.config, { fetch: nodeClientFetch({ origin }) }), calls);
    const watcher = createClient(daemon.config, { fetch: nodeClientFetch({ origin }) });
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    for (let run = 0; run < RUNS; run++) await cs.seed(client, daemon.dataDir, run);
    const pace = new SitePace();
    const env = { target: { client, skipCheckWhenFilesMatch: false, url: daemon.url }, sites: cs.siteSettings(), fetch: siteFetch, pace };
    const click: number[] = [];
    const afterCheck: number[] = [];
    const ways: Way[] = [];
    for (let run = 0; run < RUNS; run++) {
      const wait = pace.readyIn(`sid:${cs.candidate.sid}`);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 5));
      const pair = cs.pairs[run]!;
      const watch = watchCheckEnd(watcher, pair.candidate.hash, CHECKING);
      const started = performance.now();
      const result = await crossSeed(pair.source.hash, pair.ref, env);
      const ended = performance.now();
      const checkEnd = await watch.stop();
      if (result.kind !== 'added') throw new Error(`${build.label} run ${run}: ${JSON.stringify(result)}`);
      if (checkEnd === undefined) throw new Error(`${build.label} run ${run}: the torrent was never read before the result`);
      click.push(ended - started);
      afterCheck.push(ended - checkEnd);
      ways.push(wayOf(calls, pair.candidate.hash));
    }
    const decided = await client.rechecksAtOnce?.();
    return { label: buildLabel(build, daemon.version), click, afterCheck, ways, ...(decided !== undefined && { decided }) };
  } finally {
    await cs.close();
    await daemon.stop();
  }
}

async function main(kind?: ClientKind): Promise<NodeBenchOutput> {
  const { clientBuilds } = await import('../test/clients/daemons');
  const figures: Figure[] = [];
  const report: string[] = [`checkend (Node, real daemons, test trackers; ${RUNS} one-click cross-seeds per build, each a different candidate):`];
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  for (const build of clientBuilds({ all: true, ...(kind && { kind }) })) {
    const id = `checkend.${build.kind}-${build.release}`;
    try {
      log(`checkend: ${build.label}…`);
      const { label, click, afterCheck, ways, decided } = await measureBuild(build);
      const taken = [...new Set(ways)];
      const way = taken.length === 1 ? WAY_WORDS[taken[0]!] : `mixed: ${taken.map((one) => `${ways.filter((run) => run === one).length} × ${WAY_WORDS[one]}`).join(', ')}`;
      // The client's own answer must be what the engine did: at once exactly where it says it takes the check so.
      if (decided !== undefined && taken.some((one) => (one === 'at once') !== decided)) problems.push(`${id}: the client says rechecksAtOnce ${decided}, the engine took ${taken.join(', ')}`);
      figures.push(
        { id: `${id}.click`, bench: 'checkend', label: `${label}: one-click cross-seed → its result (added, checked 100 %, started; ${way}), Node, median of ${RUNS}`, value: round(median(click)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
        { id: `${id}.after-check`, bench: 'checkend', label: `  … its result after the client's check ended (seen live), max of ${RUNS}`, value: round(Math.max(...afterCheck)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
      );
      details[`${build.kind}-${build.release}`] = { click: click.map(round), afterCheck: afterCheck.map(round), ways };
      report.push(`  ${label} (${way}): click → result ${click.map(round).join(', ')} ms; after the check's end ${afterCheck.map(round).join(', ')} ms`);
    } catch (error) {
      problems.push(`${id}: ${(error as Error).message}`);
    }
  }
  return { figures, report, problems, details };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main(process.argv[2] as ClientKind | undefined);
  console.log(JSON.stringify(output));
  process.exit(0);
}
