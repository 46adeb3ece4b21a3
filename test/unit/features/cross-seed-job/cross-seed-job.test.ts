/**
 * "Cross-seed your client"'s background (features/cross-seed-job) in the real background, in Node:
 * the messages go through the router as cross-seed.html's do, the index of a real qbittorrent-nox
 * is synced against the reference service, and the .torrent files come from the test trackers of
 * test/e2e/support/cross-seed-world.ts (a cookie jar standing in for the user's browser session:
 * logged in on the candidate's site, not on the third site). One scenario in steps over the same
 * storage, as a user's runs follow each other: preview, a capped and paced run, pause/resume, a
 * second run, a deleted torrent, and a background rebuilt mid-job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { JobPreview, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { siteDownloadsItem } from '../../../../features/cross-seed/cross-seed.storage';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { SITE_GAP_MS } from '../../../../utils/cross-seed-engine/site-queue';
import { startQbittorrent, type RunningDaemon } from '../../../clients/daemons';
import { type JarFetch } from '../../../clients/node-fetch';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld } from '../../../e2e/support/cross-seed-world';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { freshJobBrowser, hearJob, inTakeOrder } from './job-setup';
import { ownClient } from '../../../clients/own-client';

const LIVE = { timeout: 180_000 };
const PAIRS = 8;
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };

let daemon: RunningDaemon;
let cs: CrossSeedWorld;
let readBack: TorrentClient;
let siteFetch: JarFetch;
let app: BackgroundApp;
let heard: JobView[];

beforeAll(async () => {
  daemon = await startQbittorrent();
  cs = await startCrossSeedWorld({ pairs: PAIRS, otherSite: true });
  readBack = ownClient(daemon);
  for (let index = 0; index < PAIRS; index++) await cs.seed(readBack, daemon.dataDir, index);
  siteFetch = cs.siteFetch();
  // Logged in on the candidate's site only: the third site answers with its login page.
  await cs.logIn(siteFetch, cs.candidate);

  await freshJobBrowser();
  heard = [];
  hearJob((view) => heard.push(view));
  app = newBackground();
  const saved = (await fromPage<ClientsAnswer>({ type: 'clients:save', client: { type: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password } })) as ClientsAnswer;
  expect(saved.clients).toHaveLength(1);
  await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
  await app.index.run('sync');
}, 180_000);

afterAll(async () => {
  app?.crossSeedJob.halt();
  await cs?.close();
  await daemon?.stop();
}, 30_000);

function newBackground(): BackgroundApp {
  return new BackgroundApp({ fetch: proxiedFetch(cs.world.router.port), clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
}

function fromPage<T>(message: Record<string, unknown>): Promise<T> {
  return routeMessage(app, message, page, extension) as Promise<T>;
}

/** A command: it answers nothing (the state is announced); then the job as the page reads it once this background's sites have stopped. */
async function command(message: Record<string, unknown>): Promise<void> {
  expect(await fromPage(message)).toBeUndefined();
}

async function finished(): Promise<JobView> {
  await app.crossSeedJob.settled();
  return fromPage<JobView>({ type: 'job:status' });
}

const downloads = (tracker = cs.candidate) => tracker.downloads.filter((download) => download.path.startsWith('/download.php'));
const candidateIds = (from: number, to: number) => cs.pairs.slice(from, to).map((pair) => pair.candidateId);
const siteOf = (preview: JobPreview, sid: number) => preview.sites.find((site) => site.sid === sid)!;

