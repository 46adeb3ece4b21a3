/**
 * The job's checks in flight: torrents in a client STOPPED (downloaded, info-hash and files
 * checked, the add confirmed) whose check and start at 100 % go on while their site goes on to its
 * next download. Each is kept in its site's `checking` (written before that download) until its
 * outcome; here, the second phase under way in this worker for each, by decidedKey.
 *
 * One this worker does not run (a stopped worker's, or one whose client stopped answering) is
 * finished in the client it was added to (CrossSeeds.finishAddedStopped: nothing downloaded or
 * added, started only at 100 %), unless that client's torrents are paused: then once it is resumed.
 * Every check's end wakes the sites waiting for one (`ended`).
 */
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import { renamePlanSchema } from '../../utils/cross-seed-engine';
import { decidedKey } from './cross-seed-job.storage';
import { checkWaits, targetOf } from './client-pauses';
import type { JobState } from './job-state';

/** Torrents taken and not yet settled (in flight, or added stopped with their check under way) per client, at most. */
export const MAX_CHECKS_IN_FLIGHT = 8;

export class JobChecks {
  /** Second phases under way in this worker, by decidedKey: each settles its torrent. */
  private readonly running = new Map<string, Promise<void>>();
  /** At most this many torrents taken and not yet settled per client (tests lower it). */
  bound = MAX_CHECKS_IN_FLIGHT;

  constructor(
    private readonly state: JobState,
    private readonly crossSeeds: CrossSeeds,
    private readonly now: () => number,
    /** Called as each check ends (the sites waiting at the bound look again). */
    private readonly ended: () => void,
  ) {}

  /** `settled` is torrent `key`'s run in this worker from now on (its check, once it is added stopped). */
  track(key: string, settled: Promise<void>): void {
    this.running.set(key, settled);
  }

  /** Torrent `key`'s run ended (`settled` was it): a site waiting for a check looks again. */
  untrack(key: string, settled: Promise<void>): void {
    if (this.running.get(key) === settled) this.running.delete(key);
    this.ended();
  }

  /** Every check under way in this worker (tests and the feature's settled() wait on them). */
  underWay(): Promise<void>[] {
    return [...this.running.values()];
  }

  get size(): number {
    return this.running.size;
  }

  /** Every torrent at its check that no one in this worker finishes, and whose client is not paused: finished in its client, then settled. */
  finishAll(): void {
    const job = this.state.current;
    if (this.state.halted || !job) return;
    for (const site of job.sites) {
      for (const item of site.checking ?? []) {
        const key = decidedKey(item);
        if (this.running.has(key) || checkWaits(job, item)) continue;
        const sid = site.sid;
        const settled: Promise<void> = this.crossSeeds
          .finishAddedStopped(item.addedHash ?? item.infoHash, renamePlanSchema.safeParse(item.rename).data, targetOf(item))
          .then((result) => (this.state.halted ? undefined : this.state.record(sid, item, result, this.now())))
          .catch(() => undefined)
          .finally(() => this.untrack(key, settled));
        this.running.set(key, settled);
      }
    }
  }
}
