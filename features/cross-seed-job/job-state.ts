/**
 * The job's stored writes: this worker is the job's only writer. Every change goes through one
 * queue of writes, in order: `replace` (a new job, stored and announced whole) or `update` (the job
 * changed in place, storing what changed: JobStore), each announced to the pages as `job:changed`
 * (what changed since the last announce: job-change.ts). Outcomes decided are remembered per
 * (site, torrent id, info-hash) in the same queue.
 *
 * A job stored before several clients (issue 33) has no client ids: it is read as the first
 * client's (the default client of then is the first in the user's order now), in memory, each time
 * it is loaded; what is written again carries them.
 */
import { announceToPages } from '../announce';
import type { CrossSeedResult } from '../../utils/cross-seed-engine';
import type { JobChanged, JobOutcome, JobSiteView, JobTorrent } from './cross-seed-job.messages';
import { decidedItem, decidedKey, JobStore, type StoredJob } from './cross-seed-job.storage';
import { changeOf } from './job-change';
import { applyResult } from './job-outcomes';
import { viewOf } from './job-view';

/** A saved client as the job names it. */
export interface NamedClient {
  id: string;
  name: string;
}

export class JobState {
  /** The job as last written (or loaded). */
  private job: StoredJob | undefined;
  private loaded = false;
  /** The job in storage (written in parts: what changed). */
  private readonly store = new JobStore();
  /** What the last `job:changed` told (the next one tells what changed since). */
  private announced: { revision: number; sites: JobSiteView[]; outcomeCount: number } | undefined;
  /** Writes, one at a time, in order. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Set by halt(): nothing is written any more (a worker stopped; tests build a new background). */
  halted = false;

  /** `firstClient`: the first saved client in the user's order, which an older job's torrents are read as. */
  constructor(private readonly firstClient: () => Promise<NamedClient | undefined>) {}

  /** The job as last written (undefined before load()). */
  get current(): StoredJob | undefined {
    return this.job;
  }

  async load(): Promise<StoredJob | undefined> {
    if (!this.loaded) {
      const job = await this.store.load();
      if (job && !job.clients) migrate(job, await this.firstClient().catch(() => undefined));
      this.job = job;
      this.loaded = true;
    }
    return this.job;
  }

  /** A new job (`build` is given the one there was) in its place: stored whole, announced whole. */
  replace(build: (before: StoredJob | undefined) => StoredJob): Promise<void> {
    return this.write(async () => {
      const current = await this.load();
      const job = build(current);
      job.revision = (current?.revision ?? 0) + 1;
      await this.store.save(job, { whole: true });
      this.job = job;
      return 'whole';
    });
  }

  /**
   * Changes the job (none: nothing) in place, stores what changed and announces it. In place, not
   * a copy: a write costs the size of its step, not of the job (10,000 outcomes are not copied for
   * each). `change` runs inside the write queue, so no other change is under way meanwhile.
   */
  update(change: (job: StoredJob) => void): Promise<void> {
    return this.write(async () => {
      const job = await this.load();
      if (!job) return 'none';
      change(job);
      job.revision++;
      await this.store.save(job);
      return 'change';
    });
  }

  /** One torrent's result (its whole run, or its check after it was added stopped) into the job (job-outcomes.ts), and remembered if decided. */
  async record(sid: number, item: JobTorrent, result: CrossSeedResult, now: number): Promise<void> {
    let decided: JobOutcome | undefined;
    await this.update((job) => {
      decided = applyResult(job, sid, item, result, now);
    });
    if (decided) await this.remember(decided);
  }

  private async remember(outcome: JobOutcome): Promise<void> {
    const run = this.writes.then(async () => {
      const decided = await decidedItem.get();
      await decidedItem.set({ ...decided, [decidedKey(outcome)]: outcome.group });
    });
    this.writes = run.catch(() => undefined);
    await run;
  }

  private write(step: () => Promise<'whole' | 'change' | 'none'>): Promise<void> {
    const run = this.writes.then(async () => {
      if (this.halted) return;
      const written = await step();
      if (written === 'none') return;
      const whole = written === 'whole';
      const view = viewOf(this.job, { share: true });
      const previous = this.announced ?? { revision: 0, sites: [], outcomeCount: 0 };
      // The first announce of this worker (the page may hold the job from another) and a new job go whole.
      const event: JobChanged = { type: 'job:changed', change: changeOf(previous, view, { whole: whole || !this.announced }) };
      this.announced = { revision: view.revision, sites: view.sites, outcomeCount: view.outcomes.length };
      await announceToPages(event);
    });
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** An older job's torrents read as the first client's, source and target (none saved: left as they are). */
function migrate(job: StoredJob, first: NamedClient | undefined): void {
  if (!first) return;
  job.clients = { [first.id]: first.name };
  const own = (item: JobTorrent) => {
    item.sourceClientId ??= first.id;
    item.targetClientId ??= first.id;
  };
  for (const site of job.sites) {
    site.queue.forEach(own);
    if (site.inFlight) own(site.inFlight);
    site.checking?.forEach(own);
  }
}