describe('"Cross-seed your client" in the background', () => {
  it('previews per held site exactly what the client can cross-seed, and whether the site can be had now', LIVE, async () => {
    const before = downloads().length;
    const pageSiteAsked = cs.world.router.requestsTo(PAGE_SITE.host).length;
    const preview = await fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.indexOff).toBeUndefined();
    expect(preview.problem).toBeUndefined();
    // Every pair's candidate, and the other release of pairs[0] (only a download tells its files differ).
    const candidate = siteOf(preview, CANDIDATE_SITE.sid);
    const sourceBytes = cs.pairs.map((pair) => pair.files.reduce((sum, file) => sum + file.size, 0));
    expect(candidate).toMatchObject({ count: PAIRS + 1, decided: 0, readiness: { state: 'ready' }, secondsBetween: 5, perDay: 20, usedToday: 0 });
    expect(candidate.bytes).toBe(sourceBytes.reduce((a, b) => a + b, 0) + sourceBytes[0]!);
    expect(siteOf(preview, OTHER_SITE.sid)).toMatchObject({ count: 1, readiness: { state: 'needs-login' } });
    // The page's site holds the sources themselves: nothing to add from it.
    expect(siteOf(preview, PAGE_SITE.sid)).toMatchObject({ count: 0 });
    // Nothing to add from it: the site is not asked whether the user is logged in there.
    expect(cs.world.router.requestsTo(PAGE_SITE.host)).toHaveLength(pageSiteAsked);
    const list = await fromPage<{ torrents: { torrentId: number; sourceHash: string }[]; total: number }>({ type: 'job:site-torrents', sid: CANDIDATE_SITE.sid, offset: 0, limit: 100 });
    expect(list.total).toBe(PAIRS + 1);
    expect(list.torrents.map((torrent) => torrent.torrentId)).toEqual([...candidateIds(0, PAIRS), cs.differentFiles.id]);
    expect(list.torrents[0]!.sourceHash).toBe(cs.pairs[0]!.source.hash);
    // A preview downloads no .torrent.
    expect(downloads().length).toBe(before);
  });

  it('runs each site at its pace under its daily cap (cap 5 → 5 downloads, the rest waiting for tomorrow); a logged-out site stops alone', LIVE, async () => {
    await fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 2, perDay: 5 });
    await fromPage({ type: 'job:site-pace', sid: OTHER_SITE.sid, secondsBetween: 0, perDay: 20 });
    const before = downloads().length;
    await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid, OTHER_SITE.sid] });
    const job = await finished();

    expect(job.state).toBe('done');
    const site = job.sites.find((entry) => entry.sid === CANDIDATE_SITE.sid)!;
    const other = job.sites.find((entry) => entry.sid === OTHER_SITE.sid)!;
    expect(site).toMatchObject({ state: 'capped', total: PAIRS + 1, done: PAIRS + 1 });
    expect(other).toMatchObject({ state: 'stopped', problem: { kind: 'not-logged-in' } });
    const added = job.outcomes.filter((outcome) => outcome.group === 'added');
    // Reported as each one's check ends (several run at once, so not in download order: the tracker's order is checked below).
    expect(added.map((outcome) => outcome.torrentId).sort((a, b) => a - b)).toEqual(candidateIds(0, 5));
    expect(job.outcomes.filter((outcome) => outcome.group === 'waiting-for-tomorrow').map((outcome) => outcome.torrentId)).toEqual([...candidateIds(5, PAIRS), cs.differentFiles.id]);
    expect(job.outcomes.filter((outcome) => outcome.group === 'site-problem').map((outcome) => outcome.sid)).toEqual([OTHER_SITE.sid]);

    // The tracker saw exactly 5 downloads, in order, each at least the site's gap after the one before;
    // the job's own pace (2 s) is kept between the downloads' starts as counted.
    const made = downloads().slice(before);
    expect(made.map((download) => download.id)).toEqual(candidateIds(0, 5));
    for (let index = 1; index < made.length; index++) expect(made[index]!.at - made[index - 1]!.at).toBeGreaterThanOrEqual(SITE_GAP_MS - 5);
    const counted = (await siteDownloadsItem.get())[String(CANDIDATE_SITE.sid)]!;
    expect(counted).toHaveLength(5);
    for (let index = 1; index < counted.length; index++) expect(counted[index]! - counted[index - 1]!).toBeGreaterThanOrEqual(2000);
    // The logged-out site was asked once and stopped.
    expect(downloads(cs.other!.tracker)).toHaveLength(1);

    // Each added beside its source, checked to 100 %.
    for (const pair of cs.pairs.slice(0, 5)) expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    // The page heard every change, revisions increasing, the last one the job as it ended.
    expect(heard.length).toBeGreaterThan(5);
    expect(heard.map((view) => view.revision)).toEqual([...heard.map((view) => view.revision)].sort((a, b) => a - b));
    expect(heard.at(-1)).toEqual(job);
  });

  it('pauses and resumes without a download twice; a torrent deleted after its add is not added back; a second run downloads nothing', LIVE, async () => {
    // The user deletes one the job added (data kept); the index learns it on its next sync.
    await readBack.remove(cs.pairs[1]!.candidate.hash);
    await fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 1, perDay: 100 });
    await app.index.run('sync');
    const preview = await fromPage<JobPreview>({ type: 'job:preview' });
    // The deleted one is decided (added before: not counted, not tried); the capped ones were not decided;
    // the ones in the client are no finds at all.
    expect(siteOf(preview, CANDIDATE_SITE.sid)).toMatchObject({ count: 4, decided: 1, usedToday: 5 });

    const before = downloads().length;
    await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    await command({ type: 'job:pause' });
    const paused = await finished();
    expect(paused.state).toBe('paused');
    const whilePaused = downloads().length - before;
    expect(whilePaused).toBeLessThanOrEqual(1);
    await command({ type: 'job:resume' });
    const job = await finished();
    expect(job.state).toBe('done');
    expect(inTakeOrder(job.outcomes)).toEqual([
      ...candidateIds(5, PAIRS).map((id) => [id, 'added']),
      [cs.differentFiles.id, 'files-differ'],
    ]);
    expect(downloads().slice(before).map((download) => download.id)).toEqual([...candidateIds(5, PAIRS), cs.differentFiles.id]);
    expect((await readBack.lookup([cs.pairs[1]!.candidate.hash])).size).toBe(0);

    // A second run: nothing left, nothing downloaded.
    await app.index.run('sync');
    const again = downloads().length;
    await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    const second = await finished();
    expect(second).toMatchObject({ state: 'done', total: 0, outcomes: [] });
    expect(downloads().length).toBe(again);
  });

  it('a background rebuilt mid-job (over the same storage) goes on where it was: no download nor add twice', LIVE, async () => {
    // Three of them deleted by the user and "Try again": they are to be added again.
    for (const pair of cs.pairs.slice(5, 8)) await readBack.remove(pair.candidate.hash);
    await app.index.run('sync');
    const retried = await fromPage<JobPreview>({ type: 'job:try-again', sids: [CANDIDATE_SITE.sid] });
    // The other release too (its decision forgotten), and the one deleted earlier.
    expect(siteOf(retried, CANDIDATE_SITE.sid)).toMatchObject({ count: 5, decided: 0 });

    const old = app;
    const oldJob = old.crossSeedJob as unknown as { job?: { sites: { inFlight?: { requested: boolean }; checking?: unknown[] }[] } };
    let stopped!: () => void;
    const stoppedMidDownload = new Promise<void>((resolve) => (stopped = resolve));
    hearJob((view) => {
      // The worker stops once the second item's download has left (its run goes on in memory, unrecorded);
      // the first is then at its check (added stopped) or in the report.
      const site = oldJob.job?.sites[0];
      if (view.outcomes.length + (site?.checking?.length ?? 0) === 1 && site?.inFlight?.requested) {
        old.crossSeedJob.halt();
        stopped();
      }
    });
    const before = downloads().length;
    await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    await stoppedMidDownload;
    // What the stopped worker had under way ends (in a real stop it would end with the worker).
    await old.crossSeedJob.settled();

    app = newBackground();
    await app.crossSeedJob.wake();
    const job = await finished();
    expect(job.state).toBe('done');
    const ids = downloads().slice(before).map((download) => download.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([cs.pairs[1]!.candidateId, ...candidateIds(5, PAIRS), cs.differentFiles.id].sort());
    expect(job.outcomes.map((outcome) => outcome.group).sort()).toEqual(['added', 'added', 'added', 'added', 'files-differ']);
    for (const pair of [cs.pairs[1]!, ...cs.pairs.slice(5, 8)]) expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
  });
});
