/**
 * "Cross-seed": the click until the torrent is in the client (issue #9, item 6), on loopback, for
 * qBittorrent (its CSRF protection on, reached with the Origin the background's session rule sets)
 * and Transmission, two ways:
 *
 * - the engine: `benchCrossSeedClick` (test/clients/bench.ts) runs crossSeed() as the background
 *   does on a click — the page's torrent looked up in the client, the candidate's .torrent
 *   downloaded from its test tracker through the e2e router with the user's session, its info-hash
 *   and files checked, added at the source's save path, read back;
 * - the whole background: the popup's `crossseed:one` message through the router to the answer
 *   saying `added` (features/cross-seed/cross-seed.feature.ts: the candidate found in the tab's view, the
 *   environment built — settings, default client, site list —, the engine, the outcome kept and
 *   announced), WXT's fake browser standing in for the extension APIs as in bench/client-node.ts.
 *
 * Nine clicks each, a different candidate every time, the site's 1 s pace waited out between
 * clicks (a person does not click nine times a second). Run in a process of its own:
 *
 *   node --import tsx bench/crossseed-node.ts   → JSON on the last line
 */
import { fakeBrowser } from './fake-browser';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { median, type Figure } from './figures';
import type { NodeBenchOutput } from './lookup-node';
import { ownClient } from '../test/clients/own-client';


const KINDS = ['qbittorrent', 'transmission'] as const;
type Kind = (typeof KINDS)[number];
const RUNS = 9;
const NAMES: Record<Kind, string> = { qbittorrent: 'qBittorrent', transmission: 'Transmission' };

/** The fake browser's i18n, reading the real English messages (the outcomes are put into words). */
function installEnglish(): void {
  const messages = JSON.parse(readFileSync(new URL('../public/_locales/en/messages.json', import.meta.url), 'utf8')) as Record<string, { message: string }>;
  Object.assign(fakeBrowser.i18n, {
    getMessage: (key: string, substitutions: string[] = []) => (messages[key]?.message ?? '').replace(/\$(\d)/g, (_: string, index: string) => substitutions[Number(index) - 1] ?? ''),
    getUILanguage: () => 'en',
  });
}

/** The popup's "Cross-seed" through the real background, `RUNS` times: ms from the message to the answer. */
async function throughBackground(kind: Kind): Promise<{ times: number[]; version: string }> {
  const { installPermissions } = await import('../test/unit/support/permissions');
  const { installSessionRules, extensionClientFetch } = await import('../test/unit/support/client-browser');
  const { startQbittorrent, startTransmission } = await import('../test/clients/daemons');
  const { proxiedFetch } = await import('../test/clients/proxy-fetch');
  const { startCrossSeedWorld, CANDIDATE_SITE, PAGE_SITE } = await import('../test/e2e/support/cross-seed-world');
  const { SERVICE_BASE_URL } = await import('../test/e2e/world');
  const { DEMO_TOKEN } = await import('../test/service/server');
  const { BackgroundApp } = await import('../entrypoints/background/app');
  const { routeMessage } = await import('../entrypoints/background/router');
  const { sitePace } = await import('../utils/cross-seed-engine/site-queue');
  const { SETTINGS_KEY } = await import('../features/settings/settings.storage');

  fakeBrowser.reset();
  installEnglish();
  installPermissions();
  installSessionRules();
  const daemon = kind === 'qbittorrent' ? await startQbittorrent() : await startTransmission();
  const cs = await startCrossSeedWorld({ pairs: RUNS });
  try {
    const own = ownClient(daemon);
    for (let index = 0; index < RUNS; index++) await cs.seed(own, daemon.dataDir, index);
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid] } });
    const app = new BackgroundApp({ fetch: proxiedFetch(cs.world.router.port), clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0 });
    const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
    const popup = { id: extension.id, url: `${extension.origin}popup.html` };
    const saved = await routeMessage(app, { type: 'clients:save', client: { type: kind, url: daemon.url, username: daemon.username, password: daemon.password } }, popup, extension);
    if (!saved || !('clients' in (saved as object))) throw new Error(`the client was not saved: ${JSON.stringify(saved)}`);
    // The popup was open on the page before: "In your client" asked the client (a warm session).
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const pair = cs.pairs[run]!;
      const tabId = 100 + run;
      const url = `https://${PAGE_SITE.host}/details.php?id=${pair.sourceId}`;
      const reading = { engine: 'nexusphp', kind: 'details', hashes: [{ hash: pair.source.hash, source: 'info-row' }] };
      await routeMessage(app, { type: 'page:reading', url, reading }, { id: extension.id, url, frameId: 0, tab: { id: tabId } as never }, extension);
      const view = (await app.tabs.get(tabId)) ?? { status: 'none' };
      if (view.status !== 'done') throw new Error(`run ${run}: the page's view is ${view.status}`);
      await routeMessage(app, { type: 'client:status', tabId }, popup, extension);
      const wait = sitePace.readyIn(`sid:${CANDIDATE_SITE.sid}`);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 5));
      const started = performance.now();
      // A command: answered with nothing once done; the tab's cross-seeds read as the popup reads them.
      await routeMessage(app, { type: 'crossseed:one', tabId, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: pair.candidate.hash }, popup, extension);
      times.push(performance.now() - started);
      const answer = (await routeMessage(app, { type: 'crossseed:get', tabId }, popup, extension)) as { items: { result?: { kind: string } }[] };
      if (answer.items[0]?.result?.kind !== 'added') throw new Error(`run ${run}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    return { times, version: daemon.version };
  } finally {
    await cs.close();
    await daemon.stop();
  }
}

async function main(): Promise<NodeBenchOutput> {
  const { benchCrossSeedClick } = await import('../test/clients/bench');
  const figures: Figure[] = [];
  const report: string[] = ['crossseed (in Node against the real daemons and the test trackers behind the e2e router; 9 clicks each, different candidates):'];
  const details: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const [engine] = await benchCrossSeedClick(kind, RUNS);
    if (!engine) throw new Error(`no figure for ${kind}`);
    figures.push({ id: `crossseed.click.${kind}`, bench: 'crossseed', label: engine.name, value: engine.value, unit: 'ms', budget: { op: '<=', limit: 1000 } });
    const whole = await throughBackground(kind);
    const middle = Math.round(median(whole.times) * 100) / 100;
    figures.push({
      id: `crossseed.background.${kind}`,
      bench: 'crossseed',
      label: `  … the same through the real background (popup's crossseed:one → answer "added"), ${NAMES[kind]} ${whole.version}, median of ${RUNS}`,
      value: middle,
      unit: 'ms',
      budget: { op: '<=', limit: 1000 },
    });
    details[kind] = { engineMedian: engine.value, background: whole.times.map((ms) => Math.round(ms * 100) / 100) };
    report.push(`  ${engine.name}: ${engine.value} ms`, `  … through the background: median ${middle} ms, min ${Math.min(...whole.times).toFixed(2)} ms, max ${Math.max(...whole.times).toFixed(2)} ms`);
  }
  return { figures, report, problems: [], details };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main();
  console.log(JSON.stringify(output));
  process.exit(0);
}
