/**
 * "Cross-seed your client" (issue 17), the background's part: the preview from the index of the
 * default client, and the job that cross-seeds it site by site.
 *
 * Preview: per site the user holds, the index's "can cross-seed" places (the site's torrent not in
 * the client, a complete client torrent holding its content: IndexModel.opportunities, the rule of
 * a list row) less those decided before (remembered outcomes); their count and size; and whether
 * the site can be downloaded from now (its download rule, the extension's permission, and for a
 * session site one light request: a details page, to see whether the site answers with its login
 * page). Computed in chunks, yielding to the event loop, so a 100,000-torrent index blocks nothing.
 *
 * The job: every site in parallel, each one torrent at a time at its own pace ("Seconds between
 * downloads" after the site's last download, one-click ones included) under its daily cap (the
 * rolling 24 hours CrossSeeds.run keeps for every cross-seed). Each torrent goes through
 * CrossSeeds.run with no tab. A site that answers with its login page, a notice, a limit or a
 * challenge stops alone; a 429 waits its Retry-After; the client not answering pauses the job.
 *
 * A site goes on to its next torrent as soon as the one before is in the client STOPPED
 * (downloaded, info-hash and files checked, the add confirmed: CrossSeeds.run's onAddedStopped);
 * that torrent's check and its start at 100 % (or left stopped and tagged) go on meanwhile, the same
 * run, and its outcome lands in the report when it ends. At most `checksBound` torrents (8) are
 * taken and not yet settled in the whole job: at the bound a site waits for one to end, so a slow
 * NAS never gets hundreds of rechecks at once. The job is done only when no check is under way.
 *
 * Nothing lost, nothing twice: the job (queues, the item in flight, the report) is in storage.local
 * and written before each step; the item in flight is marked `requested` once its first request to
 * the site leaves. After a restart, an item in flight not requested goes back to its queue; one
 * requested is looked up in the client (there: its check finished as below; not there: reported as
 * interrupted, never downloaded again by this job). A torrent added stopped is kept in its site's
 * `checking` (written before the site's next download) until its outcome: after a restart it is
 * looked up in the client and its check-then-start finished there (gone: reported), never
 * downloaded or added again; Pause and Cancel let these checks end too. Every outcome is remembered
 * per (site, torrent id, info-hash); "Try again" forgets them. Commands answer nothing: the job's
 * state is announced as `job:changed`.
 */
import { browser } from 'wxt/browser';
import type { Handlers } from '../../utils/messaging/protocol';
import type { Shared } from '../context';
import type { crossSeedJobMessages, JobChanged, JobOutcome, JobSiteView, JobOutcomeGroup, JobPreview, JobSitePreview, JobSwitches, JobTorrent, JobView, SiteReadiness } from './cross-seed-job.messages';
import type { Clients } from '../clients/clients.feature';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import type { ClientIndexFeature } from '../client-index/client-index.feature';
import { clientIdentity } from '../clients/client-identity';
import { announceToPages } from '../announce';
import { detailsUrlOf, siteName } from '../lookup/candidates';
import { downloadSource } from '../../utils/cross-seed-engine/source';
import { problemOfPage, readSitePage, sitePace } from '../../utils/cross-seed-engine/site-queue';
import type { CrossSeedResult } from '../../utils/cross-seed-engine';
import { toClientFailure } from '../../utils/clients/client-errors';
import { decidedItem, decidedKey, JobStore, jobSwitchesItem, noticedFindsItem, type StoredJob, type StoredJobSite } from './cross-seed-job.storage';
import { changeOf } from './job-change';
import { nextTurn } from '../../utils/next-turn';
import { renamePlanSchema } from '../../utils/cross-seed-engine';

/** The alarm that wakes the worker for a running job (a paced site's next download, a job a restart left running). */
export const JOB_ALARM = 'cross-seed-job';
/** How often it fires: a stopped worker picks a running job up again within this. */
export const JOB_ALARM_MINUTES = 0.5;
/** Torrents taken and not yet settled (in flight, or added stopped with their check under way) in a job, at most. */
export const MAX_CHECKS_IN_FLIGHT = 8;
/** A site waiting for checks to end looks again after this at the latest (each check's end wakes it). */
const CHECK_WAIT_MS = 30_000;
/** The preview looks at the clock after this many places… */
const CHUNK = 256;
/** …and gives the event loop a turn once this much time went by since the last (a turn per few places would cost more than the work). */
const SLICE_MS = 8;

