/**
 * What "Cross-seed your client" keeps in storage.local (kept across a stopped service worker, a
 * browser restart and an update): the job itself (each site's queue, the item in flight, the
 * torrents added stopped whose check is under way, the report so far), every outcome decided (by
 * site, torrent id and info-hash, across runs), the page's two switches, and how many finds the
 * last notice counted per site.
 */
import { z } from 'zod';
import { defineStoredItem } from '../../utils/stored-item';
import type { JobOutcome, JobOutcomeGroup, JobSiteState, JobSwitches, JobTorrent, JobView } from './cross-seed-job.messages';
import type { CrossSeedResult } from '../../utils/cross-seed-engine';

/** A site of the job as stored: its queue (not yet tried, in order) and the item in flight. */
export interface StoredJobSite {
  sid: number;
  siteName: string;
  homeUrl?: string;
  state: JobSiteState;
  queue: JobTorrent[];
  /**
   * Taken from the queue, its run under way. `requested`: its first request to the site has left
   * (counted in the site's downloads), so it is never downloaded again by this job.
   */
  inFlight?: JobTorrent & { requested: boolean };
  /**
   * In the client STOPPED (downloaded, checked, the add confirmed), the client's check and the start
   * at 100 % under way: the site went on to its next download. Written before that download; never
   * downloaded nor added again — after a restart each is looked up in the client and finished there.
   */
  checking?: JobTorrent[];
  total: number;
  done: number;
  secondsBetween: number;
  problem?: CrossSeedResult;
  openUrl?: string;
  /** Not before (ms): a 429's Retry-After. */
  retryAt?: number;
  nextAt?: number;
}

export interface StoredJob {
  state: JobView['state'];
  pausedBecause?: JobView['pausedBecause'];
  startedAt: number;
  revision: number;
  sites: StoredJobSite[];
  outcomes: JobOutcome[];
}

const storedJobSchema = z.custom<StoredJob>((value) => {
  const job = value as Partial<Record<keyof StoredJob, unknown>> | null;
  return (
    !!job &&
    typeof job === 'object' &&
    typeof job.state === 'string' &&
    typeof job.revision === 'number' &&
    Array.isArray(job.sites) &&
    job.sites.every((site) => !!site && typeof site === 'object' && typeof (site as StoredJobSite).sid === 'number' && Array.isArray((site as StoredJobSite).queue)) &&
    Array.isArray(job.outcomes)
  );
});

export const jobStateItem = defineStoredItem({ area: 'local', key: 'job:state', schema: storedJobSchema, fallback: undefined });

/** One candidate as outcomes are remembered by. */
export function decidedKey(item: Pick<JobTorrent, 'sid' | 'torrentId' | 'infoHash'>): string {
  return `${item.sid}:${item.torrentId}:${item.infoHash}`;
}

const groups = ['added', 'left-stopped', 'files-differ', 'site-problem', 'waiting-for-tomorrow', 'other'] as const satisfies readonly JobOutcomeGroup[];

/** Every outcome decided, by decidedKey: a later run does not try it again unless "Try again". */
export const decidedItem = defineStoredItem({
  area: 'local',
  key: 'job:decided',
  schema: z.record(z.string(), z.enum(groups)),
  fallback: {} as Record<string, JobOutcomeGroup>,
});

export const jobSwitchesItem = defineStoredItem({
  area: 'local',
  key: 'job:switches',
  schema: z.object({ notifyNewFinds: z.boolean(), autoStartNewFinds: z.boolean() }),
  fallback: { notifyNewFinds: false, autoStartNewFinds: false } as JobSwitches,
});

/** The finds each site had when the user was last told (new finds are those above it). */
export const noticedFindsItem = defineStoredItem({
  area: 'local',
  key: 'job:noticed-finds',
  schema: z.record(z.string(), z.array(z.string())),
  fallback: {} as Record<string, string[]>,
});
