/**
 * The runs of the client index (issue #10): a sync reads the default client once and asks the
 * service, through the one Lookup, only for hashes it has not answered yet (utils/client-index/sync.ts);
 * placing asks about copies of the torrents held from one site only, on its own (see
 * client-index.feature.ts for why). One run at a time; its progress and its end are announced to
 * the extension's pages, and the last sync and the last placing are kept for the options page.
 */
import { browser } from 'wxt/browser';
import { ClientIndexError, type ClientIndex, type ClientIndexes, type SyncProgress } from '../../utils/client-index/indexes-by-client.ts';
import { clientOrigin } from '../../utils/clients/csrf';
import { ClientError, toClientFailure } from '../../utils/clients/client-errors';
import type { IndexChanged, IndexJob, IndexProblem, IndexProgressView, IndexRunView, IndexStatusView } from './client-index.messages';
import { ServiceError, toFailure } from '../../utils/iyuu/service-errors';
import { lookupMode } from '../../utils/settings';
import { summaryOf, type Clients } from '../clients/clients.feature';
import { clientIdentity, clientKey } from '../clients/client-identity';
import type { RepeatedJob, Shared } from '../context';
import { announceToPages } from '../announce';
import { indexRunsItem, indexSyncUnderWayItem, type StoredRuns } from './client-index.storage';
import { PiecesHash } from '../pieces-hash/pieces-hash.feature';
import { siteName } from '../lookup/candidates';

/** The alarm that keeps the index current. */
export const INDEX_JOB = 'client-index-sync';
export const INDEX_SYNC_EVERY_MINUTES = 6 * 60;
export { INDEX_RUNS_KEY } from './client-index.storage';

export interface SyncRunOptions {
  /** The sync's pause between two batches (the library's 2 s when absent; tests and the bench give 0). */
  pauseMs?: number;
  /** Hashes per lookup (the service's 200 when absent). */
  batchSize?: number;
  /** After a run that changed the index: the open list pages are answered again. */
  afterRun: () => Promise<void>;
  /** The second source (sites asked by pieces hash): what a sync of a client asks them, and the run's report in the options page's terms. */
  pieces?: Pick<PiecesHash, 'stepFor' | 'runView'>;
}

interface Running {
  job: IndexJob;
  client: string;
  controller: AbortController;
  progress: IndexProgressView;
  promise: Promise<IndexRunView | undefined>;
  /** Going on with a run a stop cut short (wake()). */
  resumed: boolean;
  /** Where the current phase began: its time, and how far it was (for the time left). */
  phaseStart?: { phase: IndexProgressView['phase']; at: number; done: number };
}

/** A run cut short longer ago than this is not gone on with: the periodic sync starts afresh. */
const RESUME_WITHIN_MS = 12 * 60 * 60 * 1000;

/** The phases whose time left is worth saying (the lookups and the sites are paced: minutes on a large client). */
const TIMED_PHASES: readonly IndexProgressView['phase'][] = ['asking', 'locating', 'asking-sites', 'reading-pieces'];

/**
 * How long the phase has left, from its pace so far (seconds); undefined until it has done
 * something and run a second, or when it is over.
 */
export function secondsLeft(start: { at: number; done: number }, progress: { done: number; total: number }, now: number): number | undefined {
  const done = progress.done - start.done;
  const elapsed = now - start.at;
  if (done <= 0 || progress.total <= progress.done || elapsed < 1000) return undefined;
  return Math.ceil(((elapsed / done) * (progress.total - progress.done)) / 1000);
}

/** A failure of a run in the user's terms: the client's, the service's, or the token's. */
function problemOf(error: unknown): IndexProblem | undefined {
  if (error instanceof ClientIndexError) return error.kind === 'needs-token' ? { kind: 'needs-token' } : undefined;
  if (error instanceof ClientError) return { kind: 'client', problem: toClientFailure(error) };
  if (error instanceof ServiceError) return { kind: 'service', failure: toFailure(error) };
  return { kind: 'service', failure: toFailure(error) };
}

