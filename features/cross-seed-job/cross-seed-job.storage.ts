/**
 * What "Cross-seed your clients" keeps in storage.local (kept across a stopped service worker, a
 * browser restart and an update): the job itself (each site's queue, the item in flight, the
 * torrents added stopped whose check is under way, the report so far), every outcome decided (by
 * site, torrent id and info-hash, across runs), the page's two switches, and how many finds the
 * last notice counted per site.
 *
 * The job is stored in parts (JobStore) so that a write costs the size of the step, not of the job:
 * 'job:state' holds the job without its queues and outcomes (sites, states, the item in flight, the
 * torrents at their check, and `parts`: where the rest is); each site's queue as it was when last
 * written whole
 * ('job:queue:<sid>', of which the queue is the tail from `parts.queues[sid]`: a queue only changes
 * at its head, an item taken or put back; written whole again when it changed otherwise, or once
 * a quarter of it is gone); the outcomes in chunks of JOB_OUTCOMES_CHUNK
 * ('job:outcomes:<n>', only the last one rewritten as outcomes are added). One storage call per
 * write: all of it is written, or none.
 */
import { z } from 'zod';
import { defineStoredFamily, defineStoredItem, setTogether, type StoredWrite } from '../../utils/stored-item';
import type { JobClientPause, JobOutcome, JobOutcomeGroup, JobSiteState, JobSwitches, JobTorrent, JobView } from './cross-seed-job.messages';
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
  /**
   * The clients of the job by id, each with its Name when the job started (the report's words), in
   * the user's order. Absent in a job stored before several clients (job-state.ts migrates it).
   */
  clients?: Record<string, string>;
  /** Clients whose torrents wait (it stopped answering, or lists none of its sources), by id: theirs alone wait, the rest go on. */
  pausedClients?: Record<string, JobClientPause>;
  startedAt: number;
  revision: number;
  sites: StoredJobSite[];
  outcomes: JobOutcome[];
}

/** Where the parts of a stored job are ('job:state' then has empty queues and outcomes). Absent: all of it is in 'job:state' (an older layout). */
interface JobParts {
  /** How many outcomes the job has (chunks 0 … ceil(outcomes / JOB_OUTCOMES_CHUNK) − 1). */
  outcomes: number;
  /** By sid: the queue is 'job:queue:<sid>' from this index on. */
  queues: Record<string, number>;
}

type StoredJobHeader = StoredJob & { parts?: JobParts };

