/**
 * The runs of the client indexes (issue #10; every client, issue 33): a sync reads one client once
 * and asks the service, through the one Lookup, only for hashes its index has not answered yet
 * (utils/client-index/sync.ts); placing asks about copies of the torrents held from one site only,
 * on its own (see client-index.feature.ts for why).
 *
 * Every saved client has its own index and its own runs, side by side: one run at a time per
 * client. Their lookups go through one lane (utils/client-index/index-asker.ts): paced and batched
 * together as one client's were, and a hash another client's index has a fresh answer for is not
 * sent again. A client that fails (down, a wrong password) fails alone, in words; the others go on.
 * Each run's progress and end are announced to the extension's pages; each client's last sync and
 * last placing, and its run under way (a stop of the worker goes on with it), are kept per client.
 */
import { browser } from 'wxt/browser';
import { ClientIndexError, ClientIndexes, MAX_INDEXED_CLIENTS, type ClientIndex, type SyncProgress } from '../../utils/client-index/indexes-by-client.ts';
import { IndexAsker } from '../../utils/client-index/index-asker';
import { clientOrigin } from '../../utils/clients/csrf';
import { ClientError, toClientFailure } from '../../utils/clients/client-errors';
import type { IndexChanged, IndexClientView, IndexCounts, IndexJob, IndexProblem, IndexProgressView, IndexRunView, IndexStatusView } from './client-index.messages';
import { ServiceError, toFailure } from '../../utils/iyuu/service-errors';
import { lookupMode } from '../../utils/settings';
import { summaryOf, type ClientHandle, type Clients, type StoredClient } from '../clients/clients.feature';
import { clientIdentity, clientKey } from '../clients/client-identity';
import type { RepeatedJob, Shared } from '../context';
import { announceToPages } from '../announce';
import { forgetAllRuns, forgetRunsUnderWay, indexRunsItem, indexSyncUnderWayItem, keepClientRuns, setClientRuns, setRunUnderWay, type RunUnderWay } from './client-index.storage';
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
  /** After a client's run that changed its index: the open list pages are answered again. */
  afterClientRun: () => Promise<void>;
  /** After every run of the indexes (all the clients a sync or placing was asked for): "Cross-seed your client"'s new finds. */
  afterRun: () => Promise<void>;
  /** The second source (sites asked by pieces hash): what a sync of a client asks them, and the run's report in the options page's terms. */
  pieces?: Pick<PiecesHash, 'stepFor' | 'runView'>;
}

interface Running {
  job: IndexJob;
  /** The client's key (clientKey: kind and address), which its index, records and run under way go by. */
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

/** One client's run as it ended (what SyncRuns.run resolves with). */
export interface ClientRun {
  client: StoredClient;
  view: IndexRunView;
}

/** A failure of a run in the user's terms: the client's, the service's, or the token's. */
function problemOf(error: unknown): IndexProblem | undefined {
  if (error instanceof ClientIndexError) return error.kind === 'needs-token' ? { kind: 'needs-token' } : undefined;
  if (error instanceof ClientError) return { kind: 'client', problem: toClientFailure(error) };
  if (error instanceof ServiceError) return { kind: 'service', failure: toFailure(error) };
  return { kind: 'service', failure: toFailure(error) };
}

export class SyncRuns {
  /** The runs under way, by client (clientKey). */
  private readonly current = new Map<string, Running>();
  private announcing: Promise<void> | undefined;
  private announceAgain = false;
  /** Raised by every announced change (announce() is called on each). */
  private stateRevision = 0;
  /** The indexes' one lane to the service: every client's lookups, paced and batched together. */
  readonly asker: IndexAsker;

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly indexes: ClientIndexes,
    private readonly options: SyncRunOptions,
  ) {
    this.asker = new IndexAsker(shared.lookup, { pauseMs: options.pauseMs, batchSize: options.batchSize });
  }

