/**
 * The job's changes as `job:changed` carries them: what changed since the previous revision (the
 * job's header, the sites whose view changed, the outcomes added), not the whole job, so a job of
 * 10,000 torrents announces each step in the size of the step. The page holds the view and applies
 * each change on the revision it follows; a change that does not follow what it holds (one missed:
 * the page opened mid-job, a message lost) is a gap, and it asks `job:status` again.
 *
 * Pure: the background (changeOf), the page and the tests (applyJobChange) share it.
 */
import type { JobChange, JobSiteView, JobView } from './cross-seed-job.messages';

/** The view's header (what is not sites nor outcomes). */
function headerOf(view: JobView): Omit<JobView, 'sites' | 'outcomes' | 'revision'> {
  return {
    state: view.state,
    ...(view.pausedBecause && { pausedBecause: view.pausedBecause }),
    ...(view.clients && { clients: view.clients }),
    ...(view.startedAt !== undefined && { startedAt: view.startedAt }),
    total: view.total,
    done: view.done,
  };
}

/** A change carrying the whole view (a new job; tests announcing a state): whatever the page held is replaced. */
export function wholeChange(view: JobView, since = 0): JobChange {
  return { ...headerOf(view), revision: view.revision, since, whole: true, sites: view.sites, outcomes: view.outcomes.slice(), outcomeCount: view.outcomes.length };
}

/** What a change is told against: the revision, sites and outcome count last told. */
export interface ToldJob {
  revision: number;
  sites: readonly JobSiteView[];
  outcomeCount: number;
}

const sameSite = (a: JobSiteView | undefined, b: JobSiteView) => !!a && JSON.stringify(a) === JSON.stringify(b);

/**
 * What changed from `previous` (what was last told) to `next`: the sites whose view differs, the
 * outcomes past `previous`'s count. Outcomes only grow within one job; a job started anew (fewer outcomes, other sites)
 * is announced whole.
 */
export function changeOf(previous: ToldJob, next: JobView, options: { whole?: boolean } = {}): JobChange {
  const sameSites = previous.sites.length === next.sites.length && previous.sites.every((site, index) => site.sid === next.sites[index]!.sid);
  if (options.whole || !sameSites || next.outcomes.length < previous.outcomeCount) return wholeChange(next, previous.revision);
  const before = new Map(previous.sites.map((site) => [site.sid, site]));
  return {
    ...headerOf(next),
    revision: next.revision,
    since: previous.revision,
    sites: next.sites.filter((site) => !sameSite(before.get(site.sid), site)),
    outcomes: next.outcomes.slice(previous.outcomeCount),
    outcomeCount: next.outcomes.length,
  };
}

/**
 * The view after `change`: `held` when the change is older than it (nothing to do), 'gap' when it
 * does not follow `held` (ask `job:status`). A whole change applies over anything older.
 */
export function applyJobChange(held: JobView | undefined, change: JobChange): JobView | 'gap' | undefined {
  if (held && change.revision <= held.revision) return held;
  const { revision, since: _since, whole, sites, outcomes, outcomeCount, ...header } = change;
  if (whole) return { ...header, sites, outcomes, revision };
  if (!held || change.since !== held.revision || held.outcomes.length + outcomes.length !== outcomeCount) return 'gap';
  const changed = new Map(sites.map((site) => [site.sid, site]));
  return {
    ...header,
    sites: held.sites.map((site) => changed.get(site.sid) ?? site),
    outcomes: outcomes.length ? [...held.outcomes, ...outcomes] : held.outcomes,
    revision,
  };
}
