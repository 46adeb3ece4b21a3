/**
 * One sync of the client index: the client read once, the service asked only what it has not
 * answered, each batch stored as it comes.
 *
 * The service is asked through Lookup.answers, one batch of up to 200 hashes per call, with
 * `cache: false`:
 * - the Lookup is the one way to the service: its rate-limit gate and pacing, the site report
 *   (sid_sha1) with its recovery, the credential gate, clock-skew correction and retries all apply;
 *   a hash a page asked at the same moment is sent once, and a hash the user's browsing answered
 *   in the last hours is not sent at all;
 * - one call per batch, awaited before the next, so a page's own lookup waits for at most one of
 *   our batches (not 50), and a cancel or restart loses at most one batch;
 * - the answers are not written to the answer cache: the index keeps its own lasting copy, and
 *   10,000 answers would be stored twice and push the user's browsing answers out of the cache.
 */
import { ClientError } from '../clients/client-errors';
import type { TorrentClient } from '../clients/client-types';
import type { Lookup } from '../lookup/lookup';
import { ServiceError } from '../iyuu/service-errors';
import { MAX_HASHES_PER_LOOKUP } from '../iyuu/operations';
import type { Candidate } from '../iyuu/answer-schemas';
import { lookupMode, type Settings } from '../settings';
import { abortableWait as pause } from '../abortable-wait';
import type { LastSync } from './codec';
import { IndexModel, type IndexBound, type Located, type ServiceAnswer } from './model';
import type { IndexAsker } from './index-asker';

export type ClientIndexErrorKind =
  | 'disabled' // the user has not turned the index on (or turned it off during the sync)
  | 'needs-token'; // App ID lookups ask one hash per request: indexing a client needs a token

export class ClientIndexError extends Error {
  constructor(
    readonly kind: ClientIndexErrorKind,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ClientIndexError';
  }
}

export interface SyncOptions {
  /** Stops the sync before its next batch; what was answered is kept. */
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /** Ask where the client's own torrents sit when no answer names them (default true). */
  locate?: boolean;
  /** Requests a sync may spend asking old answers again (default 5: 1,000 hashes). */
  maxRecheckRequests?: number;
  /** Hashes per call to the Lookup (default and most 200, the service's batch). */
  batchSize?: number;
  /**
   * Pause between two batches (default 2000 ms): the sync then takes about half of the 55 calls a
   * minute the Lookup allows, and the browsing user's own lookups keep the other half while a
   * large client is indexed (10,000 torrents: about three minutes, once).
   */
  pauseMs?: number;
  /**
   * The second source: the sites the user switched on to be asked by pieces hash, and the client's
   * way to read pieces hashes (absent: no site on, or a client that gives none). With it, a sync
   * needs no token: without one the service is not asked, and the sites alone fill the index.
   */
  pieces?: PiecesStep;
  /**
   * Go on with a sync a stop cut short after it had read the client: the index holds that list
   * (stored before the first lookup), so the client is not read again and only what was not
   * answered is asked. Torrents added to the client since are read by the next sync.
   */
  listed?: { leftOut: number };
  /** The client's list is in the index and stored: a sync cut short from here on can go on with `listed`. */
  onListed?: (listed: { leftOut: number }) => Promise<void>;
  /**
   * The indexes' one lane to the service (index-asker.ts), shared by the syncs of every client:
   * its pause and batches are across clients. Absent: this sync paces itself (`pauseMs`) and asks
   * the Lookup directly.
   */
  asker?: IndexAsker;
}

/** A site to ask by pieces hash, as the background resolved it (its address checked to be the site's own). */
export interface PiecesSite {
  sid: number;
  endpoint: string;
  passkey: string;
}

/** How one site's asking ended (the runner's words: utils/pieces-hash/ask-site.ts). */
export interface PiecesSiteEnd {
  kind: 'done' | 'stopped' | 'cancelled';
  requests: number;
  asked: number;
  found: number;
  /** `stopped`: why (wrong-passkey, no-api, rate-limited, …); never site text. */
  answer?: { kind: string; retryAfterSeconds?: number; status?: number; ret?: number };
}

export interface PiecesStep {
  /** One torrent's pieces hash and its tracker's site; `skipped` for a torrent without metadata (asked again next sync). */
  read(hash: string): Promise<{ hash: string; fromSid?: number } | { skipped: string }>;
  sites: readonly PiecesSite[];
  /** Asks one site for these pieces hashes; each batch's hits go to `onBatch` as they come. */
  ask(site: PiecesSite, hashes: readonly string[], onBatch: (batch: { asked: readonly string[]; ids: ReadonlyMap<string, number> }) => Promise<void>, signal?: AbortSignal): Promise<PiecesSiteEnd>;
}

