/**
 * Issue 27 end to end: the built extension's client index in Chromium against a loopback
 * qBittorrent WebUI holding more torrents than one page of its list (test/clients/mass-qbittorrent.ts:
 * real recorded 5.3 entries, 200-character names, about 2.5 KB each), the reference service behind
 * the e2e router. The 100,000 case is the bench's (`npm run bench -- --only indexfull`); here a size
 * whose paced first sync takes about a minute.
 *
 * The first sync, started as the options page's switch starts it, reads the list in pages; in the
 * middle of its lookups the service worker is stopped for real (CDP ServiceWorker.stopWorker), in a
 * pause between two batches (nothing in flight). The next message wakes it, and the sync goes on by
 * itself where it was: the client's list is not read again, no hash is asked twice, every torrent
 * is asked once, and the index ends whole.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexProgressView, IndexStatusView } from '../../features/client-index/client-index.messages';
import { startMassQbittorrent, type MassQbittorrent } from '../clients/mass-qbittorrent';
import { DEMO_TOKEN } from '../service/server';
import { closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { watchExtensionWorker, type ExtensionWorker } from './support/service-worker';
import { referenceDataWith } from './support/tracker-pages';
import { until } from './support/wait';
import { SERVICE_BASE_URL, startWorld, type World } from './world';

afterAll(closeAllBrowsers);

/** Above qBittorrent's page of 5,000 (utils/clients/qbittorrent.ts): the list comes in two pages. */
const TORRENTS = 6_000;
/** The background's batch (200 hashes a lookup) and its pause between two (2 s). */
const BATCH = 200;
/** Lookups answered before the stop. */
const BEFORE_STOP = 4;
/** The stop comes this soon after a lookup arrived, so inside the 2 s pause that follows it. */
const INSIDE_PAUSE_MS = 600;
const LOOKUP_PATH = '/reseed/index/index';

describe('a first sync of 6,000 torrents in Chromium, the worker stopped in the middle', () => {
  let mass: MassQbittorrent;
  let world: World;
  let browser: HarnessBrowser;
  let worker: ExtensionWorker;

  beforeAll(async () => {
    mass = await startMassQbittorrent({ shape: '5.3.0', torrents: TORRENTS, seed: 'e2e index scale' });
    world = await startWorld({ service: { data: referenceDataWith([]) } });
    browser = await launchBrowser('chromium', { proxyPort: world.router.port });
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await browser?.close();
    await world?.close();
    await mass?.close();
  }, 60_000);

  const send = <T>(message: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, message);
  const status = () => send<IndexStatusView>({ type: 'index:status' });
  const lookups = () => world.service.requests.filter((request) => request.path === LOOKUP_PATH);
  const hashesOf = (body: string) => JSON.parse(new URLSearchParams(body).get('hash') ?? '[]') as string[];

  it('reads the list in pages, goes on after the stop without reading it again, and asks every hash exactly once', { timeout: 300_000 }, async () => {
    await send({ type: 'settings:save', update: { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, askedForSites: true, privacyNoticeSeen: true } });
    const saved = await send<{ problem?: unknown }>({ type: 'clients:save', client: mass.config });
    expect(saved.problem).toBeUndefined();
    const page = await browser.openExtensionPage('manifest.json');
    worker = await watchExtensionWorker(page.raw as PlaywrightPage, browser.extensionOrigin);
    mass.resetCounts();

    await send({ type: 'settings:save', update: { clientIndexEnabled: true } });
    // In the asking phase, BEFORE_STOP lookups answered and stored, and the last one just arrived.
    const seen: IndexProgressView[] = [];
    await until(
      async () => {
        const running = (await status()).running;
        if (running) seen.push(running);
        const asked = lookups();
        return { running, asked: asked.length, sinceLast: Date.now() - (asked.at(-1)?.time ?? 0) };
      },
      ({ running, asked, sinceLast }) => running?.phase === 'asking' && asked >= BEFORE_STOP && running.done === asked * BATCH && sinceLast < INSIDE_PAUSE_MS,
      `${BEFORE_STOP} lookups answered, stopped inside a pause`,
      120_000,
      25,
    );
    const listReadsBefore = mass.listReads();
    const askedBefore = lookups().length;
    await worker.stop();
    // Nothing was in flight: no lookup came after the stop's moment.
    expect(lookups()).toHaveLength(askedBefore);

    // The list came in pages of at most 5,000 (each a bounded answer), every torrent in one of them.
    expect(listReadsBefore.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...listReadsBefore.map((read) => read.entries))).toBeLessThanOrEqual(5_000);
    expect(listReadsBefore.reduce((sum, read) => sum + read.entries, 0)).toBeGreaterThanOrEqual(TORRENTS);
    // It showed how far it was and the time left.
    expect(seen.some((running) => running.phase === 'asking' && running.total === TORRENTS && running.secondsLeft !== undefined)).toBe(true);

    // The next message wakes the worker; the sync goes on by itself and ends.
    let last: IndexStatusView | undefined;
    const resumed: IndexProgressView[] = [];
    await until(
      async () => {
        last = await status();
        if (last.running?.resumed) resumed.push(last.running);
        return last;
      },
      (view) => !view.running && view.lastSync !== undefined,
      'the first sync ended after the restart',
      180_000,
      250,
    );
    await worker.running(1_000);
    expect(last!.lastSync).toMatchObject({ outcome: 'done', torrents: TORRENTS });
    expect(last!.counts).toMatchObject({ torrents: TORRENTS, answered: TORRENTS });
    expect(resumed.length).toBeGreaterThan(0);

    // The client's list was not read again after the restart.
    expect(mass.listReads()).toHaveLength(listReadsBefore.length);
    // Every torrent asked once: none twice, none forgotten, in batches of at most 200.
    const batches = lookups().map((request) => hashesOf(request.body));
    expect(batches.length).toBe(Math.ceil(TORRENTS / BATCH));
    const asked = batches.flat();
    expect(new Set(asked).size).toBe(asked.length);
    expect([...asked].sort()).toEqual([...mass.hashes()].sort());
  });
});
