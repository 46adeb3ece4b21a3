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
import type { LastSync } from './codec';
import type { IndexBound, IndexModel } from './model';

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
}

export interface SyncProgress {
  phase: 'reading-client' | 'asking' | 'locating' | 'done';
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
  /** Candidates' hashes looked up to find where the client's own torrents sit. */
  locateAsked: number;
  /** Client torrents whose own place was found that way. */
  located: number;
  /** Hashes whose answer was unusable: asked again next sync. */
  unanswered: number;
  /** Requests to the service (lookups, and a site report when one was needed). */
  requests: number;
}

/** What the sync needs of the index it fills (ClientIndex gives it). */
export interface SyncTarget {
  model: IndexModel;
  now(): number;
  settings(): Promise<Settings>;
  /** How much of the client the index may hold (bytes of storage). */
  bound: IndexBound;
  isOpen(): boolean;
  /** These records changed: their buckets are written at the next flush. */
  changed(hashes: Iterable<string>): void;
  flush(): Promise<void>;
  progress(progress: SyncProgress): void;
  finished(lastSync: LastSync): Promise<void>;
}

const DEFAULT_PAUSE_MS = 2000;
const DEFAULT_RECHECK_REQUESTS = 5;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function candidatesOf(answers: Map<string, { candidates: Candidate[] }>): Map<string, Candidate[]> {
  return new Map([...answers].map(([hash, answer]) => [hash, answer.candidates]));
}

export async function syncIndex(target: SyncTarget, client: TorrentClient, lookup: Lookup, options: SyncOptions): Promise<SyncReport> {
  const report: SyncReport = { outcome: 'done', torrents: target.model.size, added: 0, removed: 0, leftOut: 0, asked: 0, locateAsked: 0, located: 0, unanswered: 0, requests: 0 };
  const batchSize = Math.max(1, Math.min(options.batchSize ?? MAX_HASHES_PER_LOOKUP, MAX_HASHES_PER_LOOKUP));
  const { signal } = options;
  const progress = (phase: SyncProgress['phase'], done: number, total: number) => target.progress({ phase, done, total, requests: report.requests });

  const mayGoOn = async () => {
    const settings = await target.settings();
    if (!settings.clientIndexEnabled || !target.isOpen()) throw new ClientIndexError('disabled', 'the client index is off');
    if (lookupMode(settings) !== 'token') {
      throw new ClientIndexError('needs-token', 'indexing a client needs a token: App ID lookups ask one hash per request');
    }
  };

  let batchesSent = 0;
  /** Asks the service for `hashes`, batch by batch; each batch's answers go to `apply` and are stored. */
  const ask = async (
    phase: 'asking' | 'locating',
    hashes: readonly string[],
    apply: (answers: Map<string, Candidate[]>) => string[],
  ): Promise<boolean> => {
    const counter = phase === 'asking' ? 'asked' : 'locateAsked';
    progress(phase, 0, hashes.length);
    for (let start = 0; start < hashes.length; start += batchSize) {
      if (batchesSent++ > 0) await pause(options.pauseMs ?? DEFAULT_PAUSE_MS, signal);
      if (signal?.aborted) return false;
      await mayGoOn();
      const batch = hashes.slice(start, start + batchSize);
      const outcome = await lookup.answers(batch, { cache: false });
      report[counter] += batch.length;
      report.requests += outcome.requests;
      report.unanswered += outcome.unanswered?.length ?? 0;
      target.changed(apply(candidatesOf(outcome.answers)));
      await target.flush();
      progress(phase, Math.min(start + batchSize, hashes.length), hashes.length);
    }
    return true;
  };

  let finishedWith: LastSync['outcome'] = 'failed';
  let error: string | undefined;
  try {
    progress('reading-client', 0, 0);
    await mayGoOn();
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
    target.changed([...change.changed, ...change.removed]);
    await target.flush();

    const { fresh, due } = target.model.toAsk(target.now(), (options.maxRecheckRequests ?? DEFAULT_RECHECK_REQUESTS) * batchSize);
    const hashes = [...fresh, ...due];
    let complete = await ask('asking', hashes, (answers) => target.model.applyAnswers(answers, target.now()));

    if (complete && options.locate !== false) {
      const asks = target.model.toLocate(target.now());
      // In the order of the client torrents they place, so a batch rewrites few storage buckets.
      const candidates = [...asks].sort((a, b) => (a[1][0]! < b[1][0]! ? -1 : a[1][0]! > b[1][0]! ? 1 : 0)).map(([hash]) => hash);
      const before = placedCount(target.model);
      complete = await ask('locating', candidates, (answers) => target.model.applyLocated(asks, answers, target.now()));
      report.located = placedCount(target.model) - before;
    }
    if (!complete) report.outcome = 'cancelled';
    finishedWith = report.outcome;
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