/** What a sync did with the sites asked by pieces hash. */
export interface PiecesReport {
  read: number;
  skipped: number;
  sites: ({ sid: number } & PiecesSiteEnd)[];
}

export interface SyncProgress {
  phase: 'reading-client' | 'asking' | 'locating' | 'reading-pieces' | 'asking-sites' | 'done';
  /** asking-sites: the site being asked. */
  sid?: number;
  /** Hashes done in this phase, of `total`. */
  done: number;
  total: number;
  /** Requests to the service so far in this sync. */
  requests: number;
}

export interface SyncReport {
  outcome: 'done' | 'cancelled';
  torrents: number;
  added: number;
  removed: number;
  /** Client torrents left out: the client holds more than the index's bound. */
  leftOut: number;
  /** Client hashes sent to the Lookup (new ones and answers due again). */
  asked: number;
  /** Client hashes answered without being sent for this client: another client's index had a fresh answer, or its sync asked it at the same time. */
  borrowed?: number;
  /** Candidates' hashes looked up to find where the client's own torrents sit. */
  locateAsked: number;
  /** Client torrents whose own place was found that way. */
  located: number;
  /** Hashes whose answer was unusable: asked again next sync. */
  unanswered: number;
  /** Requests to the service (lookups, and a site report when one was needed). */
  requests: number;
  /** The sites asked by pieces hash, when any is on. */
  pieces?: PiecesReport;
  /** The service failed (the sync failed), after which the sites asked by pieces hash were still asked: not thrown, so their answers are reported. */
  serviceFailure?: ServiceError;
}

/** What the sync needs of the index it fills (ClientIndex gives it). */
export interface SyncTarget {
  model: IndexModel;
  now(): number;
  settings(): Promise<Settings>;
  /** How much of the client the index may hold (bytes of storage). */
  bound: IndexBound;
  isOpen(): boolean;
  /**
   * These records changed, in what the client says of them or in what was answered of them: that
   * part of each is written at the next flush (a removed torrent goes whole).
   */
  changed(hashes: Iterable<string>, what: 'client' | 'answers'): void;
  flush(): Promise<void>;
  progress(progress: SyncProgress): void;
  finished(lastSync: LastSync): Promise<void>;
  /**
   * What the other clients' indexes know of a torrent with the same info-hash (many users hold a
   * torrent in two clients): their fresh answer, and where it sits. What they have is not asked again.
   */
  elsewhere?: { answer(hash: string): ServiceAnswer | undefined; located(hash: string): Located | undefined };
}

const DEFAULT_PAUSE_MS = 2000;
const DEFAULT_RECHECK_REQUESTS = 5;

function candidatesOf(answers: Map<string, { candidates: Candidate[] }>): Map<string, Candidate[]> {
  return new Map([...answers].map(([hash, answer]) => [hash, answer.candidates]));
}

