/**
 * What we send where no daemon of that version runs here (qBittorrent 5.x, Transmission 4.x):
 * request shapes built from each client's documentation and source, checked without answers.
 * A capturing fetch keeps each request and then fails like an unreachable client, so no answer
 * is ever made up.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { delugeAddOptions } from '../../../utils/clients/deluge';
import { createClient, isQbittorrentApiKey } from '../../../utils/clients/index';
import { qbittorrentAddForm, qbittorrentState } from '../../../utils/clients/qbittorrent';
import { transmissionAddArguments, transmissionLabels, transmissionState } from '../../../utils/clients/transmission';
import { describeRequest, type RecordedRequest } from '../../clients/recording';
import { failureOf } from './support';

function capturingFetch(): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push(await describeRequest(input, init));
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const API_KEY = 'qbt_AbCdEfGhIjKlMnOpQrStUvWxYz12';

describe('qBittorrent 5.2+ API key', () => {
  it('is recognised by its documented form only', () => {
    expect(API_KEY).toHaveLength(32);
    expect(isQbittorrentApiKey(API_KEY)).toBe(true);
    expect(isQbittorrentApiKey('qbt_short')).toBe(false);
    expect(isQbittorrentApiKey(`${API_KEY}x`)).toBe(false);
    expect(isQbittorrentApiKey('qbt_AbCdEfGhIjKlMnOpQrStUvWx-z12')).toBe(false);
    expect(isQbittorrentApiKey('adminadmin')).toBe(false);
  });

  it('goes as a Bearer header, without login and without cookies', async () => {
    const { fetch, requests } = capturingFetch();
    const client = createClient({ type: 'qbittorrent', url: 'http://nas.local:8080/', username: 'ignored', password: API_KEY }, { fetch });
    expect((await failureOf(client.lookup(['a'.repeat(40)]))).kind).toBe('unreachable');
    expect(requests).toEqual([
      {
        method: 'GET',
        path: '/api/v2/torrents/info',
        query: { hashes: 'a'.repeat(40) },
        credentials: 'omit',
        headers: { authorization: `Bearer ${API_KEY}` },
      },
    ]);
  });

  it('test() asks the version directly (an API key cannot log in)', async () => {
    const { fetch, requests } = capturingFetch();
    const client = createClient({ type: 'qbittorrent', url: 'https://seedbox.example/qbt', username: '', password: API_KEY }, { fetch });
    await failureOf(client.test());
    expect(requests.map((request) => `${request.method} ${request.path} ${request.headers.authorization}`)).toEqual([`GET /qbt/api/v2/app/version Bearer ${API_KEY}`]);
  });

  it('a password that is not a key logs in first, with a form', async () => {
    const { fetch, requests } = capturingFetch();
    await failureOf(createClient({ type: 'qbittorrent', url: 'http://127.0.0.1:8080', username: 'admin', password: 'qbt_short' }, { fetch }).list());
    // Checked without cookies first: a live session would make any password pass.
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/api/v2/auth/login', credentials: 'omit', body: { type: 'form', fields: { username: 'admin', password: 'qbt_short' } } });
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe('qBittorrent add form (4.5 through 5.x)', () => {
  const torrent = new Uint8Array([100, 101]);

  it('names "paused" and "skip check" both ways: 5.0 reads stopped, API 2.16 reads seedMode, older ones the others', async () => {
    const request = await describeRequest('http://x/api/v2/torrents/add', {
      method: 'POST',
      body: qbittorrentAddForm(torrent, 'f'.repeat(40), { savePath: 'D:\\Media', paused: true, skipCheck: true, tags: [' a ', '', 'b'], category: 'movies' }),
    });
    expect(request.body).toEqual({
      type: 'multipart',
      fields: {
        savepath: ['D:\\Media'],
        autoTMM: ['false'],
        paused: ['true'],
        stopped: ['true'],
        skip_checking: ['true'],
        seedMode: ['true'],
        contentLayout: ['Original'],
        category: ['movies'],
        tags: ['a,b'],
      },
      files: [{ field: 'torrents', filename: `${'f'.repeat(40)}.torrent`, size: 2, sha1: createHash('sha1').update(torrent).digest('hex') }],
    });
  });

  it("leaves the layout to the client's default when asked to", async () => {
    const form = qbittorrentAddForm(torrent, 'f'.repeat(40), { savePath: '/d', paused: false, skipCheck: false, contentLayoutOriginal: false });
    expect(form.has('contentLayout')).toBe(false);
    expect(form.has('category')).toBe(false);
    expect(form.has('tags')).toBe(false);
  });

  it('reads the 5.0 state names (stoppedUP, stoppedDL) as 4.x ones', () => {
    expect(qbittorrentState('stoppedUP')).toBe('paused');
    expect(qbittorrentState('pausedUP')).toBe('paused');
    expect(qbittorrentState('stoppedDL')).toBe('paused');
    expect(qbittorrentState('stalledUP')).toBe('seeding');
    expect(qbittorrentState('forcedMetaDL')).toBe('downloading');
    expect(qbittorrentState('missingFiles')).toBe('missing');
    expect(qbittorrentState('somethingNew')).toBe('unknown');
  });
});

describe('Transmission requests (3.00 and 4.x)', () => {
  it('sends the file as base64 metainfo with download-dir, paused and labels', () => {
    const bytes = new Uint8Array(70_000).map((_, index) => index % 251);
    const args = transmissionAddArguments(bytes, { savePath: '/srv/data', paused: true, skipCheck: true, category: 'cross-seed', tags: ['a,b', 'cross-seed'] });
    expect(args).toEqual({ metainfo: Buffer.from(bytes).toString('base64'), 'download-dir': '/srv/data', paused: true, labels: ['cross-seed', 'a b'] });
  });

  it('sends no labels when there are none', () => {
    expect(transmissionLabels({ savePath: '/', paused: false, skipCheck: false })).toEqual([]);
    expect(transmissionAddArguments(new Uint8Array([1]), { savePath: '/', paused: false, skipCheck: false })).not.toHaveProperty('labels');
  });

  it('posts to /transmission/rpc whatever address form the user typed', async () => {
    for (const url of ['http://nas:9091', 'http://nas:9091/', 'http://nas:9091/transmission/web/', 'http://nas:9091/transmission/rpc']) {
      const { fetch, requests } = capturingFetch();
      await failureOf(createClient({ type: 'transmission', url, username: '', password: '' }, { fetch }).list());
      expect(requests[0]?.path, url).toBe('/transmission/rpc');
      expect(requests[0]?.headers.authorization, 'no credentials, no Basic auth').toBeUndefined();
    }
  });

  it('asks torrent-get by hash, in the table format', async () => {
    const { fetch, requests } = capturingFetch();
    await failureOf(createClient({ type: 'transmission', url: 'http://nas:9091', username: 'u', password: 'p' }, { fetch }).lookup(['B'.repeat(40)]));
    expect(requests[0]?.body).toMatchObject({ type: 'json', value: { method: 'torrent-get', arguments: { ids: ['b'.repeat(40)], format: 'table' } } });
  });

  it('maps status numbers, with a local error first', () => {
    expect(transmissionState(6, 0, 1, false)).toBe('seeding');
    expect(transmissionState(0, 0, 1, false)).toBe('paused');
    expect(transmissionState(2, 0, 0.5, false)).toBe('checking');
    expect(transmissionState(4, 0, 0.5, true)).toBe('stalled');
    expect(transmissionState(5, 0, 1, false)).toBe('queued');
    expect(transmissionState(6, 2, 1, false)).toBe('seeding'); // a tracker error does not stop seeding
    expect(transmissionState(6, 3, 1, false)).toBe('error');
  });
});

describe('Deluge requests', () => {
  it('maps add options to download_location, add_paused and seed_mode', () => {
    expect(delugeAddOptions({ savePath: '/d', paused: true, skipCheck: false, category: 'x', tags: ['y'] })).toEqual({ download_location: '/d', add_paused: true, seed_mode: false });
  });

  it('posts JSON-RPC to /json under the web UI address', async () => {
    const { fetch, requests } = capturingFetch();
    await failureOf(createClient({ type: 'deluge', url: 'https://box.example/deluge/', username: '', password: 'p' }, { fetch }).list());
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/deluge/json', credentials: 'include', body: { type: 'json', value: { method: 'auth.login', params: ['p'] } } });
  });
});

describe('nothing is sent for what cannot be right', () => {
  it('a hash that is not 40 hex', async () => {
    const { fetch, requests } = capturingFetch();
    const client = createClient({ type: 'qbittorrent', url: 'http://127.0.0.1:8080', username: 'a', password: 'b' }, { fetch });
    expect((await failureOf(client.lookup(['abc']))).kind).toBe('bad-input');
    expect((await failureOf(client.files('g'.repeat(40)))).kind).toBe('bad-input');
    expect(requests).toEqual([]);
  });

  it('bytes that are not a .torrent', async () => {
    for (const type of ['qbittorrent', 'transmission', 'deluge'] as const) {
      const { fetch, requests } = capturingFetch();
      const client = createClient({ type, url: 'http://127.0.0.1:8080', username: 'a', password: 'b' }, { fetch });
      const failure = await failureOf(client.add(new TextEncoder().encode('<html>login</html>'), { savePath: '/d', paused: false, skipCheck: false }));
      expect(failure.kind, type).toBe('bad-input');
      expect(requests, type).toEqual([]);
    }
  });

  it('settings that do not validate', () => {
    for (const config of [
      { type: 'utorrent', url: 'http://127.0.0.1', username: '', password: '' },
      { type: 'qbittorrent', url: 'ftp://127.0.0.1', username: '', password: '' },
      { type: 'qbittorrent', url: 'http://admin:secret@127.0.0.1:8080', username: '', password: '' },
      { type: 'qbittorrent', url: 'http://127.0.0.1:8080/?x=1', username: '', password: '' },
      { type: 'qbittorrent', url: 'not a url', username: '', password: '' },
    ]) {
      expect(() => createClient(config), JSON.stringify(config)).toThrow(expect.objectContaining({ kind: 'bad-config' }));
    }
  });
});
