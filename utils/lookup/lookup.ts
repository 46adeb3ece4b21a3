/**
 * Everything between "these hashes" and the service: the cache, in-flight de-duplication,
 * batching (MAX_HASHES_PER_LOOKUP), the site report (sid_sha1), the rate-limit gate, clock-skew
 * correction and retries where they are safe. The background owns the one instance.
 */
import {
  MAX_HASHES_PER_LOOKUP,
  lookupBatch,
  lookupSigned,
  reportExisting,
  type ServiceConfig,
} from '../iyuu/operations';
import { ServiceError } from '../iyuu/service-errors';
import { sha1HexOfText } from '../sha1';
import type { Candidate } from '../iyuu/answer-schemas';
import { isKnownServiceOrigin, lookupMode, type Settings } from '../settings';
import { AnswerCache, type CachedAnswer } from './answer-cache';
import { originAllowed } from '../permission-pattern';
import { clockOffsetItem, rateLimitItem, siteReportItem, type SiteReport } from './lookup-storage';

import { originOf } from '../url';
/** sid_sha1 is valid for 7 days while the site list is unchanged (official client). */
export const SITE_REPORT_VALID_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_RETRY_AFTER_S = 30;
/** Skew below this is ordinary drift and not worth telling the user about. */
export const NOTABLE_SKEW_S = 30;

export interface LookupEnvironment {
  settings(): Promise<Settings>;
  /** The sids to report for sid_sha1: the user's sites, or every site the service lists. */
  sitesToReport(config: ServiceConfig): Promise<number[]>;
  /** The `version` sent; SERVICE_CLIENT_VERSION (client.ts) unless a test says otherwise. */
  version?: string;
  now?: () => number;
  fetch?: typeof fetch;
  /** Minimum gap between two calls to the service (ms); none unless given (the background gives LOOKUP_DEFAULTS). */
  minIntervalMs?: number;
  /** At most this many calls in any 60 s; no limit unless given. */
  maxCallsPerMinute?: number;
  /** How long hashes asked at the same moment (several tabs, a list page) wait to share a request. */
  batchWindowMs?: number;
  /** Waits used between retries (ms); tests shorten them. */
  retryDelaysMs?: readonly number[];
  /** The bound on stored answers (default MAX_ENTRIES); tests make it small. */
  maxCachedAnswers?: number;
  timeoutMs?: number;
}

/** What the background runs with: gentle enough for the service's 60 calls a minute. */
export const LOOKUP_DEFAULTS = { minIntervalMs: 200, maxCallsPerMinute: 55, batchWindowMs: 20 } as const;
const NO_PACING = { minIntervalMs: 0, maxCallsPerMinute: Number.POSITIVE_INFINITY, batchWindowMs: 0 } as const;

export interface LookupOutcome {
  answers: Map<string, CachedAnswer>;
  /** Every hash was answered from the cache. */
  fromCache: boolean;
  /** How many requests went to the service for this call's hashes (shared batches count once). */
  requests: number;
  /** Set when the service said our clock is off (seconds the service is ahead). */
  clockSkewSeconds?: number;
  /** Hashes whose entry in the service's answer was wholly broken: left out of `answers`, asked again next time. */
  unanswered?: string[];
}

/** One hash whose entry in an answer was wholly broken: it alone goes unanswered (and uncached). */
class UnusableEntry extends ServiceError {}

/** What one batch request gave every hash it carried. */
interface BatchResult {
  answer: CachedAnswer;
  batch: number;
  requests: number;
  clockSkewSeconds?: number;
}

interface Waiting {
  resolve(result: BatchResult): void;
  reject(error: unknown): void;
}

/**
 * A short tag for the site list lookups are made under (the user's sites, or every listed site
 * until they pick): answers are fresh only under the list they were fetched with, since a service
 * may answer only for the reported sites. Signed lookups report no sites.
 */
