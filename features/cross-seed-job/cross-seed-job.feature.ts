/**
 * "Cross-seed your clients" (issues 17 and 33), the background's part: the preview from the indexes
 * of every client, and the job that cross-seeds them site by site, each torrent into the client
 * that holds its data (or that client's "Copies go to" client). This class registers the page's
 * messages and holds the job's parts, each a module of its own:
 *
 * - job-preview.ts: "Find what I can cross-seed" — the finds over every client's index, where each
 *   goes, and whether each site can be downloaded from now.
 * - site-drive.ts: each site's driving loop, at its pace under its daily cap; a client that goes
 *   down pauses only the torrents that wait on it (client-pauses.ts).
 * - job-checks.ts: the torrents at their check in their client, at most 8 per client at once.
 * - job-state.ts: the job's stored writes (storage: cross-seed-job.storage.ts) and their
 *   announces; job-outcomes.ts: how a result enters the job.
 * - job-view.ts and job-change.ts: the job as the page shows it, and what changed of it.
 * - new-finds.ts: new finds after a sync, told or started.
 *
 * Nothing lost, nothing twice: the job (queues, the item in flight, the torrents at their check,
 * the report) is in storage.local and written before each step; after a restart it goes on where
 * it was without downloading or adding anything twice. Every outcome decided is remembered per
 * (site, torrent id, info-hash); "Try again" forgets them. Commands answer nothing: the job's state
 * is announced as `job:changed`.
 */
import type { Handlers } from '../../utils/messaging/protocol';
import type { Shared } from '../context';
import type { crossSeedJobMessages, JobSwitches, JobView } from './cross-seed-job.messages';
import type { Clients } from '../clients/clients.feature';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import type { ClientIndexFeature } from '../client-index/client-index.feature';
import { siteName } from '../lookup/candidates';
import { decidedItem, jobSwitchesItem, type StoredJob, type StoredJobSite } from './cross-seed-job.storage';
import { pauseIfOnlyWaiting, resumeClients } from './client-pauses';
import { JobChecks } from './job-checks';
import { carryOver, finishIfDone } from './job-outcomes';
import { JobPreviews } from './job-preview';
import { JobState } from './job-state';
import { viewOf } from './job-view';
import { afterSync } from './new-finds';
import { SiteDrives } from './site-drive';

/** The alarm that wakes the worker for a running job (a paced site's next download, a job a restart left running). */
export const JOB_ALARM = 'cross-seed-job';
/** How often it fires: a stopped worker picks a running job up again within this. */
export const JOB_ALARM_MINUTES = 0.5;

export class CrossSeedJob {
  private readonly state: JobState;
  private readonly previews: JobPreviews;
  private readonly checks: JobChecks;
  private readonly drives: SiteDrives;

  constructor(
    readonly shared: Shared,
    private readonly clients: Clients,
    private readonly crossSeeds: CrossSeeds,
    private readonly index: ClientIndexFeature,
  ) {
    this.state = new JobState(async () => {
      const [first] = await clients.handles();
      return first && { id: first.config.id, name: first.config.name };
    });
    this.previews = new JobPreviews(shared, clients, crossSeeds, index);
    this.checks = new JobChecks(this.state, crossSeeds, () => shared.now(), () => this.drives.wakeAll());
    this.drives = new SiteDrives(this.state, this.checks, clients, crossSeeds, () => shared.now());
    index.afterSync.add(() => (this.state.halted ? Promise.resolve() : afterSync(shared, this.previews, (sids) => this.start(sids))));
  }

  /** At most this many torrents taken and not yet settled per client (in flight to it, or at their check in it); tests lower it. */
  get checksBound(): number {
    return this.checks.bound;
  }

  set checksBound(bound: number) {
    this.checks.bound = bound;
  }

  /** The job as last written (tests and the bench read the torrents at their check from it). */
  get job(): StoredJob | undefined {
    return this.state.current;
  }

  readonly handlers: Handlers<typeof crossSeedJobMessages> = {
    'job:preview': () => this.previews.preview(),
    'job:site-torrents': ({ sid, offset, limit }) => this.previews.siteTorrents(sid, offset, limit),
    'job:site-pace': async ({ sid, secondsBetween, perDay }) => {
      await this.crossSeeds.budget.setPace(sid, { secondsBetween, perDay });
      if (this.state.current?.sites.some((site) => site.sid === sid)) {
        await this.state.update((job) => {
          for (const site of job.sites) if (site.sid === sid) site.secondsBetween = secondsBetween;
        });
        this.drives.wakeAll();
      }
      return this.previews.preview({ readiness: false });
    },
    'job:start': async ({ sids }) => {
      await this.start(sids);
    },
    'job:pause': async () => {
      await this.pause();
    },
    'job:resume': async ({ clientId }) => {
      await this.resume(clientId);
    },
    'job:cancel': async () => {
      await this.cancel();
    },
    'job:status': () => this.status(),
    'job:try-again': async ({ sids }) => {
      await this.forget(sids);
      return this.previews.preview({ readiness: false });
    },
    'job:switches': async (change) => {
      const next: JobSwitches = { ...(await jobSwitchesItem.get()), ...definedOf(change) };
      await jobSwitchesItem.set(next);
      return next;
    },
  };

