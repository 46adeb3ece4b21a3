/**
 * The client index across several clients (issue 33 item 10): the BUILT extension in Chromium (MV3,
 * Playwright) and in Firefox ESR (MV2, Puppeteer over WebDriver BiDi), its indexes of a qBittorrent,
 * a Transmission and a Deluge on loopback holding torrents together (test/clients/mass-*.ts: recorded
 * entries multiplied), the reference service as 2025.iyuu.cn behind the e2e router at its default
 * rate limit (60 a minute). Per browser and plan, a profile of its own:
 *
 *  - the first syncs of every client, started as the options page's switch starts them and paced by
 *    the background through one lane: wall time until every client's sync is done, the lookups
 *    (budget ≤ 1 per 200 torrents in all), the service's 429s (budget 0), and when each client's ended;
 *  - RIGHT AFTER the syncs end (not waiting for the indexes to settle), a 100-row OurBits list page
 *    whose 30 rows to cross-seed and 20 held rows come from every client in turn: DOMContentLoaded →
 *    badge and → the popup's `index:page` (≤ 100 ms, median of 3) — in Chromium each after a worker
 *    stop; in Firefox (the MV2 background page is persistent) warm — and the whole index's load
 *    (`index:status`, ≤ 1 s, median of 3; Chromium after worker stops, Firefox warm);
 *  - a placing run as "Find them now" asks, then the indexes settled;
 *  - IndexedDB bytes a torrent across all clients at rest (storage.estimate() usage grown ÷ torrents,
 *    after the database was opened again; ≤ 1 KB);
 *  - Chromium: the worker's JS heap after GC, every index loaded, and the list page and whole-index
 *    load after worker stops once settled. Firefox: after Firefox is closed and started again on the
 *    same profile (each sample its own restart), the list page and the whole-index load; and the
 *    background page's memory as Firefox's own reporters give it after a minimized GC
 *    (bench/firefox-memory-report.ts: what about:memory shows under its window, JS heap included),
 *    before the syncs, with every index loaded, and after a restart with every index loaded (budget:
 *    at or below what Chromium's worker holds at 100,000, 80 MB: the same kind of figure, a context's
 *    heap after GC); and, unbudgeted beside it, the whole extension process's RSS (bench/process-memory.ts),
 *    which holds Firefox's own share of every extension page and is no measure of the index.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { IndexStatusView } from '../features/client-index/client-index.messages';
import { startMassDeluge, type MassDelugeShape } from '../test/clients/mass-deluge';
import { startMassQbittorrent, type MassShape } from '../test/clients/mass-qbittorrent';
import type { MassClient } from '../test/clients/mass-shared';
import { startMassTransmission, type MassTransmissionShape } from '../test/clients/mass-transmission';
import { launchBrowser, type BrowserKind, type HarnessBrowser } from '../test/e2e/harness/index.ts';
import { watchExtensionWorker, type ExtensionWorker } from '../test/e2e/support/service-worker';
import { referenceDataWith } from '../test/e2e/support/tracker-pages';
import { SERVICE_BASE_URL, SERVICE_HOST, startWorld, type World } from '../test/e2e/world';
import { nexusListPage } from '../test/fixtures/pages/generate';
import { DEMO_TOKEN } from '../test/service/server';
import { median, type BenchOutcome, type Figure } from './figures';
import { backgroundPageMemory, memoryReportPrefs, type BackgroundPageMemory } from './firefox-memory-report';
import { CAN, HOST, listPageGroups, LOOKUP_PATH, PAUSE_MS, SID } from './index-browser';
import { timedListPageView, type Sample } from './list-page-browser';
import { WorkerHeap } from './page-views';
import { findProfileChild, processMemory, type ProcessMemory } from './process-memory';

export type MultiClientPlan =
  | { kind: 'qbittorrent'; shape: MassShape; torrents: number }
  | { kind: 'transmission'; shape: MassTransmissionShape; torrents: number }
  | { kind: 'deluge'; shape: MassDelugeShape; torrents: number };

export interface IndexMultiPlan {
  bench: 'indexmulti' | 'indexmultifull';
  clients: readonly MultiClientPlan[];
}

/** `npm run bench` (`indexmulti`): 10,000 torrents over three clients, about 2 minutes of paced lookups a browser. */
export const INDEX_MULTI_PLAN: IndexMultiPlan = {
  bench: 'indexmulti',
  clients: [
    { kind: 'qbittorrent', shape: '4.5.2', torrents: 6_000 },
    { kind: 'transmission', shape: '3.00', torrents: 3_000 },
    { kind: 'deluge', shape: '2.0.3', torrents: 1_000 },
  ],
};
/** `--only indexmultifull`: the issue's 60,000 + 30,000 + 10,000, 500 lookups at the sync's pace (about 17 minutes a browser). */
export const INDEX_MULTI_FULL_PLAN: IndexMultiPlan = {
  bench: 'indexmultifull',
  clients: [
    { kind: 'qbittorrent', shape: '5.3.0', torrents: 60_000 },
    { kind: 'transmission', shape: '4.1.4', torrents: 30_000 },
    { kind: 'deluge', shape: '2.2.0', torrents: 10_000 },
  ],
};

