/**
 * Runs in an extension page of the built extension (bundled by bench/page-views.ts): fills the
 * extension's own answer cache through the real AnswerCache (utils/lookup/answer-cache.ts), so the
 * background later reads entries written in exactly its own format and storage.
 */
import { AnswerCache, type CachedAnswer } from '../utils/lookup/answer-cache';

export interface SeedRequest {
  /** Hashes that must be in the cache (the pages the benchmark will visit). */
  include: string[];
  /** Total answers to store, random hashes making up the rest. */
  total: number;
  /** Site ids the candidates are spread over. */
  sids: number[];
  seed: number;
}

export interface SeedResult {
  stored: number;
  candidates: number;
  putMs: number;
  /** storage.local bytes in use before and after (Chromium's getBytesInUse). */
  bytesBefore: number;
  bytesAfter: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function hexHash(next: () => number): string {
  let text = '';
  for (let i = 0; i < 5; i++) text += Math.floor(next() * 2 ** 32).toString(16).padStart(8, '0');
  return text;
}

/** Candidate counts like the reference data's (1–8 other sites), a third with none. */
export function answersFor(request: SeedRequest, now: number): Map<string, CachedAnswer> {
  const next = random(request.seed);
  const answers = new Map<string, CachedAnswer>();
  const add = (hash: string) => {
    const count = next() < 0.33 ? 0 : 1 + Math.floor(next() * 8);
    const candidates = Array.from({ length: count }, () => ({
      sid: request.sids[Math.floor(next() * request.sids.length)]!,
      torrent_id: 1 + Math.floor(next() * 900_000),
      info_hash: hexHash(next),
    }));
    answers.set(hash, { candidates, fetchedAt: now });
  };
  for (const hash of request.include) add(hash);
  while (answers.size < request.total) add(hexHash(next));
  return answers;
}

export async function seed(request: SeedRequest): Promise<SeedResult> {
  const storage = (globalThis as unknown as { chrome: { storage: { local: { getBytesInUse(keys: null): Promise<number> } } } }).chrome.storage.local;
  const bytesBefore = await storage.getBytesInUse(null);
  const answers = answersFor(request, Date.now());
  const started = performance.now();
  await new AnswerCache().put(answers);
  const putMs = performance.now() - started;
  let candidates = 0;
  for (const answer of answers.values()) candidates += answer.candidates.length;
  return { stored: answers.size, candidates, putMs, bytesBefore, bytesAfter: await storage.getBytesInUse(null) };
}
