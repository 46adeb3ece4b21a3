/**
 * Which clients each torrent of the job waits on, and a client that goes down pausing only its own
 * torrents (issue 33): the job's rules over its stored state, pure (the site drives, the checks and
 * the commands apply them inside their writes).
 *
 * A torrent waits on the client holding its source and the client its copy goes to (the same one
 * unless "Copies go to" sends it elsewhere), and on a third client when a run found its source
 * nowhere and could not ask that one. A client paused (it stopped answering, or answers listing
 * none of its sources) holds back only the torrents that wait on it: they stay queued, untried, or
 * at their check, finished once it is resumed; every other torrent and every site goes on. The job
 * pauses whole only once nothing but such torrents is left.
 *
 * At most `bound` torrents are taken and not yet settled per client (in flight to it, or at their
 * check in it): a site whose next torrent's client is at the bound takes a later one of another
 * client, so one slow disk holds back its own torrents only.
 */
import type { JobClientPause, JobTorrent } from './cross-seed-job.messages';
import type { StoredJob, StoredJobSite } from './cross-seed-job.storage';

/** The client a torrent's copy goes to: the one the preview chose, or once added the one it was added to. */
export function targetOf(item: JobTorrent): string | undefined {
  return item.targetClientId ?? item.sourceClientId;
}

/** Whether `item` waits on a client whose torrents are paused now. */
export function waitsOnPaused(job: StoredJob, item: JobTorrent): boolean {
  const paused = job.pausedClients;
  if (!paused) return false;
  return (!!item.sourceClientId && !!paused[item.sourceClientId]) || (!!item.targetClientId && !!paused[item.targetClientId]) || (!!item.waitsFor && !!paused[item.waitsFor]);
}

/** Whether a torrent at its check waits for its client (paused: its check is finished once that client is resumed). */
export function checkWaits(job: StoredJob, item: JobTorrent): boolean {
  const target = targetOf(item);
  return !!target && !!job.pausedClients?.[target];
}

/** Torrents taken and not settled, by the client they go to: in flight, or at their check. */
export function underWayByClient(job: StoredJob): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (item: JobTorrent) => {
    const target = targetOf(item) ?? '';
    counts.set(target, (counts.get(target) ?? 0) + 1);
  };
  for (const site of job.sites) {
    if (site.inFlight) count(site.inFlight);
    for (const item of site.checking ?? []) count(item);
  }
  return counts;
}

/** A site's next torrent (its place in the queue), or why none can be taken now: every queued one's client is at the bound, or paused. */
export type NextTorrent = { item: JobTorrent; index: number } | { blocked: 'bound' | 'paused' };

/**
 * The first torrent of `site`'s queue whose clients are not paused and whose client has fewer than
 * `bound` torrents under way; undefined when the queue is empty. Blocked by both: 'bound' (a check's
 * end frees it).
 */
export function nextOf(job: StoredJob, site: StoredJobSite, bound: number): NextTorrent | undefined {
  if (!site.queue.length) return undefined;
  const load = underWayByClient(job);
  let atBound = false;
  for (let index = 0; index < site.queue.length; index++) {
    const item = site.queue[index]!;
    if (waitsOnPaused(job, item)) continue;
    if ((load.get(targetOf(item) ?? '') ?? 0) >= bound) {
      atBound = true;
      continue;
    }
    return { item, index };
  }
  return { blocked: atBound ? 'bound' : 'paused' };
}

/** Whether another torrent may be taken for `item`'s client now (the check a site makes again as it takes it). */
export function underBound(job: StoredJob, item: JobTorrent, bound: number): boolean {
  return (underWayByClient(job).get(targetOf(item) ?? '') ?? 0) < bound;
}

/** `clientId`'s torrents wait (`why`): those queued stay untried, those at their check stay there. */
export function pauseClient(job: StoredJob, clientId: string, why: JobClientPause): void {
  (job.pausedClients ??= {})[clientId] = why;
}

/** `clientId`'s torrents (every client's when absent) go on. */
export function resumeClients(job: StoredJob, clientId?: string): void {
  if (clientId && job.pausedClients) {
    delete job.pausedClients[clientId];
    if (Object.keys(job.pausedClients).length) return;
  }
  delete job.pausedClients;
}

/** Whether anything of the job can move now: a torrent in flight, or one queued or at its check that waits on no paused client. */
export function anythingToDo(job: StoredJob): boolean {
  for (const site of job.sites) {
    // In flight: its run ends by itself (one a stopped worker left waits for its client with the rest).
    if (site.inFlight && !waitsOnPaused(job, site.inFlight)) return true;
    if (site.checking?.some((item) => !checkWaits(job, item))) return true;
    if ((site.state === 'waiting' || site.state === 'running') && site.queue.some((item) => !waitsOnPaused(job, item))) return true;
  }
  return false;
}

/**
 * A running job whose torrents left all wait on paused clients pauses whole, for the first of them
 * (what "Resume" answers): the page then offers it. Cheap while no client is paused.
 */
export function pauseIfOnlyWaiting(job: StoredJob): void {
  if (job.state !== 'running' || !job.pausedClients) return;
  const [first] = Object.values(job.pausedClients);
  if (!first || anythingToDo(job)) return;
  job.state = 'paused';
  job.pausedBecause = first;
}
