/**
 * utils/clients/steady.ts against real daemons behind a real HTTP hop that misbehaves for one chosen
 * request at a time (test/clients/flaky-proxy.ts): bookworm's qBittorrent 4.5.2 and today's Deluge
 * 2.2 (the one a loaded CI machine once kept a request of for longer than the 15 s a request waits).
 * What is safe to ask twice rides out a dropped connection, a 502 and one answer that never came;
 * an add or a remove is never sent twice; a wrong password is not asked again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients/index';
import { ClientError } from '../../../utils/clients/client-errors';
import type { TorrentClient } from '../../../utils/clients/client-types';
import { steadyClient } from '../../../utils/clients/steady';
import { clientBuilds, startClient, type RunningDaemon } from '../../clients/daemons';
import { CLIENT_ACTIONS, startFlakyProxy, type FlakyProxy, type ProxiedRequest } from '../../clients/flaky-proxy';
import { nodeClientFetch } from '../../clients/node-fetch';
import { ownClient } from '../../clients/own-client';
import { addSeeding } from '../../clients/seeding';
import { torrentOn, writeSingleFile, tinyTorrents } from '../../clients/torrent-content';

const LIVE = { timeout: 120_000 };
/** Shorter than the extension's 15 s, so that a held request times out sooner; long enough for a daemon on a loaded machine. */
const TIMEOUT_MS = 8_000;
const DELAYS_MS = [50, 200];

const BUILDS = [...clientBuilds({ kind: 'qbittorrent', generation: 'bookworm' }), ...clientBuilds({ kind: 'deluge', generation: 'current' })].map((build) => [build.label, build] as const);

async function failureOf(promise: Promise<unknown>): Promise<ClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ClientError);
  return error as ClientError;
}

describe.each(BUILDS)('a steady client through a hop that misbehaves, on %s', (_label, build) => {
  let daemon: RunningDaemon;
  let proxy: FlakyProxy;
  let client: TorrentClient;
  let seededHash: string;
  const is = CLIENT_ACTIONS[build.kind as 'qbittorrent' | 'deluge'];
  const seen = (match: (request: ProxiedRequest) => boolean) => proxy.seen.filter(match).map((request) => request.fate);

  beforeAll(async () => {
    daemon = await startClient(build);
    const content = writeSingleFile(daemon.dataDir, 'steady.bin', 200_000);
    const torrent = torrentOn('alpha', content);
    await addSeeding(ownClient(daemon), torrent, content);
    seededHash = torrent.hash;
    proxy = await startFlakyProxy(new URL(daemon.url).origin);
    const through = { ...daemon.config, url: proxy.url };
    client = steadyClient(createClient(through, { fetch: nodeClientFetch({ origin: 'same' }), timeoutMs: TIMEOUT_MS }), { delaysMs: DELAYS_MS });
    // Logged in (and, for Deluge, connected) before the tests count requests.
    expect((await client.lookup([seededHash])).has(seededHash)).toBe(true);
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await daemon?.stop();
  }, 30_000);

  beforeEach(() => {
    proxy.seen.length = 0;
  });

  it('a read whose connection is reset is asked again and answers', LIVE, async () => {
    proxy.next(is.read, 'drop');
    expect((await client.lookup([seededHash])).get(seededHash)).toMatchObject({ hash: seededHash, progress: 1 });
    expect(seen(is.read)).toEqual(['drop', 'passed']);
  });

  it('a proxy\'s 502, twice, then the answer', LIVE, async () => {
    proxy.next(is.read, 'bad-gateway', 2);
    expect((await client.list()).map((torrent) => torrent.hash)).toContain(seededHash);
    expect(seen(is.read)).toEqual(['bad-gateway', 'bad-gateway', 'passed']);
  });

  it('an answer that never came is asked once more, not twice (each took the whole timeout)', LIVE, async () => {
    proxy.next(is.read, 'hold');
    expect((await client.lookup([seededHash])).has(seededHash)).toBe(true);
    expect(seen(is.read)).toEqual(['hold', 'passed']);

    proxy.seen.length = 0;
    proxy.next(is.read, 'hold', 2);
    expect((await failureOf(client.lookup([seededHash]))).kind).toBe('timeout');
    expect(seen(is.read)).toEqual(['hold', 'hold']);
  });

  it('a client that stays unreachable fails as such after three attempts', LIVE, async () => {
    proxy.next(is.read, 'drop', 3);
    expect((await failureOf(client.lookup([seededHash]))).kind).toBe('unreachable');
    expect(seen(is.read)).toEqual(['drop', 'drop', 'drop']);
  });

  it('an add whose answer was lost is not sent again (the daemon took it)', LIVE, async () => {
    const [torrent] = tinyTorrents(1, `lost-add-${build.kind}`);
    proxy.next(is.add, 'answer-lost');
    expect((await failureOf(client.add(torrent!.bytes, { savePath: daemon.dataDir, paused: true, skipCheck: false }))).kind).toBe('unreachable');
    expect(seen(is.add)).toEqual(['answer-lost']);
    // Why it must not be sent again: the daemon holds it.
    expect((await ownClient(daemon).lookup([torrent!.hash])).has(torrent!.hash)).toBe(true);

    proxy.next(is.remove, 'drop');
    expect((await failureOf(client.remove(torrent!.hash))).kind).toBe('unreachable');
    expect(seen(is.remove)).toEqual(['drop']);
    await client.remove(torrent!.hash);
    expect((await ownClient(daemon).lookup([torrent!.hash])).has(torrent!.hash)).toBe(false);
  });

  it('a wrong password is not asked again', LIVE, async () => {
    const wrong = { ...daemon.config, url: proxy.url, password: 'not-the-password' };
    const refused = steadyClient(createClient(wrong, { fetch: nodeClientFetch({ origin: 'same' }), timeoutMs: TIMEOUT_MS }), { delaysMs: DELAYS_MS });
    expect((await failureOf(refused.lookup([seededHash]))).kind).toBe('auth');
    expect(seen(is.login)).toEqual(['passed']);
  });
});
