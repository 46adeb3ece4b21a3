/**
 * Runs on the catalogued trackers (and on sites the user enabled): reads the page's info-hashes,
 * hands them to the background and shows the answer in a panel. It holds no secret and no zod.
 */
import { browser } from 'wxt/browser';
import { readPage } from '../../utils/pages';
import { downloadTorrent } from '../../utils/torrent/fetch-torrent';
import { watchPage } from '../../utils/pages/navigation';
import type { FoundHash, PageReading } from '../../utils/pages/page-types';
import type { IndexMarks } from '../../features/client-index/client-index.messages';
import type { PageCrossSeed, PageCrossSeedsChanged } from '../../features/cross-seed/cross-seed.messages';
import type { PageView, PageViewChanged } from '../../features/lookup/lookup.messages';
import { panelAnchor } from './anchor';
import { markRows } from './row-marks';
import { mountPanel, type MountedPanel } from './mount';
import { sendToBackground } from '../../features/send-to-background';

export default defineContentScript({
  // The full list (every catalogued host and old host) is written into the manifest by
  // wxt.config.ts, so the 290 patterns and the host index stay out of this script's bundle.
  matches: ['*://hdsky.me/*'],
  // Loaded and compiled before the page is parsed, so that it reads the page the moment it is
  // (its DOMContentLoaded listener is the page's first). document_idle waited for the page's own
  // work after DOMContentLoaded (in Chromium 200 ms more), and document_end comes after that
  // event's handlers. Blocks a site fills in later are read again when the page changes (watchPage).
  runAt: 'document_start',
  main(ctx) {
    // Injected again on the same page (toolbar click on an uncatalogued site): one reader is enough.
    const marker = '__reseedLensRunning';
    if ((window as unknown as Record<string, unknown>)[marker]) return;
    (window as unknown as Record<string, unknown>)[marker] = true;
    if (document.readyState !== 'loading') void runReader(ctx.signal);
    else document.addEventListener('DOMContentLoaded', () => void runReader(ctx.signal), { once: true });
  },
});

