/**
 * The library against answers recorded from the real daemons (npm run record:clients): every
 * client, every recorded version, the same scenarios. Expectations come from what the harness made
 * (hashes, names, paths, sizes: the recording's facts) and the daemon's version as its binary
 * printed it, never from the recorded answers themselves. The replay is strict: a request that
 * differs from the recorded one, or a missing or extra request, fails the test.
 */
import { describe, expect, it } from 'vitest';
import { CLIENT_KINDS, type ClientTorrent } from '../../../utils/clients/client-types';
import { clientBuilds, versionAtLeast } from '../../clients/daemons';
import { factsOf, failureOf, recordings, replayed, torrentBytes } from './support';

describe('recordings', () => {
  it('exist for every client', () => {
    for (const kind of CLIENT_KINDS) expect(recordings(kind).length, kind).toBeGreaterThan(0);
  });

  it('exist for every build of both generations (qBittorrent 4.5, 5.1, 5.3; Transmission 3.00, 4.1; Deluge 2.0, 2.2)', () => {
    for (const build of clientBuilds()) {
      const versions = recordings(build.kind).map((recording) => recording.version.replace(/^v/, ''));
      expect(versions.some((version) => version.startsWith(`${build.release}.`) || version.startsWith(`${build.release} `)), `${build.label}: ${versions.join(', ')}`).toBe(true);
    }
  });
});

