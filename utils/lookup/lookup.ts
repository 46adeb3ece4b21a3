/**
 * Everything between "these hashes" and the service: the cache, in-flight de-duplication,
 * batching (MAX_HASHES_PER_REQUEST), the site report (sid_sha1), the rate-limit gate, clock-skew
 * correction and retries where they are safe. The background owns the one instance.
 */
import { browser } from 'wxt/browser';
import {
  MAX_HASHES_PER_REQUEST,
  lookupBatch,
  lookupSigned,
  reportExisting,
  sha1Hex,
  type ServiceConfig,
} from '../service/client';
import { ServiceError } from '../service/errors';
import type { Candidate } from '../service/schemas';
import { lookupMode, type Settings } from '../settings';
import { AnswerCache, type CachedAnswer } from './cache';

/** sid_sha1 is valid for 7 days while the site list is unchanged (official client). */
export const SITE_REPORT_VALID_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_RETRY_AFTER_S = 30;
/** Skew below this is ordinary drift and not worth telling the user about. */
export const NOTABLE_SKEW_S = 30;

const SITE_REPORT_KEY = 'siteReport';
const RATE_LIMIT_KEY = 'rateLimit';
const CLOCK_KEY = 'clockOffset';

export interface LookupEnvironment {
  settings(): Promise<Settings>;
  /** The sids to report for sid_sha1: the user's sites, or every site the service lists. */
  sitesToReport(config: ServiceConfig): Promise<number[]>;
  version: string;
  now?: () => number;
  fetch?: typeof fetch;
  /** Minimum gap between two calls to the service (ms): keeps bursts under its rate limit. */
  minIntervalMs?: number;
  /** Waits used between retries (ms); tests shorten them. */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
}

export interface LookupOutcome {
  answers: Map<string, CachedAnswer>;
  /** Every hash was answered from the cache. */
  fromCache: boolean;
  /** How many requests went to the service for this call. */
  requests: number;
  /** Set when the service said our clock is off (seconds the service is ahead). */
  clockSkewSeconds?: number;
}