/** How many of a job's other sources are looked up to tell a client that has not loaded its torrents. */
const SOURCES_ASKED = 200;


/** A turn of the event loop when SLICE_MS went by since the last one, else nothing (undefined: go on at once). */
function slicer(): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
    });
  };
}

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

/** Groups remembered as decided (a later run does not try them again): what a download settled. */
const DECIDED = new Set<JobOutcomeGroup>(['added', 'left-stopped', 'files-differ', 'other']);

interface SiteFinds {
  sid: number;
  torrents: JobTorrent[];
  decided: number;
}

export class CrossSeedJob {
  /** The job as last written (this worker is its only writer). */
  private job: StoredJob | undefined;
  private loaded = false;
  /** The job in storage (written in parts: what changed). */
  private readonly store = new JobStore();
  /** What the last `job:changed` told (the next one tells what changed since). */
  private announced: { revision: number; sites: JobSiteView[]; outcomeCount: number } | undefined;
  /** Writes, one at a time, in order. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Sites being driven in this worker, by sid. */
  private readonly drivers = new Map<number, Promise<void>>();
  /** Sleepers to wake (pause, cancel, resume, a pace change). */
  private readonly sleepers = new Set<() => void>();
  /** The last preview's torrents per site (site-torrents pages through them; start takes them). */
  private finds = new Map<number, SiteFinds>();
  /** Items whose missing source was there again when looked for: tried once more, then decided (keys of sourceNotLoaded). */
  private readonly retried = new Set<string>();
  /** Set by halt(): this object does nothing more (a worker stopped; tests build a new background). */
  private halted = false;
  /** Checks of torrents added stopped under way in this worker, by decidedKey: each settles its torrent. */
  private readonly checks = new Map<string, Promise<void>>();
  /** At most this many torrents taken and not yet settled in the job (tests lower it). */
  checksBound = MAX_CHECKS_IN_FLIGHT;

  constructor(
    readonly shared: Shared,
    private readonly clients: Clients,
    private readonly crossSeeds: CrossSeeds,
    private readonly index: ClientIndexFeature,
  ) {
    index.afterSync.add(() => this.afterSync());
  }

  readonly handlers: Handlers<typeof crossSeedJobMessages> = {
    'job:preview': () => this.preview(),
    'job:site-torrents': async ({ sid, offset, limit }) => {
      const finds = this.finds.get(sid) ?? (await this.findsFor([sid])).get(sid);
      const torrents = finds?.torrents ?? [];
      return { torrents: await this.linked(torrents.slice(offset, offset + limit)), total: torrents.length };
    },
    'job:site-pace': async ({ sid, secondsBetween, perDay }) => {
      await this.crossSeeds.budget.setPace(sid, { secondsBetween, perDay });
      if (this.job?.sites.some((site) => site.sid === sid)) {
        await this.update((job) => {
          for (const site of job.sites) if (site.sid === sid) site.secondsBetween = secondsBetween;
        });
        this.wakeAll();
      }
      return this.preview({ readiness: false });
    },
    'job:start': async ({ sids }) => {
      await this.start(sids);
    },
    'job:pause': async () => {
      await this.pause();
    },
    'job:resume': async () => {
      await this.resume();
    },
    'job:cancel': async () => {
      await this.cancel();
    },
    'job:status': () => this.status(),
    'job:try-again': async ({ sids }) => {
      await this.forget(sids);
      return this.preview({ readiness: false });
    },
    'job:switches': async (change) => {
      const next: JobSwitches = { ...(await jobSwitchesItem.get()), ...definedOf(change) };
      await jobSwitchesItem.set(next);
      return next;
    },
  };

  // ----------------------------------------------------------------------------------------------
  // Preview

