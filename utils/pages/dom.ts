/**
 * DOM helpers shared by the engines. Everything here is bounded: a 2 MB page must read in well
 * under 2 ms, so nothing walks or stringifies the whole document.
 */
import { hashFromMagnet, hashInText } from './hash';
import { UNIT3D_INFO_HASH_LABELS } from './unit3d-labels';
import type { ListRow, RowElement } from './page-types';

/** Elements whose content is never page text: code, styles, inert templates, form values. */
const NOT_TEXT = new Set(['script', 'style', 'template', 'textarea', 'noscript', 'select', 'svg', 'iframe', 'object']);

export function isNotText(element: Element): boolean {
  return NOT_TEXT.has(element.localName);
}

/**
 * The text a user sees in a node (hidden blocks included: collapsed sections still hold the
 * page's data), without scripts, styles, templates, textareas or comments, blanks collapsed.
 * Stops after `limit` characters, so a label check never reads a whole description.
 */
export function visibleText(root: Node, limit = 400): string {
  if (root.nodeType === 3) return collapse((root as Text).data.slice(0, limit));
  if (root.nodeType !== 1 || isNotText(root as Element)) return '';
  let text = '';
  let node: Node | null = root.firstChild;
  while (node && text.length < limit) {
    // leading blanks do not count towards the limit (templates indent their text)
    if (node.nodeType === 3) text += text ? (node as Text).data : (node as Text).data.replace(/^[\s\u00a0]+/, '');
    else if (node.nodeType === 1 && !isNotText(node as Element) && node.firstChild) {
      node = node.firstChild;
      continue;
    }
    // next node in document order, not leaving root
    while (node && node !== root && !node.nextSibling) node = node.parentNode;
    if (!node || node === root) break;
    node = node.nextSibling;
  }
  return collapse(text.slice(0, limit));
}

/** The start of an element's first non-blank text node (no string building, no regex replace). */
function firstWords(root: Element): string {
  let node: Node | null = root.firstChild;
  while (node) {
    if (node.nodeType === 3) {
      const data = (node as Text).data;
      for (let i = 0; i < data.length; i++) {
        const code = data.charCodeAt(i);
        if (code > 32 && code !== 160) return data.slice(i, i + 8);
      }
    } else if (node.nodeType === 1 && !isNotText(node as Element) && node.firstChild) {
      node = node.firstChild;
      continue;
    }
    while (node && node !== root && !node.nextSibling) node = node.parentNode;
    if (!node || node === root) return '';
    node = node.nextSibling;
  }
  return '';
}

function collapse(text: string): string {
  return text.replace(/[\s\u00a0\u200b\ufeff]+/g, ' ').trim();
}

/**
 * Labels of an info-hash row, in the languages trackers use. Matched against a label's whole
 * text, trailing colon removed, so "Hash码", "Info hash", "种子哈希", "Hash (v1)" all match; and
 * UNIT3D's label in each of its languages (unit3d-labels.ts).
 */
const HASH_LABEL =
  /^(?:info[ _-]?hash|torrent[ _-]?hash|hash|hash ?(?:码|碼|值)|种子 ?(?:哈希|散列值?|hash|特征码)|種子 ?(?:哈希|雜湊值?|hash|特徵碼)|特征码|特徵碼|哈希值?|雜湊值?|散列值)(?: ?\(?v1\)?)?$/i;
const LISTED_LABELS = new Set(UNIT3D_INFO_HASH_LABELS.map((label) => label.toLowerCase()));

/** Cheap gate: a label starts with one of these (most elements are not labels). */
const LABEL_START = new RegExp(
  `^(?:info|torrent|hash|种子|種子|特征|特徵|哈希|雜湊|散列|${UNIT3D_INFO_HASH_LABELS.map((label) => label.slice(0, 3)).join('|')})`,
  'i',
);

export function isHashLabel(text: string): boolean {
  const label = text.replace(/ ?[:：]$/, '');
  return HASH_LABEL.test(label) || LISTED_LABELS.has(label.toLowerCase());
}

/** Elements that can hold a label ("<b>Hash码:</b>", "<td class=rowhead>", "<dt>", "<th>"). */
const LABEL_TAGS = new Set(['b', 'strong', 'td', 'th', 'dt', 'span', 'label', 'font', 'div', 'em', 'p', 'li']);
/** Inline elements whose value follows them as text inside the same parent. */
const INLINE_LABEL = new Set(['b', 'strong', 'span', 'label', 'font', 'em']);
const CELL_LIKE = new Set(['td', 'th', 'dt']);

/** What a label element says: null = not a hash label; otherwise the hash (null when none yet). */
export interface LabelRead {
  hash: string | null;
}

/**
 * If `element` is an info-hash label, read the value next to it: the text after it in its parent
 * (`<b>Hash码:</b>&nbsp;hex`), the following cell (`<td>Info hash</td><td>hex</td>`), or the rest of
 * its own text (`Info Hash: hex`).
 */
export function readLabel(element: Element): LabelRead | null {
  if (!LABEL_TAGS.has(element.localName)) return null;
  // Cheap gate first (most elements are not labels): a label starts with one of these words.
  if (!LABEL_START.test(firstWords(element))) return null;
  // Bounded read: a label, or "label: hash", is short; longer text is a container.
  const text = visibleText(element, 160);
  if (text.length === 0 || text.length > 150) return null;
  if (isHashLabel(text)) return { hash: valueAfter(element) };
  // "label: value" in one element
  const colon = text.search(/[:：]/);
  if (colon > 0 && isHashLabel(text.slice(0, colon).trimEnd())) return { hash: hashInText(text.slice(colon + 1)) };
  return null;
}

