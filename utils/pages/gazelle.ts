/**
 * Gazelle (`torrents.php?id=G&torrentid=T`, `torrents.php?torrentid=T`). The page never prints the
 * hash; the site's own JSON API does: `ajax.php?action=torrent&id=T` answers
 * `{status: "success", response: {group: {name}, torrent: {id, infoHash}}}` (infoHash as MySQL
 * HEX(), so uppercase) or `{status: "failure", error}`. Some sites leave infoHash out, or give it
 * only for torrents the user snatched. One request per torrent and page: the answer is kept, as
 * watchPage re-reads the page on every DOM change and Gazelle rate-limits its API.
 * The browse page (`torrents.php` without id: search, tags, filters) lists torrent rows
 * (`tr.group_torrent`, `tr.torrent`), each linking `torrents.php?id=G&torrentid=T#torrentT`: those
 * give the rows' torrent ids, with no request at all.
 */
import { normaliseHash } from './hash';
import { linkedRows, listRow, ownText, sameOriginUrl, type LinkedRow } from './dom';
import type { PageEngine, PageReading, ReadContext } from './page-types';

const known = new Map<string, Promise<PageReading>>();

function torrentId(context: ReadContext): string | null {
  const { url, document } = context;
  const fromUrl = url.searchParams.get('torrentid');
  if (fromUrl) return /^\d+$/.test(fromUrl) ? fromUrl : null;
  // A group page without torrentid names one torrent only when the group has one.
  const rows = document.querySelectorAll('tr.group_torrent[id^="torrent"], tr.torrent_row[id^="torrent"]');
  const ids = new Set<string>();
  for (const row of Array.from(rows)) {
    const id = /^torrent(\d+)$/.exec(row.id)?.[1];
    if (id) ids.add(id);
  }
  return ids.size === 1 ? [...ids][0]! : null;
}

function downloadLink(context: ReadContext, id: string): string | undefined {
  const row = context.document.getElementById(`torrent${id}`);
  for (const link of Array.from(row?.querySelectorAll('a[href*="action=download"]') ?? [])) {
    const href = link.getAttribute('href');
    if (href && new RegExp(`[?&]id=${id}(?:&|$)`).test(href.replace(/&amp;/g, '&'))) {
      return sameOriginUrl(href, context.url);
    }
  }
  return undefined;
}

async function askSite(context: ReadContext, id: string): Promise<PageReading> {
  const base: PageReading = { engine: 'gazelle', kind: 'details', hashes: [] };
  let answer: unknown;
  try {
    const torrentFileUrl = downloadLink(context, id);
    if (torrentFileUrl) base.torrentFileUrl = torrentFileUrl;
    const response = await context.fetch(`${context.url.origin}/ajax.php?action=torrent&id=${id}`, {
      credentials: 'include',
      headers: { Accept: 'application/json' },
      redirect: 'follow',
    });
    if (response.status === 401 || response.status === 403 || /\/login\.php/.test(response.url)) {
      return { ...base, problem: 'needs-login' };
    }
    if (!response.ok) return { ...base, problem: 'site-error' };
    answer = await response.json();
  } catch {
    return { ...base, problem: 'site-error' }; // network, or a login page instead of JSON
  }
  if (!isRecord(answer)) return { ...base, problem: 'site-error' };
  if (answer.status !== 'success') {
    const error = typeof answer.error === 'string' ? answer.error : '';
    return { ...base, problem: /rate limit/i.test(error) ? 'site-error' : 'site-gives-no-hash' };
  }
  const response = isRecord(answer.response) ? answer.response : {};
  const torrent = isRecord(response.torrent) ? response.torrent : {};
  const group = isRecord(response.group) ? response.group : {};
  // an answer about another torrent would tie the wrong hash to this page
  if (torrent.id !== undefined && String(torrent.id) !== id) return { ...base, problem: 'site-error' };
  const hash = typeof torrent.infoHash === 'string' ? normaliseHash(torrent.infoHash) : null;
  if (!hash) return { ...base, problem: 'site-gives-no-hash' };
  const title = typeof group.name === 'string' && group.name.trim() ? decodeEntities(group.name.trim().slice(0, 300)) : '';
  return { ...base, hashes: [{ hash, source: 'site-api', ...(title && { title }) }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Gazelle's API HTML-escapes names ("Simon &amp; Garfunkel"); titles are shown as plain text. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#0?39);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : "'",
  );
}

/** A link to one torrent of a group: `torrents.php?id=G&torrentid=T` on this site. */
const TORRENT_LINK = /^(?:https?:\/\/([^/?#]+))?\/?torrents\.php\?(?:[^#]*&)?torrentid=(\d+)/i;

const isBrowse = (url: URL) => !url.searchParams.has('id') && !url.searchParams.has('torrentid');

/** The browse page's torrent rows, in page order: the row around each torrent's own link (group headers link the group only). */
function gazelleRows({ document, url }: ReadContext): LinkedRow[] {
  return linkedRows(document, url, 'a[href*="torrentid="]', TORRENT_LINK, 'tr');
}

function readList(context: ReadContext): PageReading | null {
  const found = gazelleRows(context);
  if (!found.length) return null;
  const rows = found.map(({ id, element, link }) => {
    // the name or edition link, not the [DL | RP | PL] actions before it
    const named = Array.from(element.querySelectorAll('a[href*="torrentid="]')).find((each) => !each.closest('.torrent_links_block'));
    return listRow(id, null, ownText(named ?? link));
  });
  return { engine: 'gazelle', kind: 'list', hashes: [], rows };
}

export const gazelle: PageEngine = {
  id: 'gazelle',
  applies({ url }) {
    return /^\/torrents\.php$/.test(url.pathname);
  },
  listRows(context) {
    return isBrowse(context.url) ? gazelleRows(context) : [];
  },
  read(context) {
    if (isBrowse(context.url)) return readList(context);
    const id = torrentId(context);
    if (!id) return null;
    const key = `${context.url.origin}#${id}`;
    let reading = known.get(key);
    if (!reading) {
      reading = askSite(context, id);
      known.set(key, reading);
      // a failed call may succeed later, but not hammered on every DOM change: retry after a minute
      void reading.then(
        (r) => r.problem === 'site-error' && setTimeout(() => known.delete(key), 60_000),
        () => known.delete(key),
      );
    }
    return reading;
  },
};

/** Tests start each case afresh. */
export function forgetGazelleAnswers(): void {
  known.clear();
}
