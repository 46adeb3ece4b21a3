/**
 * Asks ONE NexusPHP site about a list of pieces hashes, batch after batch, under the rules
 * for asking (the caller — the background — decides which hashes are due and asks sites one after
 * another; this is the asking of one):
 *
 * - batches of PIECES_HASH_BATCH (100), or the smaller `batchSize` a site taught before;
 * - a request never starts less than `paceMs` (2 s) after the previous request to that site was
 *   ANSWERED, so a slow site is not asked faster than the pace; across calls through
 *   `previousRequestAt` (give back the `lastRequestAt` of the last end);
 * - 429: waits its Retry-After (60 s when absent; never less than the pace), then the same batch
 *   again; gives up (stopped, rate-limited) when the wait would exceed 10 minutes or at the third
 *   429 in a row;
 * - `too-many` (ret -1: a site whose cap is below 100): the batch size is halved and the same
 *   hashes asked again in smaller batches, down to 1 (then stopped, refused); the learned size is
 *   in the end (`batchSize`) for the next call;
 * - `unreachable`: the same batch again after 2 × pace, at most 2 more times, then stopped;
 * - wrong-passkey, no-api, refused, site-error, bad-request: stopped at once, no further request.
 *
 * Each answered batch's hits go to `onBatch` as they come (the caller stores them progressively; a
 * batch with no hits is given too: its hashes were asked and are not on the site). An `onBatch`
 * that throws ends the asking with that error (the caller's storage failed: it must know).
 * Cancelled by `signal` between requests and during any wait (a request in flight ends by its own
 * timeout, and its answer is still handed over).
 *
 * Pure and Node-testable: no browser import. Never puts the passkey or any response text into a
 * result (askPiecesHash keeps only kinds and numbers).
 */
import { askPiecesHash, PIECES_HASH_BATCH, type PiecesHashAnswer } from './nexus-api';
import { abortableWait } from '../abortable-wait';

export const DEFAULT_PIECES_HASH_PACE_MS = 2_000;
/** Retry-After when a 429 says none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** A 429 asking for a longer wait than this ends the asking of that site for now. */
export const MAX_RATE_LIMIT_WAIT_MS = 10 * 60_000;
/** The third 429 in a row ends the asking. */
export const MAX_RATE_LIMITED_IN_A_ROW = 3;
/** An unreachable site is asked the same batch again this many more times. */
export const UNREACHABLE_RETRIES = 2;

const PIECES_HASH = /^[0-9a-f]{40}$/;

export interface SiteAsk {
  /** The API's full address (piecesHashEndpoint). */
  endpoint: string;
  passkey: string;
  /** Pieces hashes (40 lowercase hex); duplicates are asked once, others are dropped and counted. */
  hashes: readonly string[];
}

export interface SiteBatch {
  /** The hashes this request asked (all answered: those not in `ids` are not on the site). */
  asked: readonly string[];
  /** Asked pieces hash → the site's torrent id. */
  ids: Map<string, number>;
}

export interface SiteAskOptions {
  fetch?: typeof fetch;
  /** The least time from one request's answer to the next request's start (2 s). */
  paceMs?: number;
  /** Waits `ms` (a setTimeout that ends early when `signal` aborts, by default). May resolve or reject on abort. */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock in ms (Date.now). */
  now?: () => number;
  signal?: AbortSignal;
  onBatch?: (batch: SiteBatch) => Promise<void> | void;
  /** When the previous request to this site was answered (a former end's `lastRequestAt`). */
  previousRequestAt?: number;
  /** Hashes per request: PIECES_HASH_BATCH, or a smaller size the site taught (a former end's `batchSize`). */
  batchSize?: number;
  /** Per-request timeout (askPiecesHash's 20 s by default). */
  timeoutMs?: number;
}

/** What one call did, whichever way it ended. */
export interface SiteAskCounts {
  /** Requests sent to the site. */
  requests: number;
  /** Hashes answered (handed to onBatch). */
  asked: number;
  /** Of them, found on the site. */
  found: number;
  /** Valid, distinct hashes left without an answer (0 when done). */
  unanswered: number;
  /** Distinct hashes dropped before asking: not 40 lowercase hex. */
  dropped: number;
  /** When the last request was answered (pass as the next call's previousRequestAt); absent when none was sent. */
  lastRequestAt?: number;
  /** The batch size at the end (smaller than 100 when the site answered too-many). */
  batchSize: number;
}