  /** The alarm's job: a sync of every client, then placing for the clients whose sync went through with a torrent waiting to be placed. */
  readonly repeatedJob: RepeatedJob = {
    periodInMinutes: INDEX_SYNC_EVERY_MINUTES,
    run: async () => {
      if (!(await this.shared.settings.get()).clientIndexEnabled) return;
      const synced = await this.run('sync');
      const toPlace: string[] = [];
      for (const { client, view } of synced) {
        if (view.outcome !== 'done') continue;
        const index = await this.indexes.open(clientIdentity(client)).catch(() => undefined);
        if (index?.status().toPlace) toPlace.push(clientKey(client));
      }
      if (toPlace.length) await this.run('place', { clients: toPlace });
    },
  };

  /** The saved clients that are indexed: the first MAX_INDEXED_CLIENTS in the user's order. */
  private async indexed(): Promise<ClientHandle[]> {
    return (await this.clients.handles()).slice(0, MAX_INDEXED_CLIENTS);
  }

  /**
   * Runs a sync (the client's hashes the service has not answered) or placing (the pages of the
   * client's torrents held from one site only) of every indexed client's index (`clients`: only
   * these, by clientKey), side by side. A client's run under way is joined. Resolves, once all have
   * ended, with each client's run as the options page shows it; none while the index is off.
   */
  async run(job: IndexJob, options: { clients?: readonly string[] } = {}): Promise<ClientRun[]> {
    if (!(await this.shared.settings.get()).clientIndexEnabled) return [];
    const handles = (await this.indexed()).filter((handle) => !options.clients || options.clients.includes(clientKey(handle.config)));
    return this.runAll(handles.map((handle) => this.runClient(handle, job)));
  }

  /** Waits for these clients' runs, then (when any was started here) what follows every run. */
  private async runAll(runs: { promise: Promise<IndexRunView | undefined>; client: StoredClient; started: boolean }[]): Promise<ClientRun[]> {
    const views = await Promise.all(runs.map(async (run) => ({ client: run.client, view: await run.promise.catch(() => undefined) })));
    if (runs.some((run) => run.started) && (await this.shared.settings.get()).clientIndexEnabled) await this.options.afterRun().catch(() => undefined);
    return views.flatMap((run) => (run.view ? [{ client: run.client, view: run.view }] : []));
  }

  /** One client's run, started (or the one under way joined). */
  private runClient(handle: ClientHandle, job: IndexJob, resumed?: RunUnderWay): { promise: Promise<IndexRunView | undefined>; client: StoredClient; started: boolean } {
    const key = clientKey(handle.config);
    const known = this.current.get(key);
    if (known) return { promise: known.promise, client: handle.config, started: false };
    const running: Running = {
      job,
      client: key,
      controller: new AbortController(),
      progress: { job, phase: 'reading-client', done: 0, total: 0, requests: 0, ...(resumed && { resumed: true }) },
      promise: Promise.resolve(undefined),
      resumed: !!resumed,
    };
    this.current.set(key, running);
    running.promise = this.runNow(running, handle, resumed).finally(() => {
      if (this.current.get(key) === running) this.current.delete(key);
      this.announce();
    });
    this.announce();
    return { promise: running.promise, client: handle.config, started: true };
  }

  /**
   * At every start of the background (and on the job alarm): each client's run that a stop of the
   * worker or the browser cut short goes on where it was, without reading the client again when it
   * had read it, and without asking anything it had asked (the answers were stored batch by batch).
   * A run of a client no longer saved (or changed), or cut short too long ago, is forgotten.
   */
  async wake(): Promise<void> {
    const underWay = await indexSyncUnderWayItem.get().catch(() => undefined);
    if (!underWay) return;
    const settings = await this.shared.settings.get();
    const handles = settings.clientIndexEnabled ? await this.indexed() : [];
    const resumed: { promise: Promise<IndexRunView | undefined>; client: StoredClient; started: boolean }[] = [];
    for (const [key, run] of Object.entries(underWay.clients)) {
      if (this.current.has(key)) continue;
      const handle = handles.find((candidate) => clientKey(candidate.config) === key);
      if (!handle || this.shared.now() - run.startedAt > RESUME_WITHIN_MS) {
        await setRunUnderWay(key, undefined);
        continue;
      }
      resumed.push(this.runClient(handle, run.job, run));
    }
    if (resumed.length) void this.runAll(resumed);
  }

