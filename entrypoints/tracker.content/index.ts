/**
 * Runs on the catalogued trackers (and on sites the user enabled): reads the page's info-hashes
 * and hands them to the background. It holds no secret and no zod; it only reads and renders.
 */
import { browser } from 'wxt/browser';
import { contentScriptMatches, siteForHost } from '../../utils/sites';
import { readPage } from '../../utils/pages';
import { watchPage } from '../../utils/pages/navigation';
import type { PageReading } from '../../utils/pages/types';
import { infoHashFromTorrent } from '../../utils/torrent';
import type { TabView } from '../../utils/messages';

export default defineContentScript({
  matches: contentScriptMatches(),
  runAt: 'document_idle',
  async main(ctx) {
    const hint = siteForHost(location.hostname)?.engine;
    let lastKey = '';
    let lastReading: PageReading | null = null;
    let extraHashes: PageReading['hashes'] = [];

    async function report(force = false): Promise<TabView | undefined> {
      const reading = await readPage({ url: new URL(location.href), document, fetch: window.fetch.bind(window) }, { engine: hint }).catch(() => null);
      if (reading && extraHashes.length) {
        const known = new Set(reading.hashes.map((found) => found.hash));
        reading.hashes.push(...extraHashes.filter((found) => !known.has(found.hash)));
      }
      const key = `${location.href}|${reading?.problem ?? ''}|${reading?.hashes.map((found) => found.hash).join(',') ?? ''}`;
      if (!force && key === lastKey) return undefined;
      lastKey = key;
      lastReading = reading;
      return browser.runtime.sendMessage({ type: 'page:reading', url: location.href, reading }) as Promise<TabView>;
    }

    browser.runtime.onMessage.addListener((message: unknown) => {
      if ((message as { type?: string })?.type !== 'content:hash-from-torrent') return undefined;
      return hashFromTorrentFile(lastReading?.torrentFileUrl).then(async (result) => {
        if ('hash' in result) extraHashes = [{ hash: result.hash, source: 'torrent-file' }];
        await report(true);
        return result;
      });
    });

    await report();
    // Single-page sites and lazily filled blocks: read again when the page changes.
    watchPage(() => void report(), ctx.signal);
  },
});

/** Only on the user's click: one download of this page's own .torrent, with the user's session. */
async function hashFromTorrentFile(url: string | undefined): Promise<{ hash: string } | { error: string }> {
  if (!url) return { error: 'no-link' };
  let target: URL;
  try {
    target = new URL(url, location.href);
  } catch {
    return { error: 'no-link' };
  }
  if (target.origin !== location.origin) return { error: 'no-link' };
  try {
    const response = await fetch(target, { credentials: 'include' });
    if (!response.ok) return { error: 'download-failed' };
    const bytes = new Uint8Array(await response.arrayBuffer());
    return await infoHashFromTorrent(bytes);
  } catch {
    return { error: 'download-failed' };
  }
}