/** Why the asking of a site stopped before the end. */
export type SiteStop =
  | Extract<PiecesHashAnswer, { kind: 'wrong-passkey' | 'no-api' | 'refused' | 'site-error' | 'unreachable' | 'bad-request' }>
  /** `retryAfterSeconds`: what the last 429 said (absent when it said nothing). `inARow`: consecutive 429s. */
  | { kind: 'rate-limited'; retryAfterSeconds?: number; inARow: number };

export type SiteAskEnd =
  | ({ kind: 'done' } & SiteAskCounts)
  | ({ kind: 'stopped'; answer: SiteStop } & SiteAskCounts)
  | ({ kind: 'cancelled' } & SiteAskCounts);

export { abortableWait } from '../abortable-wait';

export async function askSite(ask: SiteAsk, options: SiteAskOptions = {}): Promise<SiteAskEnd> {
  const paceMs = Math.max(0, options.paceMs ?? DEFAULT_PIECES_HASH_PACE_MS);
  const wait = options.wait ?? abortableWait;
  const now = options.now ?? Date.now;
  const signal = options.signal;

  const unique = [...new Set(ask.hashes)];
  const hashes = unique.filter((hash) => PIECES_HASH.test(hash));
  const counts: SiteAskCounts = {
    requests: 0,
    asked: 0,
    found: 0,
    unanswered: hashes.length,
    dropped: unique.length - hashes.length,
    lastRequestAt: options.previousRequestAt,
    batchSize: Math.max(1, Math.min(PIECES_HASH_BATCH, Math.floor(options.batchSize ?? PIECES_HASH_BATCH))),
  };
  const end = (how: { kind: 'done' | 'cancelled' } | { kind: 'stopped'; answer: SiteStop }): SiteAskEnd => ({ ...how, ...counts });
  /** Waits, then says whether the asking was cancelled meanwhile (an injected wait may reject on abort). */
  const waited = async (ms: number): Promise<boolean> => {
    if (signal?.aborted) return false;
    if (ms > 0) {
      try {
        await wait(ms, signal);
      } catch {
        if (!signal?.aborted) throw new Error('the wait failed');
      }
    }
    return !signal?.aborted;
  };

  let next = 0; // hashes[0, next) are answered
  let rateLimitedInARow = 0;
  let unreachableInARow = 0;
  /** Extra wait before the next request beyond the pace (a 429's Retry-After, an unreachable site's 2 × pace). */
  let holdMs = paceMs;
  while (next < hashes.length) {
    if (signal?.aborted) return end({ kind: 'cancelled' });
    if (counts.lastRequestAt !== undefined && !(await waited(counts.lastRequestAt + holdMs - now()))) return end({ kind: 'cancelled' });
    holdMs = paceMs;

    const batch = hashes.slice(next, next + counts.batchSize);
    counts.requests++;
    const answer = await askPiecesHash({ endpoint: ask.endpoint, passkey: ask.passkey, hashes: batch, fetch: options.fetch, timeoutMs: options.timeoutMs });
    counts.lastRequestAt = now();
    if (answer.kind !== 'rate-limited') rateLimitedInARow = 0;
    if (answer.kind !== 'unreachable') unreachableInARow = 0;

    switch (answer.kind) {
      case 'found': {
        next += batch.length;
        counts.asked += batch.length;
        counts.unanswered -= batch.length;
        counts.found += answer.ids.size;
        await options.onBatch?.({ asked: batch, ids: answer.ids });
        break;
      }
      case 'too-many': {
        if (batch.length === 1) return end({ kind: 'stopped', answer: { kind: 'refused', ret: -1, status: 200 } });
        counts.batchSize = Math.max(1, Math.floor(batch.length / 2));
        break;
      }
      case 'rate-limited': {
        rateLimitedInARow++;
        const stop: SiteStop = { kind: 'rate-limited', retryAfterSeconds: answer.retryAfterSeconds, inARow: rateLimitedInARow };
        const waitMs = (answer.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
        if (rateLimitedInARow >= MAX_RATE_LIMITED_IN_A_ROW || waitMs > MAX_RATE_LIMIT_WAIT_MS) return end({ kind: 'stopped', answer: stop });
        holdMs = Math.max(paceMs, waitMs);
        break;
      }
      case 'unreachable': {
        unreachableInARow++;
        if (unreachableInARow > UNREACHABLE_RETRIES) return end({ kind: 'stopped', answer });
        holdMs = 2 * paceMs;
        break;
      }
      default:
        // wrong-passkey, no-api, refused, site-error, bad-request: nothing more to this site.
        return end({ kind: 'stopped', answer });
    }
  }
  return end({ kind: 'done' });
}