  /** The runs under way (`clients`: only these clientKeys') stop before their next batch; resolves once they have. */
  async stop(clients?: readonly string[]): Promise<void> {
    const stopped = [...this.current.values()].filter((running) => !clients || clients.includes(running.client));
    for (const running of stopped) running.controller.abort();
    await Promise.all(stopped.map((running) => running.promise.catch(() => undefined)));
  }

  /** Every run under way stops before its next batch (not waited for). */
  abort(): void {
    for (const running of this.current.values()) running.controller.abort();
  }

  /** The record of the last runs, and of runs under way, go (with the index they were about). */
  async forgetRecords(): Promise<void> {
    await Promise.all([forgetAllRuns(), forgetRunsUnderWay()]);
  }

  /** Only these clients' records are kept (the others are no longer saved, or are other indexes now). */
  async keepRecordsOf(clients: readonly string[]): Promise<void> {
    await keepClientRuns(clients);
  }

  private async runNow(running: Running, found: ClientHandle, resumed: RunUnderWay | undefined): Promise<IndexRunView | undefined> {
    if (!(await this.shared.settings.get()).clientIndexEnabled) return undefined;
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
    const resumeListed = resumed?.job === running.job ? resumed.listed : undefined;
    const startedAt = resumed?.startedAt ?? at;
    await setRunUnderWay(running.client, { job: running.job, startedAt, ...(resumeListed && { listed: resumeListed }) });
    let view: IndexRunView;
    let index: ClientIndex | undefined;
    if (!(await this.clients.reachable(found.config))) {
      view = failed({ kind: 'client', problem: { kind: 'no-permission', detail: 'the browser has not granted this address', origin: clientOrigin(found.config.url) ?? found.config.url } });
    } else {
      index = await this.indexes.open(clientIdentity(found.config));
      if (!index) {
        await setRunUnderWay(running.client, undefined);
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
          asker: this.asker,
          ...(pieces.step && { pieces: pieces.step }),
          ...(this.options.batchSize !== undefined && { batchSize: this.options.batchSize }),
          ...(resumeListed && { listed: resumeListed }),
          onListed: async (listed) => {
            await setRunUnderWay(running.client, { job: running.job, startedAt, listed });
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
          console.warn(`Reseed Lens: the client index's ${running.job} of ${found.config.name} could not ask the lookup service: ${report.serviceFailure.message}`);
        }
        const piecesView = await this.options.pieces?.runView(report.pieces, pieces.unusable);
        if (piecesView) view.pieces = piecesView;
      } catch (error) {
        await setRunUnderWay(running.client, undefined);
        // Turned off meanwhile: the index is gone, and nothing is recorded.
        if (error instanceof ClientIndexError && error.kind === 'disabled') return undefined;
        view = failed(problemOf(error), index.status().torrents);
        // The background's console says it too, with the detail the options page leaves out.
        console.warn(`Reseed Lens: the client index's ${running.job} of ${found.config.name} stopped while ${running.progress.phase} (${running.progress.done} of ${running.progress.total}): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await setRunUnderWay(running.client, undefined);
    if (!(await this.shared.settings.get()).clientIndexEnabled || this.current.get(running.client) !== running) return view;
    // A client removed (or changed) while its run went on: its records are not kept.
    if (!(await this.indexed()).some((handle) => clientKey(handle.config) === running.client)) return view;
    await this.recordRun(running.client, view);
    await this.options.afterClientRun();
    return view;
  }

  private async recordRun(client: string, run: IndexRunView): Promise<void> {
    await setClientRuns(client, (runs) => ({ ...runs, [run.job]: run }));
  }

  /**
   * The options page's view of the indexes, numbered by the state it started from: every change is
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
    const handles = await this.indexed();
    if (!handles.length) return { ...base, problem: { kind: 'no-client' } };
    const piecesSites = PiecesHash.switchedOn(settings);
    const withToken = lookupMode(settings) === 'token';
    const stored = (await indexRunsItem.get().catch(() => undefined))?.clients ?? {};
    const views: IndexClientView[] = [];
    const open: ClientIndex[] = [];
    for (const handle of handles) {
      const key = clientKey(handle.config);
      const view: IndexClientView = { client: summaryOf(handle.config) };
      // Without a token the sites asked by pieces hash may fill an index alone (when the client gives pieces hashes).
      const piecesClient = handle.config.type === 'qbittorrent' ? 'supported' : 'unsupported';
      if (piecesSites.length) view.pieces = piecesClient;
      if (!withToken && !(piecesSites.length && piecesClient === 'supported')) view.problem = { kind: 'needs-token' };
      const index = await this.indexes.open(clientIdentity(handle.config)).catch(() => undefined);
      if (index) {
        open.push(index);
        const status = index.status();
        view.counts = { torrents: status.torrents, answered: status.answered, places: status.places, inClient: status.inClient, canCrossSeed: status.canCrossSeed, toPlace: status.toPlace };
        view.storage = status.storage;
        view.settled = index.settled;
      }
      const running = this.current.get(key);
      if (running) view.running = running.progress;
      const runs = stored[key];
      if (runs?.sync) view.lastSync = runs.sync;
      if (runs?.place) view.lastPlacing = runs.place;
      views.push(view);
    }
    const status: IndexStatusView = { ...base, clients: views };
    if (piecesSites.length) status.pieces = { sites: piecesSites };
    // No client can be indexed without a token: said once, for all.
    if (views.every((view) => view.problem?.kind === 'needs-token')) status.problem = { kind: 'needs-token' };
    if (open.length) {
      const counts = ClientIndexes.countsOver(open);
      status.counts = { torrents: counts.torrents, answered: counts.answered, places: counts.places, inClient: counts.inClient, canCrossSeed: counts.canCrossSeed, toPlace: counts.toPlace } satisfies IndexCounts;
      status.settled = views.every((view) => view.settled !== false);
    }
    const running = views.find((view) => view.running)?.running;
    if (running) status.running = running;
    const lastSync = together(views.map((view) => view.lastSync));
    if (lastSync) status.lastSync = lastSync;
    const lastPlacing = together(views.map((view) => view.lastPlacing));
    if (lastPlacing) status.lastPlacing = lastPlacing;
    return status;
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

/**
 * Several clients' last runs as one (IndexStatusView.lastSync): none until every client has one;
 * 'done' only when each is done, else the first (in the user's order) that is not. The torrents,
 * hashes and requests add up; `at` is the latest.
 */
function together(runs: readonly (IndexRunView | undefined)[]): IndexRunView | undefined {
  const known = runs.filter((run): run is IndexRunView => !!run);
  if (!known.length || known.length < runs.length) return undefined;
  const first = known.find((run) => run.outcome !== 'done') ?? known[0]!;
  const sum = (pick: (run: IndexRunView) => number | undefined) => known.reduce((total, run) => total + (pick(run) ?? 0), 0);
  const view: IndexRunView = { ...first, at: Math.max(...known.map((run) => run.at)), torrents: sum((run) => run.torrents), asked: sum((run) => run.asked), requests: sum((run) => run.requests) };
  if (known.some((run) => run.located !== undefined)) view.located = sum((run) => run.located);
  return view;
}
