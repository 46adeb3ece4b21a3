/**
 * "Cross-seed your client" (issue 17, Bench), in Node, through the real background (BackgroundApp,
 * the messages routed as cross-seed.html sends them), WXT's fake browser standing in for the
 * extension APIs as in bench/crossseed-node.ts:
 *
 *   node --expose-gc --import tsx bench/crossseed-job-node.ts overhead  → the job's per-torrent overhead
 *   node --expose-gc --import tsx bench/crossseed-job-node.ts overhead-renamed  → the same, every candidate a renamed copy
 *   node --expose-gc --import tsx bench/crossseed-job-node.ts preview   → `job:preview` of a 100,000-torrent index
 *   node --expose-gc --import tsx bench/crossseed-job-node.ts state     → the job state's bytes at 1,000 and 10,000
 *
 * JSON on the last line (bench/run.ts reads it).
 *
 * overhead: a real qbittorrent-nox and the test trackers of test/e2e/support/cross-seed-world.ts;
 * the candidate site's pace set to 0 s and 1,000 a day. Every site keeps a fixed gap between two
 * downloads (utils/cross-seed-engine/site-queue SITE_GAP_MS, 1 s): it is not the job's, so a
 * torrent's own time is counted from the moment it could start (the site moved on from the one
 * before, and the gap after the previous download over; the job's start for the first) to the moment
 * the site moves on from it (`job:changed`): for one added, when it is in the job's state as
 * `checking` — downloaded, info-hash and files checked, added stopped, the add confirmed, recorded
 * (the issue's "download, checks, add"); for one not added, its outcome. Not hidden: the time until
 * each added one is started at 100 % (the client's check, the start confirmed; its outcome
 * announced), from the same moment, unbudgeted.
 *
 * preview: an index of 100,000 client torrents synced (unpaced) from the reference service into
 * the background's own ClientIndexes, opportunities on 10 sites; then `job:preview` through the
 * router, its time and the longest stretch the event loop stayed blocked during it (a 0 ms timer
 * chain measures the gaps between its turns): the first after the sync (the index's per-site map
 * built again), then three each after the sites' 1 s gap (a site's readiness request waits for
 * it), then one back to back. The sites' readiness requests are answered at once
 * by a stand-in site fetch (they are one per site and wait on the network in real life).
 */
import { fakeBrowser } from './fake-browser';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { median, type Figure } from './figures';
import { longestBlock, percentile, perTorrentOverhead } from './job-figures';
import type { NodeBenchOutput } from './lookup-node';
import { ownClient } from '../test/clients/own-client';


export const OVERHEAD_RUNS = 12;
export const PREVIEW_TORRENTS = 100_000;
export const PREVIEW_SITES = 10;

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function background() {
  const { installPermissions } = await import('../test/unit/support/permissions');
  const { installSessionRules } = await import('../test/unit/support/client-browser');
  fakeBrowser.reset();
  // The fake browser's i18n, reading the real English messages (outcomes are put into words).
  const messages = JSON.parse(readFileSync(new URL('../public/_locales/en/messages.json', import.meta.url), 'utf8')) as Record<string, { message: string }>;
  Object.assign(fakeBrowser.i18n, {
    getMessage: (key: string, substitutions: string | string[] = []) =>
      (messages[key]?.message ?? '').replace(/\$(\d)/g, (_: string, index: string) => [substitutions].flat()[Number(index) - 1] ?? ''),
    getUILanguage: () => 'en',
  });
  installPermissions();
  installSessionRules();
}

// --------------------------------------------------------------------------------------------
// 1. Per-torrent overhead at pace 0

/**
 * The job's per-torrent overhead; with `renamed`, every candidate is a renamed copy (issue 25: its
 * bytes under another root folder), so a torrent's own time holds its rename in the client too.
 */
