/**
 * NexusPHP and its close relatives (TTG `/t/N/`, HDCity `/t-N`, the plugin_details.php of special
 * sections). The details page prints a two-column table right after `<h1 id="top">`:
 * `<td class="rowhead">label</td><td class="rowfollow">value</td>`; the info-hash sits in the
 * "种子文件 / Torrent Info" row as `<b>Hash码:</b>&nbsp;<hex>` (older and TBDev-style forks use
 * `td.heading` and a row of its own). Forks such as HUDBT print the same rows as `<dl>` with
 * `<dt>label</dt><dd>value</dd>`, and may put the description before the info-hash. Only that
 * table (or list) is read, and in it neither the description, NFO and "other copies" rows nor a
 * `[quote]` (NexusPHP renders it as `<fieldset><legend>`): they quote other torrents' hashes.
 * `details.php?id=N&cmtpage=1` (linked from every list's comment count) shows the comments alone:
 * it holds no torrent, so no hash, whatever the comments say.
 */
import { hashFromMagnet } from './hash';
import { listRow, looksLikeLogin, MOST_ROWS, ownText, sameOriginUrl, scanBlock, visibleText, type LinkedRow } from './dom';
import { SITE_DOWNLOAD_LINKS, SITE_LIST_PAGES, SITE_TORRENT_LINKS, SITE_TORRENT_PAGES } from './nexusphp-paths';
import type { FoundHash, ListRow, PageEngine, PageReading, ReadContext } from './page-types';

// The sites at paths of their own (TTG, HDCity) say where, in their definitions (utils/sites/definitions/):
// the SITE_ parts come from there, through the generated nexusphp-paths.ts.
const DETAILS_PATH = /^\/(?:details\.php|plugin_details\.php)$/;
const SITE_DETAILS_PATH = new RegExp(String.raw`^\/(?:${SITE_TORRENT_PAGES.source})\/?$`);
const LIST_PATH = new RegExp(String.raw`^\/(?:(?:torrents|special|music)\.php|${SITE_LIST_PAGES.source})$`);

/** Rows of the main table that describe other torrents or carry free text: never read. */
const SKIP_ROW =
  /简介|簡介|描述|介绍|介紹|description|\bnfo\b|其它版本|其他版本|相关|相關|同系列|other.?copies|other.?versions|related|评论|評論|comments?|mediainfo|技术信息|技術資訊|imdb|douban|豆瓣/i;
/** The collapsible blocks NexusPHP names k<section> (kdescr, knfo, kothercopy, kimdb...). */
const SKIP_ID = /^k(?:descr|nfo|othercopy|imdb|douban)$|comment|related|other/i;
const DOWNLOAD_LINK = new RegExp(String.raw`(?:(?:^|\/)download\.php\?(?:[^#]*&)?id=|(?:^|\/)(?:${SITE_DOWNLOAD_LINKS.source}))(\d+)(?:\D|$)`);

export function detailsId(url: URL): string | null {
  if (DETAILS_PATH.test(url.pathname)) {
    const id = url.searchParams.get('id');
    return id && /^\d+$/.test(id) ? id : null;
  }
  // one group per site: the one that matched holds the id
  return SITE_DETAILS_PATH.exec(url.pathname)?.slice(1).find(Boolean) ?? null;
}

/**
 * The page's info block: the `td.rowhead` table right after `<h1 id="top">`; else the `<dl>` of
 * forks that print the rows as `<dt>`/`<dd>` and hold this torrent's download link (the first row
 * of every NexusPHP details page); else any rowhead table; else the first `<dl>` of several rows.
 */
function mainBlock(document: Document, id: string): Element | null {
  const top = document.getElementById('top');
  if (top?.localName === 'h1') {
    for (let element = top.nextElementSibling; element; element = element.nextElementSibling) {
      if (element.localName === 'table') {
        if (element.querySelector('td.rowhead, td.heading')) return element;
        break;
      }
    }
  }
  const lists = Array.from(document.getElementsByTagName('dl')).filter((list) => !list.closest('fieldset, blockquote')); // a list in a quote is text
  for (const list of lists) {
    for (const link of Array.from(list.querySelectorAll('a[href*="download"]'))) {
      if (DOWNLOAD_LINK.exec(link.getAttribute('href') ?? '')?.[1] === id) return list;
    }
  }
  return (
    document.querySelector('td.rowhead, td.heading')?.closest('table') ??
    lists.find((list) => list.querySelectorAll(':scope > dt').length >= 3) ??
    null
  );
}