const SAMPLES = 3;
/** Firefox: how long the extension is left alone before its memory is read again. */
const IDLE_MS = 30_000;
/** Chromium's worker heap at 100,000 torrents of one qBittorrent (issue 33 item 10): Firefox's extension process is held to it. */
const CHROMIUM_WORKER_MB = 80;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;
const mb = (bytes: number) => round(bytes / 1e6);

function startMass(plan: MultiClientPlan, seed: string): Promise<MassClient> {
  switch (plan.kind) {
    case 'qbittorrent':
      return startMassQbittorrent({ shape: plan.shape, torrents: plan.torrents, seed });
    case 'transmission':
      return startMassTransmission({ shape: plan.shape, torrents: plan.torrents, seed });
    case 'deluge':
      return startMassDeluge({ shape: plan.shape, torrents: plan.torrents, seed });
  }
}

const KIND_NAMES = { qbittorrent: 'qBittorrent', transmission: 'Transmission', deluge: 'Deluge' } as const;
export const planWords = (plan: IndexMultiPlan) => plan.clients.map((client) => `${client.torrents.toLocaleString('en')} ${KIND_NAMES[client.kind]} ${client.shape}`).join(' + ');

interface BrowserResult {
  figures: Figure[];
  report: string[];
  problems: string[];
  details: Record<string, unknown>;
}

/** The extension's messages and storage, from an extension page. */
function extension(b: HarnessBrowser) {
  const send = <T>(message: Record<string, unknown>) => b.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, message);
  return {
    send,
    status: () => send<IndexStatusView>({ type: 'index:status' }),
    usage: () => b.evaluateInExtension(async () => (await navigator.storage.estimate()).usage ?? 0),
    /** index:status from an extension page, timed there: the whole index's counts. */
    timedStatus: () =>
      b.evaluateInExtension(async (api) => {
        const start = performance.now();
        const answer = (await api.runtime.sendMessage({ type: 'index:status' })) as IndexStatusView;
        return { ms: performance.now() - start, torrents: answer.counts?.torrents ?? -1 };
      }),
  };
}