interface SiteReport {
  value: string;
  sids: string;
  origin: string;
  tokenTag: string;
  at: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Lookup {
  readonly cache: AnswerCache;
  private readonly inFlight = new Map<string, Promise<CachedAnswer>>();
  private readonly now: () => number;
  private blockedUntil: number | undefined;
  private clockOffset: number | undefined;
  private lastCallAt = 0;
  private callChain: Promise<void> = Promise.resolve();

  constructor(private readonly env: LookupEnvironment) {
    this.now = env.now ?? Date.now;
    this.cache = new AnswerCache(this.now);
  }

  /** Answers for these hashes: fresh cache entries unless `force`, the rest from the service. */
  async answers(hashes: readonly string[], options: { force?: boolean } = {}): Promise<LookupOutcome> {
    const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
    const answers = new Map<string, CachedAnswer>();
    let needed = wanted;
    if (!options.force) {
      const cached = await this.cache.get(wanted);
      needed = [];
      for (const hash of wanted) {
        const answer = cached.get(hash);
        if (this.cache.isFresh(answer)) answers.set(hash, answer);
        else needed.push(hash);
      }
    }
    if (!needed.length) return { answers, fromCache: true, requests: 0 };

    const waiting: Promise<void>[] = [];
    const mine: string[] = [];
    for (const hash of needed) {
      const pending = this.inFlight.get(hash);
      if (pending && !options.force) waiting.push(pending.then((answer) => void answers.set(hash, answer)));
      else mine.push(hash);
    }
    const outcome: LookupOutcome = { answers, fromCache: false, requests: 0 };
    if (mine.length) {
      const request = this.fetchAnswers(mine, outcome);
      for (const hash of mine) {
        const forHash = request.then((fetched) => fetched.get(hash) ?? { candidates: [], fetchedAt: this.now() });
        forHash.catch(() => undefined);
        this.inFlight.set(hash, forHash);
        waiting.push(forHash.then((answer) => void answers.set(hash, answer)));
      }
      request.finally(() => {
        for (const hash of mine) this.inFlight.delete(hash);
      }).catch(() => undefined);
    }
    await Promise.all(waiting);
    return outcome;
  }

  /** When no call may go out before (ms), if a rate limit is in force. */
  async rateLimitedUntil(): Promise<number | undefined> {
    if (this.blockedUntil === undefined) {
      const stored = await browser.storage.local.get(RATE_LIMIT_KEY);
      const until = (stored[RATE_LIMIT_KEY] as { until?: unknown } | undefined)?.until;
      this.blockedUntil = typeof until === 'number' ? until : 0;
    }
    return this.blockedUntil > this.now() ? this.blockedUntil : undefined;
  }

  /** The config every call uses: settings plus the learned clock offset. */
  async serviceConfig(settings?: Settings): Promise<ServiceConfig> {
    const current = settings ?? (await this.env.settings());
    if (this.clockOffset === undefined) {
      const stored = await browser.storage.local.get(CLOCK_KEY);
      const seconds = (stored[CLOCK_KEY] as { seconds?: unknown } | undefined)?.seconds;
      this.clockOffset = typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : 0;
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
    await browser.storage.local.remove([SITE_REPORT_KEY, CLOCK_KEY, RATE_LIMIT_KEY]);
  }

  /**
   * Runs one call to the service: waits for the rate-limit gate and the minimum interval, and
   * records a rate limit the service announces. Every call to the service goes through here.
   */
  async call<T>(operation: (config: ServiceConfig) => Promise<T>, settings?: Settings): Promise<T> {
    const turn = this.callChain.then(async () => {
      const until = await this.rateLimitedUntil();
      if (until) {
        throw new ServiceError({ kind: 'rate-limited', detail: 'waiting for the rate limit to lift', retryAt: until });
      }
      const gap = (this.env.minIntervalMs ?? 0) - (this.now() - this.lastCallAt);
      if (gap > 0) await sleep(gap);
      this.lastCallAt = this.now();
    });
    this.callChain = turn.catch(() => undefined);
    await turn;
    try {
      return await operation(await this.serviceConfig(settings));
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'rate-limited') {
        const until = error.retryAt ?? this.now() + DEFAULT_RETRY_AFTER_S * 1000;
        this.blockedUntil = until;
        await browser.storage.local.set({ [RATE_LIMIT_KEY]: { until } });
      }
      throw error;
    }
  }

  private async fetchAnswers(hashes: string[], outcome: LookupOutcome): Promise<Map<string, CachedAnswer>> {
    const settings = await this.env.settings();
    const mode = lookupMode(settings);
    if (mode === 'none') throw new ServiceError({ kind: 'no-credentials', detail: 'no token or App ID configured' });
    const fetched = new Map<string, CachedAnswer>();
    const store = async (candidates: Map<string, Candidate[]>) => {
      const batch = new Map<string, CachedAnswer>();
      for (const [hash, list] of candidates) batch.set(hash, { candidates: list, fetchedAt: this.now() });
      await this.cache.put(batch);
      for (const [hash, answer] of batch) fetched.set(hash, answer);
    };
    if (mode === 'signed') {
      for (const hash of hashes) {
        const candidates = await this.withRecovery(settings, outcome, () =>
          this.call((config) => lookupSigned(config, hash), settings),
        );
        await store(new Map([[hash, candidates]]));
      }
      return fetched;
    }
    for (let start = 0; start < hashes.length; start += MAX_HASHES_PER_REQUEST) {
      const chunk = hashes.slice(start, start + MAX_HASHES_PER_REQUEST);
      let reportedAgain = false;
      const candidates = await this.withRecovery(settings, outcome, async () => {
        try {
          const sidSha1 = await this.siteReport(settings, false);
          return await this.call((config) => lookupBatch(config, chunk, sidSha1), settings);
        } catch (error) {
          // The service no longer accepts our site hash: report the sites again and retry once.
          if (error instanceof ServiceError && error.kind === 'stale-site-hash' && !reportedAgain) {
            reportedAgain = true;
            const sidSha1 = await this.siteReport(settings, true);
            return await this.call((config) => lookupBatch(config, chunk, sidSha1), settings);
          }
          throw error;
        }
      });
      await store(candidates);
    }
    return fetched;
  }

  /**
   * Retries what is safe to retry: lookups are read-only, so a network failure, a timeout or a
   * server error is tried again with backoff; an expired timestamp is tried once more with the
   * clock offset the service's Date header gave.
   */
  private async withRecovery<T>(settings: Settings, outcome: LookupOutcome, attempt: () => Promise<T>): Promise<T> {
    const delays = this.env.retryDelaysMs ?? [1000, 3000];
    let correctedClock = false;
    for (let tries = 0; ; tries++) {
      try {
        outcome.requests++;
        return await attempt();
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        if (error.kind === 'expired-timestamp' && !correctedClock && error.clockOffsetSeconds !== undefined) {
          correctedClock = true;
          await this.learnClockOffset(error.clockOffsetSeconds);
          if (Math.abs(error.clockOffsetSeconds) >= NOTABLE_SKEW_S) outcome.clockSkewSeconds = error.clockOffsetSeconds;
          continue;
        }
        const transient = error.kind === 'network' || error.kind === 'timeout' || error.kind === 'server';
        const delay = delays[tries];
        if (!transient || delay === undefined) throw error;
        await sleep(delay);
      }
    }
  }

  private async learnClockOffset(seconds: number): Promise<void> {
    this.clockOffset = Math.round(seconds);
    await browser.storage.local.set({ [CLOCK_KEY]: { seconds: this.clockOffset, at: this.now() } });
  }

  /** sid_sha1 for the current site list: reused for 7 days while nothing changed. */
  private async siteReport(settings: Settings, force: boolean): Promise<string> {
    const config = await this.serviceConfig(settings);
    const sids = [...new Set(await this.env.sitesToReport(config))].sort((a, b) => a - b);
    const key = sids.join(',');
    const tokenTag = (await sha1Hex(settings.token)).slice(0, 12);
    if (!force) {
      const stored = (await browser.storage.local.get(SITE_REPORT_KEY))[SITE_REPORT_KEY] as SiteReport | undefined;
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
    await browser.storage.local.set({ [SITE_REPORT_KEY]: report });
    return value;
  }
}
