/**
 * What only one client does, against its recorded answers: qBittorrent's CSRF check and session
 * expiry and IP ban, Transmission's session-id exchange, lock-out and path check, Deluge's session
 * expiry and a web UI without its daemon, rTorrent's add in steps and a web server without its rTorrent,
 * Flood's add looked for by hash, its stateless login and a Flood without its client.
 */
import { describe, expect, it } from 'vitest';
import { versionAtLeast } from '../../clients/daemons';
import { describeRequest, type Recording } from '../../clients/recording';
import { factsOf, failureOf, recordings, replayed, torrentBytes } from './support';

/** The recorded 'session-expired' scenario replayed: a lookup, the session ended by the harness, the same lookup again, which still answers. */
async function lookupAcrossSessionEnd(recording: Recording): Promise<void> {
  const { torrents } = factsOf(recording);
  const { client, replay } = replayed(recording, 'session-expired');
  await client.lookup([torrents.singleAlpha.hash]);
  const found = await client.lookup([torrents.singleAlpha.hash]);
  expect(found.get(torrents.singleAlpha.hash)?.state).toBe('seeding');
  expect(replay.remaining()).toBe(0);
}

describe.each(recordings('qbittorrent').map((recording) => [recording.version, recording] as const))('qBittorrent %s (recorded)', (_, recording) => {
  const facts = factsOf(recording);

  it('refuses an extension Origin (CSRF protection on): csrf, told apart from a wrong password', async () => {
    const { client, replay } = replayed(recording, 'csrf-refused', { origin: facts.extensionOrigin });
    const failure = await failureOf(client.test());
    expect(failure).toMatchObject({ kind: 'csrf', httpStatus: 401 });
    expect(replay.remaining()).toBe(0);
  });

  it("accepts the client's own Origin (what the declarativeNetRequest rule sends)", async () => {
    const { client, replay } = replayed(recording, 'csrf-same-origin', { origin: 'same' });
    expect(await client.test()).toMatchObject({ client: 'qbittorrent', version: recording.version });
    expect(replay.remaining()).toBe(0);
  });

  it('logs in again once when the session has expired (403), and repeats the call', async () => {
    const scenario = recording.scenarios['session-expired']!;
    // A right password: 200 "Ok." up to 5.1, 204 with no body from 5.2 (Web API 2.14).
    const loggedIn = versionAtLeast(recording.version, 5, 2) ? 204 : 200;
    expect(scenario.exchanges.map((exchange) => `${exchange.request.path} ${exchange.request.credentials} ${exchange.response?.status}`)).toEqual([
      // The password checked without cookies, then the session's own login (once per configuration).
      `/api/v2/auth/login omit ${loggedIn}`,
      `/api/v2/auth/login include ${loggedIn}`,
      '/api/v2/torrents/info include 200',
      '/api/v2/torrents/info include 403',
      `/api/v2/auth/login include ${loggedIn}`,
      '/api/v2/torrents/info include 200',
    ]);
    await lookupAcrossSessionEnd(recording);
  });

  it('reports a banned address as banned, in its own words', async () => {
    const { client, replay } = replayed(recording, 'banned');
    const failure = await failureOf(client.test());
    expect(failure).toMatchObject({ kind: 'banned', httpStatus: 403 });
    expect(failure.clientMessage).toMatch(/banned/i);
    expect(replay.remaining()).toBe(0);
  });

  it('checks the password with a cookie-less login, so a live session cannot hide a wrong one', () => {
    const [check, session] = recording.scenarios.test!.exchanges;
    expect(check?.request).toMatchObject({ path: '/api/v2/auth/login', credentials: 'omit' });
    expect(session?.request).toMatchObject({ path: '/api/v2/auth/login', credentials: 'include' });
  });

  it('sends the add with both spellings of "paused" and "skip check", Original layout and no automatic management', () => {
    const add = recording.scenarios['add-cross-seed']!.exchanges.find((exchange) => exchange.request.path === '/api/v2/torrents/add');
    expect(add?.request.body).toMatchObject({
      type: 'multipart',
      fields: {
        savepath: [facts.savePath],
        paused: ['false'],
        stopped: ['false'],
        skip_checking: ['false'],
        seedMode: ['false'],
        autoTMM: ['false'],
        contentLayout: ['Original'],
        category: ['cross-seed'],
        tags: ['reseed-lens,beta'],
      },
    });
  });
});

