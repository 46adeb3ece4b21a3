/**
 * The UNIT3D test site (test/e2e/support/unit3d-site.ts) over HTTP on loopback, through the e2e
 * router as a browser's proxy: it must answer as UNIT3D v9.2.0's code does, since issue 34's search
 * is written against it. The shapes of /filter and /torrents/{id}, the key's precedence, the 401s,
 * the fixed-window limit, the shared answer cache, and the download (or its redirect). A test clock
 * stands for time: nothing sleeps.
 */
import { describe, expect, it } from 'vitest';
import { infoHashFromTorrent } from '../../../utils/torrent/info-hash';
import { loopbackSites } from './loopback-sites';
import { Unit3dSite, type Unit3dSiteOptions } from '../../e2e/support/unit3d-site';

const sites = loopbackSites();
const { fetch } = sites;
/** A site on its own host with a test clock (`clock.now` moves it). */
const site = (options: Unit3dSiteOptions = {}) => sites.site('unit3d', (host, now) => new Unit3dSite(host, { now, ...options }));

const JSON_ACCEPT = { accept: 'application/json' };
const bearer = (token: string) => ({ ...JSON_ACCEPT, authorization: `Bearer ${token}` });
const ALBUM = { name: 'Reseed Lens Album 2024 FLAC', folder: 'Reseed Lens Album (2024) [FLAC]', files: [{ name: '01 - Opening.flac', size: 180_000 }, { name: 'Scans/cover.jpg', size: 9_000 }] };
const MOVIE = { name: 'Reseed Lens Sample 2024 1080p', folder: null, files: [{ name: 'Reseed.Lens.Sample.2024.1080p.mkv', size: 300_000 }] };

