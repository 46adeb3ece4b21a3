/**
 * Read the info-hashes of the tracker page the content script runs in.
 * `readPage` never throws: an engine that fails on a broken page counts as "not this engine".
 */
import { isInfoHash } from './hash';
import { engines } from './registry';
import type { FoundHash, PageReading, ReadContext } from './types';

export type { FoundHash, PageEngine, PageReading, ReadContext } from './types';
export { hashFromMagnet, normaliseHash, base32ToHex, isInfoHash } from './hash';
export { watchPage } from './navigation';

/**
 * The first engine that knows the page and gives a reading wins; `hint.engine` (the engine the
 * site catalog says the host runs) is tried first. Null: no engine found anything to say.
 */
export async function readPage(context: ReadContext, hint?: { engine?: string }): Promise<PageReading | null> {
  const preferred = hint?.engine ? engines.find((engine) => engine.id === hint.engine) : undefined;
  const order = preferred ? [preferred, ...engines.filter((engine) => engine !== preferred)] : engines;
  const withHint: ReadContext = preferred ? { ...context, hint: preferred.id } : context;
  for (const engine of order) {
    let reading: PageReading | null;
    try {
      if (!engine.applies(withHint)) continue;
      reading = await engine.read(withHint);
    } catch {
      continue;
    }
    if (reading) return checked(reading);
  }
  return null;
}

/** The contract promises 40 lowercase hex, not one repeated character, one per row: hold to it here. */
function checked(reading: PageReading): PageReading {
  const seen = new Set<string>();
  const hashes: FoundHash[] = [];
  for (const found of reading.hashes) {
    const key = reading.kind === 'list' ? `${found.row ?? ''}` : found.hash;
    if (!isInfoHash(found.hash) || seen.has(key)) continue;
    seen.add(key);
    hashes.push(found);
  }
  return { ...reading, hashes: hashes.slice(0, 1000) };
}
