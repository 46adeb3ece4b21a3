/**
 * The indexes' one lane to the lookup service, shared by every client's sync (issue 33): several
 * clients are synced side by side, and their lookups are paced and batched together, as one
 * client's were.
 *
 * - One lookup at a time, and a pause between two (2 s by default) whichever clients they are for:
 *   the index as a whole takes about half of what the Lookup allows, as one client's sync did, so
 *   the browsing user's own lookups keep the other half, and a page's lookup waits behind at most
 *   one of the index's batches however many clients are syncing. Three clients' first syncs take
 *   the time one client holding all their torrents would: the service's pace, not each other's.
 * - Each lookup carries up to 200 hashes, taken from the clients' requests in turn (each sync asks
 *   for its next batch only once the last is answered, so the clients alternate): a client with ten
 *   new torrents and another with ten share one lookup.
 * - A hash is sent once: two clients asking for it at once share it, one answered for another
 *   client's request that is still open is taken from there, and one that another client's index
 *   already has a fresh answer for (`borrow`, asked as the hash is about to be sent) is not sent.
 *
 * Everything goes through Lookup.answers (its rate-limit gate, site report, credential gate and
 * retries), with `cache: false`: the indexes keep their own copies.
 */
import type { Candidate } from '../iyuu/answer-schemas';
import { MAX_HASHES_PER_LOOKUP } from '../iyuu/operations';
import type { Lookup } from '../lookup/lookup';

/** The pause between two of the index's lookups when none is given (ms). */
export const INDEX_PAUSE_MS = 2000;

export interface AskOptions {
  /** Stops this request: its hashes not sent yet are not sent, and it resolves with what it has (`cancelled`). */
  signal?: AbortSignal;
  /**
   * Asked as a hash is about to be sent: true when another client's index answered it freshly
   * meanwhile (the caller takes that answer in), so it is not sent.
   */
  borrow?: (hash: string) => boolean;
}

export interface AskOutcome {
  /** The service's candidates, for the hashes it answered (or another open request got answered). */
  answers: Map<string, Candidate[]>;
  /** Hashes taken from another client's index (`borrow`): not sent. */
  borrowed: string[];
  /** Of `answers`, hashes another client's request had sent: not sent for this one. */
  shared: string[];
  /** Hashes whose entry in the service's answer was unusable (asked again next sync). */
  unanswered: string[];
  /** Lookups that carried some of this request's hashes (a request to the service each, with its recoveries). */
  requests: number;
  /** The request was stopped before all its hashes were answered. */
  cancelled?: boolean;
}

interface Request extends AskOutcome {
  hashes: readonly string[];
  /** The next of `hashes` to take. */
  next: number;
  /** Of its hashes, those in the lookup under way. */
  inFlight: number;
  stopped: boolean;
  borrow?: (hash: string) => boolean;
  /** Takes its abort listener off the signal (a sync's one signal sees hundreds of requests). */
  unlisten?: () => void;
  resolve(outcome: AskOutcome): void;
  reject(error: unknown): void;
}

export interface IndexAskerOptions {
  /** Between two lookups (INDEX_PAUSE_MS when absent; tests and the bench give 0). */
  pauseMs?: number;
  /** Hashes a lookup (the service's 200 when absent, and at most that). */
  batchSize?: number;
}

export class IndexAsker {
  private readonly pending: Request[] = [];
  private draining: Promise<void> | undefined;
  /** When the last lookup ended (performance.now()): the next waits out the pause from there. */
  private lastEnded: number | undefined;
  /** Ends the pause under way early (nothing left to send). */
  private wakeUp: (() => void) | undefined;
  /** Lookups sent in this lifetime (tests and the bench). */
  lookups = 0;

  constructor(
    private readonly lookup: Pick<Lookup, 'answers'>,
    private readonly options: IndexAskerOptions = {},
  ) {}

  private get batchSize(): number {
    return Math.max(1, Math.min(this.options.batchSize ?? MAX_HASHES_PER_LOOKUP, MAX_HASHES_PER_LOOKUP));
  }

