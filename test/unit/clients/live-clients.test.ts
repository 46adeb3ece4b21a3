/**
 * The library against the real daemons, started here, in both generations (test/clients/daemons.ts:
 * Debian 12's qbittorrent-nox 4.5.2, transmission-daemon 3.00, deluged/deluge-web 2.0.3, and
 * today's qBittorrent 5.1 and 5.3, Transmission 4.1, Deluge 2.2): a cross-seed is added beside the existing
 * data and verified to 100 % with no peer anywhere (DHT and friends are off, the trackers do not
 * resolve), so the data can only have come from the disk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule } from '../../../utils/clients/csrf';
import { createClient } from '../../../utils/clients/index';
import type { ClientKind, TorrentClient } from '../../../utils/clients/client-types';
import { makeTorrent, tinyTorrents, torrentOn, TRACKERS, writeSampleContent, type Content } from '../../clients/torrent-content';
import { buildRows, clientBuilds, qbittorrentApiKey, startClient, startQbittorrent, versionAtLeast, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';
import { addSeeding, untilSeeding } from '../../clients/seeding';
import { until } from '../../e2e/support/wait';
import { failureOf } from './support';

const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const LIVE = { timeout: 90_000 };

/** What the browser sends once csrf.ts's rule is in place (for qBittorrent; nothing for the others). */
function browserLikeFetch(daemon: RunningDaemon): JarFetch {
  if (daemon.kind !== 'qbittorrent') return nodeClientFetch();
  const origin = clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')!.value;
  return nodeClientFetch({ origin });
}

