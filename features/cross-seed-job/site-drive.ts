/**
 * Each site's driving loop: every site in parallel, each one torrent at a time at its own pace
 * ("Seconds between downloads" after the site's last download, one-click ones included) under its
 * daily cap (the rolling 24 hours CrossSeeds.run keeps for every cross-seed). Each torrent goes
 * through CrossSeeds.run with no tab: the placement decides again, live, which client holds its
 * source and where its copy goes (features/clients/placement.ts), and the job keeps the client it
 * really went to. A site that answers with its login page, a notice, a limit or a challenge stops
 * alone; a 429 waits its Retry-After.
 *
 * A site goes on to its next torrent as soon as the one before is in its client STOPPED
 * (CrossSeeds.run's onAddedStopped); its check goes on meanwhile (job-checks.ts). A site takes the
 * first torrent of its queue whose clients are not paused and whose client has fewer than the bound
 * under way (client-pauses.ts): at the bound it waits for a check to end; with only paused clients'
 * torrents left it rests until one is resumed. A client that stops answering pauses only the
 * torrents that wait on it.
 *
 * Nothing lost, nothing twice: the item in flight is marked `requested` once its first request to
 * the site leaves. After a restart, an item in flight not requested goes back to its queue; one
 * requested is looked up in the clients (there: its check finished; not there: reported as
 * interrupted, never downloaded again by this job).
 */
import type { Clients } from '../clients/clients.feature';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import type { CrossSeedResult } from '../../utils/cross-seed-engine';
import { toClientFailure } from '../../utils/clients/client-errors';
import type { JobClientPause, JobOutcome, JobTorrent } from './cross-seed-job.messages';
import { decidedKey, type StoredJob, type StoredJobSite } from './cross-seed-job.storage';
import { checkWaits, nextOf, pauseClient, pauseIfOnlyWaiting, targetOf, underBound } from './client-pauses';
import { capSite, finishIfDone } from './job-outcomes';
import type { JobChecks } from './job-checks';
import type { JobState } from './job-state';

/** A site waiting for checks to end looks again after this at the latest (each check's end wakes it). */
const CHECK_WAIT_MS = 30_000;
/** How many of a client's other sources in the job are looked up to tell a client that has not loaded its torrents. */
const SOURCES_ASKED = 200;

export class SiteDrives {
  /** Sites being driven in this worker, by sid. */
  private readonly drivers = new Map<number, Promise<void>>();
  /** Sleepers to wake (pause, cancel, resume, a pace change, a check's end). */
  private readonly sleepers = new Set<() => void>();
  /** Sites asked to be driven while their loop was ending (it may have seen their torrents blocked just before a "Resume"): driven again once it has. */
  private readonly again = new Set<number>();
  /** Items whose missing source was there again when looked for: tried once more, then decided (keys of sourceNotLoaded). */
  private readonly retried = new Set<string>();

  constructor(
    private readonly state: JobState,
    private readonly checks: JobChecks,
    private readonly clients: Clients,
    private readonly crossSeeds: CrossSeeds,
    private readonly now: () => number,
  ) {}

  /** Every check under way and every site driven in this worker, at this moment. */
  underWay(): Promise<void>[] {
    return [...this.drivers.values(), ...this.checks.underWay()];
  }

  get size(): number {
    return this.drivers.size;
  }

  /** Every site of a running job that can go on and is not driven yet, driven; checks no one runs finished. */
  drive(): void {
    this.checks.finishAll();
    const job = this.state.current;
    if (this.state.halted || job?.state !== 'running') return;
    for (const site of job.sites) {
      if (site.state !== 'waiting' && site.state !== 'running') continue;
      const sid = site.sid;
      if (this.drivers.has(sid)) {
        this.again.add(sid);
        continue;
      }
      const driver = this.driveSite(sid)
        .catch(() => undefined)
        .finally(() => {
          this.drivers.delete(sid);
          if (this.again.delete(sid)) this.drive();
        });
      this.drivers.set(sid, driver);
    }
  }