async function runReader(signal: AbortSignal): Promise<void> {
  let lastKey = '';
  let lastReading: PageReading | null = null;
  let fromTorrentFile: FoundHash[] = [];
  // The page the .torrent's hash belongs to: after an in-page navigation it is another torrent's.
  let torrentFileFor = '';
  let panel: MountedPanel | undefined;
  let currentAnchor: Element | undefined;
  // The URL the background files this page under: the browser's sender.url, which keeps the URL the
  // document loaded with after history.pushState (Chromium and Firefox), so after an in-page
  // navigation it no longer equals location.href.
  let filedUnder: string | undefined;
  let shown: PageView | undefined;
  // The latest view the background announced for this tab (for whichever URL it was).
  let announced: PageView | undefined;
  // This page's cross-seeds, as the background words them (its panel's "Cross-seed" and the popup's).
  let crossSeeds: PageCrossSeed[] = [];

  const show = (view: PageView | undefined) => {
    if (!view || view.url !== (filedUnder ?? location.href)) return;
    if (view.url !== shown?.url) crossSeeds = [];
    shown = view;
    const wanted = view.panel !== false && (view.hashes.length > 0 || !!view.torrentFileUrl || !!view.problem);
    if (!wanted) {
      panel?.remove();
      panel = undefined;
      return;
    }
    panel ??= mountPanel(currentAnchor, {
      onHideOnSite: () => {
        panel?.remove();
        panel = undefined;
        void sendToBackground('panel:hide-on-site', {});
      },
      onHashFromTorrent: () => void hashFromTorrent(),
      onRefresh: () => void sendToBackground('page:refresh', {}),
      // Opens the extension's confirmation window, nothing more: the page can steer a click onto its
      // panel (issue 15). The background takes the candidate from this tab's view.
      onCrossSeed: ({ sid, torrentId }) => void sendToBackground('page:cross-seed', { sid, torrentId }),
    });
    panel.update(view, crossSeeds);
  };

  async function report(force = false): Promise<void> {
    const reading = await readPage({ url: new URL(location.href), document, fetch: window.fetch.bind(window) }).catch(
      () => null,
    );
    if (torrentFileFor !== location.href) fromTorrentFile = [];
    if (reading && fromTorrentFile.length) {
      const known = new Set(reading.hashes.map((found) => found.hash));
      reading.hashes.push(...fromTorrentFile.filter((found) => !known.has(found.hash)));
      delete reading.problem;
    }
    // the rows too: a list that renders late (M-Team) adds rows without any hash
    const key = `${location.href}|${reading?.problem ?? ''}|${reading?.hashes.map((found) => found.hash).join(',') ?? ''}|${reading?.rows?.map((row) => row.id).join(',') ?? ''}`;
    if (!force && key === lastKey) return;
    lastKey = key;
    lastReading = reading;
    const anchor = panelAnchor(reading, document);
    if (anchor !== currentAnchor) {
      panel?.remove();
      panel = undefined;
      currentAnchor = anchor;
    }
    // The view comes as `view:changed` (the listener below); the answer says which URL it is filed
    // under, and the latest view announced for it is shown (it may have come before the answer).
    const filed = await sendToBackground('page:reading', { url: location.href, reading });
    if (filed) {
      filedUnder = filed.filedUnder;
      show(announced);
    }
  }

  /**
   * Only on the user's click: one download of this page's own .torrent, with the user's session.
   * The background takes its info-hash (it has the parser and SHA-1; this script stays small).
   */
  async function hashFromTorrent(): Promise<void> {
    const download = await downloadTorrentFile(lastReading?.torrentFileUrl);
    // The view comes as `view:changed`; the answer says which hash the file had.
    const answer: { hash?: string } | undefined = await sendToBackground('page:torrent-file', download);
    if (answer?.hash) {
      fromTorrentFile = [{ hash: answer.hash, source: 'torrent-file' }];
      torrentFileFor = location.href;
      lastKey = '';
    }
  }

  // Answered through sendResponse, not a returned promise: this script uses the browser's own
  // namespace (see wxt.config.ts), and Chrome's own onMessage only waits for sendResponse.
  browser.runtime.onMessage.addListener(((message: unknown, _sender: unknown, sendResponse: (answer: unknown) => void) => {
    const type = (message as { type?: string } | null)?.type;
    if (type === 'view:changed') {
      // The page's view, announced once for each change (the page's own messages do not answer with it).
      announced = (message as PageViewChanged).view;
      show(announced);
    }
    if (type === 'crossseed:changed') {
      crossSeeds = (message as PageCrossSeedsChanged).outcomes;
      show(shown);
    }
    // Sent only where the user turned row marks on (features/client-index/client-index.feature.ts).
    if (type === 'index:marks' && (message as IndexMarks).url === (filedUnder ?? location.href)) markRows((message as IndexMarks).marks, lastReading?.engine);
    if (type !== 'content:hash-from-torrent') return false;
    void hashFromTorrent().then(
      () => sendResponse(true),
      () => sendResponse(false),
    );
    return true;
  }) as Parameters<typeof browser.runtime.onMessage.addListener>[0]);

  await report();
  // Single-page sites and lazily filled blocks: read again when the page changes.
  watchPage(() => void report(), signal);
}

async function downloadTorrentFile(url: string | undefined): Promise<{ data?: string; problem?: 'no-link' | 'download-failed' }> {
  if (!url) return { problem: 'no-link' };
  let target: URL;
  try {
    target = new URL(url, location.href);
  } catch {
    return { problem: 'no-link' };
  }
  // Only this site's own download link: never another origin, never more than one file.
  if (target.origin !== location.origin) return { problem: 'no-link' };
  const download = await downloadTorrent(target);
  if (!('bytes' in download)) return { problem: 'download-failed' };
  let binary = '';
  for (let offset = 0; offset < download.bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...download.bytes.subarray(offset, offset + 0x8000));
  }
  return { data: btoa(binary) };
}
