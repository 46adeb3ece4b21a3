/**
 * The job as the page shows it (`job:status`; `job:changed` carries what changed of it:
 * job-change.ts). Pure: the background, the page's tests and the bench share it. Its cost is the
 * sites' and the clients' count, not the job's torrents (it is built at every write).
 */
import type { JobClientView, JobView } from './cross-seed-job.messages';
import type { StoredJob } from './cross-seed-job.storage';

/** The job as the page shows it. `share`: its outcomes are the job's own array (to announce what was added; the job goes on adding to it), not a copy. */
export function viewOf(job: StoredJob | undefined, options: { share?: boolean } = {}): JobView {
  if (!job) return { state: 'idle', total: 0, done: 0, sites: [], outcomes: [], revision: 0 };
  const sites = job.sites.map((site) => ({
    sid: site.sid,
    siteName: site.siteName,
    total: site.total,
    done: site.done,
    state: site.state,
    ...(site.problem && { problem: site.problem }),
    ...(site.openUrl && { openUrl: site.openUrl }),
    ...(site.nextAt !== undefined && { nextAt: site.nextAt }),
    msLeft: (site.queue.length + (site.inFlight ? 1 : 0)) * site.secondsBetween * 1000,
  }));
  const clients = Object.entries(job.clients ?? {}).map(([id, name]): JobClientView => {
    const paused = job.pausedClients?.[id];
    return { id, name, ...(paused && { paused }) };
  });
  // A paused client the job has no Name for (a result that named none): still offered its "Resume".
  for (const [id, paused] of Object.entries(job.pausedClients ?? {})) if (!job.clients?.[id]) clients.push({ id, name: id, paused });
  return {
    state: job.state,
    ...(job.pausedBecause && { pausedBecause: job.pausedBecause }),
    ...(clients.length && { clients }),
    startedAt: job.startedAt,
    total: sites.reduce((sum, site) => sum + site.total, 0),
    done: sites.reduce((sum, site) => sum + site.done, 0),
    sites,
    outcomes: options.share ? job.outcomes : job.outcomes.slice(),
    revision: job.revision,
  };
}
