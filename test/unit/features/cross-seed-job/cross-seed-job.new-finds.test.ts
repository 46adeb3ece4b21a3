/**
 * "Tell me when there is something new to cross-seed" and the switch that starts new finds by itself
 * (real qBittorrent, test trackers, the reference service): what an index sync finds new is counted per
 * site in one notification (browser.notifications.create, spied on in the fake browser), only when the
 * switch is on (off by default); with the second switch a job starts by itself, even when the
 * notification cannot be shown (create throwing at once, or no notifications API at all).
 */
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { JobPreview, JobSwitches } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent } from '../../../clients/daemons';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE, OTHER_SITE } from '../../../e2e/support/cross-seed-world';
import { inTakeOrder, LIVE, setUpJob, type JobSetup } from './job-setup';

/** pairs 0–1 seeded at first; 2, 3 and 4 arrive later, one per test (new finds). */
const PAIRS = 5;
let s: JobSetup;
let notified: MockInstance;

beforeAll(async () => {
  // Two of the three sources in the client at first; the third comes later (a new find).
  s = await setUpJob(() => startQbittorrent(), { pairs: PAIRS, seeded: 2, otherSite: true });
  notified = vi.spyOn(fakeBrowser.notifications, 'create').mockResolvedValue('notice') as unknown as MockInstance;
}, 180_000);

afterAll(() => s?.close(), 30_000);

const siteNameOf = (preview: JobPreview, sid: number) => preview.sites.find((site) => site.sid === sid)!.siteName;

describe('new finds after an index sync', () => {
  it('are told in no notification while the switch is off (its default), and start no job', LIVE, async () => {
    expect(await s.fromPage<JobSwitches>({ type: 'job:switches' })).toEqual({ notifyNewFinds: false, autoStartNewFinds: false });
    notified.mockClear();
    // The sync's listeners run before run() ends: nothing is pending after it.
    await s.app.index.run('sync');
    expect(notified).not.toHaveBeenCalled();
    expect((await s.finished()).state).toBe('idle');
  });

  it('are counted per site in one notification once "Tell me when there is something new to cross-seed" is on; the same finds are not told twice', LIVE, async () => {
    expect(await s.fromPage<JobSwitches>({ type: 'job:switches', notifyNewFinds: true })).toEqual({ notifyNewFinds: true, autoStartNewFinds: false });
    const preview = await s.fromPage<JobPreview>({ type: 'job:preview' });
    notified.mockClear();
    await s.app.index.run('sync');
    expect(notified).toHaveBeenCalledTimes(1);
    const [, options] = notified.mock.calls[0] as [string, { message: string; title: string }];
    // The candidate's site: pairs 0 and 1 and the release with other files; the third site: pairs[0]'s.
    expect(options.message.split('\n').sort()).toEqual([`${siteNameOf(preview, CANDIDATE_SITE.sid)}: 3`, `${siteNameOf(preview, OTHER_SITE.sid)}: 1`].sort());
    expect(options.title).toBeTruthy();
    // Telling starts nothing.
    expect((await s.finished()).state).toBe('idle');

    notified.mockClear();
    await s.app.index.run('sync');
    expect(notified).not.toHaveBeenCalled();
  });

  it('with the second switch on, a new find starts a job by itself (and is told)', LIVE, async () => {
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
    expect(await s.fromPage<JobSwitches>({ type: 'job:switches', autoStartNewFinds: true })).toEqual({ notifyNewFinds: true, autoStartNewFinds: true });
    const before = s.downloads().length;
    // The third source arrives in the client: one new find on the candidate's site.
    const third = s.cs.pairs[2]!;
    await s.cs.seed(s.readBack, s.daemon.dataDir, 2);
    notified.mockClear();
    await s.app.index.run('sync');
    expect(notified).toHaveBeenCalledTimes(1);
    expect((notified.mock.calls[0] as [string, { message: string }])[1].message).toMatch(/: 1$/);

    const job = await s.finished();
    expect(job.state).toBe('done');
    // The job is the candidate's site's: every find there, the new one with them.
    expect(job.sites.map((site) => site.sid)).toEqual([CANDIDATE_SITE.sid]);
    const ids = s.cs.pairs.slice(0, 3).map((pair) => pair.candidateId);
    expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
    expect(s.downloads().slice(before).map((download) => download.id)).toEqual([...ids, s.cs.differentFiles.id]);
    expect(await untilSeeding(s.readBack, third.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
  });

  /** Pair `index` arrives in the client; after the sync, the job that started by itself adds its candidate alone. */
  async function newFindStartsAJob(index: number): Promise<void> {
    const pair = s.cs.pairs[index]!;
    const before = s.downloads().length;
    await s.cs.seed(s.readBack, s.daemon.dataDir, index);
    await s.app.index.run('sync');
    const job = await s.finished();
    expect(job.state).toBe('done');
    expect(job.outcomes.map((outcome) => [outcome.torrentId, outcome.group])).toEqual([[pair.candidateId, 'added']]);
    expect(s.downloads().slice(before).map((download) => [download.id, download.served])).toEqual([[pair.candidateId, true]]);
    expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
  }

  it('a notification that throws at once (no permission, a browser that refuses) does not keep the new find from starting', LIVE, async () => {
    notified.mockReset();
    notified.mockImplementation(() => {
      throw new Error('notifications are not allowed');
    });
    await newFindStartsAJob(3);
    expect(notified).toHaveBeenCalledTimes(1);
  });

  it('nor does a browser without the notifications API', LIVE, async () => {
    const api = Object.getOwnPropertyDescriptor(fakeBrowser, 'notifications');
    Object.defineProperty(fakeBrowser, 'notifications', { value: undefined, configurable: true, writable: true });
    try {
      await newFindStartsAJob(4);
    } finally {
      if (api) Object.defineProperty(fakeBrowser, 'notifications', api);
    }
  });
});