async function measureInBrowser(kind: BrowserKind, plan: IndexMultiPlan, extensionDir: string, log: (line: string) => void): Promise<BrowserResult> {
  const total = plan.clients.reduce((sum, client) => sum + client.torrents, 0);
  const id = (name: string) => `index.multi.${kind}.${total}.${name}`;
  const browserName = kind === 'chromium' ? 'Chromium' : 'Firefox';
  const problems: string[] = [];
  const report: string[] = [];
  const details: Record<string, unknown> = { plan: plan.clients };
  const masses: MassClient[] = [];
  let world: World | undefined;
  let browser: HarnessBrowser | undefined;
  let worker: ExtensionWorker | undefined;
  try {
    for (const [at, client] of plan.clients.entries()) masses.push(await startMass(client, `multi ${at}`));
    const list = nexusListPage({ rows: 100, seed: 2033 });
    const groups = listPageGroups(
      plan.clients.map((client, at) => ({ torrents: client.torrents, hashOf: (index: number) => masses[at]!.hashOf(index) })),
      list.rows,
      `index multi ${total}`,
    );
    world = await startWorld({ service: { data: referenceDataWith(groups) } });
    const starts = Object.fromEntries(Array.from({ length: 4 * SAMPLES + 2 }, (_, index) => [`/start-${index}`, `<p>view ${index}</p>`]));
    world.router.setHost(HOST, { '/torrents.php': list.html, ...starts });
    browser = await launchBrowser(kind, { proxyPort: world.router.port, extensionDir, ...(kind === 'firefox' && { firefoxPrefs: memoryReportPrefs }) });
    let views = 0;
    const view = (b: HarnessBrowser, beforeNavigate?: () => Promise<void>): Promise<Sample> =>
      timedListPageView(b, { host: HOST, path: '/torrents.php', startPath: `/start-${views++}`, expected: CAN, beforeNavigate });
    const checkViews = (samples: Sample[], when: string) => {
      for (const sample of samples) {
        if (!Number.isFinite(sample.toBadgeMs)) problems.push(`${id('')}: the badge never showed ${CAN} (${when})`);
        if (sample.listed !== CAN) problems.push(`${id('')}: the popup's list had ${sample.listed} rows to cross-seed, not ${CAN} (${when})`);
      }
    };
    const lookups = () => world!.service.requests.filter((request) => request.path === LOOKUP_PATH);
    const firefoxMemory = (b: HarnessBrowser): ProcessMemory | undefined => {
      const found = findProfileChild(b.profileDir);
      if (found.pid === undefined) {
        problems.push(`${id('')}: no WebExtensions process under the profile (its processes: ${found.children.join(', ') || 'none'})`);
        return undefined;
      }
      return processMemory(found.pid);
    };

    let ext = extension(browser);
    await ext.send({ type: 'settings:save', update: { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, askedForSites: true, privacyNoticeSeen: true, siteOverrides: { [String(SID)]: { scheme: 'http' } } } });
    for (const mass of masses) {
      const saved = await ext.send<{ problem?: unknown }>({ type: 'clients:save', client: mass.config });
      if (saved.problem) throw new Error(`${mass.config.type} at ${mass.url} not saved: ${JSON.stringify(saved.problem)}`);
    }
    const usedBefore = await ext.usage();
    const memoryBefore = kind === 'firefox' ? firefoxMemory(browser) : undefined;
    const pageMemory = async (b: HarnessBrowser, when: string): Promise<BackgroundPageMemory | undefined> => {
      const read = await backgroundPageMemory(b.profileDir, b.extensionOrigin);
      if (!read) problems.push(`${id('')}: Firefox wrote no memory report naming the background page (${when})`);
      return read;
    };
    const pageBefore = kind === 'firefox' ? await pageMemory(browser, 'before the syncs') : undefined;
    const lookupsBefore = lookups().length;

    // The first syncs, as the options page's switch starts them.
    const started = Date.now();
    await ext.send({ type: 'settings:save', update: { clientIndexEnabled: true } });
    const deadline = started + ((total / 200) * (PAUSE_MS + 1500) + 240_000);
    const endedAt = new Map<string, number>();
    let last: IndexStatusView;
    for (;;) {
      last = await ext.status();
      for (const client of last.clients ?? []) if (client.lastSync && !client.running && !endedAt.has(client.client.name)) endedAt.set(client.client.name, Date.now() - started);
      const clients = last.clients ?? [];
      if (clients.length === masses.length && clients.every((client) => client.lastSync && !client.running)) break;
      if (Date.now() > deadline) throw new Error(`the first syncs of ${total} did not end in time: ${JSON.stringify(last).slice(0, 600)}`);
      await sleep(250);
    }
    const syncMs = Date.now() - started;
    const syncLookups = lookups().slice(lookupsBefore);
    const gaps = syncLookups.slice(1).map((request, at) => request.time - syncLookups[at]!.time);
    const tooMany = world.router.requestsTo(SERVICE_HOST).filter((request) => request.status === 429).length;
    const perClient = (last.clients ?? []).map((client) => `${client.client.name}: ${client.lastSync?.outcome} ${client.lastSync?.torrents} torrents, ${client.lastSync?.requests} lookups, ended at ${round((endedAt.get(client.client.name) ?? Number.NaN) / 1000)} s`);
    report.push(
      `index of several clients in ${browserName}, ${planWords(plan)} = ${total.toLocaleString('en')} torrents: first syncs ${last.lastSync?.outcome} in ${round(syncMs / 1000)} s, ${syncLookups.length} lookups (gaps between them: median ${round(median(gaps) / 1000, 2)} s, shortest ${round(Math.min(...gaps) / 1000, 2)} s), ${tooMany} answered 429`,
      `  ${perClient.join('; ')}`,
      `  the clients' list reads: ${masses.map((mass) => `${mass.config.type} ${mass.listReads().length} requests, ${mb(mass.listReads().reduce((sum, read) => sum + read.bytes, 0))} MB`).join('; ')}`,
    );
    log(report.slice(-3).join('\n'));
    if (last.lastSync?.outcome !== 'done') {
      problems.push(`${id('sync')}: the first syncs ended ${last.lastSync?.outcome}: ${JSON.stringify(last.lastSync).slice(0, 400)}`);
      return { figures: [], report, problems, details: { ...details, syncMs, status: last } };
    }

    // Right after the syncs end: the list page and the whole index (Chromium: worker stopped first).
    let b = browser;
    if (kind === 'chromium') {
      const page = await b.openExtensionPage('manifest.json');
      worker = await watchExtensionWorker(page.raw as PlaywrightPage, b.extensionOrigin);
    }
    const stop = worker ? () => worker!.stop() : undefined;
    const warmup = await view(b);
    const afterSync: Sample[] = [];
    for (let index = 0; index < SAMPLES; index++) afterSync.push(await view(b, stop));
    checkViews(afterSync, 'right after the sync');
    const loadsAfterSync: number[] = [];
    for (let index = 0; index < SAMPLES; index++) {
      await stop?.();
      const timed = await ext.timedStatus();
      loadsAfterSync.push(timed.ms);
      if (timed.torrents !== total) problems.push(`${id('')}: index:status counted ${timed.torrents} torrents right after the sync, not ${total}`);
    }
    const afterSyncMs = Date.now() - started - syncMs;
    report.push(
      `  right after the syncs (${kind === 'chromium' ? 'each after a worker stop' : 'warm: the background page is persistent'}; the first view ${round(warmup.toBadgeMs)} / ${round(warmup.toListMs)} ms not counted): badge ${afterSync.map((sample) => round(sample.toBadgeMs)).join(', ')} ms (of which until the background announced the page's view: ${afterSync.map((sample) => round(sample.toViewMs)).join(', ')} ms); popup list ${afterSync.map((sample) => round(sample.toListMs)).join(', ')} ms; index:status ${loadsAfterSync.map((ms) => round(ms)).join(', ')} ms (all within ${round(afterSyncMs / 1000)} s of the syncs' end)`,
    );
    log(report.at(-1)!);

    // Placing, as "Find them now" asks, then every index settled.
    last = await ext.status();
    if (last.counts?.toPlace) {
      await ext.send({ type: 'index:place' });
      for (let tries = 0; ; tries++) {
        last = await ext.status();
        if (!last.running && (last.clients ?? []).every((client) => client.lastPlacing || !client.counts?.toPlace)) break;
        if (tries > 4800) throw new Error(`the placing runs did not end: ${JSON.stringify(last.running)}`);
        await sleep(250);
      }
    }
    const placingLookups = lookups().length - lookupsBefore - syncLookups.length;
    const placed = Date.now();
    while (!(await ext.status()).settled) {
      if (Date.now() - placed > 180_000) throw new Error(`the indexes of ${total} did not settle within 180 s of the runs' end`);
      await sleep(200);
    }
    const settledMs = Date.now() - placed;
    const usedAfter = await ext.usage();

    const figures: Figure[] = [
      { id: id('sync'), bench: plan.bench, label: `${planWords(plan)} torrents (loopback WebUIs, recorded entries), built extension in ${browserName}: first syncs of every client, paced through one lane`, value: round(syncMs / 1000), unit: 's' },
      { id: id('lookups'), bench: plan.bench, label: `  … its lookups, all clients (≤ 1 per 200 torrents)`, value: syncLookups.length, unit: 'requests', budget: { op: '<=', limit: Math.ceil(total / 200) } },
      { id: id('429'), bench: plan.bench, label: '  … lookups the service refused with 429 (paced by the service, not by each other)', value: tooMany, unit: 'requests', budget: { op: '<=', limit: 0 } },
      { id: id('gap'), bench: plan.bench, label: '  … median gap between two lookups (one lane for every client)', value: round(median(gaps) / 1000, 2), unit: 's' },
      { id: id('badge-after-sync'), bench: plan.bench, label: `  … right after the syncs end, ${kind === 'chromium' ? 'worker stopped' : 'warm (persistent background page)'}: 100-row list page, DOMContentLoaded → badge (median of ${SAMPLES})`, value: round(median(afterSync.map((sample) => sample.toBadgeMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
      { id: id('list-after-sync'), bench: plan.bench, label: '  … → the popup’s index:page answered (median)', value: round(median(afterSync.map((sample) => sample.toListMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
      { id: id('whole-index-after-sync'), bench: plan.bench, label: `  … right after the syncs end${kind === 'chromium' ? ', worker stopped' : ''}: index:status, every client's index (median of ${SAMPLES})`, value: round(median(loadsAfterSync)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
    ];
    Object.assign(details, { syncMs, endedAt: Object.fromEntries(endedAt), lookups: syncLookups.length, gaps, tooMany, afterSync, warmup, loadsAfterSync, placingLookups, settledMs, usedBefore, usedAfter });

    if (kind === 'chromium') {
      const page = await b.openExtensionPage('manifest.json');
      await ext.status(); // every index loaded
      const heap = await WorkerHeap.attach(page.raw as PlaywrightPage, b.extensionOrigin);
      const heapBytes = await heap.usedAfterGc();
      await heap.close();
      const settledViews: Sample[] = [];
      for (let index = 0; index < SAMPLES; index++) settledViews.push(await view(b, stop));
      checkViews(settledViews, 'settled, after a worker stop');
      const loads: number[] = [];
      for (let index = 0; index < SAMPLES; index++) {
        await stop!();
        loads.push((await ext.timedStatus()).ms);
      }
      const usedAtRest = await ext.usage();
      figures.push(
        { id: id('bytes-per-torrent'), bench: plan.bench, label: '  … IndexedDB bytes a torrent across every client, at rest (storage.estimate() grown ÷ torrents, the database opened again)', value: Math.round((usedAtRest - usedBefore) / total), unit: 'bytes', budget: { op: '<=', limit: 1024 } },
        { id: id('heap'), bench: plan.bench, label: '  … service worker JS heap after GC, every index loaded', value: mb(heapBytes), unit: 'MB' },
        { id: id('badge-settled'), bench: plan.bench, label: `  … settled, worker stopped: DOMContentLoaded → badge (median of ${SAMPLES})`, value: round(median(settledViews.map((sample) => sample.toBadgeMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
        { id: id('list-settled'), bench: plan.bench, label: '  … → the popup’s index:page answered (median)', value: round(median(settledViews.map((sample) => sample.toListMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
        { id: id('whole-index-load'), bench: plan.bench, label: `  … settled, worker stopped: index:status (median of ${SAMPLES})`, value: round(median(loads)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
      );
      report.push(
        `  placing ${placingLookups} lookups; settled ${settledMs} ms after the runs; storage ${mb(usedBefore)} → ${mb(usedAfter)} MB (${mb(usedAtRest)} MB at rest); worker heap after GC ${mb(heapBytes)} MB`,
        `  settled, after worker stops: badge ${settledViews.map((sample) => round(sample.toBadgeMs)).join(', ')} ms (view announced at ${settledViews.map((sample) => round(sample.toViewMs)).join(', ')} ms); popup list ${settledViews.map((sample) => round(sample.toListMs)).join(', ')} ms; index:status ${loads.map((ms) => round(ms)).join(', ')} ms`,
      );
      Object.assign(details, { heapBytes, settledViews, loads, usedAtRest });
    } else {
      await ext.status(); // every index loaded
      const memoryWarm = firefoxMemory(b);
      const pageWarm = await pageMemory(b, 'every index loaded');
      // Firefox offers an extension no GC: the same after IDLE_MS with nothing asked, its own GCs done.
      await sleep(IDLE_MS);
      const memoryIdle = firefoxMemory(b);
      // Closed and started again on the same profile: each sample its own start.
      const restartedViews: Sample[] = [];
      const restartLoads: number[] = [];
      for (let index = 0; index < SAMPLES; index++) {
        b = browser = await b.restart('quit');
        ext = extension(b);
        restartedViews.push(await view(b));
      }
      checkViews(restartedViews, 'after Firefox started again');
      for (let index = 0; index < SAMPLES; index++) {
        b = browser = await b.restart('quit');
        ext = extension(b);
        const timed = await ext.timedStatus();
        restartLoads.push(timed.ms);
        if (timed.torrents !== total) problems.push(`${id('')}: index:status counted ${timed.torrents} torrents after a restart, not ${total}`);
      }
      await sleep(IDLE_MS);
      const memoryRestarted = firefoxMemory(b);
      const pageRestarted = await pageMemory(b, 'after a restart, every index loaded');
      const usedAtRest = await ext.usage();
      const memoryWords = (memory: ProcessMemory | undefined) => (memory ? `RSS ${mb(memory.rssBytes)} MB, PSS ${mb(memory.pssBytes)} MB, USS ${mb(memory.ussBytes)} MB` : 'not found');
      figures.push(
        { id: id('bytes-per-torrent'), bench: plan.bench, label: '  … IndexedDB bytes a torrent across every client, at rest (storage.estimate() grown ÷ torrents, after Firefox started again)', value: Math.round((usedAtRest - usedBefore) / total), unit: 'bytes', budget: { op: '<=', limit: 1024 } },
        { id: id('badge-after-restart'), bench: plan.bench, label: `  … Firefox closed and started again (same profile, each view its own start): DOMContentLoaded → badge (median of ${SAMPLES})`, value: round(median(restartedViews.map((sample) => sample.toBadgeMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
        { id: id('list-after-restart'), bench: plan.bench, label: '  … → the popup’s index:page answered (median)', value: round(median(restartedViews.map((sample) => sample.toListMs))), unit: 'ms', budget: { op: '<=', limit: 100 } },
        { id: id('whole-index-after-restart'), bench: plan.bench, label: `  … Firefox started again: index:status from its first extension page (median of ${SAMPLES})`, value: round(median(restartLoads)), unit: 'ms', budget: { op: '<=', limit: 1000 } },
      );
      const pageWords = (memory: BackgroundPageMemory | undefined) => (memory ? `${mb(memory.bytes)} MB (JS ${mb(memory.jsBytes)} MB)` : 'no report');
      if (pageWarm) {
        figures.push({
          id: id('page-memory'),
          bench: plan.bench,
          label: `  … the background page with every index loaded, after a minimized GC: what Firefox's memory reporters give under its window, JS heap included (budget: Chromium's worker heap after GC at 100,000, ${CHROMIUM_WORKER_MB} MB)`,
          value: mb(pageWarm.bytes),
          unit: 'MB',
          budget: { op: '<=', limit: CHROMIUM_WORKER_MB },
        });
        if (pageBefore) figures.push({ id: id('page-memory-growth'), bench: plan.bench, label: '  … of which the indexes (grown since before the syncs)', value: mb(pageWarm.bytes - pageBefore.bytes), unit: 'MB' });
      }
      if (pageRestarted) figures.push({ id: id('page-memory-restarted'), bench: plan.bench, label: '  … the same after Firefox started again, every index loaded', value: mb(pageRestarted.bytes), unit: 'MB', budget: { op: '<=', limit: CHROMIUM_WORKER_MB } });
      if (memoryWarm) figures.push({ id: id('process-memory'), bench: plan.bench, label: `  … unbudgeted: the whole extension process (WebExtensions) with every index loaded, warm, its RSS (Firefox's own share of every extension page in it; before the syncs ${memoryBefore ? mb(memoryBefore.rssBytes) : '?'} MB)`, value: mb(memoryWarm.rssBytes), unit: 'MB' });
      if (memoryRestarted) figures.push({ id: id('process-memory-restarted'), bench: plan.bench, label: `  … unbudgeted: the same after Firefox started again, every index loaded, ${IDLE_MS / 1000} s idle`, value: mb(memoryRestarted.rssBytes), unit: 'MB' });
      report.push(
        `  placing ${placingLookups} lookups; settled ${settledMs} ms after the runs; storage ${mb(usedBefore)} → ${mb(usedAfter)} MB (${mb(usedAtRest)} MB at rest)`,
        `  background page (Firefox's memory reporters, minimized): before the syncs ${pageWords(pageBefore)}; every index loaded ${pageWords(pageWarm)}; after a restart, loaded ${pageWords(pageRestarted)}`,
        `  extension process: before the syncs ${memoryWords(memoryBefore)}; warm, indexes loaded ${memoryWords(memoryWarm)}; ${IDLE_MS / 1000} s later ${memoryWords(memoryIdle)}; after a restart, loaded, ${IDLE_MS / 1000} s idle ${memoryWords(memoryRestarted)}`,
        `  after Firefox started again: badge ${restartedViews.map((sample) => round(sample.toBadgeMs)).join(', ')} ms (view announced at ${restartedViews.map((sample) => round(sample.toViewMs)).join(', ')} ms); popup list ${restartedViews.map((sample) => round(sample.toListMs)).join(', ')} ms; index:status ${restartLoads.map((ms) => round(ms)).join(', ')} ms`,
      );
      Object.assign(details, { pageBefore, pageWarm, pageRestarted, memoryBefore, memoryWarm, memoryIdle, memoryRestarted, restartedViews, restartLoads, usedAtRest });
    }
    log(report.slice(-2).join('\n'));
    return { figures, report, problems, details };
  } finally {
    await worker?.close();
    await browser?.close();
    await world?.close();
    for (const mass of masses) await mass.close();
  }
}

export async function measureIndexMulti(options: { extensionDirs: Record<BrowserKind, string>; plan: IndexMultiPlan; browsers?: readonly BrowserKind[]; log?: (line: string) => void }): Promise<BenchOutcome> {
  const log = options.log ?? (() => undefined);
  const outcome: Required<BenchOutcome> = { figures: [], report: [], problems: [], details: {} };
  for (const kind of options.browsers ?? (['chromium', 'firefox'] as const)) {
    log(`  ${kind}: ${planWords(options.plan)}…`);
    try {
      const result = await measureInBrowser(kind, options.plan, options.extensionDirs[kind], log);
      outcome.figures.push(...result.figures);
      outcome.report.push(...result.report);
      outcome.problems.push(...result.problems);
      (outcome.details as Record<string, unknown>)[kind] = result.details;
    } catch (error) {
      outcome.problems.push(`${kind}: not measured: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  return outcome;
}

/** Alone: `npx tsx bench/index-multi-browser.ts [full] [chromium|firefox]` on .output/ as built. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { DEFAULT_EXTENSION_DIRS } = await import('../test/e2e/harness/index.ts');
  const args = process.argv.slice(2);
  // `tiny`: a tenth of the default plan, to try the bench itself.
  const plan = args.includes('full') ? INDEX_MULTI_FULL_PLAN : args.includes('tiny') ? { ...INDEX_MULTI_PLAN, clients: INDEX_MULTI_PLAN.clients.map((client) => ({ ...client, torrents: client.torrents / 10 })) } : INDEX_MULTI_PLAN;
  const browsers = (['chromium', 'firefox'] as const).filter((kind) => !args.some((arg) => arg === 'chromium' || arg === 'firefox') || args.includes(kind));
  const outcome = await measureIndexMulti({ extensionDirs: DEFAULT_EXTENSION_DIRS, plan, browsers, log: (line) => process.stderr.write(`${line}\n`) });
  console.log(outcome.report?.join('\n'));
  for (const figure of outcome.figures) console.log(`${figure.id}\t${figure.value} ${figure.unit}${figure.budget ? `\t(budget ${figure.budget.op} ${figure.budget.limit})` : ''}\t${figure.label}`);
  if (outcome.problems?.length) console.log(`PROBLEMS:\n${outcome.problems.join('\n')}`);
  process.stdout.write(`${JSON.stringify(outcome.details)}\n`);
  process.exit(0);
}
