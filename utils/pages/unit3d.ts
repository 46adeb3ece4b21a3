/**
 * UNIT3D (HDInnovations/UNIT3D-Community-Edition), `/torrents/N`. The hash is found by the page's
 * structure, not by its label (which comes from the site's translation files):
 *  - v7 and later: the files dialog of the button bar, `<menu class="torrent__buttons">` →
 *    `<dialog>` → `<div class="dialog__action">{label}: {hex}</div>`;
 *  - v6: `.torrent-info-hash` (a badge "{label}: {hex}" and a row `<td>{label}</td><td>{hex}</td>`);
 *  - the magnet button, which the site shows only when the .torrent file is missing.
 * Recommendations, collections, the description and comments list or quote other torrents: only
 * the button bar and the info-hash elements are read.
 * Lists (`/torrents` in its list, card and group views, and `/torrents/similar/C.T`, every release
 * of one title) give one entry per torrent row, found by the row's own link to `/torrents/N`.
 */
import { hashFromMagnet, normaliseHash } from './hash';
import { linkedRows, listRow, looksLikeLogin, ownText, sameOriginUrl, scanBlock, visibleText, type LinkedRow } from './dom';
import type { FoundHash, ListRow, PageEngine, PageReading, ReadContext } from './page-types';

const DETAILS_PATH = /^\/torrents\/(\d+)\/?$/;
const LIST_PATH = /^\/torrents(?:\/similar\/\d+\.\d+)?\/?$/;
const DOWNLOAD_LINK = /\/torrents\/download\/(\d+)(?:[/?#]|$)/;
/** The button bar: v7+ `menu.torrent__buttons`, v6 `div.button-block` inside `.torrent-buttons`. */
const BUTTON_BAR = 'menu.torrent__buttons, .torrent__buttons, .torrent-buttons, .button-block';
/** Elements that hold "{label}: {hash}" and nothing else: the files dialog's header action, v6's info-hash badge and row. */
const HASH_HOLDERS = '.dialog__action, .torrent-info-hash';
/** A value ending the holder's text: 40 hex (v6 stored it hex, v7+ prints bin2hex), after a label. */
const ENDING_HASH = /(?:^|[^0-9a-f])([0-9a-f]{40})$/i;

function heldHash(holders: Iterable<Element>): string | null {
  for (const holder of holders) {
    const hash = ENDING_HASH.exec(visibleText(holder, 300))?.[1];
    const normalised = hash ? normaliseHash(hash) : null;
    if (normalised) return normalised;
  }
  return null;
}

function readDetails(context: ReadContext, id: string): PageReading | null {
  const { document, url } = context;
  const bar = document.querySelector(BUTTON_BAR);
  // v6: the release name is the h1 after the movie/TV block (whose own h1 is the work's title)
  const name = document.querySelector('h1.torrent__name') ?? document.querySelector('#meta-info > h1');
  // v6 prints its info-hash badge outside the button bar (in the general block)
  const badges = document.querySelectorAll('.torrent-info-hash');
  if (!bar && !badges.length) {
    if (looksLikeLogin(document)) return { engine: 'unit3d', kind: 'details', hashes: [], problem: 'needs-login' };
    return name ? { engine: 'unit3d', kind: 'details', hashes: [], problem: 'site-gives-no-hash' } : null;
  }
  let torrentFileUrl: string | undefined;
  const scan = bar
    ? scanBlock(bar, {
        onLink(link) {
          const href = link.getAttribute('href');
          if (!torrentFileUrl && DOWNLOAD_LINK.exec(href ?? '')?.[1] === id) torrentFileUrl = sameOriginUrl(href, url);
        },
      })
    : { labelled: [], magnets: [], emptyLabel: false };
  const structured = heldHash(bar ? [...Array.from(bar.querySelectorAll(HASH_HOLDERS)), ...Array.from(badges)] : Array.from(badges));
  const title = ownText(name);
  const hashes: FoundHash[] = [];
  const fromInfo = structured ?? scan.labelled[0];
  if (fromInfo) hashes.push({ hash: fromInfo, source: 'info-row', ...(title && { title }) });
  else if (scan.magnets[0]) hashes.push({ hash: scan.magnets[0], source: 'magnet', ...(title && { title }) });
  const reading: PageReading = { engine: 'unit3d', kind: 'details', hashes };
  if (!hashes.length) reading.problem = scan.emptyLabel ? 'not-loaded-yet' : 'site-gives-no-hash';
  if (torrentFileUrl) reading.torrentFileUrl = torrentFileUrl;
  return reading;
}

/** A link to a torrent's page: `/torrents/N` on this site (absolute or not), no fragment (`#comments` is the comment count). */
const TORRENT_LINK = /^(?:https?:\/\/([^/?#]+))?\/torrents\/(\d+)\/?$/i;

/** The torrent rows of a list, in page order: the row (or card) around each torrent's own link. */
function unit3dRows({ document, url }: ReadContext): LinkedRow[] {
  return linkedRows(document, url, 'a[href*="/torrents/"]', TORRENT_LINK, 'tr, article');
}

function readList(context: ReadContext): PageReading | null {
  const found = unit3dRows(context);
  if (!found.length) return null; // Livewire renders the table after load: watchPage re-reads
  const hashes: FoundHash[] = [];
  const rows: ListRow[] = [];
  for (const { id, element, link } of found) {
    const magnet = element.querySelector('a[href^="magnet:"]');
    const hash = magnet ? hashFromMagnet(magnet.getAttribute('href') ?? '') : null;
    const title = ownText(link);
    rows.push(listRow(id, hash, title));
    if (hash) hashes.push({ hash, source: 'magnet', row: id, ...(title && { title }) });
  }
  const reading: PageReading = { engine: 'unit3d', kind: 'list', hashes, rows };
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
  listRows(context) {
    return DETAILS_PATH.test(context.url.pathname) ? [] : unit3dRows(context);
  },
};
