/**
 * The download rules through the real engine, in Node (issue 17, point 3): crossSeed() against a
 * real qbittorrent-nox, with two test sites behind a loopback proxy (reached as the browser reaches
 * them, by their catalogued host names, through test/clients/proxy-fetch.ts and a cookie jar standing
 * in for the user's sessions):
 *
 * - an M-Team-like API at api.m-team.cc: `POST /api/torrent/genDlToken` answers the download address
 *   only to the right `x-api-key` (401 otherwise), as `{ code, message, data }` (the official client's
 *   DriverMTeam reads it so), and that address serves the .torrent;
 * - an HDCity-like site at hdcity.city: `/t-N` (logged in) shows a bare `download?id=N` and the
 *   user's `download?id=N&cuhash=…`, and only the cuhash link gives the .torrent.
 *
 * Each cross-seed is checked to have sent the right values to the right host, and the API key to
 * no other request, host or path.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../../utils/clients/client-types';
import { crossSeed, crossSeedAll, SitePace, type CrossSeedEnvironment, type CrossSeedResult } from '../../../utils/cross-seed-engine';
import { crossSeedText } from '../../../utils/cross-seed-engine/result-text';
import { startQbittorrent, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';
import { proxiedFetch } from '../../clients/proxy-fetch';
import { addSeeding } from '../../clients/seeding';
import { makeTorrent, TRACKERS, writeFolder, type MadeTorrent } from '../../clients/torrent-content';
import { installI18n } from '../support/i18n';
import { ownClient } from '../../clients/own-client';

const LIVE = { timeout: 120_000 };
const API_KEY = `mt-${randomBytes(16).toString('hex')}`;
const CUHASH = randomBytes(16).toString('hex');
const MT_ID = 901_234;
const HDCITY_ID = 55;
const SIGN = randomBytes(8).toString('hex');

interface Seen {
  host: string;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let daemon: RunningDaemon;
let client: TorrentClient;
let proxy: Server;
let port: number;
const seen: Seen[] = [];
let source: MadeTorrent;
let mteamTorrent: MadeTorrent;
let hdcityTorrent: MadeTorrent;
let session: string;

/** The two test sites, by host: what each answers, as the real ones do (per the sources in SOURCES.md). */
async function answer(request: Request, host: string): Promise<Response> {
  const url = new URL(request.url);
  const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
  const torrent = (made: MadeTorrent) => new Response(new Uint8Array(made.bytes), { headers: { 'content-type': 'application/x-bittorrent' } });
  const html = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
  if (host === 'api.m-team.cc') {
    if (url.pathname === '/api/torrent/genDlToken' && request.method === 'POST') {
      if (request.headers.get('x-api-key') !== API_KEY) return json({ code: '401', message: 'key無效' }, 401);
      const id = (await request.formData()).get('id');
      // The API's limit, and a page in front of it (a challenge, a login), as a site answers them.
      if (id === String(MT_ID + 2)) return new Response('{"code":"429","message":"Too many requests"}', { status: 429, headers: { 'retry-after': '90' } });
      if (id === String(MT_ID + 3)) return html('<form action="takelogin.php"><input type="password" name="password"></form>');
      // Its limit as a public M-Team client records it: HTTP 200, code "1", in its own words.
      if (id === String(MT_ID + 4)) return json({ code: '1', message: '請求過於頻繁', data: null });
      if (id !== String(MT_ID)) return json({ code: '1', message: '種子不存在', data: null });
      return json({ code: '0', message: 'SUCCESS', data: `https://api.m-team.cc/api/rss/dlv2?sign=${SIGN}&tid=${MT_ID}` });
    }
    if (url.pathname === '/api/rss/dlv2' && url.searchParams.get('sign') === SIGN && url.searchParams.get('tid') === String(MT_ID)) return torrent(mteamTorrent);
    return json({ code: '1', message: 'not found' }, 404);
  }
  if (host === 'hdcity.city') {
    const loggedIn = (request.headers.get('cookie') ?? '').includes(`c_secure_pass=${session}`);
    if (url.pathname === '/login.php') return new Response('<p>welcome</p>', { headers: { 'set-cookie': `c_secure_pass=${session}; path=/; HttpOnly` } });
    if (!loggedIn) return new Response('', { status: 302, headers: { location: 'https://hdcity.city/login' } });
    if (url.pathname === `/t-${HDCITY_ID}`) {
      return html(
        `<h1 id="top">${hdcityTorrent.name}</h1><table><tr><td class="rowhead">下载</td><td><a href="download?id=${HDCITY_ID}">${hdcityTorrent.name}.torrent</a>` +
          ` <a href="download?id=${HDCITY_ID}&amp;cuhash=${CUHASH}">下载</a></td></tr></table>`,
      );
    }
    if (url.pathname === '/download' && url.searchParams.get('id') === String(HDCITY_ID)) {
      return url.searchParams.get('cuhash') === CUHASH ? torrent(hdcityTorrent) : html('<h2>错误</h2><table><tr><td class="text">无效的下载链接</td></tr></table>');
    }
  }
  return html('<h1>Not Found</h1>', 404);
}