  /**
   * Answers for these hashes (at most a batch's worth is sensible: a sync asks one batch at a time),
   * in the lane's turn. Rejects with the Lookup's failure (the service refusing, down, limiting).
   */
  ask(hashes: readonly string[], options: AskOptions = {}): Promise<AskOutcome> {
    return new Promise<AskOutcome>((resolve, reject) => {
      const request: Request = {
        hashes: [...new Set(hashes)],
        next: 0,
        inFlight: 0,
        stopped: false,
        answers: new Map(),
        borrowed: [],
        shared: [],
        unanswered: [],
        requests: 0,
        ...(options.borrow && { borrow: options.borrow }),
        resolve,
        reject,
      };
      const signal = options.signal;
      if (signal?.aborted) return resolve(this.outcome(request, true));
      if (signal) {
        const stop = () => {
          request.stopped = true;
          // Nothing of it under way: it ends now; else once its part of the lookup under way is answered.
          if (!request.inFlight) this.finish(request, true);
        };
        signal.addEventListener('abort', stop, { once: true });
        request.unlisten = () => signal.removeEventListener('abort', stop);
      }
      this.pending.push(request);
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
    });
  }

  private outcome(request: Request, cancelled: boolean): AskOutcome {
    const { answers, borrowed, shared, unanswered, requests } = request;
    return { answers, borrowed, shared, unanswered, requests, ...(cancelled && { cancelled: true }) };
  }

  private finish(request: Request, cancelled: boolean, error?: unknown): void {
    const at = this.pending.indexOf(request);
    if (at < 0) return;
    this.pending.splice(at, 1);
    request.unlisten?.();
    if (error !== undefined) request.reject(error);
    else request.resolve(this.outcome(request, cancelled));
    if (!this.pending.length) this.wakeUp?.();
  }

  /**
   * Waits out the pause since the last lookup ended; always a turn of the event loop at least, so
   * the syncs answered by that lookup have taken their answers in before the next hashes are
   * taken (one another client's index now answers is not sent).
   */
  private async pause(): Promise<void> {
    if (this.lastEnded === undefined) return;
    const pauseMs = this.options.pauseMs ?? INDEX_PAUSE_MS;
    const left = Math.max(0, pauseMs - (performance.now() - this.lastEnded));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, left);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
    this.wakeUp = undefined;
  }

  /** Whether a hash was answered for another open request (it is taken from there). */
  private answeredElsewhere(hash: string, request: Request): Candidate[] | undefined {
    for (const other of this.pending) if (other !== request && other.answers.has(hash)) return other.answers.get(hash);
    return undefined;
  }

  /** One lookup at a time, paced, until no request is left. */
  private async drain(): Promise<void> {
    while (this.pending.length) {
      await this.pause();
      // The requests in turn: each gives what is left of its hashes until the batch is full.
      const batch = new Map<string, Request[]>();
      for (const request of [...this.pending]) {
        if (request.stopped) continue;
        while (request.next < request.hashes.length && batch.size < this.batchSize) {
          const hash = request.hashes[request.next++]!;
          if (request.borrow?.(hash)) {
            request.borrowed.push(hash);
            continue;
          }
          const answered = this.answeredElsewhere(hash, request);
          if (answered) {
            request.answers.set(hash, answered);
            request.shared.push(hash);
            continue;
          }
          const wanting = batch.get(hash);
          if (wanting) {
            if (!wanting.includes(request)) wanting.push(request);
          } else batch.set(hash, [request]);
          request.inFlight++;
        }
        if (batch.size >= this.batchSize) break;
      }
      const sending = new Set([...batch.values()].flat());
      if (batch.size) {
        try {
          this.lookups++;
          const outcome = await this.lookup.answers([...batch.keys()], { cache: false });
          const unusable = new Set(outcome.unanswered ?? []);
          for (const [hash, wanting] of batch) {
            const answer = outcome.answers.get(hash);
            for (const request of wanting) {
              if (answer) request.answers.set(hash, answer.candidates);
              else if (unusable.has(hash)) request.unanswered.push(hash);
            }
          }
          for (const request of sending) request.requests += outcome.requests;
        } catch (error) {
          for (const request of sending) {
            request.inFlight = 0;
            this.finish(request, false, error);
          }
        } finally {
          this.lastEnded = performance.now();
        }
      }
      for (const request of sending) request.inFlight = 0;
      // Every request with nothing left to send and nothing under way is answered.
      for (const request of [...this.pending]) {
        if (request.inFlight) continue;
        if (request.stopped) this.finish(request, request.next < request.hashes.length);
        else if (request.next >= request.hashes.length) this.finish(request, false);
      }
    }
  }
}
