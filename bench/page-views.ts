/**
 * The built extension in Chromium against the reference service (as 2025.iyuu.cn behind the e2e
 * router), configured through its options page as a person would:
 *
 *  - requests per page view: every request the router saw to the service host between opening a
 *    tracker page and the next one (after the badge showed, the router must stay quiet for
 *    SETTLE_MS), cold (a torrent never looked up) and warm (the same torrents again);
 *  - time to badge: from the tracker page's navigation start (its performance.timeOrigin) to the
 *    moment an extension page receives the background's 'view:changed' with status 'done' for that
 *    tab. The background sends that message in the same step as it sets the badge text
 *    (TabViews.set); the badge text is read afterwards and must equal the candidate count. Also
 *    given from the page's load event (loadEventEnd). Medians over several page views.
 *  - with 10,000 answers in the extension's own cache (written through the real AnswerCache in an
 *    extension page): time to badge for pages with 1 and 100 hashes among them, no request
 *    allowed, and the service worker's JS heap (CDP Runtime.getHeapUsage after
 *    HeapProfiler.collectGarbage) before and after, and storage.local's bytes in use.
 */
import type { CDPSession, Page } from 'playwright-core';
import { bundleForPage } from './browser';
import { median, type BenchOutcome, type Figure } from './figures';
import type { SeedRequest, SeedResult } from './seed-cache.page';
import { launchBrowser, type HarnessBrowser, type HarnessPage } from '../test/e2e/harness/index.ts';
import { nexusListPage } from '../test/fixtures/pages/generate';
import { DEMO_TOKEN } from '../test/service/server';
import { SERVICE_BASE_URL, SERVICE_HOST, nexusDetailsPage, startWorld, type TrackerTorrent, type World } from '../test/e2e/world';

const TRACKER_HOST = 'hdsky.me';
const COLD_VIEWS = 6;
const SETTLE_MS = 300;
const CACHED_ANSWERS = 10_000;
const CACHED_DETAIL_VIEWS = 5;
const CACHED_LIST_VIEWS = 3;
/** 111 rows of nexusListPage: every 10th row has no hash, so 100 hashes. */
const LIST_ROWS = 111;

interface ViewEvent {
  tabId: number;
  status: string;
  at: number;
  candidates: number;
}

export interface ViewSample {
  url: string;
  /** Navigation start → 'view:changed' done (ms). */
  toBadgeMs: number;
  /** Load event end → the same (ms). */
  loadToBadgeMs: number;
  badge: string;
  candidates: number;
  hashes?: number;
  /** Requests to the service during this view, by path. */
  requests: Record<string, number>;
  lookups: number;
  total: number;
  /** Each service request: its path and when the router received it (ms after navigation start). */
  timeline: string[];
}

/** The service worker's JS heap through a browser-level CDP session (the worker has no page). */
export class WorkerHeap {
  private nextId = 0;
  private readonly waiting = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();

  private constructor(
    private readonly session: CDPSession,
    private readonly sessionId: string,
  ) {
    session.on('Target.receivedMessageFromTarget', (event: { sessionId: string; message: string }) => {
      if (event.sessionId !== this.sessionId) return;
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
    });
  }

  static async attach(page: Page, extensionOrigin: string): Promise<WorkerHeap> {
    const owner = page.context().browser();
    if (!owner) throw new Error('no browser-level CDP session available');
    const session = await owner.newBrowserCDPSession();
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
    const worker = targetInfos.find((target) => target.type === 'service_worker' && target.url.startsWith(extensionOrigin));
    if (!worker) throw new Error("the extension's service worker is not running");
    // Non-flat attach: Playwright's CDPSession cannot address a child session directly.
    const { sessionId } = (await session.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false })) as { sessionId: string };
    return new WorkerHeap(session, sessionId);
  }

  private call<T>(method: string, params: object = {}): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, (message) => {
        this.waiting.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result as T);
      });
      void this.session.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) });
    });
  }

  /** Used JS heap after a full collection (bytes). */
  async usedAfterGc(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
    return (await this.call<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  }

  async close(): Promise<void> {
    await this.session.detach().catch(() => undefined);
  }
}

async function configureThroughOptions(browser: HarnessBrowser): Promise<void> {
  const options = await browser.openExtensionPage('options.html');
  await options.waitForSelector('#baseUrl', { state: 'visible' });
  await options.fill('#baseUrl', SERVICE_BASE_URL);
  await options.fill('#token', DEMO_TOKEN);
  await options.click('#save');
  await options.waitForSelector('.status.ok');
  await options.close();
}

