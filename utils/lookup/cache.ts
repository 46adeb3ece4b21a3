/**
 * Answers per hash, kept in storage.local (one key per hash, so a write touches one small value)
 * with an in-memory front for the hot path. Candidates change slowly: an answer is fresh for
 * FRESH_FOR_MS and kept (for display while offline or rate-limited) until STALE_AFTER_MS.
 */
import { browser } from 'wxt/browser';
import type { Candidate } from '../service/schemas';

export const FRESH_FOR_MS = 6 * 60 * 60 * 1000;
export const KEEP_FOR_MS = 14 * 24 * 60 * 60 * 1000;
export const MAX_ENTRIES = 20_000;
const KEY_PREFIX = 'answer:';

export interface CachedAnswer {
  candidates: Candidate[];
  fetchedAt: number;
}

/** Stored compactly: [sid, torrent_id, info_hash] triples. */
interface StoredAnswer {
  t: number;
  c: [number, number, string][];
}

function pack(answer: CachedAnswer): StoredAnswer {
  return { t: answer.fetchedAt, c: answer.candidates.map((c) => [c.sid, c.torrent_id, c.info_hash]) };
}

function unpack(stored: unknown): CachedAnswer | undefined {
  if (!stored || typeof stored !== 'object') return undefined;
  const { t, c } = stored as Partial<StoredAnswer>;
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
  return { candidates, fetchedAt: t };
}

export class AnswerCache {
  private readonly memory = new Map<string, CachedAnswer>();

  constructor(private readonly now: () => number = Date.now) {}

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

  async put(answers: Map<string, CachedAnswer>): Promise<void> {
    if (!answers.size) return;
    const items: Record<string, StoredAnswer> = {};
    for (const [hash, answer] of answers) {
      items[KEY_PREFIX + hash] = pack(answer);
      this.remember(hash, answer);
    }
    await browser.storage.local.set(items);
  }

  /** Drops expired answers and, past MAX_ENTRIES, the oldest ones. */
  async prune(): Promise<number> {
    const all = await browser.storage.local.get(null);
    const entries: [string, number][] = [];
    for (const [key, value] of Object.entries(all)) {
      if (!key.startsWith(KEY_PREFIX)) continue;
      const t = (value as Partial<StoredAnswer> | undefined)?.t;
      entries.push([key, typeof t === 'number' ? t : 0]);
    }
    entries.sort((a, b) => b[1] - a[1]);
    const doomed = entries.filter(([, t], index) => index >= MAX_ENTRIES || this.now() - t >= KEEP_FOR_MS).map(([key]) => key);
    if (doomed.length) await browser.storage.local.remove(doomed);
    for (const key of doomed) this.memory.delete(key.slice(KEY_PREFIX.length));
    return doomed.length;
  }

  async clear(): Promise<void> {
    const all = await browser.storage.local.get(null);
    await browser.storage.local.remove(Object.keys(all).filter((key) => key.startsWith(KEY_PREFIX)));
    this.memory.clear();
  }

  private remember(hash: string, answer: CachedAnswer): void {
    // Map keeps insertion order: re-inserting moves a hash to the end, so the first is the oldest.
    this.memory.delete(hash);
    this.memory.set(hash, answer);
    if (this.memory.size > MAX_ENTRIES) this.memory.delete(this.memory.keys().next().value as string);
  }
}