function siteFetch(): JarFetch {
  return nodeClientFetch({ inner: proxiedFetch(port) });
}

function environment(fetch: typeof globalThis.fetch, apiKeys?: Record<string, string>): CrossSeedEnvironment {
  return { target: { client, skipCheckWhenFilesMatch: false }, sites: apiKeys ? { apiKeys } : {}, fetch, pace: new SitePace(0) };
}

/** Every request that carried the API key, anywhere in it. */
const carryingKey = () => seen.filter((request) => JSON.stringify(request).includes(API_KEY));

beforeAll(async () => {
  installI18n('en');
  session = randomBytes(12).toString('hex');
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const target = new URL(req.url ?? '/');
        const body = Buffer.concat(chunks);
        seen.push({ host: target.hostname, method: req.method ?? 'GET', path: target.pathname + target.search, headers: req.headers, body: body.toString('latin1') });
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
        const request = new Request(target.href, { method: req.method, headers, body: body.length ? body : undefined });
        const response = await answer(request, target.hostname);
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => (out[name] = value));
        res.writeHead(response.status, out);
        res.end(Buffer.from(await response.arrayBuffer()));
      })().catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  port = (proxy.address() as AddressInfo).port;

  daemon = await startQbittorrent();
  client = ownClient(daemon);
  const content = writeFolder(daemon.dataDir, 'Rules.Test.2026.1080p.WEB-DL', [
    { path: 'Rules.Test.2026.1080p.WEB-DL.mkv', size: 96 * 1024 + 123 },
    { path: 'Rules.Test.2026.1080p.WEB-DL.nfo', size: 2048 },
  ]);
  source = makeTorrent(content, { announce: TRACKERS.alpha.announce, source: 'SOURCE' });
  mteamTorrent = makeTorrent(content, { announce: TRACKERS.beta.announce, source: 'MTEAM' });
  hdcityTorrent = makeTorrent(content, { announce: TRACKERS.beta.announce, source: 'HDCITY' });
  await addSeeding(client, source, content);
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
}, 30_000);

