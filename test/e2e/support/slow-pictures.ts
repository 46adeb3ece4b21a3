/**
 * Tracker pages with the large pictures real details pages carry (a poster, screenshots, uploaded
 * under /attachments/), which the tracker serves slowly: after a fixed delay (the bench), or only
 * once the test lets them go (the e2e test, which then needs no guess at timing). The pages come
 * at once, anything under /slow/ is held like a picture (a page's own slow request), the rest (the
 * theme's icons, scripts, styles) is a quick 404.
 *
 * At most five held at a time per page: a browser opens six connections to a host, and a sixth
 * held request would queue the page's other requests behind it.
 */
import type { ServerResponse } from 'node:http';
import type { HostHandler } from '../harness/index.ts';

const SLOW = /^\/(?:attachments|slow)\//;
/** A 1×1 PNG: what the picture shows does not matter, only when it arrives. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const POSTER = '<img src="attachments/202405/poster.jpg" alt="poster" />';

/**
 * A page script that keeps the page busy right after DOMContentLoaded, as a tracker's heavy script
 * would: a synchronous request to /slow/ (held by slowPictures) blocks the page's main thread
 * until it is answered. It starts two tasks after DOMContentLoaded, so a reader that runs at that
 * event (or at Chromium's document_end, a task queued then) has read the page by then, and one
 * that waits for later (document_idle: an idle moment, 200 ms after, or the load event) has not.
 */
export const BUSY_AFTER_DOM_READY = `<script>document.addEventListener('DOMContentLoaded', () => setTimeout(() => setTimeout(() => {
  const request = new XMLHttpRequest();
  request.open('GET', '/slow/work', false);
  request.send();
  document.documentElement.dataset.busyDone = 'yes';
})));</script>`;

/** The NexusPHP fixture page (nexusDetailsPage) with `count` full-size screenshots after its poster. */
export function withScreenshots(html: string, count = 4): string {
  if (count > 4) throw new Error('withScreenshots: at most 4 (with the poster, 5 held requests)');
  if (!html.includes(POSTER)) throw new Error('withScreenshots: the page has no poster to put screenshots after');
  const shots = Array.from({ length: count }, (_, index) => `<img src="attachments/202405/screenshot-${index + 1}.jpg" alt="screenshot ${index + 1}" width="1920" height="1080" />`);
  return html.replace(POSTER, `${POSTER}<br />${shots.join('<br />')}`);
}

export interface SlowPictures {
  /** Answers the pages at once, /attachments/ and /slow/ slowly, anything else with a 404. */
  handler: HostHandler;
  /** Paths of the slow requests not answered yet: the browser still waits for them. */
  held(): string[];
  /** Paths of the slow requests answered so far. */
  answered(): string[];
  /** Answers every request held now, and later ones at once. */
  release(): void;
}

export function slowPictures(pages: Record<string, string>, timing: { delayMs: number } | 'held'): SlowPictures {
  const held = new Map<ServerResponse, string>();
  const answered: string[] = [];
  let released = false;

  const answer = (res: ServerResponse) => {
    const path = held.get(res);
    if (path === undefined || !held.delete(res) || res.destroyed) return;
    answered.push(path);
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
    res.end(PNG);
  };

  const handler: HostHandler = (_req, res, recorded) => {
    const pathname = recorded.path.split('?')[0] ?? '/';
    const page = pages[recorded.path] ?? pages[pathname];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page);
      return;
    }
    if (!SLOW.test(pathname)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not found');
      return;
    }
    held.set(res, recorded.path);
    // A page closed meanwhile: the browser gave up on the request, nobody waits for it any more.
    res.on('close', () => held.delete(res));
    if (released) answer(res);
    else if (timing !== 'held') setTimeout(() => answer(res), timing.delayMs);
  };

  return {
    handler,
    held: () => [...held.values()],
    answered: () => [...answered],
    release() {
      released = true;
      for (const res of [...held.keys()]) answer(res);
    },
  };
}