  wakeAll(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  private site(sid: number): StoredJobSite | undefined {
    return this.state.current?.sites.find((site) => site.sid === sid);
  }

  private running(): StoredJob | undefined {
    const job = this.state.current;
    return !this.state.halted && job?.state === 'running' ? job : undefined;
  }

  /** One site's torrents, one at a time, at its pace. */
  private async driveSite(sid: number): Promise<void> {
    const budget = this.crossSeeds.budget;
    for (;;) {
      const job = this.running();
      const site = this.site(sid);
      if (!job || !site || (site.state !== 'waiting' && site.state !== 'running')) return;
      if (site.inFlight) {
        // Left in flight by a worker that stopped.
        if (!(await this.settleInterrupted(sid))) return;
        continue;
      }
      const next = nextOf(job, site, this.checks.bound);
      if (!next) {
        // Its last torrents' checks still under way: the site is through when they have ended
        // (those waiting for a paused client end once it is resumed: the site rests meanwhile).
        if (site.checking?.some((entry) => !checkWaits(job, entry))) {
          await this.untilACheckEnds();
          continue;
        }
        if (site.checking?.length) {
          await this.state.update((job) => pauseIfOnlyWaiting(job));
          return;
        }
        await this.state.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (at && !at.inFlight && !at.queue.length && !at.checking?.length) at.state = 'done';
          finishIfDone(job);
          pauseIfOnlyWaiting(job);
        });
        return;
      }
      if ('blocked' in next) {
        // At the bound on checks of every client it has torrents for (back-pressure): no download before one has ended.
        if (next.blocked === 'bound') {
          await this.untilACheckEnds();
          continue;
        }
        // Only paused clients' torrents left: the site rests (its checks end on their own) until one is resumed.
        await this.state.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (at?.state === 'running' && !at.inFlight) at.state = 'waiting';
          pauseIfOnlyWaiting(job);
        });
        return;
      }
      const item = next.item;
      const cap = await budget.capReached(sid);
      if (cap.reached) {
        await this.state.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (at) capSite(job, at, cap.perDay, this.now());
          finishIfDone(job);
          pauseIfOnlyWaiting(job);
        });
        return;
      }
      const last = await budget.lastAt(sid);
      const notBefore = Math.max(last === undefined ? 0 : last + site.secondsBetween * 1000, site.retryAt ?? 0);
      const wait = notBefore - this.now();
      if (wait > 0) {
        if (site.nextAt !== notBefore) {
          await this.state.update((job) => {
            const at = job.sites.find((entry) => entry.sid === sid);
            if (at) at.nextAt = notBefore;
          });
        }
        await this.sleep(wait);
        continue;
      }
      const key = decidedKey(item);
      await this.state.update((job) => {
        const at = job.sites.find((entry) => entry.sid === sid);
        if (!at || at.inFlight || !underBound(job, item, this.checks.bound)) return;
        // Where the site chose it, unless the queue changed meanwhile (a torrent put back at its head).
        const index = at.queue[next.index] && decidedKey(at.queue[next.index]!) === key ? next.index : at.queue.findIndex((entry) => decidedKey(entry) === key);
        if (index < 0) return;
        at.queue.splice(index, 1);
        at.inFlight = { ...item, requested: false };
        at.state = 'running';
        delete at.nextAt;
        delete at.retryAt;
      });
      if (!this.site(sid)?.inFlight || decidedKey(this.site(sid)!.inFlight!) !== key) continue;
      await this.run(sid, site.siteName, item);
      if (this.state.halted) return;
    }
  }

  /**
   * One torrent's run (CrossSeeds.run); resolves once it is in its client stopped (its check goes on,
   * tracked by the checks) or its whole run has ended.
   */
  private async run(sid: number, siteName: string, item: JobTorrent): Promise<void> {
    const key = decidedKey(item);
    let movedOn!: () => void;
    const addedStopped = new Promise<void>((resolve) => (movedOn = resolve));
    const run = this.crossSeeds.run({
      sourceHash: item.sourceHash,
      candidate: { sid, torrentId: item.torrentId, infoHash: item.infoHash, ...(item.piecesHash && { piecesHash: item.piecesHash }) },
      siteName,
      onSiteRequest: () =>
        this.state.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (at?.inFlight) at.inFlight.requested = true;
        }),
      // In its client stopped: kept as checking (written before the site's next download), with the client it went to, and the site goes on.
      onAddedStopped: async (added) => {
        this.checks.track(key, settled);
        await this.state.update((job) => {
          const at = job.sites.find((entry) => entry.sid === sid);
          if (!at?.inFlight || decidedKey(at.inFlight) !== key) return;
          delete at.inFlight;
          (at.checking ??= []).push({
            ...item,
            ...(!item.infoHash && { addedHash: added.hash }),
            ...(added.rename && { rename: added.rename }),
            ...(added.clientId && { targetClientId: added.clientId }),
          });
        });
        movedOn();
      },
    });
    const settled: Promise<void> = run
      .then(async ({ result }) => {
        if (this.state.halted) return;
        // A source the index had complete, missing now: decided only once its client is seen to hold its torrents.
        if (result.kind === 'source-missing' && (await this.sourceNotLoaded(sid, item))) return;
        await this.state.record(sid, item, result, this.now());
      })
      .catch(() => undefined)
      .finally(() => this.checks.untrack(key, settled));
    // The whole run (nothing added, or no check to wait for), or its first phase: the torrent in its client stopped.
    await Promise.race([settled, addedStopped]);
  }

  /**
   * `item`'s source (complete in its client's index when the job took it) is in no client. True when
   * that does not decide it, the item back at the head of its queue: its client lists none of the
   * job's other sources from it (or, there being none, nothing at all) — a client that has just
   * started answers before it has loaded its torrents (Transmission does) — so that client's
   * torrents wait (`sources-missing`) until "Resume"; or the source is there now (loaded meanwhile:
   * tried again, once per worker). False: the client holds its other sources and not this one; it
   * was deleted, and that is its outcome.
   */
  private async sourceNotLoaded(sid: number, item: JobTorrent): Promise<boolean> {
    const job = this.state.current;
    // (Paused meanwhile by another item: still looked at, so that it is not decided either.)
    if (!job || (job.state !== 'running' && job.state !== 'paused')) return false;
    const handle = item.sourceClientId ? await this.clients.handle(item.sourceClientId) : (await this.clients.handles())[0];
    if (!handle) return false;
    const clientId = handle.config.id;
    const retryKey = `${decidedKey(item)}:${item.sourceHash}`;
    const others = new Set<string>();
    const mine = (entry: JobTorrent) => (entry.sourceClientId ?? clientId) === clientId;
    for (const site of job.sites) for (const queued of [...site.queue, ...(site.checking ?? []), ...(site.inFlight ? [site.inFlight] : [])]) if (mine(queued)) others.add(queued.sourceHash);
    for (const outcome of job.outcomes) if (mine(outcome)) others.add(outcome.sourceHash);
    others.delete(item.sourceHash);
    // A sample is enough to tell a client that lists none of them.
    const asked = [item.sourceHash, ...[...others].slice(0, SOURCES_ASKED)];
    let paused: JobClientPause | undefined;
    try {
      const held = await handle.client.lookup(asked);
      if (held.has(item.sourceHash)) {
        if (this.retried.has(retryKey)) return false;
        this.retried.add(retryKey);
      } else {
        const loaded = others.size ? asked.some((hash) => held.has(hash)) : (await handle.client.count()) > 0;
        if (loaded) return false;
        paused = { kind: 'sources-missing' };
      }
    } catch (error) {
      // Not answering after all: as a client that stopped.
      paused = { kind: 'client', problem: toClientFailure(error) };
    }
    await this.state.update((next) => {
      const site = next.sites.find((entry) => entry.sid === sid);
      if (!site?.inFlight || decidedKey(site.inFlight) !== decidedKey(item)) return;
      delete site.inFlight;
      site.queue.unshift(item);
      if (site.state === 'running') site.state = 'waiting';
      if (paused) {
        (next.clients ??= {})[clientId] ??= handle.config.name;
        pauseClient(next, clientId, paused);
        pauseIfOnlyWaiting(next);
      }
    });
    return true;
  }

  /**
   * An item a stopped worker left in flight: back to its queue if nothing left for the site; else the
   * clients say whether it was added (in the one the preview chose first, then the others). False:
   * its client does not answer (its torrents wait, and the site with them).
   */
  private async settleInterrupted(sid: number): Promise<boolean> {
    const flying = this.site(sid)?.inFlight;
    if (!flying) return true;
    const { requested, ...item } = flying;
    if (!requested) {
      await this.state.update((job) => {
        const site = job.sites.find((entry) => entry.sid === sid);
        if (!site?.inFlight) return;
        delete site.inFlight;
        site.queue.unshift(item);
      });
      return true;
    }
    let heldBy: string | undefined;
    // Found by pieces hash, its info-hash unknown until its .torrent was read: nothing to look for.
    if (item.infoHash) {
      const handles = await this.clients.handles();
      const target = handles.find((handle) => handle.config.id === targetOf(item)) ?? handles[0];
      try {
        if (target && (await target.client.lookup([item.infoHash])).has(item.infoHash)) heldBy = target.config.id;
      } catch (error) {
        // The client it was going to does not answer: nothing can be told now; its torrents wait, this one in flight with them.
        const problem = toClientFailure(error);
        await this.state.update((job) => {
          (job.clients ??= {})[target!.config.id] ??= target!.config.name;
          pauseClient(job, target!.config.id, { kind: 'client', problem });
          pauseIfOnlyWaiting(job);
        });
        return false;
      }
      // The placement may have sent it elsewhere (its client's "Copies go to" changed since the preview).
      for (const handle of heldBy ? [] : handles.filter((entry) => entry !== target)) {
        const found = await handle.client.lookup([item.infoHash]).catch(() => undefined);
        if (found?.has(item.infoHash)) {
          heldBy = handle.config.id;
          break;
        }
      }
    }
    if (heldBy) {
      // Added (stopped, or further) before the worker stopped: its check-then-start is finished where the client has it.
      await this.state.update((job) => {
        const site = job.sites.find((entry) => entry.sid === sid);
        if (!site?.inFlight) return;
        delete site.inFlight;
        (site.checking ??= []).push({ ...item, targetClientId: heldBy });
      });
      this.checks.finishAll();
      return true;
    }
    const result: CrossSeedResult = { kind: 'bad-request', detail: 'interrupted after its download had started (the browser or its background stopped); not downloaded again: "Try again" to retry it' };
    const outcome: JobOutcome = { ...item, group: 'other', result, at: this.now() };
    await this.state.update((job) => {
      const site = job.sites.find((entry) => entry.sid === sid);
      if (!site?.inFlight) return;
      delete site.inFlight;
      job.outcomes.push(outcome);
      site.done++;
      finishIfDone(job);
      pauseIfOnlyWaiting(job);
    });
    // Interrupted: reported, left for a later run.
    return true;
  }

  /** Until a check under way in this worker ends (or a command wakes the site); checks no one finishes here are started first. */
  private async untilACheckEnds(): Promise<void> {
    this.checks.finishAll();
    await this.sleep(CHECK_WAIT_MS);
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
}
