/**
 * NexusPHP and its close relatives (TTG `/t/N/`, HDCity `/t-N`, the plugin_details.php of special
 * sections). The details page prints a two-column table right after `<h1 id="top">`:
 * `<td class="rowhead">label</td><td class="rowfollow">value</td>`; the info-hash sits in the
 * "种子文件 / Torrent Info" row as `<b>Hash码:</b>&nbsp;<hex>` (older and TBDev-style forks use
 * `td.heading` and a row of its own). Only that table is read: "other copies", the description,
 * the NFO and the comments quote other torrents' hashes.
 */
import { hashFromMagnet } from './hash';
import { looksLikeLogin, ownText, sameOriginUrl, scanBlock, visibleText } from './dom';
import type { FoundHash, PageEngine, PageReading, ReadContext } from './types';

const DETAILS_PATH = /^\/(?:details\.php|plugin_details\.php)$/;
const SHORT_DETAILS_PATH = /^\/t(?:\/(\d+)\/?|-(\d+)\/?)$/; // TTG /t/N/, HDCity /t-N
const LIST_PATH = /^\/(?:torrents|special|browse)\.php$/;

/** Rows of the main table that describe other torrents or carry free text: never read. */
const SKIP_ROW =
  /简介|簡介|描述|介绍|介紹|description|\bnfo\b|其它版本|其他版本|相关|相關|同系列|other.?copies|other.?versions|related|评论|評論|comments?|mediainfo|技术信息|技術資訊|imdb|douban|豆瓣/i;
/** The collapsible blocks NexusPHP names k<section> (kdescr, knfo, kothercopy, kimdb...). */
const SKIP_ID = /^k(?:descr|nfo|othercopy|imdb|douban)$|comment|related|other/i;
const DOWNLOAD_LINK = /(?:(?:^|\/)download\.php\?(?:[^#]*&)?id=|(?:^|\/)dl\/|(?:^|\/)download\?(?:[^#]*&)?id=)(\d+)(?:\D|$)/;

export function detailsId(url: URL): string | null {
  if (DETAILS_PATH.test(url.pathname)) {
    const id = url.searchParams.get('id');
    return id && /^\d+$/.test(id) ? id : null;
  }
  const short = SHORT_DETAILS_PATH.exec(url.pathname);
  return short ? (short[1] ?? short[2] ?? null) : null;
}

function mainTable(document: Document): Element | null {
  const top = document.getElementById('top');
  if (top?.localName === 'h1') {
    for (let element = top.nextElementSibling; element; element = element.nextElementSibling) {
      if (element.localName === 'table') {
        if (element.querySelector('td.rowhead, td.heading')) return element;
        break;
      }
    }
  }
  return document.querySelector('td.rowhead, td.heading')?.closest('table') ?? null;
}

function skipInMainTable(element: Element): boolean {
  if (element.id && SKIP_ID.test(element.id)) return true;
  if (element.localName === 'blockquote' || element.classList.contains('torrents')) return true;
  if (element.localName === 'tr') {
    const head = element.firstElementChild;
    // only label cells: a value cell mentioning "related" must not hide its row
    if (head && (head.classList.contains('rowhead') || head.classList.contains('heading'))) {
      return SKIP_ROW.test(visibleText(head, 40));
    }
  }
  return false;
}

function readDetails(context: ReadContext, id: string): PageReading | null {
  const { document, url } = context;
  const table = mainTable(document);
  if (!table) {
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
  const title = ownText(document.querySelector('h1#top') ?? document.querySelector('h1'));
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

const ROW_LINK = /(?:details\.php\?(?:[^#]*&)?id=|\/t\/|^\/?t-)(\d+)/;
const ROW_LINK_SELECTOR = 'a[href*="details.php?"], a[href*="/t/"], a[href^="t-"], a[href^="/t-"]';

function readList(context: ReadContext): PageReading | null {
  const { document } = context;
  const table = document.querySelector('table.torrents') ?? document.getElementById('torrent_table');
  if (!table || table.localName !== 'table') return null;
  const hashes: FoundHash[] = [];
  let torrentRows = 0;
  // rows of this table only: each row nests a small "torrentname" table of its own
  const rows = (table as HTMLTableElement).rows;
  for (let index = 0; index < rows.length && hashes.length < 1000; index++) {
    const row = rows[index]!;
    // native selector matching: reading every link's href in script costs more on 100 rows
    const link = row.querySelector(ROW_LINK_SELECTOR);
    const id = ROW_LINK.exec(link?.getAttribute('href') ?? '')?.[1];
    if (!id) continue;
    torrentRows++;
    let hash: string | null = null;
    let source: FoundHash['source'] = 'magnet';
    const magnet = row.querySelector('a[href^="magnet:"]');
    if (magnet) hash = hashFromMagnet(magnet.getAttribute('href') ?? '');
    if (!hash) {
      hash = scanBlock(row, { budget: 400 }).labelled[0] ?? null;
      source = 'label';
    }
    if (!hash) continue;
    const title = ownText(link!.querySelector('b') ?? link);
    hashes.push({ hash, source, row: id, ...(title && { title }) });
  }
  if (!torrentRows) return null; // not a NexusPHP list after all (e.g. Gazelle's torrents.php)
  const reading: PageReading = { engine: 'nexusphp', kind: 'list', hashes };
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
};
