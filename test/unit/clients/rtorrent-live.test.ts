/**
 * The rTorrent adapter against a real rTorrent (Debian 12's 0.9.8) behind a real lighttpd mounting
 * its SCGI port at /RPC2 with HTTP Basic auth, as seedboxes serve it (test/clients/daemons.ts).
 * One daemon for the file; the steps build on each other like a cross-seed does: the data is on
 * disk first, the torrents are added stopped at its folder, checked from disk to 100 % (no peer
 * anywhere: DHT, PeX and UDP trackers are off, announces go to a dead loopback proxy), started,
 * stopped, labelled and removed, the data staying.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients/index';
import type { ClientTorrent, TorrentClient } from '../../../utils/clients/client-types';
import { decodeResponse, encodeCall } from '../../../utils/clients/xmlrpc';
import { shareOfValidPieces, torrentOn, writeFolder, writeSampleContent, type Content, type MadeTorrent } from '../../clients/torrent-content';
import { buildRows, startRtorrent, type RunningRtorrent } from '../../clients/daemons';
import { until } from '../../e2e/support/wait';
import { failureOf } from './support';

const LIVE = { timeout: 90_000 };

describe.each(buildRows('rtorrent'))('%s behind lighttpd /RPC2 (live daemon)', (_, build) => {
  let daemon: RunningRtorrent;
  let client: TorrentClient;
  let content: { single: Content; folder: Content };
  let single: MadeTorrent;
  let folder: MadeTorrent;

  /** One XML-RPC call straight to the daemon, for what the adapter does not show (ruTorrent's raw label). */
  async function raw(method: string, params: string[]): Promise<unknown> {
    const response = await fetch(daemon.url, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${daemon.username}:${daemon.password}`).toString('base64')}`, 'Content-Type': 'text/xml' },
      body: encodeCall(method, params),
    });
    return decodeResponse(await response.text());
  }

  const bothShapes = () => client.lookup([single.hash, folder.hash]);

  beforeAll(async () => {
    daemon = await startRtorrent({ build });
    client = createClient(daemon.config);
    content = writeSampleContent(daemon.dataDir);
    single = torrentOn('alpha', content.single);
    folder = torrentOn('alpha', content.folder);
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it('test() says rTorrent, its version and that it holds nothing yet', LIVE, async () => {
    expect(daemon.version).toMatch(new RegExp(`^${build.release.replace('.', '\\.')}\\.`));
    expect(await client.test()).toMatchObject({ client: 'rtorrent', version: daemon.version, torrentCount: 0, auth: 'password', apiVersion: expect.stringMatching(/^libtorrent \d/) });
  });

  it('adds both shapes stopped at the folder their data sits in; a second add is a duplicate', LIVE, async () => {
    const options = { paused: true, skipCheck: false, tags: ['reseed'] };
    expect(await client.add(single.bytes, { ...options, savePath: content.single.savePath })).toEqual({ status: 'added', hash: single.hash });
    expect(await client.add(folder.bytes, { ...options, savePath: content.folder.savePath })).toEqual({ status: 'added', hash: folder.hash });
    expect(await client.add(folder.bytes, { ...options, savePath: content.folder.savePath })).toEqual({ status: 'duplicate', hash: folder.hash });
    expect(await client.count()).toBe(2);
  });

  it('lookup() gives the save path right for both shapes (d.directory: a single file’s folder, a multi-file torrent’s own)', LIVE, async () => {
    const found = await bothShapes();
    expect(found.get(single.hash)).toMatchObject<Partial<ClientTorrent>>({
      name: content.single.name,
      savePath: content.single.savePath,
      contentPath: join(content.single.savePath, content.single.name),
      size: 300_000,
      state: 'paused',
      tags: ['reseed'],
    });
    expect(found.get(folder.hash)).toMatchObject<Partial<ClientTorrent>>({
      name: content.folder.name,
      savePath: content.folder.savePath,
      contentPath: join(content.folder.savePath, content.folder.name),
      size: 309_500,
      state: 'paused',
    });
    // What rTorrent itself says: the multi-file torrent's directory is its own folder.
    expect(await raw('d.directory', [folder.hash.toUpperCase()])).toBe(join(content.folder.savePath, content.folder.name));
    expect(await raw('d.directory', [single.hash.toUpperCase()])).toBe(content.single.savePath);
  });

  it('recheck() verifies both from disk to 100 %, still stopped', LIVE, async () => {
    await client.recheck(single.hash);
    await client.recheck(folder.hash);
    const checked = await until(bothShapes, (found) => [...found.values()].every((torrent) => torrent.progress === 1 && torrent.state !== 'checking'), 'both checked', 60_000);
    expect([...checked.values()].map((torrent) => [torrent.progress, torrent.state])).toEqual([
      [1, 'paused'],
      [1, 'paused'],
    ]);
  });

  it('a damaged copy checks to the share of pieces its good files hold, and stays stopped', LIVE, async () => {
    const copy = writeFolder(join(daemon.dataDir, 'damaged'), content.folder.name, content.folder.files, content.folder.seed);
    writeFileSync(join(copy.savePath, copy.name, copy.files[1]!.path), Buffer.alloc(copy.files[1]!.size, 7));
    const damaged = torrentOn('beta', copy);
    await client.add(damaged.bytes, { savePath: copy.savePath, paused: true, skipCheck: false });
    await client.recheck(damaged.hash);
    const checked = await until(
      async () => (await client.lookup([damaged.hash])).get(damaged.hash),
      (torrent) => torrent !== undefined && torrent.state !== 'checking' && torrent.progress > 0,
      'the damaged copy checked',
      60_000,
    );
    expect(checked).toMatchObject({ state: 'paused', savePath: copy.savePath });
    expect(checked!.progress).toBeCloseTo(shareOfValidPieces(copy.files, 1), 6);
    await client.remove(damaged.hash);
  });

  it('start() seeds them, with not a byte downloaded', LIVE, async () => {
    await client.start(single.hash);
    await client.start(folder.hash);
    const seeding = await until(bothShapes, (found) => [...found.values()].every((torrent) => torrent.state === 'seeding'), 'both seeding', 60_000);
    expect([...seeding.values()].map((torrent) => torrent.progress)).toEqual([1, 1]);
    expect(await raw('d.down.total', [folder.hash.toUpperCase()])).toBe(0);
    // The announce went nowhere: curl met the dead proxy on loopback ("Couldn't connect to server"
    // in 0.9, "Tracker: [Could not connect to server]" in 0.16).
    const message = await until(
      () => raw('d.message', [folder.hash.toUpperCase()]),
      (said) => typeof said === 'string' && said !== '',
      'the tracker message',
      30_000,
    );
    expect(message).toMatch(/could(?:n't| not) connect/i);
  });

  it('files() lists each file relative to the save path, a multi-file torrent’s folder first', LIVE, async () => {
    expect(await client.files(single.hash)).toEqual([{ path: content.single.name, size: 300_000 }]);
    expect(await client.files(folder.hash)).toEqual(content.folder.files.map((file) => ({ path: `${content.folder.name}/${file.path}`, size: file.size })));
    const absent = torrentOn('beta', content.single).hash;
    expect((await failureOf(client.files(absent))).kind).toBe('not-found');
  });

  it('stop() stops it, complete', LIVE, async () => {
    await client.stop(folder.hash);
    expect((await bothShapes()).get(folder.hash)).toMatchObject({ state: 'paused', progress: 1 });
    expect(await raw('d.is_open', [folder.hash.toUpperCase()])).toBe(0);
  });

  it('addTags() keeps the label it had and writes it to d.custom1 as ruTorrent does (URL-encoded)', LIVE, async () => {
    expect(await client.addTags(single.hash, ['BETA 站', 'reseed'])).toBe(true);
    expect((await bothShapes()).get(single.hash)?.tags).toEqual(['reseed', 'BETA 站']);
    expect(await raw('d.custom1', [single.hash.toUpperCase()])).toBe('reseed%2C%20BETA%20%E7%AB%99');
  });

  it('remove() takes the torrent out and leaves its data on disk', LIVE, async () => {
    await client.remove(folder.hash);
    expect([...(await bothShapes()).keys()]).toEqual([single.hash]);
    for (const file of content.folder.files) expect(statSync(join(content.folder.savePath, content.folder.name, file.path)).size).toBe(file.size);
    expect((await failureOf(client.remove(folder.hash))).kind).toBe('not-found');
    expect(await client.test()).toMatchObject({ torrentCount: 1 });
    expect(existsSync(join(content.single.savePath, content.single.name))).toBe(true);
  });

  it('a wrong password is an auth failure (the web server’s 401)', LIVE, async () => {
    const wrong = createClient({ ...daemon.config, password: 'wrong-password' });
    expect(await failureOf(wrong.test())).toMatchObject({ kind: 'auth', httpStatus: 401 });
  });

  it('a web server asking for Digest gets Digest (MD5, qop=auth), request after request; a wrong password is still auth', LIVE, async () => {
    const sent: string[] = [];
    const noting: typeof fetch = (input, init) => {
      sent.push(new Headers(init?.headers).get('Authorization')?.split(' ')[0] ?? 'none');
      return fetch(input, init);
    };
    const digest = createClient({ ...daemon.config, url: daemon.digestUrl }, { fetch: noting });
    expect(await digest.test()).toMatchObject({ client: 'rtorrent', torrentCount: 1 });
    expect((await digest.lookup([single.hash])).get(single.hash)?.savePath).toBe(content.single.savePath);
    // Basic is refused once with the challenge; the calls after it answer that one nonce, counted.
    expect(sent).toEqual(['Basic', 'Digest', 'Digest']);
    const wrong = createClient({ ...daemon.config, url: daemon.digestUrl, password: 'wrong-password' });
    expect(await failureOf(wrong.test())).toMatchObject({ kind: 'auth', httpStatus: 401 });
  });

  it('an address that answers but is not XML-RPC says so (a page, a 404)', LIVE, async () => {
    const page = createClient({ ...daemon.config, url: daemon.url.replace(/\/RPC2$/, '/index.html') });
    const onPage = await failureOf(page.test());
    expect(onPage).toMatchObject({ kind: 'bad-answer', httpStatus: 200, clientMessage: 'seedbox Welcome' });
    expect(onPage.detail).toMatch(/not an XML-RPC endpoint.*\/RPC2/);
    const missing = createClient({ ...daemon.config, url: daemon.url.replace(/\/RPC2$/, '/nothing-here') });
    expect(await failureOf(missing.test())).toMatchObject({ kind: 'bad-answer', httpStatus: 404, detail: expect.stringMatching(/not an XML-RPC endpoint/) });
  });

  it('the bare address of the web server leads to its /RPC2', LIVE, async () => {
    const bare = createClient({ ...daemon.config, url: daemon.url.replace(/\/RPC2$/, '') });
    expect(await bare.test()).toMatchObject({ client: 'rtorrent', torrentCount: 1 });
  });
});
