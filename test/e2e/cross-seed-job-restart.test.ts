/**
 * Issue 17, "Nothing lost, nothing twice", end to end: a job of "Cross-seed your client"
 * (cross-seed.html, used as a person uses it) interrupted in the middle goes on where it was, with
 * the built extension, a real qBittorrent and the test trackers of support/cross-seed-world.ts.
 *
 * - Chromium: the extension's service worker is stopped for real (CDP ServiceWorker.stopWorker; its
 *   version reported stopped and its target gone) while the job waits between two downloads; with
 *   nothing else touching the extension, the job's alarm brings the worker back and the job ends.
 * - Both browsers: the browser ends in the middle of the job (killed with SIGKILL, as a crash, or
 *   quit) and is launched again on the same profile. The background goes on by
 *   itself (the tracker sees the next download while no page of the extension is open: it is
 *   held there), the page opened then shows the job running where it was, and it ends.
 *
 * Each time: the candidate's tracker served every candidate exactly once (no download twice, none
 * forgotten), qBittorrent holds each candidate of the pairs beside its source at 100 % (added once:
 * a second add of the same info-hash would have been refused or reported), and the report lists
 * them under "Added", the other release under "Not the same files".
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { StoredJob } from '../../features/cross-seed-job/cross-seed-job.storage';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type BrowserKind, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { CANDIDATE_SITE, startCrossSeedWorld, type CrossSeedWorld } from './support/cross-seed-world';
import { openCrossSeedWithIndexOn, setUpCrossSeedUser } from './support/cross-seed-user';
import { watchExtensionWorker } from './support/service-worker';
import { until } from './support/wait';
import { ownClient } from '../clients/own-client';

afterAll(closeAllBrowsers);

/** Content pairs in the client; the candidate's site also lists one "other files" release of pairs[0]. */
const PAIRS = 4;
/**
 * "Seconds between downloads", counted from a download's request: what is left of it once the
 * torrent is added at 100 % (3–5 s here) is when the job's background is stopped.
 */
const PACE = 10;
/** The job is interrupted only while its next download is at least this far off (it sleeps, nothing in flight). */
const MARGIN_MS = 2_000;
/** "Downloads per day": above the candidates' count (a change from the default 20, saved with the pace). */
const PER_DAY = 19;
const SID = CANDIDATE_SITE.sid;
const ROW = `tr.job-site[data-sid="${SID}"]`;

/** The candidate's site in the stored job (read from storage: nothing that wakes the background). */
type StoredSite = StoredJob['sites'][number] & { checking?: unknown[] };

interface JobWorld {
  cross: CrossSeedWorld;
  daemon: RunningDaemon;
  client: TorrentClient;
  browser: HarnessBrowser;
  /** Every candidate on the candidate's site, in the job's order (by torrent id). */
  candidateIds: number[];
  /** The candidates of the pairs (same files as a source): the ones to be added. */
  addedIds: number[];
  hashOf(id: number): string;
  close(): Promise<void>;
}

async function startJobWorld(kind: BrowserKind, lang: 'en' | 'zh-CN'): Promise<JobWorld> {
  const cross = await startCrossSeedWorld({ pairs: PAIRS });
  const daemon = await startQbittorrent();
  // The sources, as the user's own web UI added them: seeding at 100 % from the data folder.
  const client = ownClient(daemon);
  for (let index = 0; index < PAIRS; index++) await cross.seed(client, daemon.dataDir, index);
  const browser = await launchBrowser(kind, { proxyPort: cross.world.router.port, lang });
  const addedIds = cross.pairs.map((pair) => pair.candidateId).sort((a, b) => a - b);
  const world: JobWorld = {
    cross,
    daemon,
    client,
    browser,
    candidateIds: [...addedIds, cross.differentFiles.id].sort((a, b) => a - b),
    addedIds,
    hashOf: (id) => cross.pairs.find((pair) => pair.candidateId === id)?.candidate.hash ?? cross.differentFiles.torrent.hash,
    async close() {
      await world.browser.close();
      await cross.close();
      await daemon.stop();
    },
  };
  return world;
}

const message = <T,>(browser: HarnessBrowser, body: Record<string, unknown>) =>
  browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);

/**
 * The job as stored, read by an extension page from storage.local (no message: the background is not
 * woken), put together from its parts as a new worker does (features/cross-seed-job/cross-seed-job.storage.ts
 * JobStore.load): the header 'job:state', each site's queue the tail of 'job:queue:<sid>' from
 * `parts.queues[sid]`, the outcomes from the chunks 'job:outcomes:<n>'.
 */