async function overhead(renamed = false): Promise<NodeBenchOutput> {
  const { extensionClientFetch } = await import('../test/unit/support/client-browser');
  const { startQbittorrent } = await import('../test/clients/daemons');
  const { proxiedFetch } = await import('../test/clients/proxy-fetch');
  const { startCrossSeedWorld, CANDIDATE_SITE, PAGE_SITE } = await import('../test/e2e/support/cross-seed-world');
  const { SERVICE_BASE_URL } = await import('../test/e2e/world');
  const { DEMO_TOKEN } = await import('../test/service/server');
  const { BackgroundApp } = await import('../entrypoints/background/app');
  const { routeMessage } = await import('../entrypoints/background/router');
  const { SETTINGS_KEY } = await import('../features/settings/settings.storage');
  const { SITE_GAP_MS } = await import('../utils/cross-seed-engine/site-queue');

  await background();
  const daemon = await startQbittorrent();
  const cs = await startCrossSeedWorld({ pairs: OVERHEAD_RUNS, renamedPairs: renamed });
  const problems: string[] = [];
  try {
    const own = ownClient(daemon);
    for (let index = 0; index < OVERHEAD_RUNS; index++) await cs.seed(own, daemon.dataDir, index);
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    await fakeBrowser.storage.local.set({
      [SETTINGS_KEY]: { version: 1, baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid], askedForSites: true },
    });
    // When each torrent (by torrent id) was first heard at its check (added stopped) and in the report.
    const checkingAt = new Map<number, number>();
    const outcomeAt = new Map<number, number>();
    let app: InstanceType<typeof BackgroundApp> | undefined;
    fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
      // Each job:changed carries the outcomes added since the last (features/cross-seed-job/job-change.ts).
      const changed = message as { type?: string; change?: { outcomes: { torrentId: number }[] } };
      if (changed.type !== 'job:changed' || !changed.change) return;
      const at = performance.now();
      for (const outcome of changed.change.outcomes) if (!outcomeAt.has(outcome.torrentId)) outcomeAt.set(outcome.torrentId, at);
      // The page's view does not list the torrents at their check: the job's state as just written does.
      const stored = (app?.crossSeedJob as unknown as { job?: { sites: { checking?: { torrentId: number }[] }[] } } | undefined)?.job;
      for (const site of stored?.sites ?? []) for (const item of site.checking ?? []) if (!checkingAt.has(item.torrentId)) checkingAt.set(item.torrentId, at);
    });
    app = new BackgroundApp({ fetch: proxiedFetch(cs.world.router.port), clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
    const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };
    const fromPage = <T>(message: Record<string, unknown>) => routeMessage(app, message, page, extension) as Promise<T>;
    try {
      await fromPage({ type: 'clients:save', client: { type: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password } });
      await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
      await app.index.run('sync');
      await fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 1000 });
      const preview = await fromPage<{ sites: { sid: number; count: number }[] }>({ type: 'job:preview' });
      const count = preview.sites.find((site) => site.sid === CANDIDATE_SITE.sid)?.count ?? 0;
      // Every pair's candidate, and the world's other release of pair 0 (its files differ: downloaded, checked, not added).
      if (count !== OVERHEAD_RUNS + 1) problems.push(`the preview found ${count} torrents to add for ${OVERHEAD_RUNS} pairs and the other release`);
      // The preview's readiness request went to the site: its fixed gap is over before the job starts (it is not the job's).
      await new Promise((resolve) => setTimeout(resolve, SITE_GAP_MS));
      const before = cs.candidate.downloads.length;
      const start = performance.now();
      await fromPage({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
      await app.crossSeedJob.settled();
      const job = await fromPage<{ state: string; outcomes: { group: string; torrentId: number; result?: { renamed?: unknown[] } }[] }>({ type: 'job:status' });
      const added = job.outcomes.filter((outcome) => outcome.group === 'added').length;
      if (job.state !== 'done' || added !== OVERHEAD_RUNS || job.outcomes.length !== OVERHEAD_RUNS + 1) problems.push(`the job ended ${job.state} with ${added} of ${OVERHEAD_RUNS} added`);
      const addedRenamed = job.outcomes.filter((outcome) => outcome.group === 'added' && outcome.result?.renamed?.length).length;
      if (addedRenamed !== (renamed ? OVERHEAD_RUNS : 0)) problems.push(`${addedRenamed} of ${OVERHEAD_RUNS} were added renamed${renamed ? '' : ' (none should be)'}`);
      const made = cs.candidate.downloads.slice(before).filter((download) => download.path.startsWith('/download.php'));
      // In the order the site took them (its queue: by torrent id), as the tracker saw them.
      const ids = made.map((download) => download.id);
      const downloads = made.map((download) => download.at);
      const groupOf = new Map(job.outcomes.map((outcome) => [outcome.torrentId, outcome.group]));
      const groups = ids.map((id) => groupOf.get(id) ?? 'none');
      // When the site moved on from each: at its check (added stopped), or its outcome (not added).
      const movedOn = ids.map((id) => checkingAt.get(id) ?? outcomeAt.get(id) ?? Number.NaN);
      const outcomes = ids.map((id) => outcomeAt.get(id) ?? Number.NaN);
      if (downloads.length !== OVERHEAD_RUNS + 1 || outcomeAt.size !== OVERHEAD_RUNS + 1) problems.push(`${downloads.length} downloads and ${outcomeAt.size} outcomes heard for ${OVERHEAD_RUNS + 1}`);
      if (movedOn.some((at, index) => groups[index] === 'added' && !checkingAt.has(ids[index]!))) problems.push('an added torrent was never heard at its check (the site waited for its start)');
      if (movedOn.some(Number.isNaN)) problems.push('a torrent was never heard at its check nor in the report');
      const all = perTorrentOverhead(start, movedOn, downloads, SITE_GAP_MS);
      const ready = movedOn.map((_, index) => (index === 0 ? start : Math.max(movedOn[index - 1]!, downloads[index - 1]! + SITE_GAP_MS)));
      const ofAdded = (values: number[]) => values.filter((_, index) => groups[index] === 'added');
      // The added ones only (the other release is checked and not added: no add to wait for).
      const times = ofAdded(all);
      const beforeDownload = ofAdded(ready.map((at, index) => downloads[index]! - at));
      const afterDownload = ofAdded(movedOn.map((at, index) => at - downloads[index]!));
      // Unbudgeted: from the same moment until started at 100 % (the client's check and the start, confirmed).
      const untilStarted = ofAdded(outcomes.map((at, index) => at - ready[index]!));
      const differ = all.filter((_, index) => groups[index] === 'files-differ');
      const wall = Math.max(...outcomes) - start;
      const lastMovedOn = Math.max(...movedOn) - start;
      const prefix = renamed ? 'job.overhead.renamed' : 'job.overhead';
      // A renamed copy's rename comes after its site has gone on (with its check): not in this time.
      const renameStep = renamed ? ' under the candidate\'s names' : '';
      const figures: Figure[] = [
        {
          id: `${prefix}.median`,
          bench: 'job',
          label: `cross-seed job, pace 0, qBittorrent ${daemon.version}${renamed ? ', every candidate a renamed copy' : ''}: a torrent's own time until its site goes on (download, info-hash and file checks, added stopped and confirmed${renameStep}, recorded; ${OVERHEAD_RUNS} torrents), median`,
          value: round(median(times), 2),
          unit: 'ms',
          budget: { op: '<=', limit: 50 },
        },
        { id: `${prefix}.p95`, bench: 'job', label: '  … p95', value: round(percentile(times, 95), 2), unit: 'ms', budget: { op: '<=', limit: 50 } },
        { id: `${prefix}.before`, bench: 'job', label: '  … of it before the download reached the site (the job taking it, the site\'s request built), median', value: round(median(beforeDownload), 2), unit: 'ms' },
        { id: `${prefix}.after`, bench: 'job', label: `  … of it from the download to the site going on (download, checks, added stopped, the add confirmed${renameStep}, record), median`, value: round(median(afterDownload), 2), unit: 'ms' },
        {
          id: `${prefix}.started.median`,
          bench: 'job',
          label: '  … unbudgeted: from the same moment until started at 100 % (the client\'s check, the start confirmed, the outcome announced; concurrent with the next downloads), median',
          value: round(median(untilStarted), 2),
          unit: 'ms',
        },
        { id: `${prefix}.started.p95`, bench: 'job', label: '  … p95', value: round(percentile(untilStarted, 95), 2), unit: 'ms' },
        { id: `${prefix}.differ`, bench: 'job', label: '  … the other release (downloaded, its files checked, not added): its own time', value: round(differ[0] ?? Number.NaN, 2), unit: 'ms' },
        {
          id: `${prefix}.wall`,
          bench: 'job',
          label: `  … wall time of the ${OVERHEAD_RUNS} (the site's fixed ${SITE_GAP_MS} ms gap between downloads included; until the last one started)`,
          value: round(wall / 1000, 2),
          unit: 's',
        },
        { id: `${prefix}.wall.sites`, bench: 'job', label: '  … of it until the site went on from the last one (every download, check and add done)', value: round(lastMovedOn / 1000, 2), unit: 's' },
      ];
      const report = [
        `cross-seed job${renamed ? ', renamed copies' : ''} (the real background in Node, qBittorrent ${daemon.version}, test trackers; pace 0 s, 1,000 a day): per torrent until its site went on (in order, groups ${groups.join(', ')}) ${all.map((ms) => ms.toFixed(1)).join(', ')} ms; until started at 100 % ${untilStarted.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      ];
      return {
        figures,
        report,
        problems,
        details: { times: all.map((ms) => round(ms, 2)), groups, beforeDownload: beforeDownload.map((ms) => round(ms, 2)), afterDownload: afterDownload.map((ms) => round(ms, 2)), untilStarted: untilStarted.map((ms) => round(ms, 2)), wallMs: round(wall) },
      };
    } finally {
      app.crossSeedJob.halt();
    }
  } finally {
    await cs.close();
    await daemon.stop();
  }
}

// --------------------------------------------------------------------------------------------
// 2. The preview of a 100,000-torrent index

interface IndexedBackground {
  app: InstanceType<typeof import('../entrypoints/background/app').BackgroundApp>;
  fromPage: <T>(message: Record<string, unknown>) => Promise<T>;
  /** The sites with finds (the first held site holds the sources). */
  findSites: number[];
  syncMs: number;
  problems: string[];
}

/**
 * The real background with a qBittorrent client saved (a real daemon, holding none of them) and its
 * own index synced (unpaced, from the reference service) from a stand-in list of `count` torrents,
 * each held from one site with a copy on one of `PREVIEW_SITES` others: `count` finds.
 */
export async function withIndexedBackground<T>(count: number, work: (background: IndexedBackground) => Promise<T>): Promise<T> {
  const { IDBFactory } = await import('fake-indexeddb');
  globalThis.indexedDB = new IDBFactory();
  const { grantOrigin } = await import('../test/unit/support/permissions');
  const { extensionClientFetch } = await import('../test/unit/support/client-browser');
  const { startQbittorrent } = await import('../test/clients/daemons');
  const { DEMO_TOKEN, loadReferenceData, startReferenceService } = await import('../test/service/server');
  const { BackgroundApp } = await import('../entrypoints/background/app');
  const { routeMessage } = await import('../entrypoints/background/router');
  const { SETTINGS_KEY } = await import('../features/settings/settings.storage');
  const { clientIdentity } = await import('../features/clients/client-identity');
  const { Lookup } = await import('../utils/lookup/lookup');
  const { DEFAULT_SETTINGS } = await import('../utils/settings');

  await background();
  const reference = loadReferenceData();
  const sites = reference.sites.slice(0, PREVIEW_SITES + 1);
  const [own, ...others] = sites;
  const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
  const torrents = Array.from({ length: count }, (_, i) => ({
    hash: sha1(`preview ${i}`),
    name: `Some.Release.${i}.2023.1080p.WEB-DL.H264.AAC-GROUP`,
    savePath: `/downloads/pt/category-${i % 12}`,
    state: 'seeding' as const,
    progress: 1,
    size: 1e9 + i,
  }));
  // Each one held from the first site, a copy on one of the 10 others: 10,000 finds a site.
  const groups = torrents.map((torrent, i) => ({
    title: torrent.name,
    members: [
      { site: own!.site, torrent_id: 1 + i, info_hash: torrent.hash },
      { site: others[i % others.length]!.site, torrent_id: 1 + i, info_hash: sha1(`copy ${i}`) },
    ],
  }));
  const service = await startReferenceService({ data: { ...reference, torrents: groups }, rateLimit: { max: 1_000_000 } });
  const daemon = await startQbittorrent();
  const problems: string[] = [];
  try {
    grantOrigin(service.url);
    const held = sites.map((site) => site.id);
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN, heldSites: held, askedForSites: true } });
    // The sites' readiness requests (one a site) answered at once with a logged-in details page.
    const siteFetch = (async () => new Response('<html><body><h1>details</h1></body></html>', { status: 200, headers: { 'content-type': 'text/html' } })) as typeof fetch;
    const app = new BackgroundApp({ clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
    const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };
    const fromPage = <T>(message: Record<string, unknown>) => routeMessage(app, message, page, extension) as Promise<T>;
    const config = { type: 'qbittorrent' as const, url: daemon.url, username: daemon.username, password: daemon.password };
    await fromPage({ type: 'clients:save', client: config });
    await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
    // Turning the index on syncs the (empty) daemon: let that run end first, or the next sync joins it.
    await app.index.run('sync');
    // The background's own index, synced from a stand-in list (the daemon holds none of them).
    const settings = { ...DEFAULT_SETTINGS, baseUrl: service.url, token: DEMO_TOKEN, clientIndexEnabled: true };
    const lookup = new Lookup({ settings: async () => settings, sitesToReport: async () => held });
    const index = (await app.index.indexes.open(clientIdentity(config)))!;
    const listing = { kind: 'qbittorrent' as const, list: async () => torrents.map((t) => ({ ...t })) } as never;
    const syncStarted = performance.now();
    const synced = await index.sync(listing, lookup, { pauseMs: 0, locate: false });
    const syncMs = performance.now() - syncStarted;
    if (synced.outcome !== 'done') problems.push(`the sync of ${count} ended ${JSON.stringify(synced)}`);
    try {
      return await work({ app, fromPage, findSites: others.map((site) => site.id), syncMs, problems });
    } finally {
      app.crossSeedJob.halt();
    }
  } finally {
    await daemon.stop();
    await service.close();
  }
}

async function preview(): Promise<NodeBenchOutput> {
  const { SITE_GAP_MS } = await import('../utils/cross-seed-engine/site-queue');
  return withIndexedBackground(PREVIEW_TORRENTS, async ({ fromPage, syncMs, problems }) => {
    type Preview = { problem?: string; indexOff?: boolean; sites: { sid: number; count: number; readiness: { state: string } }[] };
    // The first preview after the sync: the index's per-site map was dropped by the sync's answers and is built again
    // (as after every sync, or a worker's start); the site list and the sessions are read the first time.
    // The sync's garbage collected first (the sync made it; a browser collects it while idle, before a person's click).
    (globalThis as { gc?: () => void }).gc?.();
    const first = await longestBlock(() => fromPage<Preview>({ type: 'job:preview' }));
    const warm = first.result;
    const found = warm.sites.reduce((sum, site) => sum + site.count, 0);
    if (warm.problem || warm.indexOff || found !== PREVIEW_TORRENTS) problems.push(`the preview found ${found} of ${PREVIEW_TORRENTS} (${JSON.stringify({ problem: warm.problem, indexOff: warm.indexOff })})`);
    // Then three, each once the sites' gap after the previous preview's readiness request is over (a site is asked at
    // most once a SITE_GAP_MS: back to back, a preview waits for it, which is the site's pace, not the preview's work).
    const runs: { ms: number; longestMs: number }[] = [];
    for (let run = 0; run < 3; run++) {
      await new Promise((resolve) => setTimeout(resolve, SITE_GAP_MS + 50));
      const { ms, longestMs } = await longestBlock(() => fromPage<Preview>({ type: 'job:preview' }));
      runs.push({ ms, longestMs });
    }
    // And one at once after the last: its readiness requests wait for the sites' gap.
    const backToBack = await longestBlock(() => fromPage<Preview>({ type: 'job:preview' }));
    const ms = median(runs.map((run) => run.ms));
    const longestMs = Math.max(first.longestMs, ...runs.map((run) => run.longestMs));
    const figures: Figure[] = [
      {
        id: 'job.preview.100000',
        bench: 'job',
        label: `"Find what I can cross-seed": job:preview of a ${PREVIEW_TORRENTS.toLocaleString('en')}-torrent index (${found.toLocaleString('en')} finds on ${PREVIEW_SITES} sites), through the background, median of 3`,
        value: round(ms),
        unit: 'ms',
        budget: { op: '<=', limit: 500 },
      },
      {
        id: 'job.preview.100000.first',
        bench: 'job',
        label: '  … the first one after the sync (the index\'s per-site map built again; the site list read)',
        value: round(first.ms),
        unit: 'ms',
        budget: { op: '<=', limit: 500 },
      },
      { id: 'job.preview.100000.block', bench: 'job', label: '  … longest stretch the event loop stayed blocked during them (the first and the 3)', value: round(longestMs), unit: 'ms' },
      {
        id: 'job.preview.100000.backtoback',
        bench: 'job',
        label: `  … one at once after another (each site's readiness request waits the site's ${SITE_GAP_MS} ms gap)`,
        value: round(backToBack.ms),
        unit: 'ms',
      },
    ];
    const report = [
      `cross-seed job preview: ${PREVIEW_TORRENTS.toLocaleString('en')} torrents synced in ${(syncMs / 1000).toFixed(1)} s (unpaced); first ${first.ms.toFixed(0)} ms (longest block ${first.longestMs.toFixed(1)} ms); previews ${runs.map((run) => `${run.ms.toFixed(0)} ms (longest block ${run.longestMs.toFixed(1)} ms)`).join(', ')}; back to back ${backToBack.ms.toFixed(0)} ms; readiness ${warm.sites.map((site) => `${site.sid}:${site.readiness.state}`).join(' ')}`,
    ];
    return { figures, report, problems, details: { first: { ms: round(first.ms), longestMs: round(first.longestMs) }, runs, backToBackMs: round(backToBack.ms), syncMs: round(syncMs), found } };
  });
}
// --------------------------------------------------------------------------------------------
// 3. The job's stored state at 1,000 and 10,000 finds over 10 sites

export const STATE_SIZES = [1_000, 10_000] as const;
/** Jobs run at each size (the median time is the figure). */
const JOB_RUNS = 3;
/** Steps (one write and its announce) timed on the finished job. */
const STEPS = 20;

interface StatePoint {
  count: number;
  /** storage.local's job keys ('job:state', its queues and outcome chunks) as JSON, UTF-8 bytes (what the browser stores and counts). */
  bytes: number;
  /** "Start cross-seeding" every site until the job is done (every site capped at 0 a day: every torrent in the report, none downloaded), median of JOB_RUNS. */
  startMs: number;
  times: number[];
  /** One write of the job and its job:changed with `count` outcomes in the report, median of STEPS. */
  stepMs: number;
  /** The job's view, as the page gets it in `job:status`, JSON bytes. */
  viewBytes: number;
  /** The background's heap used after a full GC with the job's state loaded (the index of `count` torrents and the preview's finds included). */
  heapBytes: number;
  /** Of it, the job's: after the first job (done, its state held by the worker) less before its "Start cross-seeding". */
  jobHeapBytes: number;
  /** Bytes of every `job:changed` the (last) job announced (JSON), and how many. */
  announcedBytes: number;
  announced: number;
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

async function statePoint(count: number): Promise<StatePoint> {
  const { storedJobBytes } = await import('../features/cross-seed-job/cross-seed-job.storage');
  const { CrossSeedJob } = await import('../features/cross-seed-job/cross-seed-job.feature');
  return withIndexedBackground(count, async ({ app, fromPage, findSites, problems }) => {
    // No download from any site (0 a day): every find goes into the report as "Waiting for tomorrow", the largest state a job of `count` keeps.
    for (const sid of findSites) await fromPage({ type: 'job:site-pace', sid, secondsBetween: 0, perDay: 0 });
    await fromPage({ type: 'job:preview' });
    let announcedBytes = 0;
    let announced = 0;
    // The time spent counting them is the bench's, not the job's: taken off startMs.
    let countingMs = 0;
    const listener = (message: unknown) => {
      if ((message as { type?: string }).type !== 'job:changed') return;
      const counting = performance.now();
      announced++;
      announcedBytes += Buffer.byteLength(JSON.stringify(message));
      countingMs += performance.now() - counting;
    };
    fakeBrowser.runtime.onMessage.addListener(listener);
    // Three jobs one after the other (a finished job is replaced; nothing of it was decided): the median time, the last one's state.
    // The job's heap: the first job's, after it less before it (later ones replace a job held until they start).
    const times: number[] = [];
    const before = heapAfterGc();
    let jobHeapBytes = 0;
    for (let run = 0; run < JOB_RUNS; run++) {
      announcedBytes = 0;
      announced = 0;
      countingMs = 0;
      const started = performance.now();
      await fromPage({ type: 'job:start', sids: findSites });
      await app.crossSeedJob.settled();
      times.push(performance.now() - started - countingMs);
      if (run === 0) jobHeapBytes = heapAfterGc() - before;
    }
    const startMs = median(times);
    const jobAnnounced = { announced, announcedBytes };
    // One step of a job holding `count` outcomes: a write of the job and its job:changed (a running job writes a few per
    // torrent; "Pause" on the finished job writes and announces it once, changing nothing).
    const steps: number[] = [];
    for (let step = 0; step < STEPS; step++) {
      countingMs = 0;
      const started = performance.now();
      await fromPage({ type: 'job:pause' });
      steps.push(performance.now() - started - countingMs);
    }
    const stepMs = median(steps);
    fakeBrowser.runtime.onMessage.removeListener(listener);
    const heapBytes = heapAfterGc();
    // The state as a fresh worker loads it from storage: all of it back.
    const job = app.crossSeedJob as unknown as { shared: unknown; clients: unknown; crossSeeds: unknown; index: unknown };
    const fresh = new CrossSeedJob(job.shared as never, job.clients as never, job.crossSeeds as never, job.index as never);
    const loadedView = await fresh.status();
    fresh.halt();
    const view = await fromPage<{ outcomes: unknown[]; total: number }>({ type: 'job:status' });
    if (view.total !== count || view.outcomes.length !== count || loadedView.outcomes.length !== count || problems.length) {
      throw new Error(`the job of ${count} ended ${JSON.stringify({ total: view.total, outcomes: view.outcomes.length, loaded: loadedView.outcomes.length, problems })}`);
    }
    return { count, bytes: await storedJobBytes(), startMs, times, stepMs, viewBytes: Buffer.byteLength(JSON.stringify(view)), heapBytes, jobHeapBytes, ...jobAnnounced };
  });
}

async function state(): Promise<NodeBenchOutput> {
  const points: StatePoint[] = [];
  for (const count of STATE_SIZES) points.push(await statePoint(count));
  const figures: Figure[] = [];
  const mb = (bytes: number) => round(bytes / 1024 ** 2, 1);
  for (const point of points) {
    const n = point.count.toLocaleString('en');
    figures.push(
      { id: `job.state.${point.count}.bytes`, bench: 'job', label: `job of ${n} finds over ${PREVIEW_SITES} sites: its stored state (every one in the report), bytes a torrent`, value: Math.round(point.bytes / point.count), unit: 'bytes' },
      { id: `job.state.${point.count}.total`, bench: 'job', label: `  … the whole state in storage.local (the page's job:status: ${Math.round(point.viewBytes / 1024)} KB)`, value: point.bytes, unit: 'bytes' },
      { id: `job.state.${point.count}.start`, bench: 'job', label: `  … "Start cross-seeding" to done (each site capped at 0 a day: no download), median of ${JOB_RUNS}`, value: round(point.startMs), unit: 'ms' },
      { id: `job.state.${point.count}.step`, bench: 'job', label: `  … one step (a write of the job and its job:changed), median of ${STEPS}`, value: round(point.stepMs, 2), unit: 'ms' },
      { id: `job.state.${point.count}.announced`, bench: 'job', label: `  … job:changed announced meanwhile (${point.announced}), bytes in all`, value: point.announcedBytes, unit: 'bytes' },
      { id: `job.state.${point.count}.heap`, bench: 'job', label: `  … the background's heap used after GC, the job's state loaded (its index of ${n} included)`, value: mb(point.heapBytes), unit: 'MB' },
      { id: `job.state.${point.count}.jobheap`, bench: 'job', label: '  … of it the job\'s (its state held by the worker once done, less before the start), bytes a torrent', value: Math.round(point.jobHeapBytes / point.count), unit: 'bytes' },
    );
  }
  const [small, large] = points as [StatePoint, StatePoint];
  const ratio = (pick: (point: StatePoint) => number) => round(pick(large) / large.count / (pick(small) / small.count), 2);
  figures.push(
    { id: 'job.state.linear.bytes', bench: 'job', label: 'job state growth: bytes a torrent at 10,000 ÷ at 1,000', value: ratio((point) => point.bytes), unit: 'ratio', budget: { op: '<=', limit: 1.5 } },
    { id: 'job.state.linear.start', bench: 'job', label: 'job growth: time a torrent at 10,000 ÷ at 1,000', value: ratio((point) => point.startMs), unit: 'ratio', budget: { op: '<=', limit: 1.5 } },
    {
      id: 'job.state.linear.step',
      bench: 'job',
      label: 'job growth: one step at 10,000 ÷ at 1,000 (a step costs the same however large the job: a job of n steps costs n)',
      value: round(large.stepMs / small.stepMs, 2),
      unit: 'ratio',
      budget: { op: '<=', limit: 1.5 },
    },
    { id: 'job.state.linear.heap', bench: 'job', label: 'job growth: the job\'s heap a torrent at 10,000 ÷ at 1,000', value: ratio((point) => point.jobHeapBytes), unit: 'ratio', budget: { op: '<=', limit: 1.5 } },
    { id: 'job.state.linear.announced', bench: 'job', label: 'job growth: job:changed bytes a torrent at 10,000 ÷ at 1,000', value: ratio((point) => point.announcedBytes), unit: 'ratio', budget: { op: '<=', limit: 1.5 } },
  );
  const shown = points.map((point) => ({ ...point, startMs: round(point.startMs), times: point.times.map((ms) => round(ms)), stepMs: round(point.stepMs, 2), heapMB: mb(point.heapBytes), jobHeapMB: mb(point.jobHeapBytes) }));
  return { figures, report: [`cross-seed job state: ${JSON.stringify(shown)}`], problems: [], details: { points } };
}

async function main(mode: string): Promise<NodeBenchOutput> {
  if (mode === 'overhead') return overhead();
  if (mode === 'overhead-renamed') return overhead(true);
  if (mode === 'preview') return preview();
  if (mode === 'state') return state();
  throw new Error(`unknown mode ${mode}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main(process.argv[2] ?? 'overhead');
  process.stdout.write(`\n${JSON.stringify(output)}\n`);
  process.exit(0);
}