describe('UNIT3D test site: /api/torrents/filter', () => {
  it('finds a torrent by one file’s path inside the root (any case), answering the Meilisearch path’s shape with the user’s own links', async () => {
    const { site: unit3d } = site();
    const album = unit3d.add(ALBUM);
    unit3d.add(MOVIE);
    const response = await fetch(`${unit3d.base}api/torrents/filter?file_name=${encodeURIComponent('scans/COVER.jpg')}&perPage=100`, { headers: bearer(unit3d.user.apiToken) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const raw = await response.text();
    expect(raw).toContain('https:\\/\\/'); // json_encode's escaped slashes
    const body = JSON.parse(raw);
    expect(body.data).toHaveLength(1);
    const [hit] = body.data;
    expect(hit.type).toBe('torrent');
    expect(hit.id).toBe(String(album.id));
    expect(hit.attributes).toMatchObject({
      name: ALBUM.name,
      size: 189_000,
      num_file: 2,
      files: [
        { id: album.files[0]!.id, name: '01 - Opening.flac', size: 180_000 },
        { id: album.files[1]!.id, name: 'Scans/cover.jpg', size: 9_000 },
      ],
      download_link: `https://${unit3d.host}/torrent/download/${album.id}.${unit3d.user.rsskey}`,
      details_link: `https://${unit3d.host}/torrents/${album.id}`,
      magnet_link: null,
      freeleech: '0%',
    });
    expect(hit.attributes.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z$/);
    expect(hit.attributes).not.toHaveProperty('folder');
    expect(hit.attributes).not.toHaveProperty('info_hash');
    expect(body.meta).toEqual({ current_page: 1, per_page: 100, from: 1, to: 1 });
    expect(unit3d.requests.at(-1)).toMatchObject({ authorization: `Bearer ${unit3d.user.apiToken}`, status: 200, userId: unit3d.user.id });

    // The root folder is not part of a file's name: with it, nothing.
    const withRoot = await fetch(`${unit3d.base}api/torrents/filter?file_name=${encodeURIComponent(`${ALBUM.folder}/01 - Opening.flac`)}`, { headers: bearer(unit3d.user.apiToken) });
    expect((await withRoot.json()).data).toEqual([]);
    // A single file's name is info.name.
    const single = await fetch(`${unit3d.base}api/torrents/filter?file_name=Reseed.Lens.Sample.2024.1080p.mkv`, { headers: bearer(unit3d.user.apiToken) });
    expect((await single.json()).data.map((item: { attributes: { name: string } }) => item.attributes.name)).toEqual([MOVIE.name]);
    // TrimStrings: the value is trimmed first, so a name ending in a blank can never be asked for.
    const blank = unit3d.add({ name: 'Blank', folder: 'Blank', files: [{ name: 'ends in a blank ', size: 1 }] });
    const trimmed = await fetch(`${unit3d.base}api/torrents/filter?file_name=${encodeURIComponent('Reseed.Lens.Sample.2024.1080p.mkv ')}`, { headers: bearer(unit3d.user.apiToken) });
    expect((await trimmed.json()).data).toHaveLength(1);
    const unreachable = await fetch(`${unit3d.base}api/torrents/filter?file_name=${encodeURIComponent(blank.files[0]!.name)}`, { headers: bearer(unit3d.user.apiToken) });
    expect((await unreachable.json()).data).toEqual([]);
  });

  it('pages: perPage (max 100) and page; `first` is the asked URL again and the links keep an api_token sent in the query', async () => {
    const { site: unit3d, clock } = site();
    for (let index = 0; index < 5; index++) {
      unit3d.add({ name: `Movie ${index}`, folder: null, files: [{ name: 'movie.mkv', size: 1000 + index }] });
      clock.now += 1000; // bumped_at: newest first
    }
    const asked = `${unit3d.base}api/torrents/filter?perPage=2&file_name=movie.mkv&page=2&api_token=${unit3d.user.apiToken}`;
    const body = await (await fetch(asked, { headers: JSON_ACCEPT })).json();
    expect(body.data.map((item: { attributes: { name: string } }) => item.attributes.name)).toEqual(['Movie 2', 'Movie 1']);
    expect(body.meta).toEqual({ current_page: 2, per_page: 2, from: 3, to: 4 });
    expect(body.links.first).toBe(asked);
    expect(body.links.last).toBeNull();
    expect(body.links.prev).toBe(asked.replace('page=2', 'page=1'));
    expect(body.links.next).toBe(asked.replace('page=2', 'page=3'));
    expect(body.links.self).toBe(`${unit3d.base}api/torrents/filter?api_token=${unit3d.user.apiToken}&file_name=movie.mkv&page=2&perPage=2`);
    const last = await (await fetch(asked.replace('page=2', 'page=3'), { headers: JSON_ACCEPT })).json();
    expect(last.links.next).toBeNull();
    expect(last.meta).toEqual({ current_page: 3, per_page: 2, from: 5, to: 5 });
    const capped = await (await fetch(`${unit3d.base}api/torrents/filter?perPage=500&file_name=movie.mkv`, { headers: bearer(unit3d.user.apiToken) })).json();
    expect(capped.meta.per_page).toBe(100);
    expect(capped.data).toHaveLength(5);
  });

  it('answers 422 for a sort field it does not know and 501 for a filter this test site does not model', async () => {
    const { site: unit3d } = site();
    const bad = await fetch(`${unit3d.base}api/torrents/filter?sortField=info_hash`, { headers: bearer(unit3d.user.apiToken) });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ message: 'The selected sort field is invalid.', errors: { sortField: ['The selected sort field is invalid.'] } });
    const unmodelled = await fetch(`${unit3d.base}api/torrents/filter?tmdbId=603`, { headers: bearer(unit3d.user.apiToken) });
    expect(unmodelled.status).toBe(501);
  });

  it('caches an answer for everyone 300 s (stale to 360 s), each user still getting their own download link', async () => {
    const { site: unit3d, clock } = site();
    const other = unit3d.addUser({ username: 'other' });
    unit3d.add(MOVIE);
    const ask = async (token: string) => (await fetch(`${unit3d.base}api/torrents/filter?file_name=movie.mkv`, { headers: bearer(token) })).json();
    expect((await ask(unit3d.user.apiToken)).data).toEqual([]);
    unit3d.add({ name: 'Newly uploaded', folder: null, files: [{ name: 'movie.mkv', size: 5 }] });
    clock.now += 299_000;
    expect((await ask(other.apiToken)).data).toEqual([]); // another user, the same cached answer
    clock.now += 2_000; // 301 s: stale, served once more while it is made again
    expect((await ask(other.apiToken)).data).toEqual([]);
    const fresh = await ask(other.apiToken);
    expect(fresh.data).toHaveLength(1);
    expect(fresh.data[0].attributes.download_link).toContain(`.${other.rsskey}`);
    expect((await ask(unit3d.user.apiToken)).data[0].attributes.download_link).toContain(`.${unit3d.user.rsskey}`);
  });
});