export async function syncIndex(target: SyncTarget, client: TorrentClient, lookup: Lookup, options: SyncOptions): Promise<SyncReport> {
  const report: SyncReport = { outcome: 'done', torrents: target.model.size, added: 0, removed: 0, leftOut: 0, asked: 0, locateAsked: 0, located: 0, unanswered: 0, requests: 0 };
  const batchSize = Math.max(1, Math.min(options.batchSize ?? MAX_HASHES_PER_LOOKUP, MAX_HASHES_PER_LOOKUP));
  const { signal } = options;
  const progress = (phase: SyncProgress['phase'], done: number, total: number) => target.progress({ phase, done, total, requests: report.requests });

  const piecesStep = options.pieces?.sites.length ? options.pieces : undefined;
  /** Whether the service is asked this sync: with a token (without one, the sites asked by pieces hash may fill the index alone). */
  let withService = true;
  const mayGoOn = async () => {
    const settings = await target.settings();
    if (!settings.clientIndexEnabled || !target.isOpen()) throw new ClientIndexError('disabled', 'the client index is off');
    withService = lookupMode(settings) === 'token';
    if (!withService && !piecesStep) {
      throw new ClientIndexError('needs-token', 'indexing a client needs a token: App ID lookups ask one hash per request');
    }
  };

  let batchesSent = 0;
  const elsewhere = target.elsewhere;
  /** Another client's fresh answer for this client hash, taken in; false when there is none. */
  const borrowAnswer = (hash: string, taken: string[]): boolean => {
    const answer = elsewhere?.answer(hash);
    if (!IndexModel.answerFresh(answer, target.now())) return false;
    target.model.adoptAnswer(hash, answer);
    taken.push(hash);
    return true;
  };
  /** Asks the service for `hashes`, batch by batch; each batch's answers go to `apply` and are stored. */
  const ask = async (
    phase: 'asking' | 'locating',
    hashes: readonly string[],
    apply: (answers: Map<string, Candidate[]>) => string[],
  ): Promise<boolean> => {
    const counter = phase === 'asking' ? 'asked' : 'locateAsked';
    progress(phase, 0, hashes.length);
    for (let start = 0; start < hashes.length; start += batchSize) {
      const { asker } = options;
      if (!asker && batchesSent++ > 0) await pause(options.pauseMs ?? DEFAULT_PAUSE_MS, signal);
      if (signal?.aborted) return false;
      await mayGoOn();
      let batch = hashes.slice(start, start + batchSize);
      /** Client hashes another client's index answered: taken, not sent. */
      const taken: string[] = [];
      let answers: Map<string, Candidate[]>;
      let cancelled = false;
      if (asker) {
        const outcome = await asker.ask(batch, { signal, ...(phase === 'asking' && elsewhere && { borrow: (hash: string) => borrowAnswer(hash, taken) }) });
        answers = outcome.answers;
        cancelled = !!outcome.cancelled;
        report[counter] += answers.size + outcome.unanswered.length - outcome.shared.length;
        if (phase === 'asking') report.borrowed = (report.borrowed ?? 0) + outcome.shared.length;
        report.requests += outcome.requests;
        report.unanswered += outcome.unanswered.length;
      } else {
        if (phase === 'asking' && elsewhere) batch = batch.filter((hash) => !borrowAnswer(hash, taken));
        const outcome = batch.length ? await lookup.answers(batch, { cache: false }) : { answers: new Map(), requests: 0, unanswered: [] };
        answers = candidatesOf(outcome.answers);
        report[counter] += batch.length;
        report.requests += outcome.requests;
        report.unanswered += outcome.unanswered?.length ?? 0;
      }
      if (taken.length) {
        report.borrowed = (report.borrowed ?? 0) + taken.length;
        target.changed(taken, 'answers');
      }
      target.changed(apply(answers), 'answers');
      await target.flush();
      if (cancelled) return false;
      progress(phase, Math.min(start + batchSize, hashes.length), hashes.length);
    }
    return true;
  };

  let finishedWith: LastSync['outcome'] = 'failed';
  let serviceFailure: ServiceError | undefined;
  let error: string | undefined;
  try {
    await mayGoOn();
    if (options.listed) report.leftOut = options.listed.leftOut;
    else {
      progress('reading-client', 0, 0);
      const list = await client.list();
      if (signal?.aborted) {
        finishedWith = 'cancelled';
        report.outcome = 'cancelled';
        return report;
      }
      await mayGoOn();
      const change = target.model.applyClientList(list, target.bound);
      report.torrents = target.model.size;
      report.added = change.added.length;
      report.removed = change.removed.length;
      report.leftOut = change.leftOut;
      target.changed([...change.changed, ...change.removed], 'client');
      await target.flush();
      await options.onListed?.({ leftOut: change.leftOut });
    }

    let complete = true;
    if (withService) {
      const { fresh, due } = target.model.toAsk(target.now(), (options.maxRecheckRequests ?? DEFAULT_RECHECK_REQUESTS) * batchSize);
      const hashes = [...fresh, ...due];
      try {
        complete = await ask('asking', hashes, (answers) => target.model.applyAnswers(answers, target.now()));
      } catch (failure) {
        // The service failing (a token refused, the service down or limiting) does not keep the
        // sites asked by pieces hash from being asked: they go on, and the sync still fails with it.
        if (!(failure instanceof ServiceError) || !piecesStep) throw failure;
        serviceFailure = failure;
      }
    }
    if (complete && piecesStep) {
      report.pieces = { read: 0, skipped: 0, sites: [] };
      complete = await askByPieces(target, piecesStep, report.pieces, mayGoOn, signal);
    }

    if (complete && withService && !serviceFailure && options.locate !== false) {
      let asks = target.model.toLocate(target.now());
      // Where another client's index recently learnt a torrent of this one sits (the same info-hash): taken, not asked again.
      if (elsewhere && asks.size) {
        const taken: string[] = [];
        for (const placing of asks.values()) {
          for (const hash of placing) {
            const located = elsewhere.located(hash);
            if (IndexModel.locatedFresh(located, target.now()) && target.model.adoptLocated(hash, located)) taken.push(hash);
          }
        }
        if (taken.length) {
          target.changed(taken, 'answers');
          await target.flush();
          asks = target.model.toLocate(target.now());
        }
      }
      // In the order of the client torrents they place, so a batch rewrites few storage buckets.
      const candidates = [...asks].sort((a, b) => (a[1][0]! < b[1][0]! ? -1 : a[1][0]! > b[1][0]! ? 1 : 0)).map(([hash]) => hash);
      const before = placedCount(target.model);
      complete = await ask('locating', candidates, (answers) => target.model.applyLocated(asks, answers, target.now()));
      report.located = placedCount(target.model) - before;
    }
    if (!complete) report.outcome = 'cancelled';
    finishedWith = report.outcome;
    if (serviceFailure) {
      // Recorded as the service's failure; the caller finds it in the report, with what the sites answered.
      report.serviceFailure = serviceFailure;
      finishedWith = 'failed';
      error = errorKind(serviceFailure);
    }
    progress('done', report.asked + report.locateAsked, report.asked + report.locateAsked);
    return report;
  } catch (failure) {
    error = errorKind(failure);
    throw failure;
  } finally {
    await target
      .finished({
        at: target.now(),
        outcome: finishedWith,
        torrents: report.torrents,
        asked: report.asked + report.locateAsked,
        requests: report.requests,
        ...(report.leftOut && { leftOut: report.leftOut }),
        ...(error && { error }),
      })
      .catch(() => undefined);
  }
}