function valueAfter(label: Element): string | null {
  if (!INLINE_LABEL.has(label.localName)) {
    // a cell or block label (<td>, <dt>, <div class="col">): its value is the next element
    const next = label.nextElementSibling;
    return next ? hashInText(visibleText(next, 300)) : null;
  }
  // Inline label: the siblings after it, up to a line break or the next bold label.
  let text = '';
  for (let node = label.nextSibling; node && text.length < 300; node = node.nextSibling) {
    if (node.nodeType === 3) text += (node as Text).data;
    else if (node.nodeType === 1) {
      const name = (node as Element).localName;
      if (name === 'br' || name === 'b' || name === 'strong' || name === 'hr') break;
      if (!isNotText(node as Element)) text += visibleText(node, 300);
    }
  }
  const hash = hashInText(text);
  if (hash || text.trim()) return hash;
  // "<td><b>Hash码</b></td><td>hex</td>": the label is its cell's only content.
  const cell = label.parentElement;
  if (cell && CELL_LIKE.has(cell.localName) && visibleText(cell, 160) === visibleText(label, 160)) {
    const next = cell.nextElementSibling;
    return next ? hashInText(visibleText(next, 300)) : null;
  }
  return null;
}

export interface BlockScan {
  /** Hashes from labelled values, in document order, distinct. */
  labelled: string[];
  /** Hashes from magnet links' href, in document order, distinct. */
  magnets: string[];
  /** A hash label was seen whose value holds no hash (yet). */
  emptyLabel: boolean;
}

export interface ScanOptions {
  /** Subtrees to leave out (comments, "other versions", descriptions). */
  skip?: (element: Element) => boolean;
  /** Called for each link met, for engines that look for a download link. */
  onLink?: (link: HTMLAnchorElement) => void;
  /** Most elements to visit; the scan stops quietly past it. */
  budget?: number;
}

/**
 * Walk one block (the main torrent table, a dialog) in document order, finding labelled hashes
 * and magnet links. Never enters scripts, styles, templates, textareas or skipped subtrees.
 */
export function scanBlock(root: Element, options: ScanOptions = {}): BlockScan {
  const { skip, onLink, budget = 20_000 } = options;
  const scan: BlockScan = { labelled: [], magnets: [], emptyLabel: false };
  let visited = 0;
  let element: Element | null = root.firstElementChild;
  while (element && visited++ < budget) {
    let descend = !isNotText(element) && !(skip && skip(element));
    if (descend) {
      if (element.localName === 'a') {
        const href = element.getAttribute('href');
        if (href) {
          const magnet = hashFromMagnet(href);
          if (magnet && !scan.magnets.includes(magnet)) scan.magnets.push(magnet);
          onLink?.(element as HTMLAnchorElement);
        }
      }
      const label = readLabel(element);
      if (label) {
        descend = false; // the label's own content is read
        if (label.hash === null) scan.emptyLabel = true;
        else if (!scan.labelled.includes(label.hash)) scan.labelled.push(label.hash);
      }
    }
    // next element in document order, not leaving root
    if (descend && element.firstElementChild) {
      element = element.firstElementChild;
      continue;
    }
    while (element && element !== root && !element.nextElementSibling) element = element.parentElement;
    if (!element || element === root) break;
    element = element.nextElementSibling;
  }
  return scan;
}

/** An element's own first text (e.g. a title before its badges), trimmed, at most 300 chars. */
export function ownText(element: Element | null | undefined): string | undefined {
  if (!element) return undefined;
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && isNotText(node as Element)) continue;
    const text = visibleText(node, 300);
    if (text) return text;
  }
  return undefined;
}

/** A link's target as an absolute URL on the page's own origin, else undefined. */
export function sameOriginUrl(href: string | null, base: URL): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href, base);
    return url.origin === base.origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the page is a login form (the session has expired). */
export function looksLikeLogin(document: Document): boolean {
  return !!document.querySelector('form[action*="login"] input[type="password"], form[action*="Login"] input[type="password"]');
}

/** Most rows a list reading names: no tracker shows more torrents on one page. */
export const MOST_ROWS = 500;

export interface LinkedRow extends RowElement {
  /** The row's own details link (its title). */
  link: Element;
}

/** The page's own host, with or without "www." (sites print links with their configured base URL). */
function sameHost(host: string, own: string): boolean {
  return host.toLowerCase().replace(/^www\./, '') === own.replace(/^www\./, '');
}

/**
 * A list's torrent rows, found by their own details link: each link under `links` whose href
 * matches `pattern` (group 1: an optional host, which must be the page's, www. or not; group 2: the torrent id),
 * in page order; the closest `row` around it; the first such link per row, one row per torrent.
 * Links outside any row (menus, descriptions) name no row.
 */
export function linkedRows(document: Document, url: URL, links: string, pattern: RegExp, row: string): LinkedRow[] {
  const found: LinkedRow[] = [];
  const rows = new Set<Element>();
  const ids = new Set<string>();
  const all = document.querySelectorAll(links);
  for (let index = 0; index < all.length && found.length < MOST_ROWS; index++) {
    const link = all[index]!;
    const match = pattern.exec(link.getAttribute('href') ?? '');
    if (!match || (match[1] && !sameHost(match[1], url.host))) continue;
    const element = link.closest(row);
    if (!element || rows.has(element)) continue;
    rows.add(element);
    const id = match[2]!;
    if (ids.has(id)) continue;
    ids.add(id);
    found.push({ id, element, link });
  }
  return found;
}

/** A list row as the reading names it: its id, and its hash and title when known. */
export function listRow(id: string, hash: string | null | undefined, title: string | undefined): ListRow {
  return { id, ...(hash && { hash }), ...(title && { title }) };
}