// Flood is not in every build's rows yet (daemons.ts NOT_YET_IN_EVERY_BUILD): asked for by kind.
describe.each([...buildRows(), ...buildRows('flood')])('%s (live daemon)', (_, build) => {
  const kind: ClientKind = build.kind;
  const start = () => startClient(build);
  let daemon: RunningDaemon;
  let fetch: JarFetch;
  let client: TorrentClient;
  let content: { single: Content; folder: Content };

  beforeAll(async () => {
    daemon = await start();
    fetch = browserLikeFetch(daemon);
    client = createClient(daemon.config, { fetch });
    content = writeSampleContent(daemon.dataDir);
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it('test() reports its version and how many torrents it holds', LIVE, async () => {
    expect(daemon.version).toContain(build.release); // the build asked for is the one that runs
    expect(await client.test()).toMatchObject({ client: kind, version: daemon.version, torrentCount: 0, auth: 'password' });
  });

  it('test() with a wrong password fails as auth', LIVE, async () => {
    const wrong = createClient({ ...daemon.config, password: 'wrong-password' }, { fetch: browserLikeFetch(daemon) });
    expect((await failureOf(wrong.test())).kind).toBe('auth');
  });

  it('a cross-seed (same files, other tracker) added at the existing save path is verified to 100 % without downloading', LIVE, async () => {
    const source = torrentOn('alpha', content.folder);
    await addSeeding(client, source, content.folder);
    const crossSeed = torrentOn('beta', content.folder);
    expect(crossSeed.hash).not.toBe(source.hash);
    const added = await client.add(crossSeed.bytes, { savePath: content.folder.savePath, paused: false, skipCheck: false });
    expect(added).toEqual({ status: 'added', hash: crossSeed.hash });
    const seeding = await untilSeeding(client, crossSeed.hash);
    expect(seeding).toMatchObject({ savePath: content.folder.savePath, progress: 1, state: 'seeding', size: 309_500 });
    expect(await client.test()).toMatchObject({ torrentCount: 2 });
  });

  it('a torrent with other files is simply added (comparing files is the cross-seed layer’s job), and files() shows them', LIVE, async () => {
    // Same name, different files: the data for it is not on disk.
    const other: Content = { ...content.folder, seed: 'other-release', files: [{ path: '01 - Opening.flac', size: 180_001 }, { path: 'extra.nfo', size: 700 }] };
    const torrent = makeTorrent(other, TRACKERS.beta);
    expect(await client.add(torrent.bytes, { savePath: other.savePath, paused: true, skipCheck: false })).toEqual({ status: 'added', hash: torrent.hash });
    const files = await until(
      () => client.files(torrent.hash),
      (list) => list.length > 0,
      'the files of the added torrent',
      30_000,
    );
    expect(files).toEqual(other.files.map((file) => ({ path: `${other.name}/${file.path}`, size: file.size })));
    const source = await client.files(torrentOn('alpha', content.folder).hash);
    expect(source).not.toEqual(files);
  });

  it('lookup() finds what it holds and leaves absent hashes out', LIVE, async () => {
    const present = torrentOn('alpha', content.folder).hash;
    const absent = torrentOn('alpha', content.single).hash; // never added
    const found = await client.lookup([present, absent]);
    expect([...found.keys()]).toEqual([present]);
  });

  it('list() of a client holding fewer torrents than a page is one request (qBittorrent, Flood) or two: the hashes, then their page (Transmission, Deluge)', LIVE, async () => {
    for (const torrent of tinyTorrents(40, `${kind}-many`)) {
      await client.add(torrent.bytes, { savePath: daemon.downloadDir, paused: true, skipCheck: true });
    }
    await client.lookup([torrentOn('alpha', content.folder).hash]); // a warm session, as in the background
    const before = fetch.sent.length;
    const list = await client.list();
    expect(fetch.sent.length - before).toBe(kind === 'qbittorrent' || kind === 'flood' ? 1 : 2);
    expect(list.length).toBeGreaterThanOrEqual(43);
  });

  it('test() of a stopped client fails as unreachable', LIVE, async () => {
    await daemon.stop();
    expect((await failureOf(client.test())).kind).toBe('unreachable');
  });
});

describe.each(buildRows('qbittorrent'))('%s: protections (live daemon)', (_, build) => {
  let daemon: RunningDaemon;

  beforeAll(async () => {
    daemon = await startQbittorrent({ build });
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it("keeps CSRF protection on: an extension's Origin is refused as csrf, the rule's Origin is accepted", LIVE, async () => {
    const refused = createClient(daemon.config, { fetch: nodeClientFetch({ origin: EXTENSION_URL.replace(/\/$/, '') }) });
    expect(await failureOf(refused.test())).toMatchObject({ kind: 'csrf', httpStatus: 401 });
    const rule = clientOriginRule(daemon.url, EXTENSION_URL);
    const accepted = createClient(daemon.config, { fetch: nodeClientFetch({ origin: rule.action.requestHeaders[0]!.value }) });
    expect(await accepted.test()).toMatchObject({ client: 'qbittorrent', version: daemon.version });
  });

  it('an https web UI with an untrusted certificate fails as certificate', LIVE, async () => {
    const secure = await startQbittorrent({ https: true, build });
    try {
      expect(secure.url).toMatch(/^https:/);
      expect(await failureOf(createClient(secure.config).test())).toMatchObject({ kind: 'certificate' });
    } finally {
      await secure.stop();
    }
  });
});

// API keys came with qBittorrent 5.2 (Web API 2.14.1): every installed build that has them.
describe.each(buildRows('qbittorrent').filter(([, build]) => build.release >= '5.2'))('%s: API key (live daemon)', (_, build) => {
  let daemon: RunningDaemon;
  const apiKey = qbittorrentApiKey();

  beforeAll(async () => {
    daemon = await startQbittorrent({ build, apiKey });
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it('a key in the password field is used as the key: no login, no cookie, and the CSRF check does not apply', LIVE, async () => {
    expect(versionAtLeast(daemon.version, 5, 2)).toBe(true);
    // The extension's own Origin, which a password session gets refused for (see the test above).
    const fetch = nodeClientFetch({ origin: EXTENSION_URL.replace(/\/$/, '') });
    const client = createClient({ ...daemon.config, username: '', password: apiKey }, { fetch });
    expect(await client.test()).toMatchObject({ client: 'qbittorrent', version: daemon.version, torrentCount: 0, auth: 'api-key' });
    expect(fetch.sent.some((request) => request.url.endsWith('/auth/login'))).toBe(false);
    expect(fetch.jar.size).toBe(0);
  });

  it('a wrong key of the right form fails as auth', LIVE, async () => {
    const wrong = createClient({ ...daemon.config, username: '', password: qbittorrentApiKey() }, { fetch: nodeClientFetch() });
    expect(await failureOf(wrong.test())).toMatchObject({ kind: 'auth' });
  });
});

describe('the builds under test', () => {
  it('are both generations of every client: qBittorrent 4.5, 5.1, 5.3; Transmission 3.00, 4.1; Deluge 2.0, 2.2; rTorrent 0.9, 0.16; and Flood 4.16 by kind', () => {
    expect(clientBuilds().map((build) => build.label)).toEqual([
      'qBittorrent 4.5 (bookworm)',
      'qBittorrent 5.1 (current)',
      'qBittorrent 5.3 (current)',
      'Transmission 3.00 (bookworm)',
      'Transmission 4.1 (current)',
      'Deluge 2.0 (bookworm)',
      'Deluge 2.2 (current)',
      'rTorrent 0.9 (bookworm)',
      'rTorrent 0.16 (current)',
    ]);
    // Flood by kind only: it has no pages and no renames (those rows are not its).
    expect(clientBuilds({ kind: 'flood' }).map((build) => build.label)).toEqual(['Flood 4.16 (bookworm)', 'Flood 4.16 (current)']);
    expect(clientBuilds({ all: true }).map((build) => build.label)).toEqual([...clientBuilds().map((build) => build.label), 'Flood 4.16 (bookworm)', 'Flood 4.16 (current)']);
  });
});