/** How many torrents' pieces hashes are read between two writes of the index. */
const PIECES_READ_CHUNK = 100;

/**
 * The second source: the pieces hash of every torrent not read yet (each read once, kept in the
 * index), then each site switched on, one after another, asked only what it has not answered
 * within a week. Each site's answers are stored batch by batch; a site that stops (wrong passkey,
 * no such API, rate limit) stops alone. False when cancelled.
 */
async function askByPieces(target: SyncTarget, step: PiecesStep, report: PiecesReport, mayGoOn: () => Promise<void>, signal?: AbortSignal): Promise<boolean> {
  const toRead = target.model.piecesToRead();
  const progress = (phase: 'reading-pieces' | 'asking-sites', done: number, total: number, sid?: number) =>
    target.progress({ phase, done, total, requests: report.sites.reduce((sum, site) => sum + site.requests, 0), ...(sid !== undefined && { sid }) });
  progress('reading-pieces', 0, toRead.length);
  for (const [at, hash] of toRead.entries()) {
    if (signal?.aborted) return false;
    const read = await step.read(hash);
    if ('skipped' in read) report.skipped++;
    else {
      report.read++;
      // Marked at once: a read that fails later (the client gone) leaves these to the next flush, not only in memory.
      if (target.model.applyPieces(hash, read)) target.changed([hash], 'answers');
    }
    if ((at + 1) % PIECES_READ_CHUNK === 0 || at === toRead.length - 1) {
      await mayGoOn();
      await target.flush();
      progress('reading-pieces', at + 1, toRead.length);
    }
  }
  for (const site of step.sites) {
    if (signal?.aborted) return false;
    await mayGoOn();
    const due = target.model.piecesDue(site.sid, target.now());
    if (due.changed.length) {
      target.changed(due.changed, 'answers');
      await target.flush();
    }
    if (!due.ask.length) {
      report.sites.push({ sid: site.sid, kind: 'done', requests: 0, asked: 0, found: 0 });
      continue;
    }
    let done = 0;
    progress('asking-sites', 0, due.ask.length, site.sid);
    const end = await step.ask(
      site,
      due.ask,
      async ({ asked, ids }) => {
        await mayGoOn();
        target.changed(target.model.applyFound(site.sid, asked, ids, target.now()), 'answers');
        await target.flush();
        done += asked.length;
        progress('asking-sites', Math.min(done, due.ask.length), due.ask.length, site.sid);
      },
      signal,
    );
    report.sites.push({ sid: site.sid, ...end });
    if (end.kind === 'cancelled') return false;
  }
  return true;
}

function placedCount(model: IndexModel): number {
  let count = 0;
  for (const record of model.records.values()) if (record.located?.places.length) count++;
  return count;
}

/** What failed, for the options page's message: `service:<kind>`, `client:<kind>` or `index:<kind>`. */
function errorKind(failure: unknown): string {
  if (failure instanceof ServiceError) return `service:${failure.kind}`;
  if (failure instanceof ClientError) return `client:${failure.kind}`;
  if (failure instanceof ClientIndexError) return `index:${failure.kind}`;
  return 'unknown';
}