describe('UNIT3D test site: /api/torrents/{id}', () => {
  it('is not wrapped, has the root folder (null for one file) and files numbered from 1, no magnet_link key; pretty JSON with plain slashes', async () => {
    const { site: unit3d } = site();
    const album = unit3d.add(ALBUM);
    const movie = unit3d.add(MOVIE);
    const response = await fetch(`${unit3d.base}api/torrents/${album.id}`, { headers: bearer(unit3d.user.apiToken) });
    const raw = await response.text();
    expect(raw).toContain('\n    "type": "torrent"');
    expect(raw).toContain(`"download_link": "https://${unit3d.host}/`);
    const body = JSON.parse(raw);
    expect(body).not.toHaveProperty('data');
    expect(body.id).toBe(String(album.id));
    expect(body.attributes).toMatchObject({
      folder: ALBUM.folder,
      num_file: 2,
      size: 189_000,
      files: [
        { index: 1, name: '01 - Opening.flac', size: 180_000 },
        { index: 2, name: 'Scans/cover.jpg', size: 9_000 },
      ],
      tmdb_id: null,
    });
    expect(body.attributes).not.toHaveProperty('magnet_link');
    expect(body.attributes).not.toHaveProperty('info_hash');
    const single = await (await fetch(`${unit3d.base}api/torrents/${movie.id}`, { headers: bearer(unit3d.user.apiToken) })).json();
    expect(single.attributes.folder).toBeNull();
  });

  it('hides a torrent awaiting moderation: 404 with Laravel’s model message', async () => {
    const { site: unit3d } = site();
    const pending = unit3d.add({ ...MOVIE, status: 'pending' });
    const response = await fetch(`${unit3d.base}api/torrents/${pending.id}`, { headers: bearer(unit3d.user.apiToken) });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: `No query results for model [App\\Models\\Torrent] ${pending.id}` });
    const search = await (await fetch(`${unit3d.base}api/torrents/filter?file_name=${MOVIE.files[0]!.name}`, { headers: bearer(unit3d.user.apiToken) })).json();
    expect(search.data).toEqual([]);
  });
});

describe('UNIT3D test site: the key', () => {
  it('a missing or wrong key: 401 JSON when JSON is expected, else 302 to /login; a wrong ?api_token= wins over a right Bearer', async () => {
    const { site: unit3d } = site();
    const filter = `${unit3d.base}api/torrents/filter?file_name=x`;
    const none = await fetch(filter, { headers: JSON_ACCEPT });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ message: 'Unauthenticated.' });
    const page = await fetch(filter, { headers: { authorization: 'Bearer wrong' } });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`https://${unit3d.host}/login`);
    const ajax = await fetch(filter, { headers: { authorization: 'Bearer wrong', 'x-requested-with': 'XMLHttpRequest', accept: '*/*' } });
    expect(ajax.status).toBe(401);
    const queryFirst = await fetch(`${filter}&api_token=stale`, { headers: bearer(unit3d.user.apiToken) });
    expect(queryFirst.status).toBe(401);
    const query = await fetch(`${filter}&api_token=${unit3d.user.apiToken}`, { headers: JSON_ACCEPT });
    expect(query.status).toBe(200);
    const basic = await fetch(filter, { headers: { ...JSON_ACCEPT, authorization: `Basic ${Buffer.from(`me:${unit3d.user.apiToken}`).toString('base64')}` } });
    expect(basic.status).toBe(200);
    expect(unit3d.requests.map((request) => request.authorization)).toEqual([undefined, 'Bearer wrong', 'Bearer wrong', `Bearer ${unit3d.user.apiToken}`, undefined, expect.stringMatching(/^Basic /)]);
  });

  it('a banned user: HTTP 200 with a message and no data', async () => {
    const { site: unit3d } = site({ user: { banned: true } });
    const response = await fetch(`${unit3d.base}api/torrents/filter?file_name=x`, { headers: bearer(unit3d.user.apiToken) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'This account is banned!' });
  });

  it('30 requests in a window of 60 s from the first, per user; then 429 with Retry-After to the window’s end; bad keys cost nothing', async () => {
    const { site: unit3d, clock } = site();
    const other = unit3d.addUser();
    const ask = (token: string) => fetch(`${unit3d.base}api/torrents/filter?file_name=x`, { headers: bearer(token) });
    expect((await ask('wrong')).status).toBe(401);
    for (let index = 0; index < 30; index++) {
      const response = await ask(unit3d.user.apiToken);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(29 - index));
      clock.now += 1000;
    }
    const refused = await ask(unit3d.user.apiToken);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toEqual({ message: 'Too Many Attempts.' });
    expect((await ask(other.apiToken)).status).toBe(200);
    clock.now += 29_000;
    expect((await ask(unit3d.user.apiToken)).status).toBe(429); // still the first window (its last second)
    clock.now += 1_001;
    expect((await ask(unit3d.user.apiToken)).status).toBe(200);
  });
});

