/**
 * The set-up the job's unit tests share (as cross-seed-job.test.ts's own): a real client daemon holding
 * the page's sources, the test trackers and the reference service (test/e2e/support/cross-seed-world.ts),
 * a user logged in on the candidate's site, and a real BackgroundApp in the fake browser whose index of
 * that client is synced. Messages go through the router as cross-seed.html's do.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { JobChanged, JobOutcome, JobOutcomeGroup, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { applyJobChange } from '../../../../features/cross-seed-job/job-change';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { startTransmission, type RunningDaemon, type RunningTransmission } from '../../../clients/daemons';
import { type JarFetch } from '../../../clients/node-fetch';
import { untilSeeding } from '../../../clients/seeding';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from '../../../e2e/support/cross-seed-world';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { ownClient } from '../../../clients/own-client';

export const LIVE = { timeout: 180_000 };

/**
 * A fresh fake browser as the job's backgrounds start from: English, the permissions and session
 * rules the real browser gives, and the user's settings (the reference service and its token; the
 * page's, the candidate's and the other site held).
 */
export async function freshJobBrowser(): Promise<void> {
  fakeBrowser.reset();
  installI18n('en');
  installPermissions();
  installSessionRules();
  await fakeBrowser.storage.local.set({
    [SETTINGS_KEY]: { version: 1, baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid, OTHER_SITE.sid], askedForSites: true },
  });
}

/**
 * The report as [torrent id, group], in the order the site took the torrents (its queue: by torrent
 * id). A site goes on once a torrent is added stopped, so outcomes land in the order their runs end
 * (an added one's check may end after the next torrent's files were found to differ).
 */
export function inTakeOrder(outcomes: readonly Pick<JobOutcome, 'torrentId' | 'group'>[]): [number, JobOutcomeGroup][] {
  return outcomes.map((outcome): [number, JobOutcomeGroup] => [outcome.torrentId, outcome.group]).sort((a, b) => a[0] - b[0]);
}
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };

export interface JobSetup {
  daemon: RunningDaemon;
  cs: CrossSeedWorld;
  /** The test's own view of the client (not the background's). */
  readBack: TorrentClient;
  siteFetch: JarFetch;
  app: BackgroundApp;
  /** The job's view after every `job:changed` the pages heard (hearJob). */
  heard: JobView[];
  fromPage<T>(message: Record<string, unknown>): Promise<T>;
  /** A command: it answers nothing (the state is announced). */
  command(message: Record<string, unknown>): Promise<void>;
  /** The job as the page reads it once this background's sites have stopped. */
  finished(): Promise<JobView>;
  /** The tracker's download.php requests. */
  downloads(tracker?: TestTracker): TestTracker['downloads'];
  close(): Promise<void>;
}

/**
 * Follows the job as cross-seed.html does, from the `job:changed` it hears (each what changed since
 * the previous revision: features/cross-seed-job/job-change.ts), from the next whole one (a job
 * started, a background's first announce) on: `onView` gets the job's view after each change. A
 * change that does not follow the view held (one missed) fails: the background announces every change.
 */
export function hearJob(onView: (view: JobView) => void): void {
  let held: JobView | undefined;
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    const change = (message as Partial<JobChanged>).type === 'job:changed' ? (message as JobChanged).change : undefined;
    if (!change || (!held && !change.whole)) return;
    const next = applyJobChange(held, change);
    if (next === 'gap' || !next) throw new Error(`job:changed ${change.revision} (since ${change.since}) does not follow the view held (${held?.revision})`);
    if (next === held) return;
    held = next;
    onView(next);
  });
}

/** `seeded` of the `pairs` sources are in the client (the others can be seeded later: new finds). */
export interface JobSetupOptions {
  pairs: number;
  seeded?: number;
  otherSite?: boolean;
  /** What the background's requests to the client go through after the browser's part (a gate a test holds; Node's fetch when absent). */
  clientInner?: typeof fetch;
  /** Wraps the background's fetch to the sites (a test sees each request before it leaves). */
  wrapSiteFetch?: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch;
  /** The address the client is saved at in the extension (a hop in front of the daemon); the daemon's own when absent. */
  clientAddress?: (daemon: RunningDaemon) => Promise<string>;
}

