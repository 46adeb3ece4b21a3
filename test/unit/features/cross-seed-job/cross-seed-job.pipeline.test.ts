/**
 * The job's pipeline (real qBittorrent, test trackers): a site goes on to its next download as soon
 * as a torrent is in the client STOPPED, while that torrent's check and start at 100 % go on; the
 * torrents at their check are in the job's stored state, and a background rebuilt over the same
 * storage finishes them without a second download or add; at most `checksBound` are under way.
 *
 * The client's checks are held where the tests need them: the background's requests to qBittorrent
 * pass a gate that keeps each `torrents/recheck` request (the check of a torrent added stopped) until
 * the test lets it go — a client slow to check, as a NAS is. The site's requests are seen before
 * they leave, with the job's stored state at that moment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { JobChanged, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { MAX_CHECKS_IN_FLIGHT } from '../../../../features/cross-seed-job/job-checks';
import { JobStore, type StoredJob } from '../../../../features/cross-seed-job/cross-seed-job.storage';

/** The job as stored (its header, queues and outcomes read back as a new worker reads them). */
const storedJob = () => new JobStore().load();
import { startQbittorrent } from '../../../clients/daemons';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { until } from '../../../e2e/support/wait';
import { extensionClientFetch } from '../../support/client-browser';
import { inTakeOrder, LIVE, setUpJob, type JobSetup } from './job-setup';

const PAIRS = 8;
const WAIT = 60_000;

/** The background's requests to the client, with its recheck requests held while `holding`. */
class CheckGate {
  holding = true;
  dropping = false;
  /** Rechecks waiting, in order, by the hash they ask for. */
  readonly held: { hash: string; release: () => void; drop: () => void }[] = [];
  /** Every recheck and add request that reached the gate (held or not), by hash where it names one. */
  readonly rechecks: string[] = [];
  adds = 0;

  readonly fetch: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/api/v2/torrents/add')) this.adds++;
    if (url.endsWith('/api/v2/torrents/recheck')) {
      const hash = new URLSearchParams(String(init?.body ?? '')).get('hashes') ?? '';
      this.rechecks.push(hash);
      // A stopped worker's requests (a recheck asked again after its first was dropped) reach nothing either.
      if (this.dropping) throw new TypeError('fetch failed');
      if (this.holding) {
        await new Promise<void>((resolve, reject) => this.held.push({ hash, release: resolve, drop: () => reject(new TypeError('fetch failed')) }));
      }
    }
    return globalThis.fetch(input, init);
  };

  /** Lets every held recheck go, and the next ones through. */
  open(): void {
    this.holding = false;
    for (const waiting of this.held.splice(0)) waiting.release();
  }

  /** Held requests never reach the client (their worker stopped): they fail, and so do the rechecks after them. */
  dropAll(): void {
    this.dropping = true;
    for (const waiting of this.held.splice(0)) waiting.drop();
  }
}

/** What the job's stored state was as each download request left for the site, by torrent id. */
interface AtDownload {
  id: number;
  checking: number[];
  inFlight?: number;
  outcomes: number;
  underWay: number;
}

let s: JobSetup;
let gate: CheckGate;
const atDownload: AtDownload[] = [];
/** The most torrents taken and not settled the job ever stored (in flight + checking). */
let mostUnderWay = 0;

const underWayOf = (job: StoredJob | undefined) => job?.sites.reduce((sum, site) => sum + (site.inFlight ? 1 : 0) + (site.checking?.length ?? 0), 0) ?? 0;
const candidateSite = (job: StoredJob | undefined) => job?.sites.find((site) => site.sid === CANDIDATE_SITE.sid);

beforeAll(async () => {
  gate = new CheckGate();
  s = await setUpJob(() => startQbittorrent(), {
    pairs: PAIRS,
    // Pairs 0 and 1 (with the other release of pair 0) for the first test; the others are seeded as each test needs.
    seeded: 2,
    clientInner: gate.fetch,
    wrapSiteFetch: (inner) => async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.pathname === '/download.php') {
        const job = await storedJob();
        const site = candidateSite(job);
        atDownload.push({
          id: Number(url.searchParams.get('id')),
          checking: (site?.checking ?? []).map((item) => item.torrentId),
          inFlight: site?.inFlight?.torrentId,
          outcomes: job?.outcomes.length ?? 0,
          underWay: underWayOf(job),
        });
      }
      return inner(input, init);
    },
  });
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    if ((message as Partial<JobChanged>).type !== 'job:changed') return;
    const job = (s.app.crossSeedJob as unknown as { job?: StoredJob }).job;
    mostUnderWay = Math.max(mostUnderWay, underWayOf(job));
  });
  await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
}, 180_000);