const storedJob = (browser: HarnessBrowser) =>
  browser.evaluateInExtension((api) =>
    api.storage.local.get(null).then((stored) => {
      type Header = StoredJob & { parts?: { outcomes: number; queues: Record<string, number> } };
      const header = stored['job:state'] as Header | undefined;
      if (!header) return null;
      const { parts, ...job } = header;
      if (!parts) return job as StoredJob;
      const chunks = Object.keys(stored)
        .filter((key) => key.startsWith('job:outcomes:'))
        .sort((a, b) => Number(a.slice(13)) - Number(b.slice(13)));
      job.outcomes = chunks.flatMap((key) => stored[key] as StoredJob['outcomes']).slice(0, parts.outcomes);
      job.sites = job.sites.map((site) => {
        const base = (stored[`job:queue:${site.sid}`] ?? []) as StoredJob['sites'][number]['queue'];
        return { ...site, queue: base.slice(parts.queues[String(site.sid)] ?? base.length) };
      });
      return job as StoredJob;
    }),
  );

const candidateSite = (job: StoredJob | null) => job?.sites.find((site) => site.sid === SID) as StoredSite | undefined;

/** The user's settings, qBittorrent and the login on the candidate's site, as in their own browser. */
async function setUpUser(world: JobWorld): Promise<void> {
  await setUpCrossSeedUser(world.browser, world.cross, { client: world.daemon });
}

/** cross-seed.html: the index turned on, "Find what I can cross-seed", the site's pace set to PACE, "Start cross-seeding". */
async function startJob(world: JobWorld): Promise<HarnessPage> {
  const { browser } = world;
  const page = await openCrossSeedWithIndexOn(browser);
  await page.click('#job-find');
  await page.waitForSelector(`${ROW}[data-readiness=ready]`, { timeoutMs: 30_000 });
  expect(await page.evaluate((css) => document.querySelector(css)?.querySelector('td.count')?.firstChild?.textContent?.trim(), ROW)).toBe(String(world.candidateIds.length));
  // The site's pace, as the row's fields send it when changed. Sent here rather than typed: in a
  // Firefox relaunched on its profile (the set-up below), Puppeteer's typing then Tab or a click
  // elsewhere left the field without a change event (nothing saved); without the relaunch, or in
  // Chromium, the typed field saves. Not investigated further (window focus of the relaunched
  // headless Firefox?); the pace UI is not this test's subject.
  await message(browser, { type: 'job:site-pace', sid: SID, secondsBetween: PACE, perDay: PER_DAY });
  await until(
    () =>
      browser.evaluateInExtension(
        (api, sid) => api.storage.local.get('crossseed:site-pace').then((stored) => (stored['crossseed:site-pace'] as Record<string, { secondsBetween?: number }> | undefined)?.[sid]?.secondsBetween),
        String(SID),
      ),
    (seconds) => seconds === PACE,
    'the pace saved for the site',
    30_000,
  );
  await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
  await page.click('#job-start');
  await page.waitForSelector('#job-progress[data-state=running]', { timeoutMs: 30_000 });
  expect(candidateSite(await storedJob(browser))?.secondsBetween).toBe(PACE);
  return page;
}

/**
 * Waits until the job sleeps between two downloads, its next one at least MARGIN_MS away: at least
 * one torrent settled, some still queued, nothing in flight. Returns the job and how many downloads
 * the tracker had served then.
 */
async function betweenDownloads(world: JobWorld): Promise<{ job: StoredJob; served: number }> {
  const job = await until(
    () => storedJob(world.browser),
    (stored) => {
      const site = candidateSite(stored);
      return (
        stored?.state === 'running' &&
        !!site &&
        site.done >= 1 &&
        site.queue.length >= 2 &&
        !site.inFlight &&
        !site.checking?.length &&
        site.nextAt !== undefined &&
        site.nextAt - Date.now() >= MARGIN_MS
      );
    },
    'the job sleeping between two downloads',
    120_000,
    50,
  );
  return { job: job!, served: world.cross.candidate.downloads.length };
}

/** What the job left in the end: the tracker, qBittorrent and the page's report. */
async function expectEveryTorrentOnce(world: JobWorld, page: HarnessPage): Promise<void> {
  const { cross, client, daemon } = world;
  // The tracker: every candidate served exactly once, nothing asked for twice.
  expect(cross.candidate.downloads.map((download) => download.id).sort((a, b) => a - b)).toEqual(world.candidateIds);
  expect(cross.candidate.downloads.every((download) => download.served)).toBe(true);
  // qBittorrent: the sources and each candidate of the pairs once, beside its source, complete.
  for (const id of world.addedIds) expect(await untilSeeding(client, world.hashOf(id))).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
  const held = (await client.list()).map((torrent) => torrent.hash).sort();
  expect(held).toEqual([...cross.pairs.map((pair) => pair.source.hash), ...world.addedIds.map(world.hashOf)].sort());
  // The report: every candidate once, in its group.
  await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 60_000 });
  const report = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#job-report .report-group')].map((group) => [
        group.getAttribute('data-group'),
        [...group.querySelectorAll('li.outcome a')].map((link) => Number(/[?&]id=(\d+)/.exec(link.getAttribute('href') ?? '')?.[1])).sort((a, b) => a - b),
      ]),
    ),
  );
  expect(report).toEqual({ added: world.addedIds, 'files-differ': [cross.differentFiles.id] });
  const job = await storedJob(world.browser);
  expect(job?.state).toBe('done');
  expect(candidateSite(job)).toMatchObject({ state: 'done', queue: [], done: world.candidateIds.length, total: world.candidateIds.length });
  expect(job?.outcomes.map((outcome) => outcome.torrentId).sort((a, b) => a - b)).toEqual(world.candidateIds);
}