export function sitesTag(settings: Settings): string {
  if (lookupMode(settings) === 'signed') return '';
  const list = settings.heldSites ? [...settings.heldSites].sort((a, b) => a - b).join(',') : '*';
  // FNV-1a: a few characters per answer in storage, not the whole list.
  let hash = 0x811c9dc5;
  for (let i = 0; i < list.length; i++) hash = Math.imul(hash ^ list.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}

/** Failures that every queued hash would meet too: they end the whole queue, not just one batch. */
const ENDS_THE_QUEUE = new Set(['rate-limited', 'no-credentials', 'not-permitted', 'auth', 'not-bound', 'bad-sign']);

/**
 * Whether calls (and with them the token, or the App ID and signature) may go to this service
 * address: one of IYUU's own hosts, which the manifest holds, or an origin the user granted when
 * saving it. Anything else (an imported address, an unsaved typo) gets nothing.
 */
export async function serviceOriginAllowed(baseUrl: string): Promise<boolean> {
  if (isKnownServiceOrigin(baseUrl)) return true;
  const origin = originOf(baseUrl);
  if (origin === undefined) return false;
  return originAllowed(origin);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Lookup {
  readonly cache: AnswerCache;
  /** Hashes asked of the service and not answered yet: queued or in a request. */
  private readonly inFlight = new Map<string, Promise<BatchResult>>();
  /** Hashes waiting for the next batch, in the order they were asked. */
  private readonly queue = new Map<string, Waiting>();
  /** Queued hashes whose answers no caller wants in the answer cache (a caller that keeps its own copy). */
  private readonly notCached = new Set<string>();
  private draining: Promise<void> | undefined;
  private reporting: Promise<string> | undefined;
  private batches = 0;
  private readonly now: () => number;
  private blockedUntil: number | undefined;
  private clockOffset: number | undefined;
  private readonly recentCalls: number[] = [];
  private callChain: Promise<void> = Promise.resolve();

  constructor(private readonly env: LookupEnvironment) {
    this.now = env.now ?? Date.now;
    this.cache = new AnswerCache(this.now, env.maxCachedAnswers);
  }

  /**
   * Answers for these hashes: fresh cache entries unless `force`, the rest from the service.
   * Hashes asked at the same moment by several callers share requests of up to 200; a hash
   * already on its way to the service is not asked twice.
   */
  async answers(
    hashes: readonly string[],
    options: {
      force?: boolean;
      /** Called once, before anything is asked of the service (not when the cache answers it all). */
      beforeService?: () => unknown;
      /**
       * false: the service's answers are not written to the answer cache. For a caller that keeps
       * its own lasting copy (the client index: 10,000 answers must neither be stored twice nor push
       * the user's browsing answers out of the cache). A hash another caller wants cached is cached.
       */
      cache?: boolean;
    } = {},
  ): Promise<LookupOutcome> {
    const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
    const answers = new Map<string, CachedAnswer>();
    let needed = wanted;
    if (!options.force) {
      const [cached, settings] = await Promise.all([this.cache.get(wanted), this.env.settings()]);
      const tag = sitesTag(settings);
      needed = [];
      for (const hash of wanted) {
        const answer = cached.get(hash);
        // An answer from before the user's sites changed is not fresh (one stored without a tag is).
        if (this.cache.isFresh(answer) && (answer.sites === undefined || answer.sites === tag)) answers.set(hash, answer);
        else needed.push(hash);
      }
    }
    if (!needed.length) return { answers, fromCache: true, requests: 0 };
    await options.beforeService?.();

    const keep = options.cache ?? true;
    const settled = await Promise.allSettled(
      needed.map((hash) => {
        const pending = this.inFlight.get(hash);
        if (!pending) return this.enqueue(hash, keep);
        if (keep) this.notCached.delete(hash);
        return pending;
      }),
    );
    // A hash that failed alone (its entry was broken) is skipped alone; any other failure is the page's.
    const failed = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    const shared = failed.find((reason) => !(reason instanceof UnusableEntry));
    if (shared !== undefined) throw shared;
    if (failed.length === needed.length) throw failed[0];
    const outcome: LookupOutcome = { answers, fromCache: false, requests: 0 };
    const batches = new Map<number, number>();
    needed.forEach((hash, index) => {
      const result = settled[index]!;
      if (result.status === 'rejected') {
        (outcome.unanswered ??= []).push(hash);
        return;
      }
      answers.set(hash, result.value.answer);
      const value = result.value;
      batches.set(value.batch, value.requests);
      if (value.clockSkewSeconds !== undefined) outcome.clockSkewSeconds = value.clockSkewSeconds;
    });
    for (const requests of batches.values()) outcome.requests += requests;
    return outcome;
  }

  private enqueue(hash: string, keep: boolean): Promise<BatchResult> {
    const promise = new Promise<BatchResult>((resolve, reject) => this.queue.set(hash, { resolve, reject }));
    if (!keep) this.notCached.add(hash);
    this.inFlight.set(hash, promise);
    const settled = () => {
      this.inFlight.delete(hash);
      this.notCached.delete(hash);
    };
    promise.then(settled, settled);
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
    return promise;
  }

  /** Sends the queue, one batch at a time, until it is empty. */
  private async drain(): Promise<void> {
    await sleep(this.env.batchWindowMs ?? NO_PACING.batchWindowMs);
    while (this.queue.size) {
      let taken: [string, Waiting][] = [];
      try {
        const settings = await this.env.settings();
        const mode = lookupMode(settings);
        if (mode === 'none') throw new ServiceError({ kind: 'no-credentials', detail: 'no token or App ID configured' });
        const result = await this.sendBatch(settings, mode, () => {
          // Taken at the last moment, so hashes that arrived while we waited for the gate join in.
          taken = [...this.queue].slice(0, mode === 'signed' ? 1 : MAX_HASHES_PER_LOOKUP);
          for (const [hash] of taken) this.queue.delete(hash);
          return taken.map(([hash]) => hash);
        });
        const batch = ++this.batches;
        const stored = new Map<string, CachedAnswer>();
        const sites = sitesTag(settings);
        const cached = new Map<string, CachedAnswer>();
        for (const [hash] of taken) {
          const candidates = result.candidates.get(hash);
          if (candidates) stored.set(hash, { candidates, fetchedAt: this.now(), sites });
          if (candidates && !this.notCached.has(hash)) cached.set(hash, stored.get(hash)!);
        }
        await this.cache.put(cached);
        for (const [hash, waiting] of taken) {
          const answer = stored.get(hash);
          // The service's entry for this hash was wholly broken: that hash fails alone, and is not cached as "none".
          if (!answer) waiting.reject(new UnusableEntry({ kind: 'bad-answer', detail: 'list lookup: the answer for this hash was unusable' }));
          else waiting.resolve({ answer, batch, requests: result.requests, clockSkewSeconds: result.clockSkewSeconds });
        }
      } catch (error) {
        const everyone = !taken.length || (error instanceof ServiceError && ENDS_THE_QUEUE.has(error.kind));
        for (const [, waiting] of taken) waiting.reject(error);
        if (everyone) {
          for (const waiting of this.queue.values()) waiting.reject(error);
          this.queue.clear();
        }
      }
    }
  }

  /** One batch, with its recoveries: the site report (again once if stale), clock, transient failures. */
  private async sendBatch(
    settings: Settings,
    mode: 'token' | 'signed',
    take: () => string[],
  ): Promise<{ candidates: Map<string, Candidate[]>; requests: number; clockSkewSeconds?: number }> {
    let chunk: string[] | undefined;
    const hashes = () => (chunk ??= take());
    const tally = { requests: 0, clockSkewSeconds: undefined as number | undefined };
    if (mode === 'signed') {
      const candidates = await this.withRecovery(tally, () =>
        this.call((config) => lookupSigned(config, hashes()[0]!), settings),
      );
      return { candidates: new Map([[hashes()[0]!, candidates]]), ...tally };
    }
    let reportedAgain = false;
    let reportFirst = false;
    const candidates = await this.withRecovery(
      tally,
      async () => {
        const force = reportFirst;
        reportFirst = false;
        try {
          const sidSha1 = await this.sharedSiteReport(settings, force);
          return await this.call((config) => lookupBatch(config, hashes(), sidSha1), settings);
        } catch (error) {
          // The service no longer accepts our site hash: report the sites again and retry once.
          if (error instanceof ServiceError && error.kind === 'stale-site-hash' && !reportedAgain) {
            reportedAgain = true;
            const sidSha1 = await this.sharedSiteReport(settings, true);
            return await this.call((config) => lookupBatch(config, hashes(), sidSha1), settings);
          }
          throw error;
        }
      },
      (error) => {
        // A server that failed (Redis out of memory, a crash) may have lost our site report with it.
        if (error.kind === 'server') reportFirst = true;
      },
    );
    return { candidates, ...tally };
  }

  /** When no call may go out before (ms), if a rate limit is in force. */
  async rateLimitedUntil(): Promise<number | undefined> {
    if (this.blockedUntil === undefined) {
      this.blockedUntil = (await rateLimitItem.get()).until;
    }
    return this.blockedUntil > this.now() ? this.blockedUntil : undefined;
  }

  /** The config every call uses: settings plus the learned clock offset. */
  async serviceConfig(settings?: Settings): Promise<ServiceConfig> {
    const current = settings ?? (await this.env.settings());
    if (this.clockOffset === undefined) {
      this.clockOffset = (await clockOffsetItem.get()).seconds;
    }
    return {
      baseUrl: current.baseUrl,
      token: current.token || undefined,
      appId: current.appId || undefined,
      secret: current.secret || undefined,
      version: this.env.version,
      clockOffsetSeconds: this.clockOffset,
      fetch: this.env.fetch,
      now: this.env.now,
      timeoutMs: this.env.timeoutMs,
    };
  }

  /** Forget the site report and clock offset (after the service address or token changed). */
  async forgetServiceState(): Promise<void> {
    this.clockOffset = undefined;
    this.blockedUntil = undefined;
    await Promise.all([siteReportItem.remove(), clockOffsetItem.remove(), rateLimitItem.remove()]);
  }

  /**
   * Runs one call to the service: waits for the rate-limit gate, the minimum gap and a free slot
   * in the last minute, and records a rate limit the service announces. Every call to the
   * service goes through here.
   */
  async call<T>(operation: (config: ServiceConfig) => Promise<T>, settings?: Settings): Promise<T> {
    const turn = this.callChain.then(() => this.waitForSlot());
    this.callChain = turn.catch(() => undefined);
    await turn;
    const config = await this.serviceConfig(settings);
    if (!(await serviceOriginAllowed(config.baseUrl))) {
      throw new ServiceError({
        kind: 'not-permitted',
        detail: `${String(config.baseUrl).slice(0, 100)} is neither an IYUU host nor an address you granted; nothing was sent`,
      });
    }
    try {
      return await operation(config);
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'rate-limited') {
        const until = error.retryAt ?? this.now() + DEFAULT_RETRY_AFTER_S * 1000;
        this.blockedUntil = until;
        await rateLimitItem.set({ until });
      }
      throw error;
    }
  }

  private async waitForSlot(): Promise<void> {
    const until = await this.rateLimitedUntil();
    if (until) throw new ServiceError({ kind: 'rate-limited', detail: 'waiting for the rate limit to lift', retryAt: until });
    const minInterval = this.env.minIntervalMs ?? NO_PACING.minIntervalMs;
    const perMinute = this.env.maxCallsPerMinute ?? NO_PACING.maxCallsPerMinute;
    // Pacing is about real time, whatever clock the cache is told to use.
    for (;;) {
      const now = Date.now();
      while (this.recentCalls.length && now - this.recentCalls[0]! >= 60_000) this.recentCalls.shift();
      const last = this.recentCalls.at(-1);
      const gap = last === undefined ? 0 : minInterval - (now - last);
      const full = this.recentCalls.length >= perMinute ? 60_000 - (now - this.recentCalls[0]!) : 0;
      const wait = Math.max(gap, full);
      if (wait <= 0) break;
      await sleep(wait);
    }
    this.recentCalls.push(Date.now());
  }

  private sharedSiteReport(settings: Settings, force: boolean): Promise<string> {
    // Concurrent batches share one report: on first use a burst of pages must not send one each.
    if (!force && this.reporting) return this.reporting;
    const report = this.siteReport(settings, force).finally(() => {
      if (this.reporting === report) this.reporting = undefined;
    });
    this.reporting = report;
    return report;
  }

  /**
   * Retries what is safe to retry: lookups are read-only, so a network failure, a timeout or a
   * server error (HTTP 5xx, "Server internal error" under any code, a Redis or PHP failure in plain
   * words) is tried again with backoff; an expired timestamp is tried once more with the clock
   * offset the service's Date header gave. `beforeRetry` learns why, e.g. to report the sites again.
   */
  private async withRecovery<T>(
    tally: { requests: number; clockSkewSeconds?: number },
    attempt: () => Promise<T>,
    beforeRetry?: (error: ServiceError) => void,
  ): Promise<T> {
    const delays = this.env.retryDelaysMs ?? [1000, 3000];
    let correctedClock = false;
    for (let tries = 0; ; tries++) {
      try {
        tally.requests++;
        return await attempt();
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        if (error.kind === 'expired-timestamp' && !correctedClock && error.clockOffsetSeconds !== undefined) {
          correctedClock = true;
          await this.learnClockOffset(error.clockOffsetSeconds);
          if (Math.abs(error.clockOffsetSeconds) >= NOTABLE_SKEW_S) tally.clockSkewSeconds = error.clockOffsetSeconds;
          continue;
        }
        const transient = error.kind === 'network' || error.kind === 'timeout' || error.kind === 'server';
        const delay = delays[tries];
        if (!transient || delay === undefined) throw error;
        beforeRetry?.(error);
        await sleep(delay);
      }
    }
  }

  private async learnClockOffset(seconds: number): Promise<void> {
    this.clockOffset = Math.round(seconds);
    await clockOffsetItem.set({ seconds: this.clockOffset, at: this.now() });
  }

  /** sid_sha1 for the current site list: reused for 7 days while nothing changed. */
  private async siteReport(settings: Settings, force: boolean): Promise<string> {
    const config = await this.serviceConfig(settings);
    const sids = [...new Set(await this.env.sitesToReport(config))].sort((a, b) => a - b);
    const key = sids.join(',');
    const tokenTag = (await sha1HexOfText(settings.token)).slice(0, 12);
    if (!force) {
      const stored = await siteReportItem.get();
      if (
        stored &&
        stored.sids === key &&
        stored.origin === settings.baseUrl &&
        stored.tokenTag === tokenTag &&
        this.now() - stored.at < SITE_REPORT_VALID_MS &&
        /^[0-9a-f]{40}$/.test(stored.value)
      ) {
        return stored.value;
      }
    }
    const value = await this.call((current) => reportExisting(current, sids), settings);
    const report: SiteReport = { value, sids: key, origin: settings.baseUrl, tokenTag, at: this.now() };
    await siteReportItem.set(report);
    return value;
  }
}