describe.each(recordings('transmission').map((recording) => [recording.version, recording] as const))('Transmission %s (recorded)', (_, recording) => {
  const facts = factsOf(recording);

  it('answers the 409 with the session id it was given, once', async () => {
    const exchanges = recording.scenarios.test!.exchanges;
    expect(exchanges[0]?.response?.status).toBe(409);
    const sessionId = exchanges[0]?.response?.headers['x-transmission-session-id'];
    expect(sessionId).toMatch(/^\w{20,}$/);
    expect(exchanges[0]?.request.headers['x-transmission-session-id']).toBeUndefined();
    expect(exchanges[1]?.request.headers['x-transmission-session-id']).toBe(sessionId);
    const { client, replay } = replayed(recording, 'test');
    await client.test();
    expect(replay.remaining()).toBe(0);
  });

  it('sends Basic auth on every request and no cookies', () => {
    const expected = `Basic ${Buffer.from(`${facts.username}:${facts.password}`, 'utf8').toString('base64')}`;
    for (const exchange of recording.scenarios.list!.exchanges) {
      expect(exchange.request.headers.authorization).toBe(expected);
      expect(exchange.request.credentials).toBe('omit');
    }
  });

  if (!versionAtLeast(recording.version, 4, 0)) {
    it('reports the lock-out after too many failed logins as banned', async () => {
      const { client } = replayed(recording, 'banned');
      expect(await failureOf(client.test())).toMatchObject({ kind: 'banned', httpStatus: 403 });
    });
  } else {
    it('still answers the right password after 100 failed logins (4.x locks out only with anti-brute-force-enabled, off by default)', async () => {
      const { client, replay } = replayed(recording, 'banned');
      expect(await client.test()).toMatchObject({ client: 'transmission', version: recording.version });
      expect(replay.remaining()).toBe(0);
    });
  }

  it("refuses a relative download folder, in Transmission's words", async () => {
    const { client, replay } = replayed(recording, 'add-relative-save-path');
    const failure = await failureOf(client.add(torrentBytes(recording, 'singleBeta'), { savePath: 'relative/folder', paused: true, skipCheck: false }));
    expect(failure.kind).toBe('refused');
    expect(failure.clientMessage).toMatch(/not absolute/);
    expect(replay.remaining()).toBe(0);
  });

  it('sets labels in torrent-add (4.x) and with torrent-set (3.00 ignores them in the add)', () => {
    const methods = recording.scenarios['add-cross-seed']!.exchanges.filter((exchange) => exchange.response?.status === 200).map((exchange) => exchange.request.body);
    const labels = [facts.crossSeedOptions.category, ...facts.crossSeedOptions.tags];
    expect(methods).toMatchObject([
      { type: 'json', value: { method: 'torrent-add', arguments: { 'download-dir': facts.savePath, paused: false, labels } } },
      { type: 'json', value: { method: 'torrent-set', arguments: { ids: [facts.torrents.folderBeta.hash], labels } } },
    ]);
  });
});

describe.each(recordings('deluge').map((recording) => [recording.version, recording] as const))('Deluge %s (recorded)', (_, recording) => {
  const facts = factsOf(recording);

  it('connects the web UI to its daemon when it is not connected', async () => {
    const methods = recording.scenarios.test!.exchanges.map((exchange) => (exchange.request.body as { value: { method: string } }).value.method);
    expect(methods.slice(0, 6)).toEqual(['auth.login', 'web.connected', 'web.get_hosts', 'web.get_host_status', 'web.connect', 'web.connected']);
    const { client, replay } = replayed(recording, 'test');
    await client.test();
    expect(replay.remaining()).toBe(0);
  });

  it('logs in again once when the session is gone ("Not authenticated"), and repeats the call', async () => {
    await lookupAcrossSessionEnd(recording);
  });

  it('says not-connected when the web UI is up but its daemon is not', async () => {
    const { client, replay } = replayed(recording, 'daemon-stopped');
    const failure = await failureOf(client.test());
    expect(failure.kind).toBe('not-connected');
    expect(failure.detail).toMatch(/Offline/);
    expect(replay.remaining()).toBe(0);
  });

  it('reads the duplicate out of AddTorrentError, not from the traceback around it', async () => {
    const raw = recording.scenarios['add-duplicate']!.exchanges.at(-1)!.response!.body;
    expect(raw).toMatch(/Failure instance: Traceback/); // what Deluge really says
    const { client } = replayed(recording, 'add-unloadable');
    const failure = await failureOf(client.add(torrentBytes(recording, 'unloadable'), { savePath: facts.savePath, paused: false, skipCheck: false }));
    expect(failure.clientMessage).toMatch(/^AddTorrentError: /);
  });
});