  /** Every held site's finds from the index, decided ones left out (counted). undefined: why there are none. */
  private async findsFor(sids: readonly number[]): Promise<Map<number, SiteFinds>> {
    const found = new Map<number, SiteFinds>();
    const settings = await this.shared.settings.get();
    const chosen = (await this.clients.handles())[0];
    if (!settings.clientIndexEnabled || !chosen) return found;
    const index = await this.index.indexes.open(clientIdentity(chosen.config));
    if (!index) return found;
    const decided = await decidedItem.get();
    // Nothing decided yet (a first run): no key to build per find.
    const anyDecided = Object.keys(decided).length > 0;
    // The index's per-site map, built in chunks if a sync or a start dropped it (the first preview after one).
    const pause = slicer();
    await index.prepare(pause);
    let seen = 0;
    for (const sid of sids) {
      const finds: SiteFinds = { sid, torrents: [], decided: 0 };
      for (const place of index.opportunities(sid)) {
        if (++seen % CHUNK === 0) await pause();
        const torrent: JobTorrent = {
          sid,
          torrentId: place.torrentId,
          infoHash: place.hash,
          ...(place.piecesHash && { piecesHash: place.piecesHash }),
          foundBy: place.foundBy,
          sourceHash: place.source.hash,
          name: place.source.name,
          bytes: place.source.size,
        };
        if (anyDecided && decided[decidedKey(torrent)]) {
          finds.decided++;
          continue;
        }
        finds.torrents.push(torrent);
      }
      finds.torrents.sort((a, b) => a.torrentId - b.torrentId);
      found.set(sid, finds);
    }
    return found;
  }

  /**
   * The finds with their details-page links (built from the service's site list, else from the
   * catalog as the popup's are: a user without a token still gets finds from sites asked by pieces
   * hash; and the user's address for the site). Only for what is shown or queued: a 100,000-find
   * preview counts without them.
   */
  private async linked(torrents: readonly JobTorrent[]): Promise<JobTorrent[]> {
    if (!torrents.length) return [];
    const settings = await this.shared.settings.get();
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    return torrents.map((torrent) => {
      const detailsUrl = detailsUrlOf(torrent.sid, torrent.torrentId, list, settings.siteOverrides?.[String(torrent.sid)]);
      return detailsUrl ? { ...torrent, detailsUrl } : torrent;
    });
  }

