/**
 * The client index as users get it (issue 27): the BUILT Chrome extension in Chromium, its index
 * of a qBittorrent WebUI holding 1,000 / 10,000 / 100,000 torrents whose entries are real recorded
 * ones multiplied (test/clients/mass-qbittorrent.ts, 4.5.2 and 5.3 shapes), the reference service
 * as 2025.iyuu.cn behind the e2e router at its default rate limit. Per size, a profile of its own:
 *
 *  - the first sync, started as the options page's switch starts it (`clientIndexEnabled`), as the
 *    background paces it (2 s between batches of 200): wall time until `index:status` says the sync
 *    is done, and the lookups it sent (budget ≤ 1 per 200 torrents); a placing run (asked for as "Find them
 *    now" asks: a sync alone never places) is reported apart;
 *  - IndexedDB bytes a torrent: navigator.storage.estimate()'s usage from an extension page before
 *    the sync and after it (and after placing), divided by the torrents (budget ≤ 1 KB);
 *  - the service worker's JS heap after GC (CDP on the worker's target), index loaded;
 *  - after a worker stop (CDP ServiceWorker.stopWorker, just before the tab navigates): a 100-row
 *    OurBits list page (30 rows the client can cross-seed, 20 it holds), from its DOMContentLoaded to
 *    the badge and to the popup's `index:page` answer (budget ≤ 100 ms, median of 3 restarts);
 *  - the whole-index load: after a worker stop, an extension page's `index:status` (its counts are
 *    the whole index's) from the send until the answer (budget ≤ 1 s, median of 3 restarts).
 *
 * The client's own answers are counted by the WebUI: list pages read, entries served, bytes.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { IndexPageAnswer, IndexStatusView } from '../features/client-index/client-index.messages';
import { DATABASE_NAME } from '../utils/client-index/store';
import { PACK_MIN_RECORDS } from '../utils/client-index/indexes-by-client';
import { startMassQbittorrent, type MassShape } from '../test/clients/mass-qbittorrent';
import { completeCopy } from '../test/clients/mass-shared';
import { launchBrowser, type HarnessBrowser } from '../test/e2e/harness/index.ts';
import { watchExtensionWorker } from '../test/e2e/support/service-worker';
import { madeUpHash, referenceDataWith, type TorrentGroup } from '../test/e2e/support/tracker-pages';
import { SERVICE_BASE_URL, SERVICE_HOST, startWorld, type World } from '../test/e2e/world';
import { nexusListPage } from '../test/fixtures/pages/generate';
import { DEMO_TOKEN } from '../test/service/server';
import { median, type BenchOutcome, type Figure } from './figures';
import { timedListPageView } from './list-page-browser';
import { WorkerHeap } from './page-views';

export interface IndexBrowserPlan {
  torrents: number;
  shape: MassShape;
}

/** `npm run bench` (the `indexbrowser` name): both shapes, sizes whose paced first sync takes minutes at most. */
export const INDEX_BROWSER_PLANS: readonly IndexBrowserPlan[] = [
  { torrents: 1_000, shape: '4.5.2' },
  { torrents: 10_000, shape: '5.3.0' },
];
/** `--only indexfull`: 500 lookups at the sync's 2 s pace, about 17 minutes. */
export const INDEX_FULL_PLANS: readonly IndexBrowserPlan[] = [{ torrents: 100_000, shape: '4.5.2' }];

export const HOST = 'ourbits.club';
export const SID = 9;
export const LOOKUP_PATH = '/reseed/index/index';
/** List rows whose torrent's data the client holds from HDSky (the badge's count). */
export const CAN = 30;
/** List rows that are the client's own torrents. */
const IN_CLIENT = 20;
/** Client torrents with copies on another site: one in ten. */
const WITH_COPIES = 0.1;
const RESTARTS = 3;
export const PAUSE_MS = 2000;