afterAll(async () => {
  gate?.dropAll();
  await s?.close();
}, 30_000);

/** Seeds pairs [from, to) into the client and syncs the index: new finds. */
async function seed(from: number, to: number): Promise<void> {
  for (let index = from; index < to; index++) await s.cs.seed(s.readBack, s.daemon.dataDir, index);
  await s.app.index.run('sync');
}

describe('the job goes on while the client checks', () => {
  it('downloads the next torrent while the one before is still stopped in the client, its check not begun; each is started at 100 % once checked', LIVE, async () => {
    const [first, second] = s.cs.pairs as [(typeof s.cs.pairs)[0], (typeof s.cs.pairs)[0]];
    const before = s.downloads().length;
    const seen = atDownload.length;
    gate.holding = true;
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });

    // The second download reaches the site while the first torrent's check is held (a serial job would never get there).
    await until(async () => s.downloads().length - before, (count) => count >= 2, 'the second download', WAIT);
    // (Its check cannot have ended: the gate holds it, whether or not it was asked for yet.)
    await until(async () => gate.held.map((waiting) => waiting.hash), (hashes) => hashes.includes(first.candidate.hash), 'the first check held', WAIT);
    // The first is in the client, stopped: not started before its check. (qBittorrent 4.5+ is asked
    // for the check as soon as it lists the add: it may still be reading the copy's resume data,
    // which it shows as a check, before it settles stopped.)
    const held = await until(async () => (await s.readBack.lookup([first.candidate.hash])).get(first.candidate.hash), (torrent) => torrent?.state !== 'checking', 'the first copy past its resume-data read', WAIT);
    expect(held).toMatchObject({ state: 'paused' });
    // As the second download left, the first was stored as checking (written before it), out of flight.
    const atSecond = atDownload.slice(seen).find((entry) => entry.id === second.candidateId)!;
    expect(atSecond).toMatchObject({ checking: [first.candidateId], inFlight: second.candidateId, outcomes: 0 });

    // The checks go: each added one ends started at 100 %; the job is done only once they have ended.
    gate.open();
    const job = await s.finished();
    expect(job.state).toBe('done');
    expect(inTakeOrder(job.outcomes)).toEqual([
      [first.candidateId, 'added'],
      [second.candidateId, 'added'],
      [s.cs.differentFiles.id, 'files-differ'],
    ]);
    expect(s.downloads().slice(before).map((download) => download.id)).toEqual([first.candidateId, second.candidateId, s.cs.differentFiles.id]);
    for (const pair of [first, second]) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
    expect((await storedJob())?.sites.every((site) => !site.checking?.length && !site.inFlight)).toBe(true);
    expect(job.sites.find((site) => site.sid === CANDIDATE_SITE.sid)).toMatchObject({ state: 'done', total: 3, done: 3 });
  });

  it('at the bound on checks in flight, the site downloads nothing more until a check has ended', LIVE, async () => {
    await seed(2, 6);
    const ids = s.cs.pairs.slice(2, 6).map((pair) => pair.candidateId);
    s.app.crossSeedJob.checksBound = 2;
    mostUnderWay = 0;
    const before = s.downloads().length;
    const seen = atDownload.length;
    gate.holding = true;
    try {
      await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
      // Two added stopped, their checks held: the site waits with the other two still queued, none in flight.
      await until(async () => gate.held.length, (count) => count === 2, 'two checks held', WAIT);
      const waiting = await until(
        () => storedJob(),
        (job) => candidateSite(job)?.checking?.length === 2 && !candidateSite(job)?.inFlight,
        'the site at the bound',
        WAIT,
      );
      expect(candidateSite(waiting)!.queue.map((item) => item.torrentId)).toEqual(ids.slice(2));
      expect(s.downloads().length - before).toBe(2);

      gate.open();
      const job = await s.finished();
      expect(job.state).toBe('done');
      expect(inTakeOrder(job.outcomes)).toEqual(ids.map((id) => [id, 'added']));
      expect(s.downloads().slice(before).map((download) => download.id)).toEqual(ids);
      // As each download left: never more than 2 taken and unsettled (itself included), so the 3rd
      // waited for one outcome and the 4th for two; and no stored state ever held more than 2.
      const made = atDownload.slice(seen);
      expect(made.map((entry) => entry.id)).toEqual(ids);
      made.forEach((entry, index) => {
        expect(entry.underWay).toBeLessThanOrEqual(2);
        expect(entry.outcomes).toBeGreaterThanOrEqual(index - 1);
      });
      expect(mostUnderWay).toBe(2);
      for (const pair of s.cs.pairs.slice(2, 6)) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
    } finally {
      s.app.crossSeedJob.checksBound = MAX_CHECKS_IN_FLIGHT;
    }
  });
});

