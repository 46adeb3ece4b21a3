/**
 * M-Team (kp.m-team.cc `/detail/N`): a React/antd single-page app. The server sends an empty
 * `<div id="root">`; the detail view renders later into `#app-content … .detail-view` with an antd
 * descriptions table (`th.ant-descriptions-item-label` + `td.ant-descriptions-item-content`).
 * Read the hash from that rendered view (a labelled row or a magnet); until it is there, say
 * 'not-loaded-yet' so the content script re-reads on the next DOM change (watchPage).
 * The lists (`/browse`, `/browse/<section>`) render an antd table whose rows link `/detail/N`: they
 * give the rows' torrent ids (no hash); an empty list is read again when the app renders it.
 */
import { linkedRows, listRow, ownText, scanBlock, type LinkedRow } from './dom';
import type { FoundHash, PageEngine, PageReading, ReadContext } from './page-types';

const DETAILS_PATH = /^\/detail\/(\d+)\/?$/;
const LIST_PATH = /^\/browse(?:\/[\w-]+)?\/?$/;
const COMMENTS = /comment/i;
/** A link to a torrent's page on this site: `/detail/N` (absolute or not). */
const DETAIL_LINK = /^(?:https?:\/\/([^/?#]+))?\/detail\/(\d+)\/?(?:[?#]|$)/i;

function mteamRows({ document, url }: ReadContext): LinkedRow[] {
  return linkedRows(document, url, 'a[href*="/detail/"]', DETAIL_LINK, 'tr, [data-row-key]');
}

export const mteam: PageEngine = {
  id: 'mteam',
  applies({ url, hint }) {
    return (DETAILS_PATH.test(url.pathname) || LIST_PATH.test(url.pathname)) && (hint === 'mteam' || /(^|\.)m-team\./i.test(url.hostname));
  },
  listRows(context) {
    return LIST_PATH.test(context.url.pathname) ? mteamRows(context) : [];
  },
  read(context) {
    const { document } = context;
    if (LIST_PATH.test(context.url.pathname)) {
      const rows = mteamRows(context);
      // not rendered yet: nothing to say; the next DOM change reads again
      return rows.length ? { engine: 'mteam', kind: 'list', hashes: [], rows: rows.map(({ id, link }) => listRow(id, null, ownText(link))) } : null;
    }
    const waiting: PageReading = { engine: 'mteam', kind: 'details', hashes: [], problem: 'not-loaded-yet' };
    const view = document.querySelector('.detail-view') ?? document.getElementById('app-content');
    if (!view) return waiting;
    const scan = scanBlock(view, {
      skip: (element) => element.localName === 'blockquote' || COMMENTS.test(element.getAttribute('class') ?? ''),
    });
    const title = ownText(view.querySelector('h2, h1'));
    const hashes: FoundHash[] = [];
    if (scan.labelled[0]) hashes.push({ hash: scan.labelled[0], source: 'info-row', ...(title && { title }) });
    else if (scan.magnets[0]) hashes.push({ hash: scan.magnets[0], source: 'magnet', ...(title && { title }) });
    if (hashes.length) return { engine: 'mteam', kind: 'details', hashes };
    // Rendered without a hash: the site does not show one. Still spinning or empty: wait.
    const rendered = view.querySelector('.ant-descriptions') && !view.querySelector('.ant-spin-spinning');
    return rendered && !scan.emptyLabel ? { ...waiting, problem: 'site-gives-no-hash' } : waiting;
  },
};
