/**
 * Answers per hash, kept in storage.local (one key per hash, so a write touches one small value)
 * with an in-memory front for the hot path. Candidates change slowly: an answer is fresh for
 * FRESH_FOR_MS and kept (for display while offline or rate-limited) until STALE_AFTER_MS.
 */
import { browser } from 'wxt/browser';
import type { Candidate } from '../iyuu/answer-schemas';

export const FRESH_FOR_MS = 6 * 60 * 60 * 1000;
export const KEEP_FOR_MS = 14 * 24 * 60 * 60 * 1000;
export const MAX_ENTRIES = 20_000;
/** A prune goes down to this share of the bound, so a busy page does not prune on every write. */
const PRUNE_TO = 0.9;
const KEY_PREFIX = 'answer:';
/** How many answers storage holds, as far as writes tell (a prune counts them exactly). */
const COUNT_KEY = 'answerCount';

export interface CachedAnswer {
  candidates: Candidate[];
  fetchedAt: number;
  /**
   * The site list the service was told when it answered (lookup.ts's sitesTag): a service that
   * answers only for the reported sites answers differently once the user's sites change.
   */
  sites?: string;
}

/** Stored compactly: [sid, torrent_id, info_hash] triples. */
interface StoredAnswer {
  t: number;
  c: [number, number, string][];
  s?: string;
}

function pack(answer: CachedAnswer): StoredAnswer {
  const packed: StoredAnswer = { t: answer.fetchedAt, c: answer.candidates.map((c) => [c.sid, c.torrent_id, c.info_hash]) };
  if (answer.sites !== undefined) packed.s = answer.sites;
  return packed;
}

function unpack(stored: unknown): CachedAnswer | undefined {
  if (!stored || typeof stored !== 'object') return undefined;
  const { t, c, s } = stored as Partial<StoredAnswer>;
  if (typeof t !== 'number' || !Array.isArray(c)) return undefined;
  const candidates: Candidate[] = [];
  for (const triple of c) {
    if (!Array.isArray(triple)) return undefined;
    const [sid, torrentId, hash] = triple;
    if (!Number.isSafeInteger(sid) || !Number.isSafeInteger(torrentId) || typeof hash !== 'string' || !/^[0-9a-f]{40}$/.test(hash)) {
      return undefined;
    }
    candidates.push({ sid, torrent_id: torrentId, info_hash: hash });
  }
  return typeof s === 'string' ? { candidates, fetchedAt: t, sites: s } : { candidates, fetchedAt: t };
}

export class AnswerCache {
  private readonly memory = new Map<string, CachedAnswer>();
  private count: number | undefined;
  private pruning: Promise<number> | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    /** The bound on stored answers; tests make it small. */
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  isFresh(answer: CachedAnswer | undefined): answer is CachedAnswer {
    return !!answer && this.now() - answer.fetchedAt < FRESH_FOR_MS && answer.fetchedAt <= this.now() + 60_000;
  }

  /** The cached answers for these hashes (fresh or not); missing ones are absent. */
  async get(hashes: readonly string[]): Promise<Map<string, CachedAnswer>> {
    const found = new Map<string, CachedAnswer>();
    const missing: string[] = [];
    for (const hash of hashes) {
      const answer = this.memory.get(hash);
      if (answer) found.set(hash, answer);
      else missing.push(hash);
    }
    if (missing.length) {
      const stored = await browser.storage.local.get(missing.map((hash) => KEY_PREFIX + hash));
      for (const hash of missing) {
        const answer = unpack(stored[KEY_PREFIX + hash]);
        if (answer && this.now() - answer.fetchedAt < KEEP_FOR_MS) {
          found.set(hash, answer);
          this.remember(hash, answer);
        }
      }
    }
    return found;
  }

  /**
   * Stores answers and keeps the store within its bound as it writes: past maxEntries the oldest
   * go. A full storage.local makes room and tries once more; the cache never fails a lookup.
   */
  async put(answers: Map<string, CachedAnswer>): Promise<void> {
    if (!answers.size) return;
    const items: Record<string, StoredAnswer> = {};
    let added = 0;
    for (const [hash, answer] of answers) {
      items[KEY_PREFIX + hash] = pack(answer);
      // Hashes asked of the service were looked for here first: one not in memory is a new entry.
      if (!this.memory.has(hash)) added++;
      this.remember(hash, answer);
    }
    const count = (await this.storedCount()) + added;
    this.count = count;
    try {
      await browser.storage.local.set({ ...items, [COUNT_KEY]: count });
    } catch {
      // Full (or failing) storage: make room, try once more, and otherwise keep the answers in memory only.
      await this.shrink().catch(() => undefined);
      await browser.storage.local.set(items).catch(() => undefined);
    }
    if (count > this.maxEntries) await this.prune().catch(() => undefined);
  }

  /** Drops expired answers and, past the bound, the oldest ones; counts what is left exactly. */
  prune(): Promise<number> {
    return this.once(() => Math.floor(this.maxEntries * PRUNE_TO));
  }

  /** Halves the store, oldest first: what the settings do when storage.local is full. */
  shrink(): Promise<number> {
    return this.once((stored) => Math.floor(stored / 2));
  }

  /** One prune at a time: a timer, a burst of writes and a full store may all ask. */
  private once(keep: (stored: number) => number): Promise<number> {
    this.pruning ??= this.pruneNow(keep).finally(() => (this.pruning = undefined));
    return this.pruning;
  }

  private async pruneNow(keepOf: (stored: number) => number): Promise<number> {
    const all = await browser.storage.local.get(null);
    const entries: [string, number][] = [];
    for (const [key, value] of Object.entries(all)) {
      if (!key.startsWith(KEY_PREFIX)) continue;
      const t = (value as Partial<StoredAnswer> | undefined)?.t;
      entries.push([key, typeof t === 'number' ? t : 0]);
    }
    entries.sort((a, b) => b[1] - a[1]);
    const keep = keepOf(entries.length);
    const doomed = entries.filter(([, t], index) => index >= keep || this.now() - t >= KEEP_FOR_MS).map(([key]) => key);
    this.count = entries.length - doomed.length;
    if (doomed.length) await browser.storage.local.remove(doomed);
    await browser.storage.local.set({ [COUNT_KEY]: this.count });
    for (const key of doomed) this.memory.delete(key.slice(KEY_PREFIX.length));
    return doomed.length;
  }

  private async storedCount(): Promise<number> {
    if (this.count === undefined) {
      const stored = (await browser.storage.local.get(COUNT_KEY))[COUNT_KEY];
      this.count = typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 0 ? stored : 0;
    }
    return this.count;
  }

  async clear(): Promise<void> {
    const all = await browser.storage.local.get(null);
    await browser.storage.local.remove([...Object.keys(all).filter((key) => key.startsWith(KEY_PREFIX)), COUNT_KEY]);
    this.memory.clear();
    this.count = 0;
  }

  private remember(hash: string, answer: CachedAnswer): void {
    // Map keeps insertion order: re-inserting moves a hash to the end, so the first is the oldest.
    this.memory.delete(hash);
    this.memory.set(hash, answer);
    if (this.memory.size > this.maxEntries) this.memory.delete(this.memory.keys().next().value as string);
  }
}