describe('UNIT3D test site: the download link', () => {
  it('sends the stored .torrent with the user’s announce: same info-hash, source UNIT3D, 128 hex of entropy; logs an RSS/API download', async () => {
    const { site: unit3d } = site();
    const album = unit3d.add(ALBUM);
    const response = await fetch(unit3d.downloadLink(album.id), { headers: { 'user-agent': 'ReseedLens/1.0' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-bittorrent');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="[UNIT3D]Reseed.Lens.Album.2024.FLAC.torrent"');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(await infoHashFromTorrent(bytes)).toEqual({ hash: album.hash });
    const text = Buffer.from(bytes).toString('latin1');
    expect(album.entropy).toMatch(/^[0-9a-f]{128}$/);
    expect(text).toContain(`7:entropy128:${album.entropy}`);
    expect(text).toContain('6:source6:UNIT3D');
    expect(text).toContain(`8:announce${`https://${unit3d.host}/announce/${unit3d.user.passkey}`.length}:https://${unit3d.host}/announce/${unit3d.user.passkey}`);
    expect(text).toContain(`This torrent was downloaded from UNIT3D. https://${unit3d.host}/torrents/${album.id}`);
    expect(Buffer.from(album.bytes).toString('latin1')).not.toContain('8:announce');
    expect(unit3d.downloads).toEqual([{ at: expect.any(Number), userId: unit3d.user.id, torrentId: album.id, type: 'RSS/API using ReseedLens/1.0' }]);
  });

  it('a ratio under 0.4 redirects to the torrent’s page instead (unless the user seeded it); a wrong rsskey goes to /login', async () => {
    const { site: unit3d } = site({ user: { ratio: 0.2 } });
    const album = unit3d.add(ALBUM);
    const seeded = unit3d.add({ ...MOVIE, seededBy: [unit3d.user.id] });
    const refused = await fetch(unit3d.downloadLink(album.id));
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toBe(`https://${unit3d.host}/torrents/${album.id}`);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(unit3d.downloadLink(seeded.id))).status).toBe(200);
    const wrong = await fetch(`https://${unit3d.host}/torrent/download/${album.id}.0123456789abcdef0123456789abcdef`);
    expect(wrong.status).toBe(302);
    expect(wrong.headers.get('location')).toBe(`https://${unit3d.host}/login`);
    expect(unit3d.downloads.map((download) => download.torrentId)).toEqual([seeded.id]);
  });

  it('30 downloads a minute per user, apart from the API’s 30', async () => {
    const { site: unit3d } = site({ downloadsPerMinute: 2 });
    const movie = unit3d.add(MOVIE);
    expect((await fetch(unit3d.downloadLink(movie.id))).status).toBe(200);
    expect((await fetch(unit3d.downloadLink(movie.id))).status).toBe(200);
    const refused = await fetch(unit3d.downloadLink(movie.id), { headers: JSON_ACCEPT });
    expect(refused.status).toBe(429);
    expect((await fetch(`${unit3d.base}api/torrents/${movie.id}`, { headers: bearer(unit3d.user.apiToken) })).status).toBe(200);
  });
});