interface PlanResult {
  figures: Figure[];
  report: string[];
  problems: string[];
  details: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * The reference service's groups for a list page over the clients' torrents: of each client's complete
 * torrents, the first tenth have copies (one in ten of its torrents); the page's first 30 rows are
 * copies the clients can cross-seed (their data held under another torrent from HDSky), the next 20
 * are the clients' own torrents, each taken from the clients in turn; the rest of the tenth are on
 * HDSky and PTHome. `label` keeps made-up hashes apart between benches. For one client the groups
 * are those index-browser has always used.
 */
export function listPageGroups(clients: readonly { torrents: number; hashOf(index: number): string }[], rows: readonly { id: string; hash?: string }[], label: string): TorrentGroup[] {
  const groups: TorrentGroup[] = [];
  const withCopies = clients.map(({ torrents }) => Array.from({ length: torrents }, (_, index) => index).filter(completeCopy).slice(0, Math.ceil(torrents * WITH_COPIES)));
  const next = withCopies.map(() => 0);
  const title = (client: number, index: number) => `index bench ${client ? `${client}:` : ''}${index}`;
  const hdsky = (client: number, index: number) => 100_000 + client * 1_000_000 + index;
  for (const [at, row] of rows.slice(0, CAN + IN_CLIENT).entries()) {
    let client = at % clients.length;
    while (next[client]! >= withCopies[client]!.length) client = (client + 1) % clients.length;
    const index = withCopies[client]![next[client]!++]!;
    const hash = clients[client]!.hashOf(index);
    const rowHash = row.hash ?? madeUpHash(`${label} ${row.id}`);
    groups.push({
      title: title(client, index),
      members:
        at < CAN
          ? [{ site: 'hdsky', torrent_id: hdsky(client, index), info_hash: hash }, { site: 'ourbits', torrent_id: Number(row.id), info_hash: rowHash }]
          : [{ site: 'ourbits', torrent_id: Number(row.id), info_hash: hash }, { site: 'hdsky', torrent_id: hdsky(client, index), info_hash: madeUpHash(`index bench hdsky ${client ? `${client}:` : ''}${index}`) }],
    });
  }
  for (const [client, indexes] of withCopies.entries()) {
    for (const index of indexes.slice(next[client])) {
      groups.push({ title: title(client, index), members: [{ site: 'hdsky', torrent_id: hdsky(client, index), info_hash: clients[client]!.hashOf(index) }, { site: 'pthome', torrent_id: 500_000 + client * 1_000_000 + index, info_hash: madeUpHash(`index bench pthome ${client ? `${client}:` : ''}${index}`) }] });
    }
  }
  return groups;
}

async function measurePlan(plan: IndexBrowserPlan, extensionDir: string, log: (line: string) => void): Promise<PlanResult> {
  const { torrents, shape } = plan;
  const id = (name: string) => `index.browser.${torrents}.${name}`;
  const bench = torrents >= 100_000 ? 'indexfull' : 'indexbrowser';
  const problems: string[] = [];
  const report: string[] = [];
  const mass = await startMassQbittorrent({ shape, torrents, seed: `bench ${torrents}` });
  let world: World | undefined;
  let browser: HarnessBrowser | undefined;
  try {
    // The list page's rows: 30 copies of complete client torrents, 20 client torrents themselves, 50 unknown.
    const list = nexusListPage({ rows: 100, seed: 2027 });
    const groups = listPageGroups([{ torrents, hashOf: mass.hashOf }], list.rows, `index bench ${torrents}`);
    world = await startWorld({ service: { data: referenceDataWith(groups) } });
    const starts = Object.fromEntries(Array.from({ length: RESTARTS + 1 }, (_, index) => [`/start-${index}`, `<p>view ${index}</p>`]));
    world.router.setHost(HOST, { '/torrents.php': list.html, ...starts });
    browser = await launchBrowser('chromium', { proxyPort: world.router.port, extensionDir });
    const b = browser;
    const send = <T>(message: Record<string, unknown>) => b.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, message);
    const status = () => send<IndexStatusView>({ type: 'index:status' });
    const usage = () => b.evaluateInExtension(async () => (await navigator.storage.estimate()).usage ?? 0);
    const lookups = () => world!.service.requests.filter((request) => request.path === LOOKUP_PATH).length;

    await send({ type: 'settings:save', update: { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, askedForSites: true, privacyNoticeSeen: true, siteOverrides: { [String(SID)]: { scheme: 'http' } } } });
    const saved = await send<{ problem?: unknown }>({ type: 'clients:save', client: mass.config });
    if (saved.problem) throw new Error(`the mass WebUI not saved: ${JSON.stringify(saved.problem)}`);
    const usedBefore = await usage();
    const lookupsBefore = lookups();
    const readsBefore = mass.listReads().length;

    // The first sync, as the options page's switch starts it.
    const started = Date.now();
    await send({ type: 'settings:save', update: { clientIndexEnabled: true } });
    const deadline = started + ((torrents / 200) * (PAUSE_MS + 1500) + 180_000);
    let last: IndexStatusView | undefined;
    let phases = '';
    for (;;) {
      last = await status();
      const running = last.running;
      if (running && !phases.endsWith(running.phase)) phases += `${phases ? ' → ' : ''}${running.phase}`;
      if (!running && last.lastSync) break;
      if (Date.now() > deadline) throw new Error(`the first sync of ${torrents} did not end in time: ${JSON.stringify(last).slice(0, 400)}`);
      await sleep(250);
    }
    const syncMs = Date.now() - started;
    const sync = last.lastSync!;
    const syncLookups = lookups() - lookupsBefore;
    const served = mass.listReads().slice(readsBefore);
    report.push(
      `index in Chromium, ${torrents.toLocaleString('en')} torrents (qBittorrent ${shape} shape, ${round(served.reduce((sum, read) => sum + read.bytes, 0) / 1e6)} MB of torrents/info read in ${served.length} list request(s)): first sync ${sync.outcome} in ${round(syncMs / 1000)} s (${phases}), ${syncLookups} lookups, ${sync.torrents} torrents, asked ${sync.asked}`,
    );
    log(report.at(-1)!);
    if (sync.outcome !== 'done') {
      problems.push(`index.browser.${torrents}: the first sync ${sync.outcome}: ${JSON.stringify(sync).slice(0, 400)}`);
      return { figures: [], report, problems, details: { sync, syncMs, lookups: syncLookups, listReads: served.map(({ params, status: code, entries, bytes }) => ({ params, status: code, entries, bytes })) } };
    }
    // Placing (a sync alone never places: the alarm's job places after its sync, "Find them now" on
    // the user's word): asked for here as the button asks, so the stored bytes include the places.
    if (last.counts?.toPlace) {
      await send({ type: 'index:place' });
      for (let tries = 0; ; tries++) {
        last = await status();
        if (!last.running && last.lastPlacing) break;
        if (tries > 2400) throw new Error(`the placing run did not end: ${JSON.stringify(last.running)}`);
        await sleep(250);
      }
    }
    const placingLookups = lookups() - lookupsBefore - syncLookups;
    // The worker, alive at least 30 s after its last event, settles the index PACK_SOON_MS after the
    // run ends: its pack (from PACK_MIN_RECORDS records), then the storage compacted. Waited for
    // here, as the options page's status says it, before the restarts below stop the worker.
    const placingEnded = Date.now();
    while (!(await status()).settled) {
      if (Date.now() - placingEnded > 60_000) throw new Error(`the index of ${torrents} did not settle within 60 s of the run's end`);
      await sleep(100);
    }
    const settledMs = Date.now() - placingEnded;
    const packed = await b.evaluateInExtension(async (_api, name) => {
      const req = <T>(r: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        const meta = (await req(db.transaction('meta').objectStore('meta').get('meta'))) as { clients?: { slot: number }[] } | undefined;
        const slot = meta?.clients?.[0]?.slot;
        return slot === undefined ? undefined : ((await req(db.transaction('packs').objectStore('packs').get([slot, -1]))) as number | undefined);
      } finally {
        db.close();
      }
    }, DATABASE_NAME);
    if (torrents >= PACK_MIN_RECORDS && packed !== torrents) problems.push(`index.browser.${torrents}: the settled index has a pack of ${packed ?? 'no'} records, not ${torrents}`);
    const usedAfter = await usage();
    // Where it is (Chromium's estimate() names each store: indexedDB, serviceWorkerRegistrations, …).
    const usageDetails = await b.evaluateInExtension(async () => (await navigator.storage.estimate()) as { usageDetails?: Record<string, number> }).then((estimate) => estimate.usageDetails);
    const bytesPerTorrent = (usedAfter - usedBefore) / torrents;

    const extensionPage = await b.openExtensionPage('manifest.json');
    const raw = extensionPage.raw as PlaywrightPage;
    const heap = await WorkerHeap.attach(raw, b.extensionOrigin);
    const heapBytes = await heap.usedAfterGc();
    await heap.close();
    const worker = await watchExtensionWorker(raw, b.extensionOrigin);

    // The list page once with the worker running (its own lookup fills the answer cache), then after restarts.
    const view = (index: number, restart: boolean) =>
      timedListPageView(b, { host: HOST, path: '/torrents.php', startPath: `/start-${index}`, expected: CAN, beforeNavigate: restart ? () => worker.stop() : undefined });
    await view(0, false);
    const restarted = [];
    for (let index = 1; index <= RESTARTS; index++) restarted.push(await view(index, true));
    for (const sample of restarted) {
      if (!Number.isFinite(sample.toBadgeMs)) problems.push(`index.browser.${torrents}: the badge never showed ${CAN} after a worker restart`);
      if (sample.listed !== CAN) problems.push(`index.browser.${torrents}: the popup's list had ${sample.listed} rows to cross-seed, not ${CAN}`);
    }
    // The last of the list's tabs (each view opened one).
    const pageAnswer = await b.evaluateInExtension(async (api, address) => {
      const tabs = (await api.tabs.query({})).filter((tab) => tab.url?.includes(address));
      const tabId = tabs.at(-1)?.id;
      return tabId === undefined ? undefined : ((await api.runtime.sendMessage({ type: 'index:page', tabId })) as IndexPageAnswer);
    }, `${HOST}/torrents.php`);

    // The whole index, loaded by a freshly started worker for the options page's status.
    const loads: number[] = [];
    let counted = 0;
    for (let index = 0; index < RESTARTS; index++) {
      await worker.stop();
      const timed = await b.evaluateInExtension(async (api) => {
        const start = performance.now();
        const answer = (await api.runtime.sendMessage({ type: 'index:status' })) as IndexStatusView;
        return { ms: performance.now() - start, torrents: answer.counts?.torrents ?? -1 };
      });
      loads.push(timed.ms);
      counted = timed.torrents;
    }
    if (counted !== torrents) problems.push(`index.browser.${torrents}: index:status counted ${counted} torrents after a restart, not ${torrents}`);
    await worker.close();
    // What stays on disk, the database opened anew by the restarted worker: the records, the pack,
    // and what Chromium's LevelDB has not compacted yet (the index has it compact after its runs).
    const usedAtRest = await usage();

    const inClientRows = pageAnswer?.state === 'answered' ? pageAnswer.inClient.length : -1;
    report.push(
      `  lookups while placing ${placingLookups}; settled (pack: ${packed ?? 'none'}) ${settledMs} ms after the run's end; storage usage ${round(usedBefore / 1e6, 2)} → ${round(usedAfter / 1e6, 2)} MB (${round(usedAtRest / 1e6, 2)} MB after the restarts; after the sync by store: ${Object.entries(usageDetails ?? {}).map(([store, bytes]) => `${store} ${round(bytes / 1e6, 2)} MB`).join(', ') || 'not said'}); worker heap after GC ${round(heapBytes / 1e6)} MB`,
      `  after worker restarts: badge ${restarted.map((sample) => round(sample.toBadgeMs)).join(', ')} ms; popup list ${restarted.map((sample) => round(sample.toListMs)).join(', ')} ms (rows in the client: ${inClientRows}); index:status ${loads.map((ms) => round(ms)).join(', ')} ms`,
    );
    const figures: Figure[] = [
      { id: id('sync'), bench, label: `${torrents.toLocaleString('en')} torrents (qBittorrent ${shape} WebUI, recorded entries), built extension in Chromium: first sync, paced as the background paces it`, value: round(syncMs / 1000), unit: 's' },
      { id: id('lookups'), bench, label: '  … its lookups (≤ 1 per 200 torrents)', value: syncLookups, unit: 'requests', budget: { op: '<=', limit: Math.ceil(torrents / 200) } },
      { id: id('bytes-per-torrent-after-sync'), bench, label: '  … storage bytes a torrent once the sync and placing have settled (storage.estimate() usage grown ÷ torrents)', value: Math.round(bytesPerTorrent), unit: 'bytes' },
      { id: id('bytes-per-torrent'), bench, label: '  … IndexedDB bytes a torrent, at rest (the same after the worker opened the database again)', value: Math.round((usedAtRest - usedBefore) / torrents), unit: 'bytes', budget: { op: '<=', limit: 1024 } },
      { id: id('heap'), bench, label: '  … service worker JS heap after GC, index loaded', value: round(heapBytes / 1e6), unit: 'MB' },
      { id: id('badge-after-restart'), bench, label: `  … worker stopped, ${100}-row list page: DOMContentLoaded → badge (median of ${RESTARTS})`, value: round(median(restarted.map((sample) => sample.toBadgeMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
      { id: id('list-after-restart'), bench, label: '  … → the popup’s index:page answered (median)', value: round(median(restarted.map((sample) => sample.toListMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
      { id: id('whole-index-load'), bench, label: `  … worker stopped: index:status (the whole index's counts) from an extension page (median of ${RESTARTS})`, value: round(median(loads)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
    ];
    return {
      figures,
      report,
      problems,
      details: { torrents, shape, syncMs, settledMs, packed, phases, sync, syncLookups, placingLookups, usedBefore, usedAfter, usedAtRest, usageDetails, heapBytes, restarted, loads, listReads: served.length, listBytes: served.reduce((sum, read) => sum + read.bytes, 0) },
    };
  } finally {
    await browser?.close();
    await world?.close();
    await mass.close();
  }
}

export async function measureIndexInBrowser(options: { extensionDir: string; plans: readonly IndexBrowserPlan[]; log?: (line: string) => void }): Promise<BenchOutcome> {
  const log = options.log ?? (() => undefined);
  const outcome: Required<BenchOutcome> = { figures: [], report: [], problems: [], details: {} };
  for (const plan of options.plans) {
    log(`  ${plan.torrents.toLocaleString('en')} torrents, qBittorrent ${plan.shape} shape…`);
    const result = await measurePlan(plan, options.extensionDir, log);
    outcome.figures.push(...result.figures);
    outcome.report.push(...result.report);
    outcome.problems.push(...result.problems);
    (outcome.details as Record<string, unknown>)[String(plan.torrents)] = result.details;
    log(result.report.join('\n'));
  }
  return outcome;
}