describe("M-Team: its API's address, asked with the user's API key", () => {
  it('without a key: names what is missing, and asks no site anything', LIVE, async () => {
    const before = seen.length;
    const result = await crossSeed(source.hash, { sid: 3, torrentId: MT_ID, infoHash: mteamTorrent.hash }, environment(siteFetch()));
    expect(result).toEqual({ kind: 'needs-api-key' });
    expect(crossSeedText(result, 'M-Team')[0]).toMatch(/enter your API key for M-Team/);
    expect(seen.length).toBe(before);
  });

  it('a key the site refuses: said as refused, with its status; nothing downloaded', LIVE, async () => {
    const before = seen.length;
    const result = await crossSeed(source.hash, { sid: 3, torrentId: MT_ID, infoHash: mteamTorrent.hash }, environment(siteFetch(), { '3': 'mt-not-the-users-key' }));
    expect(result).toEqual({ kind: 'needs-api-key', refused: 401 });
    expect(seen.slice(before).map((request) => `${request.method} ${request.host}${request.path}`)).toEqual(['POST api.m-team.cc/api/torrent/genDlToken']);
  });

  it("with the user's key: the token from genDlToken, the .torrent from the address it gave, added; the key only in that one request", LIVE, async () => {
    const before = seen.length;
    const result = await crossSeed(source.hash, { sid: 3, torrentId: MT_ID, infoHash: mteamTorrent.hash }, environment(siteFetch(), { '3': API_KEY }));
    expect(result).toMatchObject({ kind: 'added', hash: mteamTorrent.hash, savePath: daemon.dataDir });
    const asked = seen.slice(before);
    expect(asked.map((request) => `${request.method} ${request.host}${request.path}`)).toEqual([
      'POST api.m-team.cc/api/torrent/genDlToken',
      `GET api.m-team.cc/api/rss/dlv2?sign=${SIGN}&tid=${MT_ID}`,
    ]);
    expect(asked[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(asked[0]!.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(asked[0]!.body).toMatch(new RegExp(`name="id"\\r\\n\\r\\n${MT_ID}\\r\\n`));
    // Of every request any test sent so far, only that one carried the key.
    expect(carryingKey().map((request) => `${request.host}${request.path}`)).toEqual(['api.m-team.cc/api/torrent/genDlToken']);
  });

  it('"Cross-seed all": after the site refused the key, its other torrents are not tried', LIVE, async () => {
    const before = seen.length;
    const candidates = [1, 2, 3].map((n) => ({ sid: 3, torrentId: MT_ID + 10 + n, infoHash: `${n}`.repeat(40) }));
    const results: CrossSeedResult[] = [];
    for await (const event of crossSeedAll(source.hash, candidates, [3], environment(siteFetch(), { '3': 'mt-not-the-users-key' }))) {
      if (event.type === 'result') results.push(event.result);
    }
    expect(results).toEqual([{ kind: 'needs-api-key', refused: 401 }, { kind: 'site-skipped', after: 'needs-api-key' }, { kind: 'site-skipped', after: 'needs-api-key' }]);
    expect(seen.length - before).toBe(1);
  });

  it("the API's limit waits its Retry-After; a page instead of the API's answer is read as the page it is", LIVE, async () => {
    const env = environment(siteFetch(), { '3': API_KEY });
    expect(await crossSeed(source.hash, { sid: 3, torrentId: MT_ID + 2, infoHash: 'ef'.repeat(20) }, env)).toEqual({ kind: 'site-limit', status: 429, retryAfterSeconds: 90 });
    expect(await crossSeed(source.hash, { sid: 3, torrentId: MT_ID + 3, infoHash: 'ef'.repeat(20) }, env)).toEqual({ kind: 'not-logged-in', evidence: 'login-page' });
    expect(await crossSeed(source.hash, { sid: 3, torrentId: MT_ID + 4, infoHash: 'ef'.repeat(20) }, env)).toEqual({ kind: 'site-limit', status: 200, siteWords: '請求過於頻繁' });
  });

  it('an id the API does not know: the site refused, in its own words', LIVE, async () => {
    const result = await crossSeed(source.hash, { sid: 3, torrentId: MT_ID + 1, infoHash: 'ab'.repeat(20) }, environment(siteFetch(), { '3': API_KEY }));
    expect(result).toEqual({ kind: 'site-refused', status: 200, siteWords: '種子不存在' });
  });
});

describe("HDCity: the user's cuhash link, read from the details page", () => {
  it('logged in: /t-N, then download?id=N&cuhash=…, added; the M-Team key never sent there', LIVE, async () => {
    const fetch = siteFetch();
    await fetch('https://hdcity.city/login.php');
    const before = seen.length;
    const result = await crossSeed(source.hash, { sid: 17, torrentId: HDCITY_ID, infoHash: hdcityTorrent.hash }, environment(fetch, { '3': API_KEY }));
    expect(result).toMatchObject({ kind: 'added', hash: hdcityTorrent.hash, savePath: daemon.dataDir });
    const asked = seen.slice(before);
    expect(asked.map((request) => `${request.method} ${request.host}${request.path}`)).toEqual([
      `GET hdcity.city/t-${HDCITY_ID}`,
      `GET hdcity.city/download?id=${HDCITY_ID}&cuhash=${CUHASH}`,
    ]);
    expect(asked.every((request) => String(request.headers.cookie).includes(session))).toBe(true);
    expect(asked.some((request) => JSON.stringify(request).includes(API_KEY))).toBe(false);
  });

  it('logged out: the site sends the user to its login, named as such', LIVE, async () => {
    const result = await crossSeed(source.hash, { sid: 17, torrentId: HDCITY_ID + 1, infoHash: 'cd'.repeat(20) }, environment(siteFetch()));
    expect(result).toMatchObject({ kind: 'not-logged-in', evidence: 'redirect' });
  });
});