describe.each(recordings().map((recording) => [`${recording.client} ${recording.version}`, recording] as const))('%s (recorded)', (_, recording) => {
  const facts = factsOf(recording);
  const { torrents, content, savePath } = facts;
  const folderSize = content.folder.reduce((sum, file) => sum + file.size, 0);
  const singleSize = content.single.reduce((sum, file) => sum + file.size, 0);

  async function run<T>(scenario: string, operation: (client: ReturnType<typeof replayed>['client']) => Promise<T>, options?: { password?: string; origin?: string }): Promise<T> {
    const { client, replay } = replayed(recording, scenario, options);
    const result = await operation(client);
    expect(replay.remaining(), `${scenario}: recorded requests left unasked`).toBe(0);
    return result;
  }

  function expectSeeding(torrent: ClientTorrent | undefined, hash: string, name: string, size: number): void {
    expect(torrent).toMatchObject({ hash, name, savePath, size, state: 'seeding', progress: 1 });
    expect(torrent!.contentPath).toBe(`${savePath}/${name}`);
  }

  it('test() says which client and version it is, and that it holds no torrent', async () => {
    const info = await run('test', (client) => client.test());
    expect(info).toMatchObject({ client: recording.client, version: recording.version, torrentCount: 0, auth: 'password' });
    // Flood names no version but its own.
    if (recording.client === 'flood') expect(info.apiVersion).toBeUndefined();
    else expect(info.apiVersion).toMatch(/\d/);
  });

  it('test() with a wrong password fails as auth', async () => {
    const { client, replay } = replayed(recording, 'test-wrong-password', { password: 'not-the-password' });
    expect((await failureOf(client.test())).kind).toBe('auth');
    expect(replay.remaining()).toBe(0);
  });

  it('list() of an empty client is empty', async () => {
    expect(await run('list-empty', (client) => client.list())).toEqual([]);
  });

  it('list() gives every torrent with its save path, size, state and progress', async () => {
    const list = await run('list', (client) => client.list());
    expect(list.map((torrent) => torrent.hash).sort()).toEqual([torrents.singleAlpha.hash, torrents.folderAlpha.hash].sort());
    expectSeeding(
      list.find((torrent) => torrent.hash === torrents.singleAlpha.hash),
      torrents.singleAlpha.hash,
      content.singleName,
      singleSize,
    );
    expectSeeding(
      list.find((torrent) => torrent.hash === torrents.folderAlpha.hash),
      torrents.folderAlpha.hash,
      content.folderName,
      folderSize,
    );
  });

  it('lookup() finds the torrents it holds and leaves absent hashes out', async () => {
    const found = await run('lookup', (client) => client.lookup([torrents.singleAlpha.hash, torrents.folderAlpha.hash.toUpperCase(), facts.absentHash]));
    expect([...found.keys()].sort()).toEqual([torrents.singleAlpha.hash, torrents.folderAlpha.hash].sort());
    expectSeeding(found.get(torrents.folderAlpha.hash), torrents.folderAlpha.hash, content.folderName, folderSize);
  });

  it("files() lists a multi-file torrent's files under its root folder", async () => {
    const files = await run('files', (client) => client.files(torrents.folderAlpha.hash));
    expect(files).toEqual(content.folder.map((file) => ({ path: `${content.folderName}/${file.path}`, size: file.size })));
  });

  it('files() of a torrent it does not hold fails as not-found', async () => {
    const { client, replay } = replayed(recording, 'files-absent');
    expect((await failureOf(client.files(facts.absentHash))).kind).toBe('not-found');
    expect(replay.remaining()).toBe(0);
  });

  it('add() of the cross-seed (same files, other tracker) at the existing save path is added', async () => {
    const result = await run('add-cross-seed', (client) => client.add(torrentBytes(recording, 'folderBeta'), facts.crossSeedOptions));
    expect(result).toEqual({ status: 'added', hash: torrents.folderBeta.hash });
  });

  it('the cross-seed is then seeding at 100 % from the existing data', async () => {
    const found = await run('lookup-cross-seed', (client) => client.lookup([torrents.folderBeta.hash]));
    const torrent = found.get(torrents.folderBeta.hash);
    expectSeeding(torrent, torrents.folderBeta.hash, content.folderName, folderSize);
    if (recording.client === 'qbittorrent') {
      expect(torrent!.category).toBe(facts.crossSeedOptions.category);
      expect(torrent!.tags?.sort()).toEqual([...facts.crossSeedOptions.tags].sort());
    }
    if (recording.client === 'transmission' || recording.client === 'flood') {
      // Transmission has labels only, Flood tags only: the category is one of them.
      expect(torrent!.tags?.sort()).toEqual([facts.crossSeedOptions.category, ...facts.crossSeedOptions.tags].sort());
    }
  });

  it('add() of a torrent it already holds is a duplicate, not a failure', async () => {
    const result = await run('add-duplicate', (client) => client.add(torrentBytes(recording, 'folderBeta'), facts.crossSeedOptions));
    expect(result).toEqual({ status: 'duplicate', hash: torrents.folderBeta.hash });
  });

  it("add() of a file the client cannot load fails as refused, in the client's words", async () => {
    const { client, replay } = replayed(recording, 'add-unloadable');
    const failure = await failureOf(client.add(torrentBytes(recording, 'unloadable'), { savePath, paused: false, skipCheck: false }));
    expect(failure.kind).toBe('refused');
    if (recording.client === 'rtorrent' || recording.client === 'flood') {
      // load.raw answers 0 whatever it made of the file (Flood: 202 and no hash): the torrent's absence afterwards is all there is.
      expect(failure).toMatchObject({ clientMessage: undefined, detail: expect.stringMatching(/did not take the torrent/) });
    } else {
      // Transmission 4.x says only "unrecognized info" (3.00: "invalid or corrupt torrent file").
      const words = recording.client === 'transmission' && versionAtLeast(recording.version, 4, 0) ? /^unrecognized info$/ : /torrent/i;
      expect(failure.clientMessage).toMatch(words);
    }
    expect(replay.remaining()).toBe(0);
  });

  it('add() paused (skipping the check where the client can) leaves it paused and complete', async () => {
    const result = await run('add-paused-skip-check', (client) =>
      client.add(torrentBytes(recording, 'singleBeta'), { savePath, paused: true, skipCheck: true }),
    );
    expect(result).toEqual({ status: 'added', hash: torrents.singleBeta.hash });
    const found = await run('lookup-paused', (client) => client.lookup([torrents.singleBeta.hash]));
    // rTorrent (Flood's client here) can neither skip the check nor checks a torrent added stopped: it has verified nothing yet.
    const progress = recording.client === 'rtorrent' || recording.client === 'flood' ? 0 : 1;
    expect(found.get(torrents.singleBeta.hash)).toMatchObject({ state: 'paused', progress, savePath, size: singleSize });
  });

  it('test() of a stopped client fails as unreachable', async () => {
    const { client, replay } = replayed(recording, 'unreachable');
    expect((await failureOf(client.test())).kind).toBe('unreachable');
    expect(replay.remaining()).toBe(0);
  });
});