export async function setUpJob(start: () => Promise<RunningDaemon>, options: JobSetupOptions): Promise<JobSetup> {
  const daemon = await start();
  let cs: CrossSeedWorld | undefined;
  try {
    cs = await startCrossSeedWorld({ pairs: options.pairs, otherSite: options.otherSite });
    const readBack = ownClient(daemon);
    for (let index = 0; index < (options.seeded ?? options.pairs); index++) await cs.seed(readBack, daemon.dataDir, index);
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);

    await freshJobBrowser();
    const heard: JobView[] = [];
    hearJob((view) => heard.push(view));
    const world = cs;
    const app = new BackgroundApp({
      fetch: proxiedFetch(world.world.router.port),
      clientFetch: extensionClientFetch(options.clientInner),
      siteFetch: options.wrapSiteFetch ? options.wrapSiteFetch(siteFetch) : siteFetch,
      retryDelaysMs: [],
      minIntervalMs: 0,
      indexPauseMs: 0,
    });
    const setup: JobSetup = {
      daemon,
      cs: world,
      readBack,
      siteFetch,
      app,
      heard,
      fromPage: <T>(message: Record<string, unknown>) => routeMessage(app, message, page, extension) as Promise<T>,
      command: async (message) => {
        expect(await setup.fromPage(message)).toBeUndefined();
      },
      finished: async () => {
        await app.crossSeedJob.settled();
        return setup.fromPage<JobView>({ type: 'job:status' });
      },
      downloads: (tracker = world.candidate) => tracker.downloads.filter((download) => download.path.startsWith('/download.php')),
      close: async () => {
        app.crossSeedJob.halt();
        await world.close();
        await daemon.stop();
      },
    };
    const client = options.clientAddress ? { ...daemon.config, url: await options.clientAddress(daemon) } : daemon.config;
    const saved = await setup.fromPage<ClientsAnswer>({ type: 'clients:save', client });
    expect(saved.clients).toHaveLength(1);
    await setup.fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
    await app.index.run('sync');
    return setup;
  } catch (error) {
    await cs?.close();
    await daemon.stop();
    throw error;
  }
}

/**
 * Starts the job on the candidate's site with a long pace (`secondsBetween`: after the first add the
 * site waits) and runs `act` the moment the pages hear the job's first outcome; resolves once `act`
 * has ended. Nothing in the job moves meanwhile: its site waits out the pace.
 */
export async function startThenAtFirstOutcome(s: JobSetup, secondsBetween: number, act: () => Promise<unknown>): Promise<void> {
  await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween, perDay: 100 });
  let acted!: () => void;
  const actDone = new Promise<void>((resolve) => (acted = resolve));
  let once = false;
  hearJob((view) => {
    if (!once && view.outcomes.length === 1) {
      once = true;
      void act().then(() => acted());
    }
  });
  await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
  await actDone;
}

/**
 * The client stopped (`stopClient`) after the job's first add, while its site waits out a long pace;
 * the pace then set to 0 (which wakes the site): the job as it ends, paused by the client.
 */
export async function pausedByStoppedClient(s: JobSetup, stopClient: () => Promise<unknown>): Promise<JobView> {
  await startThenAtFirstOutcome(s, 600, stopClient);
  await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
  return s.finished();
}

/**
 * Once the client seeds every source again, "Resume" runs the job to its end: done, each pair's
 * candidate added and the other release found to hold other files; each .torrent asked for once
 * since the tracker's first `before` downloads (none twice); every candidate seeding beside its
 * source at 100 %.
 */
export async function resumeToTheEnd(s: JobSetup, before: number): Promise<void> {
  for (const pair of s.cs.pairs) await untilSeeding(s.readBack, pair.source.hash);
  await s.command({ type: 'job:resume' });
  const job = await s.finished();
  expect(job.state).toBe('done');
  expect(job.pausedBecause).toBeUndefined();
  const ids = s.cs.pairs.map((pair) => pair.candidateId);
  expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
  expect(s.downloads().slice(before).map((download) => [download.id, download.served])).toEqual([...ids, s.cs.differentFiles.id].map((id) => [id, true]));
  for (const pair of s.cs.pairs) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
}

/**
 * The job on the candidate's site ended done (not paused, which says why first): each pair's
 * candidate added and the other release found to hold other files; each .torrent downloaded once
 * since the tracker's first `before` downloads; every candidate seeding beside its source at 100 %,
 * and the other release not in the client.
 */
export async function expectEveryPairAdded(s: JobSetup, job: JobView, before: number): Promise<void> {
  expect(job.pausedBecause).toBeUndefined();
  expect(job.state).toBe('done');
  const ids = s.cs.pairs.map((pair) => pair.candidateId);
  expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
  expect(s.downloads().slice(before).map((download) => download.id)).toEqual([...ids, s.cs.differentFiles.id]);
  for (const pair of s.cs.pairs) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
  expect((await s.readBack.lookup([s.cs.differentFiles.torrent.hash])).size).toBe(0);
}

/**
 * The file's set-up for a job over a real Transmission the test stops and starts again: started
 * before the file's tests (`ready` gets the set-up and the daemon), closed after them.
 */
export function setUpJobOnTransmission(pairs: number, ready: (s: JobSetup, daemon: RunningTransmission) => void): void {
  let s: JobSetup | undefined;
  beforeAll(async () => {
    let daemon!: RunningTransmission;
    s = await setUpJob(async () => (daemon = await startTransmission()), { pairs });
    ready(s, daemon);
  }, 180_000);
  afterAll(() => s?.close(), 30_000);
}