/** NexusPHP's `[quote]` is `<fieldset><legend>引用</legend>…</fieldset>`; forks add a `<blockquote>`. */
const QUOTE_TAGS = new Set(['fieldset', 'blockquote']);

function skipInMainTable(element: Element): boolean {
  if (element.id && SKIP_ID.test(element.id)) return true;
  if (QUOTE_TAGS.has(element.localName) || element.classList.contains('torrents')) return true;
  if (element.localName === 'tr') {
    const head = element.firstElementChild;
    // only label cells: a value cell mentioning "related" must not hide its row
    if (head && (head.classList.contains('rowhead') || head.classList.contains('heading'))) {
      return SKIP_ROW.test(visibleText(head, 40));
    }
  }
  // <dt>label</dt><dd>value</dd>: the value is judged by its label
  if (element.localName === 'dt') return SKIP_ROW.test(visibleText(element, 40));
  if (element.localName === 'dd') {
    const label = element.previousElementSibling;
    return label?.localName === 'dt' && SKIP_ROW.test(visibleText(label, 40));
  }
  return false;
}

/** The comments-only view's heading: "Comments for <a href="details.php?id=N">name</a>", a link back to this torrent. */
function linksBackToTorrent(document: Document, id: string): boolean {
  const back = document.querySelector('h1#top a[href*="details.php?"]');
  return !!back && new URLSearchParams(back.getAttribute('href')?.split('?')[1]).get('id') === id;
}

function readDetails(context: ReadContext, id: string): PageReading | null {
  const { document, url } = context;
  // The comments of a torrent, without the torrent: no hash here, and no other rule may look.
  const commentsOnly: PageReading = { engine: 'nexusphp', kind: 'details', hashes: [] };
  if (url.searchParams.has('cmtpage')) return commentsOnly;
  const table = mainBlock(document, id);
  if (!table) {
    if (linksBackToTorrent(document, id)) return commentsOnly;
    if (looksLikeLogin(document)) return { engine: 'nexusphp', kind: 'details', hashes: [], problem: 'needs-login' };
    if (document.readyState === 'loading') {
      return { engine: 'nexusphp', kind: 'details', hashes: [], problem: 'not-loaded-yet' };
    }
    return null;
  }
  let torrentFileUrl: string | undefined;
  const scan = scanBlock(table, {
    skip: skipInMainTable,
    onLink(link) {
      if (torrentFileUrl) return;
      const href = link.getAttribute('href');
      if (DOWNLOAD_LINK.exec(href ?? '')?.[1] === id) torrentFileUrl = sameOriginUrl(href, url);
    },
  });
  const title = ownText(document.querySelector('h1#top, h1#page-title') ?? document.querySelector('h1'));
  const hashes: FoundHash[] = [];
  const labelled = scan.labelled[0];
  const magnet = scan.magnets[0];
  if (labelled) hashes.push({ hash: labelled, source: 'info-row', ...(title && { title }) });
  else if (magnet) hashes.push({ hash: magnet, source: 'magnet', ...(title && { title }) });
  const reading: PageReading = { engine: 'nexusphp', kind: 'details', hashes };
  if (!hashes.length) {
    // the login form is a rowhead table too
    reading.problem = looksLikeLogin(document) ? 'needs-login' : scan.emptyLabel ? 'not-loaded-yet' : 'site-gives-no-hash';
  }
  if (torrentFileUrl) reading.torrentFileUrl = torrentFileUrl;
  return reading;
}

/**
 * A torrent's own page, and nothing else: details.php / plugin_details.php?…id=N (not
 * userdetails.php, not viewsnatches.php), a site's own torrent page (TTG's /t/N/, HDCity's t-N);
 * relative, root-relative or on the page's own host (group 1), the id in group 2 or a later one.
 */
