/**
 * The job in storage in parts (JobStore) and its changes as announced (job-change.ts): a write
 * stores what changed, what a fresh worker loads is the job as it was, and a page following the
 * changes holds the job's view. In the fake browser's storage.local (plain data, no daemons).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { JOB_OUTCOMES_CHUNK, JobStore, jobStateItem, storedJobBytes, type StoredJob } from '../../../../features/cross-seed-job/cross-seed-job.storage';
import { viewOf } from '../../../../features/cross-seed-job/job-view';
import { applyJobChange, changeOf } from '../../../../features/cross-seed-job/job-change';
import type { JobOutcome, JobTorrent, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';

const torrent = (sid: number, torrentId: number): JobTorrent => ({
  sid,
  torrentId,
  infoHash: String(torrentId).padStart(40, '0'),
  sourceHash: 'b'.repeat(40),
  name: `Torrent ${torrentId}`,
  bytes: 1000 + torrentId,
});

function newJob(perSite: number): StoredJob {
  const sites = [7, 9].map((sid) => {
    const queue = Array.from({ length: perSite }, (_, index) => torrent(sid, index + 1));
    return { sid, siteName: `Site ${sid}`, state: 'waiting' as const, queue, total: perSite, done: 0, secondsBetween: 0 };
  });
  return { state: 'running', startedAt: 1, revision: 1, sites, outcomes: [] };
}

/** One torrent of `sid` taken from its queue and reported (what a step of the job does). */
function step(job: StoredJob, sid: number): void {
  const site = job.sites.find((entry) => entry.sid === sid)!;
  const item = site.queue.shift()!;
  job.outcomes.push({ ...item, group: 'added', at: job.outcomes.length } satisfies JobOutcome);
  site.done++;
  job.revision++;
}

const stored = async () => (await fakeBrowser.storage.local.get(null)) as Record<string, unknown>;
const written = async (work: () => Promise<void>) => {
  const keys: string[] = [];
  const listener = (changes: Record<string, unknown>) => keys.push(...Object.keys(changes));
  fakeBrowser.storage.onChanged.addListener(listener);
  await work();
  fakeBrowser.storage.onChanged.removeListener(listener);
  return keys.sort();
};

beforeEach(() => {
  fakeBrowser.reset();
});

describe('the job in storage, in parts', () => {
  it('a step writes the header and the last outcome chunk only; a fresh worker loads the job as it was', async () => {
    const store = new JobStore();
    const job = newJob(3 * JOB_OUTCOMES_CHUNK);
    await store.save(job, { whole: true });
    for (let index = 0; index < JOB_OUTCOMES_CHUNK + 5; index++) {
      step(job, 7);
      await store.save(job);
    }
    step(job, 9);
    // One item taken from site 9, one outcome added: neither queue is written again.
    expect(await written(() => store.save(job))).toEqual(['job:outcomes:1', 'job:state']);
    // The item put back at the head of its queue (an interrupted one): still a tail of what is stored.
    const site9 = job.sites[1]!;
    site9.queue.unshift(torrent(9, 1));
    expect(await written(() => store.save(job))).toEqual(['job:state']);
    site9.queue.shift();
    expect(await written(() => store.save(job))).toEqual(['job:state']);

    const loaded = await new JobStore().load();
    expect(loaded).toEqual(job);
    expect(loaded!.outcomes).toHaveLength(JOB_OUTCOMES_CHUNK + 6);
    // 'job:state' itself holds no queue and no outcome.
    const header = (await stored())['job:state'] as StoredJob;
    expect(header.outcomes).toEqual([]);
    expect(header.sites.every((site) => site.queue.length === 0)).toBe(true);
  });

  it('keeps within 4/3 of the queue, and a new job leaves nothing of the old one', async () => {
    const store = new JobStore();
    const job = newJob(10);
    await store.save(job, { whole: true });
    for (let index = 0; index < 6; index++) {
      step(job, 7);
      await store.save(job);
    }
    expect(((await stored())['job:queue:7'] as JobTorrent[]).length * 3).toBeLessThanOrEqual(4 * job.sites[0]!.queue.length);
    expect(await new JobStore().load()).toEqual(job);

    const next: StoredJob = { ...newJob(2), sites: [newJob(2).sites[1]!], revision: job.revision + 1 };
    await store.save(next, { whole: true });
    const keys = Object.keys(await stored()).sort();
    expect(keys).toEqual(['job:queue:9', 'job:state']);
    expect(await new JobStore().load()).toEqual(next);
    expect(await storedJobBytes()).toBeGreaterThan(0);
  });

  it('reads a job stored whole in one key (before the parts)', async () => {
    const job = newJob(4);
    step(job, 9);
    await jobStateItem.set(job);
    const store = new JobStore();
    expect(await store.load()).toEqual(job);
    step(job, 9);
    await store.save(job);
    expect(await new JobStore().load()).toEqual(job);
  });
});

describe('job:changed, what changed', () => {
  it('carries the sites that changed and the outcomes added; applied in order it gives the job\'s view', () => {
    const job = newJob(5);
    let held: JobView | undefined = viewOf(job);
    let told = { revision: job.revision, sites: viewOf(job).sites, outcomeCount: 0 };
    for (const sid of [7, 7, 9, 7]) {
      step(job, sid);
      const view = viewOf(job);
      const change = changeOf(told, view);
      expect(change.sites.map((site) => site.sid)).toEqual([sid]);
      expect(change.outcomes).toHaveLength(1);
      told = { revision: view.revision, sites: view.sites, outcomeCount: view.outcomes.length };
      const next = applyJobChange(held, change);
      expect(next).toEqual(view);
      held = next as JobView;
    }
    // One missed: a gap (the page asks job:status); an older one: nothing.
    const before = viewOf(job);
    step(job, 9);
    const skipped = changeOf(told, viewOf(job));
    step(job, 9);
    const after = changeOf({ revision: skipped.revision, sites: viewOf(job).sites, outcomeCount: skipped.outcomeCount }, viewOf(job));
    expect(applyJobChange(before, after)).toBe('gap');
    expect(applyJobChange(viewOf(job), skipped)).toEqual(viewOf(job));
  });
});