  async preview(options: { readiness?: boolean } = {}): Promise<JobPreview> {
    const at = this.shared.now();
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled) return { indexOff: true, sites: [], at };
    const chosen = (await this.clients.handles())[0];
    if (!chosen) return { problem: 'no-client', sites: [], at };
    const held = settings.heldSites ?? [];
    if (!held.length) return { problem: 'no-sites', sites: [], at };
    const index = await this.index.indexes.open(clientIdentity(chosen.config));
    if (!index || !index.anyAnswered()) return { problem: 'index-empty', sites: [], at };
    // The service's site list (links, download rules) read first: the finds' links come from it.
    const env = await this.crossSeeds.siteEnvironment();
    this.finds = await this.findsFor(held);
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const sites = await Promise.all(
      held.map(async (sid): Promise<JobSitePreview> => {
        const finds = this.finds.get(sid) ?? { sid, torrents: [], decided: 0 };
        const pace = await this.crossSeeds.budget.pace(sid);
        const [first] = await this.linked(finds.torrents.slice(0, 1));
        const readiness: SiteReadiness = options.readiness === false ? { state: 'unknown' } : await this.readiness(sid, first, env);
        const homeUrl = list?.find((site) => site.id === sid)?.base_url;
        return {
          sid,
          siteName: siteName(sid, list).name,
          ...(homeUrl && { homeUrl: /^https?:\/\//.test(homeUrl) ? homeUrl : `https://${homeUrl}/` }),
          count: finds.torrents.length,
          bytes: finds.torrents.reduce((sum, torrent) => sum + torrent.bytes, 0),
          decided: finds.decided,
          readiness,
          secondsBetween: pace.secondsBetween,
          perDay: pace.perDay,
          usedToday: await this.crossSeeds.budget.usedToday(sid),
        };
      }),
    );
    return { sites, at };
  }

  /** Whether site `sid` can be downloaded from now: its rule, the permission, and for a session site one light request. */
  private async readiness(sid: number, first: JobTorrent | undefined, env: Awaited<ReturnType<CrossSeeds['siteEnvironment']>>): Promise<SiteReadiness> {
    const source = downloadSource({ sid, torrentId: first?.torrentId ?? 1 }, env.sites);
    if (source.way === 'unsupported') {
      if (source.reason === 'needs-passkey') return { state: 'needs-passkey' };
      if (source.reason === 'needs-api' || source.reason === 'needs-api-key') return { state: 'needs-api-key' };
      return { state: 'unsupported', reason: source.reason };
    }
    if (env.originAllowed && !(await env.originAllowed(source.origin))) return { state: 'needs-permission', origin: source.origin };
    // A passkey or an API key the user entered: nothing a light request could tell more of before the download.
    if (source.way === 'passkey' || source.way === 'api-token') return { state: 'ready' };
    // Nothing to download from the site: no request to it only to tell (the user may not be on it now).
    if (!first) return { state: 'unknown' };
    // A details page: what a session site shows a logged-in user, and its login page otherwise.
    const url = source.way === 'details-page' ? source.detailsUrl : first.detailsUrl;
    if (!url) return { state: 'unknown' };
    const page = await readSitePage(url, { siteKey: source.siteKey, fetch: env.fetch, pace: sitePace }).catch(() => undefined);
    if (!page) return { state: 'unknown' };
    const problem = page.ok ? problemOfPage(page.html) : page.problem;
    if (problem.kind === 'not-logged-in') return { state: 'needs-login', loginUrl: `${source.origin}/login.php` };
    return page.ok ? { state: 'ready' } : { state: 'unknown' };
  }

  // ----------------------------------------------------------------------------------------------
  // Commands

  /** "Start cross-seeding" these sites: their finds now (decided ones left out), each site's queue. A job running is left alone. */
  async start(sids: readonly number[]): Promise<void> {
    const current = await this.load();
    // One job at a time: a running one is left alone (a paused or finished one is replaced).
    if (current?.state === 'running') return;
    const settings = await this.shared.settings.get();
    const held = new Set(settings.heldSites ?? []);
    const wanted = sids.filter((sid) => held.has(sid));
    const finds = await this.findsFor(wanted);
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const sites: StoredJobSite[] = [];
    for (const sid of wanted) {
      // Queued with their links: the report's rows and a stopped site's "open the site" use them.
      const queue = await this.linked(finds.get(sid)?.torrents ?? []);
      const pace = await this.crossSeeds.budget.pace(sid);
      sites.push({ sid, siteName: siteName(sid, list).name, state: queue.length ? 'waiting' : 'done', queue, total: queue.length, done: 0, secondsBetween: pace.secondsBetween });
    }
    const revision = (current?.revision ?? 0) + 1;
    const startedAt = this.shared.now();
    await this.replace((before) => {
      carryOver(before, sites);
      return { state: sites.some((site) => site.queue.length || site.inFlight || site.checking?.length) ? 'running' : 'done', startedAt, revision, sites, outcomes: [] };
    });
    this.drive();
  }

  async pause(): Promise<void> {
    await this.update((job) => {
      if (job.state === 'running') job.state = 'paused';
    });
    this.wakeAll();
  }

  async resume(): Promise<void> {
    await this.update((job) => {
      if (job.state !== 'paused') return;
      job.state = 'running';
      delete job.pausedBecause;
      // Everything ended while paused (its last checks): nothing left to drive.
      finishIfDone(job);
    });
    this.drive();
  }

  /** "Cancel": nothing more is downloaded; what runs now ends and is reported; the rest is forgotten (never decided). */
  async cancel(): Promise<void> {
    await this.update((job) => {
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
    this.wakeAll();
  }

  async status(): Promise<JobView> {
    return viewOf(await this.load());
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
    const job = await this.load();
    // Checks of torrents added stopped end whatever the job's state (paused, cancelled): they download nothing.
    this.finishChecks();
    if (job?.state === 'running') this.drive();
  }

  /** This object stops working (a stopped worker); nothing it runs writes again. */
  halt(): void {
    this.halted = true;
    this.wakeAll();
  }

  /** Resolves once every site this worker drives has stopped (tests wait on it). */
  async settled(): Promise<void> {
    while (this.drivers.size || this.checks.size) await Promise.all([...this.drivers.values(), ...this.checks.values()]);
  }

  private drive(): void {
    this.finishChecks();
    if (this.halted || this.job?.state !== 'running') return;
    for (const site of this.job.sites) {
      if (this.drivers.has(site.sid) || (site.state !== 'waiting' && site.state !== 'running')) continue;
      const sid = site.sid;
      const driver = this.driveSite(sid)
        .catch(() => undefined)
        .finally(() => this.drivers.delete(sid));
      this.drivers.set(sid, driver);
    }
  }

  private site(sid: number): StoredJobSite | undefined {
    return this.job?.sites.find((site) => site.sid === sid);
  }

  /** One site's torrents, one at a time, at its pace. */
  private async driveSite(sid: number): Promise<void> {
    const budget = this.crossSeeds.budget;
    for (;;) {
      if (this.halted || this.job?.state !== 'running') return;
      const site = this.site(sid);
      if (!site || (site.state !== 'waiting' && site.state !== 'running')) return;
      if (site.inFlight) {
        // Left in flight by a worker that stopped.
        if (!(await this.settleInterrupted(sid))) return;
        continue;
      }
      const item = site.queue[0];
      if (!item) {
        // Its last torrents' checks still under way: the site is through when they have ended.
        if (site.checking?.length) {
          await this.untilACheckEnds();
          continue;
        }
        await this.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (at && !at.inFlight && !at.queue.length && !at.checking?.length) at.state = 'done';
          finishIfDone(job);
        });
        return;
      }
      // At the bound on checks in flight: no download before one of them has ended (back-pressure).
      if (underWay(this.job) >= this.checksBound) {
        await this.untilACheckEnds();
        continue;
      }
      const cap = await budget.capReached(sid);
      if (cap.reached) {
        await this.capped(sid, cap.perDay);
        return;
      }
      const last = await budget.lastAt(sid);
      const notBefore = Math.max(last === undefined ? 0 : last + site.secondsBetween * 1000, site.retryAt ?? 0);
      const wait = notBefore - this.shared.now();
      if (wait > 0) {
        if (site.nextAt !== notBefore) {
          await this.update((job) => {
            const at = job.sites.find((entry) => entry.sid === sid);
            if (at) at.nextAt = notBefore;
          });
        }
        await this.sleep(wait);
        continue;
      }
      await this.update((job) => {
        const at = job.sites.find((entry) => entry.sid === sid);
        const first = at?.queue[0];
        if (!at || !first || decidedKey(first) !== decidedKey(item) || underWay(job) >= this.checksBound) return;
        at.queue.shift();
        at.inFlight = { ...item, requested: false };
        at.state = 'running';
        delete at.nextAt;
        delete at.retryAt;
      });
      if (this.site(sid)?.inFlight?.infoHash !== item.infoHash) continue;
      const key = decidedKey(item);
      let movedOn!: () => void;
      const addedStopped = new Promise<void>((resolve) => (movedOn = resolve));
      const run = this.crossSeeds.run({
        sourceHash: item.sourceHash,
        candidate: { sid, torrentId: item.torrentId, infoHash: item.infoHash, ...(item.piecesHash && { piecesHash: item.piecesHash }) },
        siteName: site.siteName,
        onSiteRequest: () =>
          this.update((job) => {
            const at = job.sites.find((entry) => entry.sid === sid);
            if (at?.inFlight) at.inFlight.requested = true;
          }),
        // In the client stopped: kept as checking (written before the site's next download), and the site goes on.
        onAddedStopped: async (added) => {
          this.checks.set(key, settled);
          await this.update((job) => {
            const at = job.sites.find((entry) => entry.sid === sid);
            if (!at?.inFlight || decidedKey(at.inFlight) !== key) return;
            delete at.inFlight;
            (at.checking ??= []).push({ ...item, ...(!item.infoHash && { addedHash: added.hash }), ...(added.rename && { rename: added.rename }) });
          });
          movedOn();
        },
      });
      const settled: Promise<void> = run
        .then(async ({ result }) => {
          if (this.halted) return;
          // A source the index had complete, missing now: decided only once the client is seen to hold its torrents.
          if (result.kind === 'source-missing' && (await this.sourceNotLoaded(sid, item))) return;
          await this.settle(sid, item, result);
        })
        .catch(() => undefined)
        .finally(() => {
          if (this.checks.get(key) === settled) this.checks.delete(key);
          this.wakeAll();
        });
      // The whole run (nothing added, or no check to wait for), or its first phase: the torrent in the client stopped.
      await Promise.race([settled, addedStopped]);
      if (this.halted) return;
    }
  }

  /** Until a check under way in this worker ends (or a command wakes the site); checks no one finishes here are started first. */
  private async untilACheckEnds(): Promise<void> {
    this.finishChecks();
    await this.sleep(CHECK_WAIT_MS);
  }

  /**
   * Every torrent of the job added stopped whose check no one in this worker finishes (a stopped
   * worker's; one whose client stopped answering): its check-then-start finished in the client
   * (CrossSeeds.finishAddedStopped: nothing downloaded or added; started only at 100 %), then settled.
   */
  private finishChecks(): void {
    if (this.halted || !this.job) return;
    for (const site of this.job.sites) {
      for (const item of site.checking ?? []) {
        const key = decidedKey(item);
        if (this.checks.has(key)) continue;
        const sid = site.sid;
        const settled: Promise<void> = this.crossSeeds
          .finishAddedStopped(item.addedHash ?? item.infoHash, renamePlanSchema.safeParse(item.rename).data)
          .then((result) => (this.halted ? undefined : this.settle(sid, item, result)))
          .catch(() => undefined)
          .finally(() => {
            if (this.checks.get(key) === settled) this.checks.delete(key);
            this.wakeAll();
          });
        this.checks.set(key, settled);
      }
    }
  }

  /** One torrent's result (its whole run, or its check after it was added stopped) into the job and the remembered outcomes. */
  private async settle(sid: number, item: JobTorrent, result: CrossSeedResult): Promise<void> {
    const now = this.shared.now();
    const key = decidedKey(item);
    let remember: JobOutcome | undefined;
    await this.update((job) => {
      const site = job.sites.find((entry) => entry.sid === sid);
      if (!site) return;
      const checking = site.checking?.findIndex((entry) => decidedKey(entry) === key) ?? -1;
      if (checking >= 0) {
        // In the client already: never back to the queue (that would download it again).
        if (result.kind === 'client-failed') {
          // The client stopped answering during its check: it stays checking, finished when the job goes on.
          if (job.state === 'running') {
            job.state = 'paused';
            job.pausedBecause = { kind: 'client', problem: result.failure };
          }
          return;
        }
        site.checking!.splice(checking, 1);
      } else if (site.inFlight && decidedKey(site.inFlight) === key) delete site.inFlight;
      // Not this job's any more (replaced by a new one meanwhile).
      else return;
      const back = () => {
        if (job.state !== 'cancelled') site.queue.unshift(item);
      };
      if (checking < 0 && result.kind === 'client-failed') {
        // The client stopped answering: the whole job waits for "Resume"; this torrent was not added.
        back();
        if (job.state === 'running') {
          job.state = 'paused';
          job.pausedBecause = { kind: 'client', problem: result.failure };
        }
        return;
      }
      if (result.kind === 'site-limit' && result.retryAfterSeconds !== undefined && result.status === 429) {
        back();
        site.retryAt = now + result.retryAfterSeconds * 1000;
        site.nextAt = site.retryAt;
        return;
      }
      if (result.kind === 'daily-cap') {
        back();
        capSite(job, site, result.perDay, now);
        finishIfDone(job);
        return;
      }
      const group = groupOf(result);
      const outcome: JobOutcome = { ...item, group, result, at: now };
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
      if (DECIDED.has(group)) remember = outcome;
      finishIfDone(job);
    });
    if (remember) await this.remember(remember);
  }

  /**
   * `item`'s source (complete in the index when the job took it) is not in the client. True when that
   * does not decide it, the item back at the head of its queue: the client lists none of the job's
   * other sources (or, the job having no other, nothing at all) — a client that has just started
   * answers before it has loaded its torrents (Transmission does) — so the job pauses (`sources-missing`)
   * until "Resume"; or the source is there now (loaded meanwhile: tried again, once per worker).
   * False: the client holds the job's other sources and not this one; it was deleted, and that is its outcome.
   */
  private async sourceNotLoaded(sid: number, item: JobTorrent): Promise<boolean> {
    const job = this.job;
    // (Paused meanwhile by another site's item: still looked at, so that it is not decided either.)
    if (!job || (job.state !== 'running' && job.state !== 'paused')) return false;
    const retryKey = `${decidedKey(item)}:${item.sourceHash}`;
    const others = new Set<string>();
    for (const site of job.sites) for (const queued of [...site.queue, ...(site.checking ?? []), ...(site.inFlight ? [site.inFlight] : [])]) others.add(queued.sourceHash);
    for (const outcome of job.outcomes) others.add(outcome.sourceHash);
    others.delete(item.sourceHash);
    // A sample is enough to tell a client that lists none of them.
    const asked = [item.sourceHash, ...[...others].slice(0, SOURCES_ASKED)];
    let pausedBecause: JobView['pausedBecause'];
    try {
      const client = ((await this.clients.handles())[0])?.client;
      if (!client) return false;
      const held = await client.lookup(asked);
      if (held.has(item.sourceHash)) {
        if (this.retried.has(retryKey)) return false;
        this.retried.add(retryKey);
      } else {
        const loaded = others.size ? asked.some((hash) => held.has(hash)) : (await client.count()) > 0;
        if (loaded) return false;
        pausedBecause = { kind: 'sources-missing' };
      }
    } catch (error) {
      // Not answering after all: as a client that stopped.
      pausedBecause = { kind: 'client', problem: toClientFailure(error) };
    }
    await this.update((next) => {
      const site = next.sites.find((entry) => entry.sid === sid);
      if (!site?.inFlight || decidedKey(site.inFlight) !== decidedKey(item)) return;
      delete site.inFlight;
      site.queue.unshift(item);
      if (site.state === 'running') site.state = 'waiting';
      if (pausedBecause && next.state === 'running') {
        next.state = 'paused';
        next.pausedBecause = pausedBecause;
      }
    });
    return true;
  }

  /** An item a stopped worker left in flight: back to its queue if nothing left for the site; else the client says whether it was added. False: the job paused. */
  private async settleInterrupted(sid: number): Promise<boolean> {
    const flying = this.site(sid)?.inFlight;
    if (!flying) return true;
    const { requested, ...item } = flying;
    if (!requested) {
      await this.update((job) => {
        const site = job.sites.find((entry) => entry.sid === sid);
        if (!site?.inFlight) return;
        delete site.inFlight;
        site.queue.unshift(item);
      });
      return true;
    }
    const chosen = (await this.clients.handles())[0];
    let held: { hash: string; savePath: string } | undefined;
    try {
      // Found by pieces hash, its info-hash unknown until its .torrent was read: nothing to look for.
      held = chosen && item.infoHash ? (await chosen.client.lookup([item.infoHash])).get(item.infoHash) : undefined;
    } catch (error) {
      await this.update((job) => {
        if (job.state !== 'running') return;
        job.state = 'paused';
        job.pausedBecause = { kind: 'client', problem: toClientFailure(error) };
      });
      return false;
    }
    if (held) {
      // Added (stopped, or further) before the worker stopped: its check-then-start is finished where the client has it.
      await this.update((job) => {
        const site = job.sites.find((entry) => entry.sid === sid);
        if (!site?.inFlight) return;
        delete site.inFlight;
        (site.checking ??= []).push(item);
      });
      this.finishChecks();
      return true;
    }
    const result: CrossSeedResult = { kind: 'bad-request', detail: 'interrupted after its download had started (the browser or its background stopped); not downloaded again: "Try again" to retry it' };
    const outcome: JobOutcome = { ...item, group: 'other', result, at: this.shared.now() };
    await this.update((job) => {
      const site = job.sites.find((entry) => entry.sid === sid);
      if (!site?.inFlight) return;
      delete site.inFlight;
      job.outcomes.push(outcome);
      site.done++;
      finishIfDone(job);
    });
    // Interrupted: reported, left for a later run.
    return true;
  }

  private async capped(sid: number, perDay: number): Promise<void> {
    await this.update((job) => {
      const site = job.sites.find((entry) => entry.sid === sid);
      if (site) capSite(job, site, perDay, this.shared.now());
      finishIfDone(job);
    });
  }

  private async remember(outcome: JobOutcome): Promise<void> {
    const run = this.writes.then(async () => {
      const decided = await decidedItem.get();
      await decidedItem.set({ ...decided, [decidedKey(outcome)]: outcome.group });
    });
    this.writes = run.catch(() => undefined);
    await run;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  // ----------------------------------------------------------------------------------------------
  // New finds

  /** After a sync of the index: new finds since the last notice are told (a notification) or started, as the switches say. */
  private async afterSync(): Promise<void> {
    if (this.halted) return;
    const switches = await jobSwitchesItem.get();
    if (!switches.notifyNewFinds && !switches.autoStartNewFinds) return;
    const settings = await this.shared.settings.get();
    const finds = await this.findsFor(settings.heldSites ?? []);
    const noticed = await noticedFindsItem.get();
    const fresh = new Map<number, number>();
    const next: Record<string, string[]> = {};
    for (const [sid, site] of finds) {
      const before = new Set(noticed[String(sid)] ?? []);
      const keys = site.torrents.map(decidedKey);
      next[String(sid)] = keys;
      const count = keys.filter((key) => !before.has(key)).length;
      if (count) fresh.set(sid, count);
    }
    await noticedFindsItem.set(next);
    if (!fresh.size) return;
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    if (switches.notifyNewFinds) await notifyNewFinds([...fresh].map(([sid, count]) => `${siteName(sid, list).name}: ${count}`));
    if (switches.autoStartNewFinds && (await this.load())?.state !== 'running') await this.start([...fresh.keys()]);
  }

  // ----------------------------------------------------------------------------------------------
  // State

  private async load(): Promise<StoredJob | undefined> {
    if (!this.loaded) {
      this.job = await this.store.load();
      this.loaded = true;
    }
    return this.job;
  }

  /** A new job (`build` is given the one there was) in its place: stored whole, announced whole. */
  private replace(build: (before: StoredJob | undefined) => StoredJob): Promise<void> {
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
  private update(change: (job: StoredJob) => void): Promise<void> {
    return this.write(async () => {
      const job = await this.load();
      if (!job) return 'none';
      change(job);
      job.revision++;
      await this.store.save(job);
      return 'change';
    });
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

/**
 * The notification of new finds, one line per site. Never fails its caller: a browser without the
 * notifications API (or a create that throws at once, or rejects) tells nothing, and the
 * auto-start after it still runs.
 */
async function notifyNewFinds(lines: string[]): Promise<void> {
  try {
    const notifications = browser.notifications as typeof browser.notifications | undefined;
    if (typeof notifications?.create !== 'function') return;
    const title = browser.i18n.getMessage('jobNewFindsTitle') || 'New to cross-seed';
    await notifications.create(JOB_ALARM, { type: 'basic', iconUrl: browser.runtime.getURL('/icon/128.png'), title, message: lines.join('\n') });
  } catch {
    // Told nothing: the finds are still on the page.
  }
}

function definedOf(change: Partial<JobSwitches>): Partial<JobSwitches> {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
}

/** The site's daily cap reached: what it has left waits for tomorrow (reported, not decided). */
function capSite(job: StoredJob, site: StoredJobSite, perDay: number, now: number): void {
  for (const item of site.queue) {
    job.outcomes.push({ ...item, group: 'waiting-for-tomorrow', result: { kind: 'daily-cap', perDay }, at: now });
    site.done++;
  }
  site.queue = [];
  site.state = 'capped';
  delete site.nextAt;
}

/** A running job whose every site is through (no torrent in flight, no check under way) is done. */
function finishIfDone(job: StoredJob): void {
  if (job.state !== 'running') return;
  if (job.sites.every((site) => !site.inFlight && !site.checking?.length && (site.state === 'done' || site.state === 'stopped' || site.state === 'capped'))) job.state = 'done';
}

/** Torrents taken and not settled in the whole job: in flight, or added stopped with their check under way. */
function underWay(job: StoredJob | undefined): number {
  return job?.sites.reduce((sum, site) => sum + (site.inFlight ? 1 : 0) + (site.checking?.length ?? 0), 0) ?? 0;
}

/**
 * A new job replacing one (paused, cancelled, done) that still has torrents under way: they go on
 * in the new job and end in its report — the one in flight (its run is still under way in this
 * worker) and those at their check — and are not queued twice.
 */
function carryOver(before: StoredJob | undefined, sites: StoredJobSite[]): void {
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
  }
}

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
  return {
    state: job.state,
    ...(job.pausedBecause && { pausedBecause: job.pausedBecause }),
    startedAt: job.startedAt,
    total: sites.reduce((sum, site) => sum + site.total, 0),
    done: sites.reduce((sum, site) => sum + site.done, 0),
    sites,
    outcomes: options.share ? job.outcomes : job.outcomes.slice(),
    revision: job.revision,
  };
}