export class SyncRuns {
  private current: Running | undefined;
  private announcing: Promise<void> | undefined;
  private announceAgain = false;
  /** Raised by every announced change (announce() is called on each). */
  private stateRevision = 0;

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly indexes: ClientIndexes,
    private readonly options: SyncRunOptions,
  ) {}

  /** The alarm's job: a sync, then placing when a torrent waits to be placed. */
  readonly repeatedJob: RepeatedJob = {
    periodInMinutes: INDEX_SYNC_EVERY_MINUTES,
    run: async () => {
      if (!(await this.shared.settings.get()).clientIndexEnabled) return;
      const synced = await this.run('sync');
      if (synced?.outcome !== 'done') return;
      const status = await this.status();
      if (status.counts?.toPlace) await this.run('place');
    },
  };

  /**
   * Runs a sync (the client's hashes the service has not answered) or placing (the pages of the
   * client's torrents held from one site only) of the default client's index. A run under way is
   * joined. Resolves with the run as the options page shows it; undefined when nothing ran (off).
   */
  run(job: IndexJob, resumed = false): Promise<IndexRunView | undefined> {
    if (this.current) return this.current.promise;
    const running: Running = {
      job,
      client: '',
      controller: new AbortController(),
      progress: { job, phase: 'reading-client', done: 0, total: 0, requests: 0, ...(resumed && { resumed }) },
      promise: Promise.resolve(undefined),
      resumed,
    };
    this.current = running;
    running.promise = this.runNow(running).finally(() => {
      if (this.current === running) this.current = undefined;
      this.announce();
    });
    this.announce();
    return running.promise;
  }

  /**
   * At every start of the background (and on the job alarm): a run that a stop of the worker or the
   * browser cut short goes on where it was, without reading the client again when it had read it,
   * and without asking anything it had asked (the answers were stored batch by batch).
   */
  async wake(): Promise<void> {
    if (this.current) return;
    const underWay = await indexSyncUnderWayItem.get().catch(() => undefined);
    if (!underWay) return;
    const settings = await this.shared.settings.get();
    const found = settings.clientIndexEnabled ? (await this.clients.handles())[0] : undefined;
    if (!found || clientKey(found.config) !== underWay.client || this.shared.now() - underWay.startedAt > RESUME_WITHIN_MS) {
      await indexSyncUnderWayItem.remove().catch(() => undefined);
      return;
    }
    if (this.current) return;
    void this.run(underWay.job, true);
  }

  /** The run under way stops before its next batch; resolves once it has. */
  async stop(): Promise<void> {
    const stopped = this.current;
    stopped?.controller.abort();
    await stopped?.promise.catch(() => undefined);
  }

  /** The run under way stops before its next batch (not waited for). */
  abort(): void {
    this.current?.controller.abort();
  }

  /** The record of the last runs goes (with the index it was about). */
  async forgetRecords(): Promise<void> {
    await indexRunsItem.remove().catch(() => undefined);
  }

  private async runNow(running: Running): Promise<IndexRunView | undefined> {
    if (!(await this.shared.settings.get()).clientIndexEnabled) return undefined;
    const found = (await this.clients.handles())[0];
    if (!found) return undefined;
    running.client = clientKey(found.config);
    const at = this.shared.now();
    const failed = (problem: IndexProblem | undefined, torrents = 0): IndexRunView => ({
      job: running.job,
      at,
      outcome: problem ? 'failed' : 'cancelled',
      torrents,
      asked: 0,
      requests: 0,
      ...(problem && { problem }),
      // Where it stopped, for "stopped while reading your client…" (never a bare "failed").
      ...(problem && { phase: running.progress.phase, progress: { done: running.progress.done, total: running.progress.total } }),
    });
    const underWay = running.resumed ? await indexSyncUnderWayItem.get().catch(() => undefined) : undefined;
    const resumeListed = underWay?.client === running.client && underWay.job === running.job ? underWay.listed : undefined;
    const startedAt = underWay?.client === running.client ? underWay.startedAt : at;
    await indexSyncUnderWayItem.set({ client: running.client, job: running.job, startedAt, ...(resumeListed && { listed: resumeListed }) }).catch(() => undefined);
    let view: IndexRunView;
    let index: ClientIndex | undefined;
    if (!(await this.clients.reachable(found.config))) {
      view = failed({ kind: 'client', problem: { kind: 'no-permission', detail: 'the browser has not granted this address', origin: clientOrigin(found.config.url) ?? found.config.url } });
    } else {
      index = await this.indexes.open(clientIdentity(found.config));
      if (!index) {
        await indexSyncUnderWayItem.remove().catch(() => undefined);
        return undefined;
      }
      /** Requests spent before placing began (a placing run asks any new hash first). */
      let beforePlacing: number | undefined;
      const pieces = (await this.options.pieces?.stepFor(found.client).catch(() => undefined)) ?? { unusable: [] };
      const sitesForNames = await this.shared.directory.sites.peek((await this.shared.settings.get()).baseUrl);
      try {
        const report = await index.sync(found.client, this.shared.lookup, {
          signal: running.controller.signal,
          locate: running.job === 'place',
          ...(pieces.step && { pieces: pieces.step }),
          ...(this.options.pauseMs !== undefined && { pauseMs: this.options.pauseMs }),
          ...(this.options.batchSize !== undefined && { batchSize: this.options.batchSize }),
          ...(resumeListed && { listed: resumeListed }),
          onListed: async (listed) => {
            await indexSyncUnderWayItem.set({ client: running.client, job: running.job, startedAt, listed }).catch(() => undefined);
          },
          onProgress: (progress: SyncProgress) => {
            if (progress.phase === 'locating' && beforePlacing === undefined) beforePlacing = progress.requests;
            const now = this.shared.now();
            const start = running.phaseStart?.phase === progress.phase && (progress.sid === undefined || progress.sid === running.progress.sid) ? running.phaseStart : { phase: progress.phase, at: now, done: progress.done };
            running.phaseStart = start;
            const left = TIMED_PHASES.includes(progress.phase) ? secondsLeft(start, progress, now) : undefined;
            running.progress = {
              job: running.job,
              ...progress,
              ...(progress.sid !== undefined && { siteName: siteName(progress.sid, sitesForNames).name }),
              ...(left !== undefined && { secondsLeft: left }),
              ...(running.resumed && { resumed: true }),
            };
            this.announce();
          },
        });
        const common = { at, outcome: report.outcome, torrents: report.torrents, ...(report.leftOut && { leftOut: report.leftOut }) };
        if (running.job === 'place') {
          const syncRequests = beforePlacing ?? report.requests;
          // New torrents met on the way were asked about first: that part is a sync, and counted as one.
          if (report.asked) await this.recordRun(running.client, { ...common, job: 'sync', asked: report.asked, requests: syncRequests });
          view = { ...common, job: 'place', asked: report.locateAsked, requests: report.requests - syncRequests, located: report.located };
        } else view = { ...common, job: 'sync', asked: report.asked, requests: report.requests };
        // The service failed and the sites were asked all the same: the run failed, with what they answered.
        if (report.serviceFailure) {
          view = failed(problemOf(report.serviceFailure), report.torrents);
          console.warn(`Reseed Lens: the client index's ${running.job} could not ask the lookup service: ${report.serviceFailure.message}`);
        }
        const piecesView = await this.options.pieces?.runView(report.pieces, pieces.unusable);
        if (piecesView) view.pieces = piecesView;
      } catch (error) {
        await indexSyncUnderWayItem.remove().catch(() => undefined);
        // Turned off meanwhile: the index is gone, and nothing is recorded.
        if (error instanceof ClientIndexError && error.kind === 'disabled') return undefined;
        view = failed(problemOf(error), index.status().torrents);
        // The background's console says it too, with the detail the options page leaves out.
        console.warn(`Reseed Lens: the client index's ${running.job} stopped while ${running.progress.phase} (${running.progress.done} of ${running.progress.total}): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await indexSyncUnderWayItem.remove().catch(() => undefined);
    if (!(await this.shared.settings.get()).clientIndexEnabled || this.current !== running) return view;
    await this.recordRun(running.client, view);
    await this.options.afterRun();
    return view;
  }

  private async runs(client: string): Promise<StoredRuns | undefined> {
    const stored = await indexRunsItem.get();
    return stored?.client === client ? stored : undefined;
  }

  private async recordRun(client: string, run: IndexRunView): Promise<void> {
    const stored = (await this.runs(client)) ?? { client };
    await indexRunsItem.set({ ...stored, [run.job]: run }).catch(() => undefined);
  }

  /**
   * The options page's view of the index, numbered by the state it started from: every change is
   * announced, and each announcement raises the number before its status is read, so an answer
   * begun before a run ended carries a lower number than the announcement of its end, and a page
   * that keeps the highest number drops it however late it arrives.
   */
  async status(): Promise<IndexStatusView> {
    const revision = this.stateRevision;
    return { ...(await this.statusNow()), revision };
  }

  private async statusNow(): Promise<IndexStatusView> {
    const settings = await this.shared.settings.get();
    const base: IndexStatusView = { enabled: settings.clientIndexEnabled, markHosts: settings.indexMarkHosts };
    if (!settings.clientIndexEnabled) return base;
    const found = (await this.clients.handles())[0];
    if (!found) return { ...base, problem: { kind: 'no-client' } };
    const key = clientKey(found.config);
    const view: IndexStatusView = { ...base, client: summaryOf(found.config) };
    const piecesSites = PiecesHash.switchedOn(settings);
    // Without a token the sites asked by pieces hash may fill the index alone (when the client gives pieces hashes).
    const piecesClient = found.config.type === 'qbittorrent' ? 'supported' : 'unsupported';
    if (piecesSites.length) view.pieces = { sites: piecesSites, client: piecesClient };
    if (lookupMode(settings) !== 'token' && !(piecesSites.length && piecesClient === 'supported')) view.problem = { kind: 'needs-token' };
    const index = await this.indexes.open(clientIdentity(found.config)).catch(() => undefined);
    if (index) {
      const status = index.status();
      view.counts = {
        torrents: status.torrents,
        answered: status.answered,
        places: status.places,
        inClient: status.inClient,
        canCrossSeed: status.canCrossSeed,
        toPlace: status.toPlace,
      };
      view.storage = status.storage;
      view.settled = index.settled;
    }
    // A run that has not read the default client yet is this one's.
    if (this.current && (this.current.client === '' || this.current.client === key)) view.running = this.current.progress;
    const runs = await this.runs(key);
    if (runs?.sync) view.lastSync = runs.sync;
    if (runs?.place) view.lastPlacing = runs.place;
    return view;
  }

  /** Tells the extension's open pages (the options page) how the index is now; one at a time, the last state always sent. */
  announce(): void {
    this.stateRevision++;
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = (async () => {
      do {
        this.announceAgain = false;
        const message: IndexChanged = { type: 'index:changed', status: await this.status() };
        await announceToPages(message);
      } while (this.announceAgain);
    })()
      .catch(() => undefined)
      .finally(() => (this.announcing = undefined));
  }
}