  // ----------------------------------------------------------------------------------------------
  // Commands

  /** "Start cross-seeding" these sites: their finds now (decided ones left out), each site's queue. A job running is left alone. */
  async start(sids: readonly number[]): Promise<void> {
    const current = await this.state.load();
    // One job at a time: a running one is left alone (a paused or finished one is replaced).
    if (current?.state === 'running') return;
    const settings = await this.shared.settings.get();
    const held = new Set(settings.heldSites ?? []);
    const wanted = sids.filter((sid) => held.has(sid));
    const finds = await this.previews.findsFor(wanted);
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const sites: StoredJobSite[] = [];
    for (const sid of wanted) {
      // Queued with their links: the report's rows and a stopped site's "open the site" use them.
      const queue = await this.previews.linked(finds.get(sid)?.torrents ?? []);
      const pace = await this.crossSeeds.budget.pace(sid);
      sites.push({ sid, siteName: siteName(sid, list).name, state: queue.length ? 'waiting' : 'done', queue, total: queue.length, done: 0, secondsBetween: pace.secondsBetween });
    }
    // Every client's Name as it is now, in the user's order (the report and the paused clients name them).
    const clients: Record<string, string> = {};
    for (const handle of await this.clients.handles()) clients[handle.config.id] = handle.config.name;
    const revision = (current?.revision ?? 0) + 1;
    const startedAt = this.shared.now();
    await this.state.replace((before) => {
      carryOver(before, sites, clients);
      return { state: sites.some((site) => site.queue.length || site.inFlight || site.checking?.length) ? 'running' : 'done', clients, startedAt, revision, sites, outcomes: [] };
    });
    this.drives.drive();
  }

  async pause(): Promise<void> {
    await this.state.update((job) => {
      if (job.state === 'running') job.state = 'paused';
    });
    this.drives.wakeAll();
  }

  /**
   * "Resume": the job and every client's torrents. With `clientId` ("Resume" of a client whose
   * torrents wait): that client's torrents only; the job goes on if it had paused for its clients
   * (not if the user paused it), unless another paused client holds everything left.
   */
  async resume(clientId?: string): Promise<void> {
    await this.state.update((job) => {
      resumeClients(job, clientId);
      if (job.state !== 'paused') return;
      const byClients = job.pausedBecause?.kind === 'client' || job.pausedBecause?.kind === 'sources-missing';
      if (clientId && !byClients) return;
      job.state = 'running';
      delete job.pausedBecause;
      // Everything ended while paused (its last checks): nothing left to drive.
      finishIfDone(job);
      pauseIfOnlyWaiting(job);
    });
    this.drives.drive();
  }

  /** "Cancel": nothing more is downloaded; what runs now ends and is reported; the rest is forgotten (never decided). */
  async cancel(): Promise<void> {
    await this.state.update((job) => {
      if (job.state !== 'running' && job.state !== 'paused') return;
      job.state = 'cancelled';
      delete job.pausedBecause;
      for (const site of job.sites) {
        site.queue = [];
        delete site.nextAt;
        // A torrent already in the client stopped still has its check finished and is started only at
        // 100 % (else left stopped and tagged), as without Cancel: that downloads nothing from the site,
        // and abandoning it would leave a stopped torrent nobody reports, neither seeding nor marked.
        if (site.state === 'waiting' || site.state === 'running') site.state = site.inFlight || site.checking?.length ? 'running' : 'stopped';
      }
    });
    this.drives.wakeAll();
  }

  async status(): Promise<JobView> {
    return viewOf(await this.state.load());
  }

  /** "Try again": forget what was decided for these sites (all when absent). */
  private async forget(sids: readonly number[] | undefined): Promise<void> {
    const decided = await decidedItem.get();
    const prefixes = sids?.map((sid) => `${sid}:`);
    const kept = prefixes ? Object.fromEntries(Object.entries(decided).filter(([key]) => !prefixes.some((prefix) => key.startsWith(prefix)))) : {};
    await decidedItem.set(kept);
  }

  // ----------------------------------------------------------------------------------------------
  // Running

  /** At every background start, and on the job's alarm: a job that was running goes on where it was. */
  async wake(): Promise<void> {
    await this.state.load();
    // Checks of torrents added stopped end whatever the job's state (paused, cancelled): they download nothing.
    this.drives.drive();
  }

  /** This object stops working (a stopped worker); nothing it runs writes again. */
  halt(): void {
    this.state.halted = true;
    this.drives.wakeAll();
  }

  /** Resolves once every site this worker drives and every check it runs has stopped (tests wait on it). */
  async settled(): Promise<void> {
    while (this.drives.size || this.checks.size) await Promise.all(this.drives.underWay());
  }
}

function definedOf(change: Partial<JobSwitches>): Partial<JobSwitches> {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
}
