/**
 * Pages whose only trace of the hash is a magnet link (`xt=urn:btih:` with 40 hex or 32 base32).
 * One distinct magnet: that is the page's torrent. Several: a list, one hash per row, each tied to
 * the row's torrent id when a link in the row names one. Magnets in quotes or comments are not
 * the page's.
 */
import { hashFromMagnet } from './hash';
import { isAside } from './generic';
import type { FoundHash, PageEngine } from './page-types';

const MAGNET_LINKS = 'a[href^="magnet:" i]';
const ID_LINKS = 'a[href*="id="], a[href*="/torrents/"], a[href*="/t/"], a[href*="/t-"], a[href*="/detail/"]';
const ROW_ID = /(?:[?&](?:torrent)?id=|\/torrents?\/|\/t\/|\/t-|\/detail\/)(\d+)/;
/** A page quoting thousands of magnets is not read further than this. */
const MOST_LINKS = 1000;

export const magnet: PageEngine = {
  id: 'magnet',
  applies: ({ document }) => document.querySelector(MAGNET_LINKS) !== null,
  read({ document }) {
    // Each ancestor and each row is judged once: a long page puts thousands of links under one.
    const aside = new Map<Element, boolean>();
    const insideAside = (element: Element | null): boolean => {
      if (!element) return false;
      let known = aside.get(element);
      if (known === undefined) {
        known = isAside(element) || insideAside(element.parentElement);
        aside.set(element, known);
      }
      return known;
    };
    const rowIds = new Map<Element, string | null>();
    const rowId = (link: Element): string | null => {
      const row = link.closest('tr, li, article');
      if (!row) return null;
      if (!rowIds.has(row)) rowIds.set(row, ROW_ID.exec(row.querySelector(ID_LINKS)?.getAttribute('href') ?? '')?.[1] ?? null);
      return rowIds.get(row)!;
    };

    const found: { hash: string; link: Element }[] = [];
    const links = document.querySelectorAll(MAGNET_LINKS);
    for (let index = 0; index < links.length && index < MOST_LINKS; index++) {
      const link = links[index]!;
      const hash = hashFromMagnet(link.getAttribute('href') ?? '');
      if (hash && !insideAside(link.parentElement)) found.push({ hash, link });
    }
    const distinct = new Set(found.map((f) => f.hash));
    if (distinct.size === 0) return null;
    if (distinct.size === 1) {
      return { engine: 'magnet', kind: 'details', hashes: [{ hash: found[0]!.hash, source: 'magnet' }] };
    }
    // A list has one torrent per row. A block holding magnets of several torrents (a description
    // quoting releases, a forum post) is text, not a row: its magnets are not this page's.
    const byBlock = new Map<Element | null, Set<string>>();
    for (const { hash, link } of found) {
      const block = link.closest('tr, li, article');
      byBlock.set(block, (byBlock.get(block) ?? new Set()).add(hash));
    }
    const listed = found.filter(({ link }) => byBlock.get(link.closest('tr, li, article'))!.size === 1);
    const remaining = new Set(listed.map((f) => f.hash));
    if (remaining.size === 0) return null;
    if (remaining.size === 1) return { engine: 'magnet', kind: 'details', hashes: [{ hash: listed[0]!.hash, source: 'magnet' }] };
    const hashes: FoundHash[] = [];
    const rows = new Set<string>();
    const position = new Map<Element | null, number>(); // a row without an id link is named by its place
    for (const { hash, link } of listed) {
      const block = link.closest('tr, li, article');
      if (!position.has(block)) position.set(block, position.size + 1);
      const row = rowId(link) ?? String(position.get(block));
      if (rows.has(row) || hashes.length >= 1000) continue;
      rows.add(row);
      hashes.push({ hash, source: 'magnet', row });
    }
    return { engine: 'magnet', kind: 'list', hashes };
  },
};
