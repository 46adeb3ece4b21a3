/**
 * Read the info-hashes of the tracker page the content script runs in.
 * `readPage` never throws: an engine that fails on a broken page counts as "not this engine".
 */
import { isInfoHash } from './hash';
import { engines } from './registry';
import type { FoundHash, ListRow, PageReading, ReadContext, RowElement } from './page-types';

export type { FoundHash, ListRow, PageEngine, PageReading, ReadContext, RowElement } from './page-types';
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

/**
 * Each list row's element by its torrent id, as the engine that reads the page finds them (for
 * marking rows). Empty when that engine reads no list here.
 */
export function listRowElements(context: ReadContext, engine: string): RowElement[] {
  try {
    return engines.find((each) => each.id === engine)?.listRows?.(context) ?? [];
  } catch {
    return [];
  }
}

/**
 * The contract promises 40 lowercase hex, not one repeated character, one per row, and rows with
 * numeric ids, each once, at most 500: hold to it here.
 */
function checked(reading: PageReading): PageReading {
  const seen = new Set<string>();
  const hashes: FoundHash[] = [];
  for (const found of reading.hashes) {
    const key = reading.kind === 'list' ? `${found.row ?? ''}` : found.hash;
    if (!isInfoHash(found.hash) || seen.has(key)) continue;
    seen.add(key);
    hashes.push(found);
  }
  const result: PageReading = { ...reading, hashes: hashes.slice(0, 1000) };
  if (reading.rows) {
    const ids = new Set<string>();
    const rows: ListRow[] = [];
    for (const row of reading.rows) {
      if (!/^\d{1,12}$/.test(row.id) || ids.has(row.id) || rows.length >= 500) continue;
      ids.add(row.id);
      const title = row.title?.slice(0, 300);
      rows.push({ id: row.id, ...(row.hash && isInfoHash(row.hash) && { hash: row.hash }), ...(title && { title }) });
    }
    result.rows = rows;
  }
  return result;
}
