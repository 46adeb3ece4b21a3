/**
 * How one torrent's result enters the job (its report, its site's state, what is remembered as
 * decided), and the job's other rules over its stored state: a site's daily cap, a job that is
 * through, a new job carrying over what an old one has under way. Pure: applied inside the job's
 * writes (job-state.ts).
 */
import type { CrossSeedResult } from '../../utils/cross-seed-engine';
import type { JobOutcome, JobOutcomeGroup, JobTorrent } from './cross-seed-job.messages';
import { decidedKey, type StoredJob, type StoredJobSite } from './cross-seed-job.storage';
import { pauseClient, pauseIfOnlyWaiting, targetOf } from './client-pauses';

/** What stops a site for the rest of the job: the site, not the torrent, is at fault. */
const SITE_PROBLEMS = new Set<CrossSeedResult['kind']>(['not-logged-in', 'site-notice', 'site-challenge', 'site-limit', 'site-refused', 'site-unreachable', 'no-permission', 'needs-passkey', 'unsupported-site', 'other-site-host', 'site-skipped']);

/** The report's group of one result (daily-cap and site problems are handled before). */
export function groupOf(result: CrossSeedResult): JobOutcomeGroup {
  switch (result.kind) {
    case 'added':
      return 'added';
    case 'left-stopped':
      return 'left-stopped';
    case 'files-differ':
      return 'files-differ';
    case 'daily-cap':
      return 'waiting-for-tomorrow';
    default:
      return SITE_PROBLEMS.has(result.kind) ? 'site-problem' : 'other';
  }
}

/** The client a result says the torrent is in now: added to, left stopped in, or found held by. */
function landedIn(result: CrossSeedResult): { id: string; name?: string } | undefined {
  if ((result.kind !== 'added' && result.kind !== 'left-stopped' && result.kind !== 'already-in-client') || !result.clientId) return undefined;
  return { id: result.clientId, ...(result.clientName && { name: result.clientName }) };
}

/** Groups remembered as decided (a later run does not try them again): what a download settled. */
const DECIDED = new Set<JobOutcomeGroup>(['added', 'left-stopped', 'files-differ', 'other']);

/**
 * One torrent's result (its whole run, or its check after it was added stopped) into `job`: the
 * outcome to remember as decided, if any. A client that stopped answering pauses its own torrents
 * only: the torrent goes back to its queue (not added) or stays at its check (in the client already).
 */
export function applyResult(job: StoredJob, sid: number, item: JobTorrent, result: CrossSeedResult, now: number): JobOutcome | undefined {
  const site = job.sites.find((entry) => entry.sid === sid);
  if (!site) return undefined;
  const key = decidedKey(item);
  const checking = site.checking?.findIndex((entry) => decidedKey(entry) === key) ?? -1;
  if (checking >= 0) {
    // In the client already: never back to the queue (that would download it again).
    if (result.kind === 'client-failed') {
      // Its client stopped answering during its check: it stays checking, finished once that client is resumed.
      clientFailed(job, result, site.checking![checking]!);
      return undefined;
    }
    site.checking!.splice(checking, 1);
  } else if (site.inFlight && decidedKey(site.inFlight) === key) delete site.inFlight;
  // Not this job's any more (replaced by a new one meanwhile).
  else return undefined;
  const back = (again: JobTorrent = item) => {
    if (job.state !== 'cancelled') site.queue.unshift(again);
  };
  if (checking < 0 && result.kind === 'client-failed') {
    // A client stopped answering: this torrent was not added; it waits (untried) with that client's others.
    const failed = result.clientId;
    back(failed && failed !== item.sourceClientId && failed !== item.targetClientId ? { ...item, waitsFor: failed } : item);
    clientFailed(job, result, item);
    return undefined;
  }
  if (result.kind === 'site-limit' && result.retryAfterSeconds !== undefined && result.status === 429) {
    back();
    site.retryAt = now + result.retryAfterSeconds * 1000;
    site.nextAt = site.retryAt;
    return undefined;
  }
  if (result.kind === 'daily-cap') {
    back();
    capSite(job, site, result.perDay, now);
    finishIfDone(job);
    pauseIfOnlyWaiting(job);
    return undefined;
  }
  const group = groupOf(result);
  // The client it is in now (added, left stopped, held already): where the placement put it.
  const landed = landedIn(result);
  if (landed?.name) (job.clients ??= {})[landed.id] ??= landed.name;
  const outcome: JobOutcome = { ...item, ...(landed && { targetClientId: landed.id }), group, result, at: now };
  job.outcomes.push(outcome);
  site.done++;
  if (group === 'site-problem') {
    // This site stops alone; its other torrents stay untried (not decided).
    site.state = 'stopped';
    site.problem = result;
    site.openUrl = item.detailsUrl;
  } else if (site.state !== 'stopped' && site.state !== 'capped') {
    // Through only when none of its torrents is in flight or at its check any more.
    const busy = !!site.inFlight || !!site.checking?.length;
    if (job.state === 'cancelled') site.state = busy ? 'running' : 'stopped';
    else site.state = site.queue.length ? 'waiting' : busy ? 'running' : 'done';
  }
  finishIfDone(job);
  pauseIfOnlyWaiting(job);
  return DECIDED.has(group) ? outcome : undefined;
}