describe('chromium: the service worker stopped in the middle of a job', () => {
  let world: JobWorld;
  let page: HarnessPage;

  beforeAll(async () => {
    world = await startJobWorld('chromium', 'en');
    await setUpUser(world);
  }, 240_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  it('stopped between two downloads, the worker is woken by the job\'s alarm and the job ends with every torrent downloaded and added once', async () => {
    page = await startJob(world);
    // DevTools' ServiceWorker domain, from an extension page (the worker's own storage partition).
    const worker = await watchExtensionWorker(page.raw as PlaywrightPage, world.browser.extensionOrigin);
    await worker.running();
    expect(await worker.targets()).toBe(1);

    const { served } = await betweenDownloads(world);
    const stoppedAt = Date.now();
    await worker.stop();
    // Really stopped: its version says so and its target is gone.
    expect(await worker.targets()).toBe(0);
    // Stopped while it slept: nothing in flight, nothing more downloaded.
    const left = candidateSite(await storedJob(world.browser));
    expect(left?.inFlight).toBeUndefined();
    expect(left?.queue.length).toBeGreaterThanOrEqual(2);
    expect(world.cross.candidate.downloads.length).toBe(served);

    // Nothing is sent to the extension now: the job's alarm (every 30 s) starts the worker again,
    // and the job goes on from where it was to its end.
    await worker.running(120_000, 250);
    console.log(`service worker stopped ${served} downloads in; running again after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);
    const alarm = await world.browser.evaluateInExtension((api) => api.alarms.get('cross-seed-job'));
    expect(alarm?.periodInMinutes).toBe(0.5);
    await until(() => storedJob(world.browser), (job) => job?.state === 'done', 'the job done', 180_000, 250);
    expect(world.cross.candidate.downloads.length).toBe(world.candidateIds.length);
    await worker.close();
    await expectEveryTorrentOnce(world, page);
  }, 420_000);
});

/** Each browser killed hard (SIGKILL, a crash: nothing flushed, Firefox's temporary add-on cleaned up at the next start) and quit. */
const RESTARTS = BROWSER_KINDS.flatMap((kind) => (['crash', 'quit'] as const).map((how) => [kind, how] as const));

describe.each(RESTARTS)('%s: the browser restarted (%s) in the middle of a job', (kind, how) => {
  let world: JobWorld;

  beforeAll(async () => {
    world = await startJobWorld(kind, kind === 'firefox' ? 'zh-CN' : 'en');
    await setUpUser(world);
    // The login was days ago (on disk), not in this session: a crash does not take it with it.
    world.browser = await world.browser.restart('quit');
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  it(`${how === 'crash' ? 'killed (SIGKILL)' : 'quit'} between two downloads and launched again on its profile, the job goes on by itself, the page shows it where it was, and it ends with every torrent downloaded and added once`, async () => {
    const { cross } = world;
    await startJob(world);
    const before = await betweenDownloads(world);
    const doneBefore = candidateSite(before.job)!.done;

    // The next download is held at the tracker until the page has been looked at.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = 0;
    cross.world.router.setHost(cross.candidate.host, async (req, res, recorded) => {
      if (recorded.path.startsWith('/download.php')) {
        held++;
        await released;
      }
      cross.candidate.handle(req, res, recorded);
    });

    const restartedAt = Date.now();
    world.browser = await world.browser.restart(how);
    const launchedAt = Date.now();
    // Where it was: the same job, still running, nothing done since, nothing in flight.
    const after = await storedJob(world.browser);
    expect(after?.state).toBe('running');
    expect(after?.revision).toBeGreaterThanOrEqual(before.job.revision);
    expect(candidateSite(after)?.done).toBe(doneBefore);
    expect(cross.candidate.downloads.length).toBe(before.served);

    // By itself (no page of the extension opened, no message): the background asks for the next one.
    await until(async () => held, (count) => count >= 1, 'the next download asked for after the restart', 120_000, 250);
    expect(held).toBe(1);
    console.log(`${kind} ${how} ${before.served} downloads in: relaunched in ${((launchedAt - restartedAt) / 1000).toFixed(1)} s, next download asked ${((Date.now() - launchedAt) / 1000).toFixed(1)} s after`);

    // The page offers the job where it was: running, the torrents done before counted.
    const page = await world.browser.openExtensionPage('cross-seed.html');
    await page.bringToFront();
    await page.waitForSelector('#job-progress[data-state=running]', { timeoutMs: 30_000 });
    await page.waitForSelector('#job-pause', { timeoutMs: 30_000 });
    const progress = await page.evaluate(() => (document.querySelector('#job-progress progress') as HTMLProgressElement | null)?.value);
    expect(progress).toBe(doneBefore);

    release();
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 180_000 });
    expect(held).toBe(world.candidateIds.length - before.served);
    await expectEveryTorrentOnce(world, page);
  }, 420_000);
});