const storedJobSchema = z.custom<StoredJobHeader>((value) => {
  const job = value as Partial<Record<keyof StoredJobHeader, unknown>> | null;
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

/** Outcomes a stored chunk holds. */
export const JOB_OUTCOMES_CHUNK = 100;
const objects = <T>() => z.array(z.custom<T>((value) => !!value && typeof value === 'object'));
/** The job's outcomes, JOB_OUTCOMES_CHUNK a key, by chunk number. */
export const jobOutcomeChunks = defineStoredFamily({ area: 'local', prefix: 'job:outcomes:', schema: objects<JobOutcome>(), fallback: undefined });
/** Each site's queue as last written whole, by sid (the queue is a tail of it). */
export const jobQueues = defineStoredFamily({ area: 'local', prefix: 'job:queue:', schema: objects<JobTorrent>(), fallback: undefined });
const chunksOf = (outcomes: number) => Math.ceil(outcomes / JOB_OUTCOMES_CHUNK);
const sameItem = (a: JobTorrent | undefined, b: JobTorrent | undefined) => !!a && !!b && a.sid === b.sid && a.torrentId === b.torrentId && a.infoHash === b.infoHash;

/**
 * The job in storage, in parts: what this worker last wrote (or read) of it, so a write stores only
 * what changed since (the job's header, a queue written whole again only when it changed other than
 * at its head, the outcomes' last chunks).
 */
export class JobStore {
  /** Outcomes stored. */
  private outcomes = 0;
  /** Each site's queue as stored under its key (the queue is a tail of it). */
  private readonly bases = new Map<number, JobTorrent[]>();

  async load(): Promise<StoredJob | undefined> {
    const header = await jobStateItem.get();
    this.outcomes = 0;
    this.bases.clear();
    if (!header) return undefined;
    const { parts, ...job } = header;
    // An older layout: all of it in 'job:state' (the next write stores it in parts).
    if (!parts) return job;
    const chunks = await jobOutcomeChunks.getMany(Array.from({ length: chunksOf(parts.outcomes) }, (_, chunk) => String(chunk)));
    const queues = await jobQueues.getMany(Object.keys(parts.queues));
    const outcomes: JobOutcome[] = [];
    for (let chunk = 0; chunk < chunksOf(parts.outcomes); chunk++) outcomes.push(...(chunks.get(String(chunk)) ?? []));
    job.outcomes = outcomes.slice(0, parts.outcomes);
    this.outcomes = job.outcomes.length;
    job.sites = job.sites.map((site) => {
      const base = queues.get(String(site.sid)) ?? [];
      this.bases.set(site.sid, base);
      return { ...site, queue: base.slice(parts.queues[String(site.sid)] ?? base.length) };
    });
    return job;
  }

  /** Stores `job`: its header, and of its queues and outcomes what changed since the last save (all of it when `whole`: a new job). */
  async save(job: StoredJob, options: { whole?: boolean } = {}): Promise<void> {
    const chunks: [number, JobOutcome[]][] = [];
    const written: [number, JobTorrent[]][] = [];
    const staleChunks: number[] = [];
    const staleQueues: number[] = [];
    // Outcomes: only grow within a job; from the chunk the last save ended in.
    const from = options.whole || job.outcomes.length < this.outcomes ? 0 : this.outcomes;
    for (let chunk = Math.floor(from / JOB_OUTCOMES_CHUNK); job.outcomes.length > from && chunk < chunksOf(job.outcomes.length); chunk++) {
      chunks.push([chunk, job.outcomes.slice(chunk * JOB_OUTCOMES_CHUNK, (chunk + 1) * JOB_OUTCOMES_CHUNK)]);
    }
    for (let chunk = chunksOf(job.outcomes.length); chunk < chunksOf(this.outcomes); chunk++) staleChunks.push(chunk);
    // Queues: a tail of what is stored (an item taken, or put back), or stored whole again.
    const queues: Record<string, number> = {};
    const bases = new Map<number, JobTorrent[]>();
    for (const site of job.sites) {
      const queue = site.queue;
      let base = options.whole ? undefined : this.bases.get(site.sid);
      const tail = base && queue.length <= base.length && (!queue.length || (sameItem(queue[0], base[base.length - queue.length]) && sameItem(queue.at(-1), base.at(-1))));
      // Written again once a quarter of it is gone, so what is stored stays within 4/3 of the queue (storage.local is
      // counted: 10 MB in Chrome) and each item is written about four times in all.
      if (!base || !tail || queue.length * 4 < base.length * 3) {
        base = queue.slice();
        written.push([site.sid, base]);
      }
      bases.set(site.sid, base);
      queues[String(site.sid)] = base.length - queue.length;
    }
    for (const sid of this.bases.keys()) if (!bases.has(sid)) staleQueues.push(sid);
    const header: StoredJobHeader = { ...job, sites: job.sites.map((site) => ({ ...site, queue: [] })), outcomes: [], parts: { outcomes: job.outcomes.length, queues } };
    const writes: StoredWrite[] = [jobStateItem.write(header)];
    if (chunks.length) writes.push(jobOutcomeChunks.write(chunks));
    if (written.length) writes.push(jobQueues.write(written));
    await setTogether(...writes);
    this.outcomes = job.outcomes.length;
    this.bases.clear();
    for (const [sid, base] of bases) this.bases.set(sid, base);
    // What the job no longer has (a new job, shorter or of other sites): the header no longer points at it.
    if (staleChunks.length) await jobOutcomeChunks.remove(staleChunks).catch(() => undefined);
    if (staleQueues.length) await jobQueues.remove(staleQueues).catch(() => undefined);
  }
}

/** The job's stored parts as JSON, UTF-8 bytes (what storage.local holds and counts): the bench's figure. */
export async function storedJobBytes(): Promise<number> {
  const bytes = (key: string, value: unknown) => new TextEncoder().encode(key + JSON.stringify(value)).length;
  let total = bytes(jobStateItem.key, await jobStateItem.get());
  for (const family of [jobOutcomeChunks, jobQueues]) for (const [id, value] of await family.all()) total += bytes(family.keyOf(id), value);
  return total;
}

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
