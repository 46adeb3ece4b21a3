/**
 * A first sync cut short by a stop of the worker (issue 27): the real background against a real
 * qbittorrent-nox and the reference service. The first background reads the client, asks one
 * batch and is stopped in its pause; a second background (the worker started again, same storage
 * and IndexedDB) goes on with it by itself at its start: the client is not read again, no hash is
 * asked twice, and the index ends whole. A sync whose client cannot be read fails in words, with
 * where it stopped, and the console says so.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { IndexChanged, IndexStatusView } from '../../../../features/client-index/client-index.messages';
import { indexSyncUnderWayItem } from '../../../../features/client-index/client-index.storage';
import { CLIENTS_KEY } from '../../../../features/clients/clients.storage';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { startQbittorrent, type RunningDaemon } from '../../../clients/daemons';
import { tinyTorrents } from '../../../clients/torrent-content';
import { ownClient } from '../../../clients/own-client';
import { DEMO_TOKEN, type ReferenceService } from '../../../service/server';
import { lookupsSeen, startServiceWith } from '../../client-index/support';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { grantOrigin } from '../../support/permissions';

const TORRENTS = 7;
const BATCH = 2;
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const extensionPage = { id: extension.id, url: `${extension.origin}options.html` };

let daemon: RunningDaemon;
let service: ReferenceService;
let held: string[];

beforeAll(async () => {
  daemon = await startQbittorrent();
  const made = tinyTorrents(TORRENTS, 'resume');
  const client = ownClient(daemon);
  for (const torrent of made) await client.add(torrent.bytes, { savePath: daemon.downloadDir, paused: true, skipCheck: false });
  held = made.map((torrent) => torrent.hash).sort();
  service = await startServiceWith([]);
}, 120_000);

afterAll(async () => {
  await service?.close();
  await daemon?.stop();
}, 60_000);

/** The client list reads (torrents/info without `hashes`) each background made. */
function countingClientFetch(): { fetch: typeof fetch; listReads: () => number } {
  let reads = 0;
  const fetch = extensionClientFetch((input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.endsWith('/torrents/info') && !url.searchParams.has('hashes')) reads++;
    return globalThis.fetch(input, init);
  });
  return { fetch, listReads: () => reads };
}

function fromPage<T>(app: BackgroundApp, message: Record<string, unknown>): Promise<T> {
  return routeMessage(app, message, extensionPage, extension) as Promise<T>;
}

beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('en');
  installSessionRules();
  service.control.reset();
  grantOrigin(service.url);
});

async function configure(url = daemon.url): Promise<void> {
  await fakeBrowser.storage.local.set({
    [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN, clientIndexEnabled: true },
    [CLIENTS_KEY]: { version: 1, clients: [{ id: 'c1', type: 'qbittorrent', url, username: daemon.username, password: daemon.password, isDefault: true }] },
  });
}

describe('a first sync cut short', () => {
  it('goes on at the next start of the background: the client not read again, no hash asked twice, the index whole', { timeout: 90_000 }, async () => {
    await configure();
    const first = countingClientFetch();
    // The first lifetime pauses ten minutes after each batch: it is "stopped" in its first pause.
    const stopped = new BackgroundApp({ clientFetch: first.fetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 600_000, indexBatchSize: BATCH });
    // Its start puts the client's session rule in place (qBittorrent's CSRF protection stays on).
    await stopped.start();
    await fromPage(stopped, { type: 'index:sync' });
    await expect.poll(() => lookupsSeen(service).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await indexSyncUnderWayItem.get())?.clients[`qbittorrent ${daemon.url}`]?.listed, { timeout: 10_000 }).toEqual({ leftOut: 0 });
    expect(first.listReads()).toBeGreaterThan(0);

    const again = countingClientFetch();
    const announced: IndexStatusView[] = [];
    fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
      const changed = message as Partial<IndexChanged>;
      if (changed?.type === 'index:changed' && changed.status) announced.push(changed.status);
      return undefined;
    });
    const restarted = new BackgroundApp({ clientFetch: again.fetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0, indexBatchSize: BATCH });
    await restarted.start();
    await expect.poll(async () => (await fromPage<IndexStatusView>(restarted, { type: 'index:status' })).clients?.[0]?.lastSync?.outcome, { timeout: 30_000 }).toBe('done');

    expect(again.listReads()).toBe(0);
    const lookups = lookupsSeen(service);
    expect(lookups).toHaveLength(Math.ceil(TORRENTS / BATCH));
    const asked = lookups.flat();
    expect(new Set(asked).size).toBe(asked.length);
    expect([...asked].sort()).toEqual(held);
    const status = await fromPage<IndexStatusView>(restarted, { type: 'index:status' });
    expect(status.clients?.[0]?.counts).toMatchObject({ torrents: TORRENTS, answered: TORRENTS });
    expect(status.clients?.[0]?.lastSync).toMatchObject({ outcome: 'done', torrents: TORRENTS });
    expect(announced.some((view) => view.clients?.[0]?.running?.resumed)).toBe(true);
    expect(await indexSyncUnderWayItem.get()).toBeUndefined();
    // The stopped lifetime is let go (its pause ends now); it asks nothing more than what it had.
    await fromPage(stopped, { type: 'index:cancel' });
    expect(lookupsSeen(service)).toHaveLength(lookups.length);
  });

  it('whose client cannot be read fails in words, with where it stopped, and the console says so', async () => {
    // A port nothing listens on: the client "is not running".
    await configure('http://127.0.0.1:9');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const app = new BackgroundApp({ clientFetch: countingClientFetch().fetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0, clientTimeoutMs: 2_000 });
      await app.start();
      await fromPage(app, { type: 'index:sync' });
      await expect.poll(async () => (await fromPage<IndexStatusView>(app, { type: 'index:status' })).clients?.[0]?.lastSync?.outcome, { timeout: 30_000 }).toBe('failed');
      const status = await fromPage<IndexStatusView>(app, { type: 'index:status' });
      expect(status.clients?.[0]?.lastSync).toMatchObject({ phase: 'reading-client', problem: { kind: 'client', problem: { kind: 'unreachable' } } });
      expect(warn.mock.calls.map((call) => String(call[0])).some((line) => /client index's sync of .+ stopped while reading-client/.test(line))).toBe(true);
      expect(lookupsSeen(service)).toHaveLength(0);
      expect(await indexSyncUnderWayItem.get()).toBeUndefined();
    } finally {
      warn.mockRestore();
    }
  });
});