describe('a background rebuilt with torrents at their check', () => {
  it('a background rebuilt while torrents are at their check finishes them: no second download, no second add', LIVE, async () => {
    await seed(6, 8);
    const ids = [s.cs.pairs[6]!, s.cs.pairs[7]!];
    const before = s.downloads().length;
    gate.holding = true;
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    // Both downloaded and added stopped, their checks held: stored as checking, nothing left in the queue.
    const stored = await until(
      () => storedJob(),
      (job) => {
        const site = candidateSite(job);
        return !!site && !site.inFlight && !site.queue.length && site.checking?.length === 2;
      },
      'both torrents stored as checking',
      WAIT,
    );
    expect(candidateSite(stored)!.checking!.map((item) => item.torrentId)).toEqual(ids.map((pair) => pair.candidateId));
    await until(async () => gate.held.length, (count) => count === 2, 'both checks held', WAIT);
    // (qBittorrent 4.5+ is asked for the check as soon as it lists the add: it may still be reading
    // the copy's resume data, which it shows as a check, before it settles stopped.)
    for (const pair of ids) {
      const held = await until(async () => (await s.readBack.lookup([pair.candidate.hash])).get(pair.candidate.hash), (torrent) => torrent?.state !== 'checking', 'the copy past its resume-data read', WAIT);
      expect(held).toMatchObject({ state: 'paused' });
    }

    // The worker stops: what it had under way goes no further (its held requests never reach the client).
    s.app.crossSeedJob.halt();
    gate.dropAll();
    await s.app.crossSeedJob.settled();
    const downloaded = s.downloads().length;
    expect(downloaded - before).toBe(2);
    for (const pair of ids) expect((await s.readBack.lookup([pair.candidate.hash])).get(pair.candidate.hash)).toMatchObject({ state: 'paused' });

    // A new background over the same storage, its own requests to the client counted.
    const next = new CheckGate();
    next.holding = false;
    const app = new BackgroundApp({ fetch: proxiedFetch(s.cs.world.router.port), clientFetch: extensionClientFetch(next.fetch), siteFetch: s.siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    try {
      const page = { id: fakeBrowser.runtime.id, url: `${fakeBrowser.runtime.getURL('/')}cross-seed.html` };
      const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
      await app.crossSeedJob.wake();
      await app.crossSeedJob.settled();
      const job = (await routeMessage(app, { type: 'job:status' }, page, extension)) as JobView;
      expect(job.state).toBe('done');
      expect(inTakeOrder(job.outcomes)).toEqual(ids.map((pair) => [pair.candidateId, 'added']));
      // Each checked again by the new background (asked once each), none added nor downloaded again.
      expect([...next.rechecks].sort()).toEqual(ids.map((pair) => pair.candidate.hash).sort());
      expect(next.adds).toBe(0);
      expect(s.downloads().length).toBe(downloaded);
      for (const pair of ids) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
      expect(candidateSite(await storedJob())?.checking ?? []).toEqual([]);
    } finally {
      app.crossSeedJob.halt();
      await app.crossSeedJob.settled();
    }
  });
});