describe.each(recordings('rtorrent').map((recording) => [recording.version, recording] as const))('rTorrent %s (recorded)', (_, recording) => {
  const methodsOf = (scenario: string) =>
    recording.scenarios[scenario]!.exchanges.map((exchange) => /<methodName>([^<]+)<\/methodName>/.exec((exchange.request.body as { text: string }).text)?.[1]);

  it('adds in steps: held already? load.raw, taken? then the folder, the label and the start', async () => {
    expect(methodsOf('add-cross-seed')).toEqual(['system.multicall', 'load.raw', 'system.multicall', 'd.directory.set', 'd.custom1.set', 'd.start']);
    expect(methodsOf('add-duplicate')).toEqual(['system.multicall']);
    const { client, replay } = replayed(recording, 'add-cross-seed');
    await client.add(torrentBytes(recording, 'folderBeta'), factsOf(recording).crossSeedOptions);
    expect(replay.remaining()).toBe(0);
  });

  it('says the web server failed, and why it may have, when rTorrent behind it is not running (503)', async () => {
    const { client, replay } = replayed(recording, 'daemon-stopped');
    expect(await failureOf(client.test())).toMatchObject({ kind: 'server', httpStatus: 503, detail: expect.stringMatching(/is rTorrent running/) });
    expect(replay.remaining()).toBe(0);
  });
});

describe.each(recordings('flood').map((recording) => [recording.version, recording] as const))('Flood %s (recorded)', (_, recording) => {
  const facts = factsOf(recording);
  const pathsOf = (scenario: string) => recording.scenarios[scenario]!.exchanges.map((exchange) => `${exchange.request.method} ${exchange.request.path}`);

  it("adds in steps: held already? the file (202, no hash), then the torrent looked for in Flood's list", async () => {
    expect(pathsOf('add-cross-seed')).toEqual(['POST /api/auth/authenticate', 'GET /api/torrents', 'POST /api/torrents/add-files', 'GET /api/torrents']);
    expect(recording.scenarios['add-cross-seed']!.exchanges[2]!.response).toMatchObject({ status: 202, body: '[]' });
    // Stopped or not as asked, at the save path as given, the category among the tags.
    expect(recording.scenarios['add-cross-seed']!.exchanges[2]!.request.body).toMatchObject({
      value: { destination: facts.savePath, isBasePath: false, start: true, tags: [facts.crossSeedOptions.category, ...facts.crossSeedOptions.tags] },
    });
    const { client, replay } = replayed(recording, 'add-cross-seed');
    await client.add(torrentBytes(recording, 'folderBeta'), facts.crossSeedOptions);
    expect(replay.remaining()).toBe(0);
  });

  it('logs in again once when its jwt cookie is gone (401), and repeats the call', async () => {
    expect(pathsOf('session-expired')).toEqual(['POST /api/auth/authenticate', 'GET /api/torrents', 'GET /api/torrents', 'POST /api/auth/authenticate', 'GET /api/torrents']);
    await lookupAcrossSessionEnd(recording);
  });

  it("gives a torrent's tracker as Flood keeps it: the registrable domain of its host", async () => {
    const named = (recording.facts as { namedTracker: { hash: string; announce: string } }).namedTracker;
    expect(new URL(named.announce).hostname).toBe('tracker.gamma-tracker.org');
    const { client, replay } = replayed(recording, 'lookup-named-tracker');
    expect((await client.lookup([named.hash])).get(named.hash)?.tracker).toBe('gamma-tracker.org');
    expect(replay.remaining()).toBe(0);
  });

  it("refuses, in Flood's words, an add at a save path outside its --allowedpath", async () => {
    const { client, replay } = replayed(recording, 'add-outside-allowed-path');
    const failure = await failureOf(client.add(torrentBytes(recording, 'singleAlpha'), { savePath: '/var/tmp/not-allowed', paused: true, skipCheck: false }));
    expect(failure).toMatchObject({ kind: 'refused', httpStatus: 403, clientMessage: expect.stringMatching(/Permission denied/) });
    expect(replay.remaining()).toBe(0);
  });

  it('says not-connected, in its words, when Flood is up but its client is not', async () => {
    const { client, replay } = replayed(recording, 'daemon-stopped');
    expect(await failureOf(client.test())).toMatchObject({ kind: 'not-connected', httpStatus: 500, clientMessage: expect.stringMatching(/ECONNREFUSED/) });
    expect(replay.remaining()).toBe(0);
  });
});

describe('recording', () => {
  it('describes a multipart add by its fields and the SHA-1 of each file', async () => {
    const form = new FormData();
    form.append('savepath', '/data');
    form.append('torrents', new Blob([new Uint8Array([1, 2, 3])]), 'a.torrent');
    const request = await describeRequest('http://127.0.0.1:1/api/v2/torrents/add?x=1', { method: 'POST', body: form, credentials: 'include' });
    expect(request).toEqual({
      method: 'POST',
      path: '/api/v2/torrents/add',
      query: { x: '1' },
      credentials: 'include',
      headers: {},
      body: { type: 'multipart', fields: { savepath: ['/data'] }, files: [{ field: 'torrents', filename: 'a.torrent', size: 3, sha1: '7037807198c22a7d2b0807371d763779a84fdfcf' }] },
    });
  });
});
