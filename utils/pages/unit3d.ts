/**
 * UNIT3D (`/torrents/N`). The hash is printed in the files dialog of the button bar
 * (`<menu class="torrent__buttons">` → `<dialog>` → `<div class="dialog__action">Info Hash: hex`),
 * and the magnet button carries it when the site enables magnets. Only the button bar is read:
 * recommendations, collections and comments below it list other torrents.
 * The index `/torrents` lists rows `<tr data-torrent-id="N">` with an optional magnet link.
 */
import { hashFromMagnet } from './hash';
import { looksLikeLogin, ownText, sameOriginUrl, scanBlock } from './dom';
import type { FoundHash, PageEngine, PageReading, ReadContext } from './types';

const DETAILS_PATH = /^\/torrents\/(\d+)\/?$/;
const LIST_PATH = /^\/torrents\/?$/;
const DOWNLOAD_LINK = /\/torrents\/download\/(\d+)(?:[/?#]|$)/;

function readDetails(context: ReadContext, id: string): PageReading | null {
  const { document, url } = context;
  const buttons = document.querySelector('menu.torrent__buttons, .torrent__buttons');
  const name = document.querySelector('h1.torrent__name');
  if (!buttons) {
    if (looksLikeLogin(document)) return { engine: 'unit3d', kind: 'details', hashes: [], problem: 'needs-login' };
    return name ? { engine: 'unit3d', kind: 'details', hashes: [], problem: 'site-gives-no-hash' } : null;
  }
  let torrentFileUrl: string | undefined;
  const scan = scanBlock(buttons, {
    onLink(link) {
      const href = link.getAttribute('href');
      if (!torrentFileUrl && DOWNLOAD_LINK.exec(href ?? '')?.[1] === id) torrentFileUrl = sameOriginUrl(href, url);
    },
  });
  const title = ownText(name);
  const hashes: FoundHash[] = [];
  if (scan.labelled[0]) hashes.push({ hash: scan.labelled[0], source: 'info-row', ...(title && { title }) });
  else if (scan.magnets[0]) hashes.push({ hash: scan.magnets[0], source: 'magnet', ...(title && { title }) });
  const reading: PageReading = { engine: 'unit3d', kind: 'details', hashes };
  if (!hashes.length) reading.problem = scan.emptyLabel ? 'not-loaded-yet' : 'site-gives-no-hash';
  if (torrentFileUrl) reading.torrentFileUrl = torrentFileUrl;
  return reading;
}

function readList(context: ReadContext): PageReading | null {
  const rows = context.document.querySelectorAll('tr[data-torrent-id]');
  if (!rows.length) return null; // Livewire renders the table after load: watchPage re-reads
  const hashes: FoundHash[] = [];
  for (const row of Array.from(rows)) {
    if (hashes.length >= 1000) break;
    const id = row.getAttribute('data-torrent-id') ?? '';
    if (!/^\d+$/.test(id)) continue;
    const magnet = row.querySelector('a[href^="magnet:"]');
    const hash = magnet ? hashFromMagnet(magnet.getAttribute('href') ?? '') : null;
    if (!hash) continue;
    const title = ownText(row.querySelector('a.torrent-search--list__name'));
    hashes.push({ hash, source: 'magnet', row: id, ...(title && { title }) });
  }
  const reading: PageReading = { engine: 'unit3d', kind: 'list', hashes };
  if (!hashes.length) reading.problem = 'site-gives-no-hash';
  return reading;
}

export const unit3d: PageEngine = {
  id: 'unit3d',
  applies({ url }) {
    return DETAILS_PATH.test(url.pathname) || LIST_PATH.test(url.pathname);
  },
  read(context) {
    const id = DETAILS_PATH.exec(context.url.pathname)?.[1];
    return id ? readDetails(context, id) : readList(context);
  },
};