/** Records every 'view:changed' the background broadcasts, stamped on arrival (epoch ms). */
async function listenToViews(browser: HarnessBrowser): Promise<void> {
  await browser.evaluateInExtension((api) => {
    const store = globalThis as unknown as { benchViews?: ViewEvent[] };
    if (store.benchViews) return;
    store.benchViews = [];
    api.runtime.onMessage.addListener((message: unknown) => {
      const changed = message as { type?: string; view?: { tabId: number; status: string; candidates: unknown[] } };
      if (changed?.type !== 'view:changed' || !changed.view) return undefined;
      store.benchViews!.push({ tabId: changed.view.tabId, status: changed.view.status, at: performance.timeOrigin + performance.now(), candidates: changed.view.candidates.length });
      return undefined;
    });
  });
}

async function waitMs(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

class Views {
  constructor(
    private readonly browser: HarnessBrowser,
    private readonly world: World,
  ) {}

  /** Waits until the router has seen nothing new for SETTLE_MS (at most 5 s). */
  private async settle(): Promise<void> {
    const until = Date.now() + 5_000;
    let count = this.world.router.requests.length;
    let quietSince = Date.now();
    while (Date.now() - quietSince < SETTLE_MS && Date.now() < until) {
      await waitMs(50);
      if (this.world.router.requests.length !== count) {
        count = this.world.router.requests.length;
        quietSince = Date.now();
      }
    }
  }

  async view(path: string): Promise<ViewSample> {
    const url = `http://${TRACKER_HOST}${path}`;
    const firstRequest = this.world.router.requests.length;
    const page: HarnessPage = await this.browser.newPage();
    try {
      await page.goto(url);
      const navigation = await page.evaluate(() => {
        const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return { origin: performance.timeOrigin, loadEnd: entry?.loadEventEnd ?? 0 };
      });
      const tabId = await this.browser.tabIdOf(path);
      const deadline = Date.now() + 20_000;
      let event: ViewEvent | undefined;
      while (!event) {
        event = await this.browser.evaluateInExtension(
          (_api, wanted) =>
            ((globalThis as unknown as { benchViews?: ViewEvent[] }).benchViews ?? []).find(
              (seen) => seen.tabId === wanted.tabId && seen.at >= wanted.origin && (seen.status === 'done' || seen.status === 'error'),
            ) ?? null,
          { tabId, origin: navigation.origin },
        ) ?? undefined;
        if (!event && Date.now() > deadline) throw new Error(`${url}: no finished view within 20 s`);
        if (!event) await waitMs(25);
      }
      if (event.status !== 'done') throw new Error(`${url}: the view ended in status ${event.status}`);
      const badge = await this.browser.evaluateInExtension(async (api, id) => {
        const action = (api as unknown as { action?: typeof api.browserAction }).action ?? api.browserAction;
        return action.getBadgeText({ tabId: id });
      }, tabId);
      await this.settle();
      const requests: Record<string, number> = {};
      const toService = this.world.router.requests.slice(firstRequest).filter((request) => request.host === SERVICE_HOST);
      for (const request of toService) {
        const key = `${request.method} ${request.path.replace(/\?.*$/, '')}`;
        requests[key] = (requests[key] ?? 0) + 1;
      }
      return {
        url,
        toBadgeMs: event.at - navigation.origin,
        loadToBadgeMs: event.at - (navigation.origin + navigation.loadEnd),
        badge,
        candidates: event.candidates,
        requests,
        lookups: requests['POST /reseed/index/index'] ?? 0,
        total: toService.length,
        timeline: toService.map((request) => `${request.path.replace(/\?.*$/, '').replace(/^\/reseed\//, '')} @${Math.round(request.time - navigation.origin)} ms`),
      };
    } finally {
      await page.close();
    }
  }
}

export function hdskyTorrents(world: World, count: number): TrackerTorrent[] {
  const found: TrackerTorrent[] = [];
  for (const group of world.service.data.torrents) {
    const member = group.members.find((candidate) => candidate.site === 'hdsky');
    if (member) found.push({ site: 'hdsky', torrentId: member.torrent_id, hash: member.info_hash, title: group.title });
  }
  if (found.length < count) throw new Error(`the reference data has ${found.length} torrents on hdsky, ${count} wanted`);
  return found.slice(0, count);
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function measurePageViews(options: { extensionDir: string; log?: (line: string) => void }): Promise<BenchOutcome> {
  const log = options.log ?? (() => undefined);
  const problems: string[] = [];
  const world = await startWorld();
  let browser: HarnessBrowser | undefined;
  let heap: WorkerHeap | undefined;
  try {
    const torrents = hdskyTorrents(world, COLD_VIEWS);
    const pages: Record<string, string> = {};
    for (const torrent of torrents) pages[`/details.php?id=${torrent.torrentId}`] = nexusDetailsPage(torrent);

    // Pages for the 10,000-answer part: hashes that only the seeded cache knows.
    const cachedDetails: TrackerTorrent[] = Array.from({ length: CACHED_DETAIL_VIEWS }, (_, index) => {
      const hash = (0x5eed0000 + index).toString(16).padStart(8, '0').repeat(5);
      return { site: 'hdsky', torrentId: 700_000 + index, hash, title: `Cached ${index}` };
    });
    for (const torrent of cachedDetails) pages[`/details.php?id=${torrent.torrentId}`] = nexusDetailsPage(torrent);
    const lists = Array.from({ length: CACHED_LIST_VIEWS }, (_, index) => nexusListPage({ rows: LIST_ROWS, seed: 101 + index }));
    lists.forEach((list, index) => (pages[`/torrents.php?page=${index}`] = list.html));
    world.router.setHost(TRACKER_HOST, pages);

    browser = await launchBrowser('chromium', { proxyPort: world.router.port, extensionDir: options.extensionDir });
    const firstPage = await browser.newPage();
    heap = await WorkerHeap.attach(firstPage.raw as Page, browser.extensionOrigin).catch((error: unknown) => {
      problems.push(`service worker heap not measured: ${String(error)}`);
      return undefined;
    });
    await firstPage.close();
    await configureThroughOptions(browser);
    await listenToViews(browser);
    const views = new Views(browser, world);
    const configureRequests = world.router.requestsTo(SERVICE_HOST).map((request) => `${request.method} ${request.path.replace(/\?.*$/, '')}`);
    const afterConfigure = configureRequests.length;

    log(`page views: ${COLD_VIEWS} cold, ${COLD_VIEWS} warm…`);
    const cold: ViewSample[] = [];
    for (const torrent of torrents) cold.push(await views.view(`/details.php?id=${torrent.torrentId}`));
    const warm: ViewSample[] = [];
    for (const torrent of torrents) warm.push(await views.view(`/details.php?id=${torrent.torrentId}`));
    for (const sample of [...cold, ...warm]) {
      if (sample.badge !== String(sample.candidates)) problems.push(`${sample.url}: badge "${sample.badge}", ${sample.candidates} candidates`);
    }

    log(`${CACHED_ANSWERS.toLocaleString('en')} answers in the extension's cache…`);
    const heapBefore = heap ? await heap.usedAfterGc() : Number.NaN;
    const sids = world.service.data.sites.map((site) => site.id).filter((id): id is number => typeof id === 'number');
    const seedRequest: SeedRequest = {
      include: [...cachedDetails.map((torrent) => torrent.hash), ...lists.flatMap((list) => list.expect.map((row) => row.hash))],
      total: CACHED_ANSWERS,
      sids,
      seed: 42,
    };
    const bundle = await bundleForPage('bench/seed-cache.page.ts', 'benchSeed');
    const seedPage = await browser.openExtensionPage('manifest.json');
    // Evaluated over CDP: an extension page's CSP forbids eval() and inline scripts, not this.
    const seeded = (await (seedPage.raw as Page).evaluate(
      `(async () => { ${bundle}; return await benchSeed.seed(${JSON.stringify(seedRequest)}); })()`,
    )) as SeedResult;
    await seedPage.close();
    const heapSeeded = heap ? await heap.usedAfterGc() : Number.NaN;
    const beforeCached = world.router.requestsTo(SERVICE_HOST).length;
    const cachedOne: ViewSample[] = [];
    for (const torrent of cachedDetails) cachedOne.push(await views.view(`/details.php?id=${torrent.torrentId}`));
    const cachedHundred: ViewSample[] = [];
    for (let index = 0; index < lists.length; index++) {
      const sample = await views.view(`/torrents.php?page=${index}`);
      cachedHundred.push({ ...sample, hashes: lists[index]!.expect.length });
    }
    const heapAfter = heap ? await heap.usedAfterGc() : Number.NaN;
    const cachedRequests = world.router.requestsTo(SERVICE_HOST).length - beforeCached;
    if (cachedRequests) problems.push(`${cachedRequests} service request(s) while every hash was cached (the seeded cache was not used)`);
    for (const sample of [...cachedOne, ...cachedHundred]) {
      if (sample.badge !== String(sample.candidates)) problems.push(`${sample.url}: badge "${sample.badge}", ${sample.candidates} candidates`);
    }

    const later = cold.slice(1);
    const max = (samples: ViewSample[], pick: (sample: ViewSample) => number) => Math.max(...samples.map(pick));
    const figures: Figure[] = [
      {
        id: 'pageviews.requests.first',
        bench: 'pageviews',
        label: 'service requests, very first page view (1 lookup + the one-off site list / site report)',
        value: cold[0]!.total,
        unit: 'requests',
        budget: { op: '<=', limit: 3 },
        note: JSON.stringify(cold[0]!.requests),
      },
      {
        id: 'pageviews.requests.cold.lookups',
        bench: 'pageviews',
        label: `lookup requests per cold page view (max of ${later.length})`,
        value: max(later, (sample) => sample.lookups),
        unit: 'requests',
        budget: { op: '<=', limit: 1 },
      },
      {
        id: 'pageviews.requests.cold.all',
        bench: 'pageviews',
        label: `service requests of any kind per cold page view (max of ${later.length})`,
        value: max(later, (sample) => sample.total),
        unit: 'requests',
        budget: { op: '<=', limit: 1 },
      },
      {
        id: 'pageviews.requests.warm',
        bench: 'pageviews',
        label: `service requests per warm page view (max of ${warm.length})`,
        value: max(warm, (sample) => sample.total),
        unit: 'requests',
        budget: { op: '<=', limit: 0 },
      },
      {
        id: 'pageviews.badge.first',
        bench: 'pageviews',
        label: 'navigation start → badge, very first page view',
        value: round(cold[0]!.toBadgeMs),
        unit: 'ms',
      },
      {
        id: 'pageviews.badge.cold',
        bench: 'pageviews',
        label: `navigation start → badge, cold cache (median of ${later.length})`,
        value: round(median(later.map((sample) => sample.toBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'pageviews.badge.warm',
        bench: 'pageviews',
        label: `navigation start → badge, warm cache (median of ${warm.length})`,
        value: round(median(warm.map((sample) => sample.toBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'pageviews.loadToBadge.cold',
        bench: 'pageviews',
        label: `load event end → badge, cold cache (median of ${later.length}; < 0: before it)`,
        value: round(median(later.map((sample) => sample.loadToBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'pageviews.loadToBadge.warm',
        bench: 'pageviews',
        label: `load event end → badge, warm cache (median of ${warm.length}; < 0: before it)`,
        value: round(median(warm.map((sample) => sample.loadToBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'cache.extension.badge.one',
        bench: 'pageviews',
        label: `1-hash page, answer among ${CACHED_ANSWERS.toLocaleString('en')} cached: navigation → badge (median of ${cachedOne.length})`,
        value: round(median(cachedOne.map((sample) => sample.toBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'cache.extension.badge.hundred',
        bench: 'pageviews',
        label: `100-hash list page, among ${CACHED_ANSWERS.toLocaleString('en')} cached: navigation → badge (median of ${cachedHundred.length})`,
        value: round(median(cachedHundred.map((sample) => sample.toBadgeMs))),
        unit: 'ms',
      },
      {
        id: 'cache.extension.requests',
        bench: 'pageviews',
        label: 'service requests for those cached pages',
        value: cachedRequests,
        unit: 'requests',
        budget: { op: '<=', limit: 0 },
      },
      {
        id: 'cache.extension.storageBytes',
        bench: 'pageviews',
        label: `storage.local bytes for ${seeded.stored.toLocaleString('en')} answers (${seeded.candidates.toLocaleString('en')} candidates)`,
        value: seeded.bytesAfter - seeded.bytesBefore,
        unit: 'bytes',
      },
      {
        id: 'cache.extension.workerHeap',
        bench: 'pageviews',
        label: 'service worker JS heap after GC, after those page views',
        value: heapAfter,
        unit: 'bytes',
        note: `before seeding ${heapBefore} B, after seeding ${heapSeeded} B`,
      },
    ];
    const line = (sample: ViewSample) =>
      `    ${sample.url.padEnd(44)} ${sample.toBadgeMs.toFixed(1).padStart(7)} ms from navigation, ${sample.loadToBadgeMs.toFixed(1).padStart(7)} ms from load; badge ${sample.badge}` +
      (sample.timeline.length ? `; ${sample.timeline.join(', ')}` : '; no request');
    const report = [
      'page views (Chromium, built extension, reference service as 2025.iyuu.cn):',
      `  configuring through the options page sent ${afterConfigure} request(s) to the service${afterConfigure ? `: ${configureRequests.join(', ')}` : ''}`,
      '  cold:',
      ...cold.map(line),
      '  warm:',
      ...warm.map(line),
      `  ${seeded.stored.toLocaleString('en')} answers written by AnswerCache.put in an extension page in ${seeded.putMs.toFixed(0)} ms; storage.local ${seeded.bytesBefore} → ${seeded.bytesAfter} B`,
      `  service worker JS heap after GC: ${heapBefore} B before seeding, ${heapSeeded} B after, ${heapAfter} B after the cached page views`,
      ...cachedOne.map(line),
      ...cachedHundred.map(line),
    ];
    return { figures, report, problems, details: { configureRequests, cold, warm, cachedOne, cachedHundred, seeded, heap: { heapBefore, heapSeeded, heapAfter } } };
  } finally {
    await heap?.close();
    await browser?.close();
    await world.close();
  }
}