/**
 * The client a `client-failed` names (else the torrent's own) pauses: its torrents wait, the others
 * go on. A result naming no client at all (none known) pauses the whole job, as before several clients.
 */
function clientFailed(job: StoredJob, result: Extract<CrossSeedResult, { kind: 'client-failed' }>, item: JobTorrent): void {
  const clientId = result.clientId ?? targetOf(item);
  if (!clientId) {
    if (job.state === 'running') {
      job.state = 'paused';
      job.pausedBecause = { kind: 'client', problem: result.failure };
    }
    return;
  }
  if (result.clientName) (job.clients ??= {})[clientId] ??= result.clientName;
  pauseClient(job, clientId, { kind: 'client', problem: result.failure });
  pauseIfOnlyWaiting(job);
}

/** The site's daily cap reached: what it has left waits for tomorrow (reported, not decided). */
export function capSite(job: StoredJob, site: StoredJobSite, perDay: number, now: number): void {
  for (const item of site.queue) {
    job.outcomes.push({ ...item, group: 'waiting-for-tomorrow', result: { kind: 'daily-cap', perDay }, at: now });
    site.done++;
  }
  site.queue = [];
  site.state = 'capped';
  delete site.nextAt;
}

/** A running job whose every site is through (no torrent in flight, none at its check, none queued) is done. */
export function finishIfDone(job: StoredJob): void {
  if (job.state !== 'running') return;
  if (job.sites.every((site) => !site.inFlight && !site.checking?.length && (site.state === 'done' || site.state === 'stopped' || site.state === 'capped'))) job.state = 'done';
}

/**
 * A new job replacing one (paused, cancelled, done) that still has torrents under way: they go on
 * in the new job and end in its report — the one in flight (its run is still under way in this
 * worker) and those at their check — and are not queued twice.
 */
export function carryOver(before: StoredJob | undefined, sites: StoredJobSite[], clients: Record<string, string>): void {
  for (const old of before?.sites ?? []) {
    const carried = [...(old.inFlight ? [old.inFlight] : []), ...(old.checking ?? [])];
    if (!carried.length) continue;
    let site = sites.find((entry) => entry.sid === old.sid);
    if (!site) {
      site = { sid: old.sid, siteName: old.siteName, state: 'running', queue: [], total: 0, done: 0, secondsBetween: old.secondsBetween };
      sites.push(site);
    }
    const keys = new Set(carried.map(decidedKey));
    site.queue = site.queue.filter((item) => !keys.has(decidedKey(item)));
    site.total = site.queue.length + carried.length;
    if (old.inFlight) site.inFlight = old.inFlight;
    if (old.checking?.length) site.checking = [...old.checking];
    site.state = 'running';
    // Their clients' Names, for the report (a client removed since keeps the Name the old job knew).
    for (const item of carried) {
      for (const id of [item.sourceClientId, item.targetClientId]) if (id && before?.clients?.[id]) clients[id] ??= before.clients[id];
    }
  }
}