const ROW_LINK = new RegExp(
  String.raw`^(?:https?:\/\/([^/?#]+))?(?:\.?\/)?(?:(?:plugin_)?details\.php\?(?:[^#]*&)?id=(\d+)(?:[&#]|$)|(?:${SITE_TORRENT_PAGES.source})(?:[/?#]|$))`,
  'i',
);
const ROW_LINK_SELECTOR = `a[href*="details.php?"], ${SITE_TORRENT_LINKS}`;
/** Links to a part of the row's torrent page (comments, peer list): not the row's own title link. */
const PART_OF_PAGE = /#|[?&](?:cmtpage|tocomm|dllist)=/;

/** The torrent id a list row's link names, when it is a link to a torrent's own page on this host. */
export function nexusTorrentId(href: string, host: string): string | undefined {
  if (PART_OF_PAGE.test(href)) return undefined;
  const match = ROW_LINK.exec(href);
  if (!match || (match[1] && match[1].toLowerCase().replace(/^www\./, '') !== host.toLowerCase().replace(/^www\./, ''))) return undefined;
  return match.slice(2).find(Boolean);
}

/** The row's own details link: the first link to a torrent page that is not to its comments or peers, nor to a user. */
function rowLink(row: Element, host: string): { link: Element; id: string } | null {
  // native selector matching first: reading every link's href in script costs more on 100 rows
  const first = row.querySelector(ROW_LINK_SELECTOR);
  if (!first) return null;
  const id = nexusTorrentId(first.getAttribute('href') ?? '', host);
  if (id) return { link: first, id };
  for (const link of Array.from(row.querySelectorAll(ROW_LINK_SELECTOR))) {
    const other = nexusTorrentId(link.getAttribute('href') ?? '', host);
    if (other) return { link, id: other };
  }
  return null;
}

/** The list's torrent rows (torrents.php, special.php, TTG's browse.php): rows of its table only, one per torrent. */
function nexusRows(document: Document, host: string): LinkedRow[] | null {
  const table = document.querySelector('table.torrents') ?? document.getElementById('torrent_table');
  if (!table || table.localName !== 'table') return null;
  const found: LinkedRow[] = [];
  const ids = new Set<string>();
  // rows of this table only: each row nests a small "torrentname" table of its own
  const rows = (table as HTMLTableElement).rows;
  for (let index = 0; index < rows.length && found.length < MOST_ROWS; index++) {
    const element = rows[index]!;
    const own = rowLink(element, host);
    if (!own || ids.has(own.id)) continue;
    ids.add(own.id);
    found.push({ id: own.id, element, link: own.link });
  }
  return found;
}

function readList(context: ReadContext): PageReading | null {
  const found = nexusRows(context.document, context.url.host);
  if (!found?.length) return null; // not a NexusPHP list after all (e.g. Gazelle's torrents.php)
  const hashes: FoundHash[] = [];
  const rows: ListRow[] = [];
  for (const { id, element, link } of found) {
    let hash: string | null = null;
    let source: FoundHash['source'] = 'magnet';
    const magnet = element.querySelector('a[href^="magnet:"]');
    if (magnet) hash = hashFromMagnet(magnet.getAttribute('href') ?? '');
    if (!hash) {
      hash = scanBlock(element, { budget: 400 }).labelled[0] ?? null;
      source = 'label';
    }
    const title = ownText(link.querySelector('b') ?? link);
    rows.push(listRow(id, hash, title));
    if (hash) hashes.push({ hash, source, row: id, ...(title && { title }) });
  }
  const reading: PageReading = { engine: 'nexusphp', kind: 'list', hashes, rows };
  if (!hashes.length) reading.problem = 'site-gives-no-hash';
  return reading;
}

export const nexusphp: PageEngine = {
  id: 'nexusphp',
  applies({ url }) {
    if (detailsId(url) !== null) return true;
    // Gazelle also has a torrents.php; its pages carry id / torrentid
    return LIST_PATH.test(url.pathname) && !url.searchParams.has('id') && !url.searchParams.has('torrentid');
  },
  read(context) {
    const id = detailsId(context.url);
    return id ? readDetails(context, id) : readList(context);
  },
  listRows(context) {
    return detailsId(context.url) ? [] : (nexusRows(context.document, context.url.host) ?? []);
  },
};
