/**
 * Pages whose only trace of the hash is a magnet link (`xt=urn:btih:` with 40 hex or 32 base32).
 * One distinct magnet: that is the page's torrent. Several: a list, one hash per row, each tied to
 * the row's torrent id when a link in the row names one. Magnets in quotes or comments are not
 * the page's.
 */
import { hashFromMagnet } from './hash';
import { isAside } from './generic';
import type { FoundHash, PageEngine } from './types';

const MAGNET_LINKS = 'a[href^="magnet:"], a[href^="Magnet:"], a[href^="MAGNET:"]';
const ROW_ID = /(?:[?&](?:torrent)?id=|\/torrents?\/|\/t\/|\/t-|\/detail\/)(\d+)/;

function insideAside(link: Element): boolean {
  for (let element = link.parentElement; element; element = element.parentElement) {
    if (isAside(element)) return true;
  }
  return false;
}

function rowId(link: Element, index: number): string {
  const row = link.closest('tr, li, article');
  if (row) {
    for (const other of Array.from(row.querySelectorAll('a[href]'))) {
      const id = ROW_ID.exec(other.getAttribute('href') ?? '')?.[1];
      if (id) return id;
    }
  }
  return String(index + 1);
}

export const magnet: PageEngine = {
  id: 'magnet',
  applies: ({ document }) => document.querySelector(MAGNET_LINKS) !== null,
  read({ document }) {
    const found: { hash: string; link: Element }[] = [];
    for (const link of Array.from(document.querySelectorAll(MAGNET_LINKS))) {
      const hash = hashFromMagnet(link.getAttribute('href') ?? '');
      if (hash && !insideAside(link)) found.push({ hash, link });
    }
    const distinct = new Set(found.map((f) => f.hash));
    if (distinct.size === 0) return null;
    if (distinct.size === 1) {
      return { engine: 'magnet', kind: 'details', hashes: [{ hash: found[0]!.hash, source: 'magnet' }] };
    }
    const hashes: FoundHash[] = [];
    const rows = new Set<string>();
    for (const [index, { hash, link }] of found.entries()) {
      const row = rowId(link, index);
      if (rows.has(row) || hashes.length >= 1000) continue;
      rows.add(row);
      hashes.push({ hash, source: 'magnet', row });
    }
    return { engine: 'magnet', kind: 'list', hashes };
  },
};
