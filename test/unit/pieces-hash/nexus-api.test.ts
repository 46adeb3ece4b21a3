/**
 * askPiecesHash against test NexusPHP sites (test/e2e/support/pieces-hash-site.ts) over HTTP on
 * loopback, through the e2e router as a browser's proxy: every answer shape NexusPHP gives, an
 * untidy site, sites without the API, a moved path, the rate limit. No result, error or console
 * line ever holds the passkey (the sites' error bodies echo it).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  askPiecesHash,
  piecesHashBatches,
  piecesHashEndpoint,
  retryAfterSeconds,
  PIECES_HASH_BATCH,
  type PiecesHashAnswer,
  type PiecesHashQuery,
} from '../../../utils/pieces-hash/nexus-api';
import type { PiecesHashSiteOptions } from '../../e2e/support/pieces-hash-site';
import { usePiecesHashSites } from './support';

const hashOf = (text: string) => createHash('sha1').update(text).digest('hex');
const hashes = (count: number, prefix = 'p') => Array.from({ length: count }, (_, index) => hashOf(`${prefix}-${index}`));

describe('askPiecesHash against test NexusPHP sites', () => {
  /** Every result of this file: the passkeys must be in none, nor in any console line. */
  const sites = usePiecesHashSites({ moreSeenThan: 10 });
  const site = (host: string, options?: PiecesHashSiteOptions) => sites.site(host, options);
  const ask = async (query: Partial<PiecesHashQuery> & { endpoint: string; passkey: string; hashes: readonly string[] }) => {
    const result = await askPiecesHash({ fetch: sites.fetch, ...query });
    sites.seen.push(result);
    return result;
  };

  it('ret 0: the asked hashes the site holds, with its ids; the request is a cookie-less JSON POST with the passkey in the body', async () => {
    const nexus = site('nexus-a.test');
    const asked = hashes(5);
    nexus.list(asked[0]!, 101);
    nexus.list(asked[3]!, 4242);
    nexus.list(hashOf('not asked'), 7);
    const result = await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: asked });
    expect(result).toEqual({ kind: 'found', ids: new Map([[asked[0]!, 101], [asked[3]!, 4242]]), skipped: 0 });
    const request = sites.router.requestsTo('nexus-a.test').at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://nexus-a.test/api/pieces-hash');
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers.cookie).toBeUndefined();
    expect(JSON.parse(request.body)).toEqual({ passkey: nexus.passkey, pieces_hash: asked });
  });

  it('no hits: data [] (PHP’s empty array) or {} is an empty map', async () => {
    const nexus = site('nexus-empty.test');
    expect(await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(3) })).toEqual({ kind: 'found', ids: new Map(), skipped: 0 });
    nexus.rewrite = (answer) => ({ ...answer, data: {} });
    expect(await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(3) })).toEqual({ kind: 'found', ids: new Map(), skipped: 0 });
  });

  it('an untidy answer: entries not asked or without a positive safe-integer id are skipped alone; digit strings and capitals are read', async () => {
    const nexus = site('nexus-untidy.test');
    const asked = hashes(8, 'untidy');
    nexus.rewrite = () => ({
      ret: '0',
      msg: 'ok',
      data: {
        [asked[0]!]: 5,
        [asked[1]!.toUpperCase()]: 6,
        [asked[2]!]: '77',
        [asked[3]!]: 0,
        [asked[4]!]: -3,
        [asked[5]!]: 1.5,
        [asked[6]!]: 2 ** 60,
        [asked[7]!]: { id: 9 },
        [hashOf('never asked')]: 10,
        'not-a-hash': 11,
      },
    });
    expect(await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: asked })).toEqual({
      kind: 'found',
      ids: new Map([[asked[0]!, 5], [asked[1]!, 6], [asked[2]!, 77]]),
      skipped: 7,
    });
  });

  it('more than the site takes: ret -1 in an HTTP 200 is too-many (the site here takes 50); the client itself sends no more than 100', async () => {
    const nexus = site('nexus-small.test', { maxHashes: 50 });
    expect(await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(51) })).toEqual({ kind: 'too-many' });
    const before = nexus.requests.length;
    expect(await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(PIECES_HASH_BATCH + 1) })).toEqual({ kind: 'bad-request', why: 'too-many-hashes' });
    expect(nexus.requests.length).toBe(before); // nothing sent
    // The real cap: 101 straight to a stock site is ret -1 with HTTP 200, its body echoing the passkey.
    const stock = site('nexus-stock.test');
    const raw = await sites.fetch(stock.endpoint, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ passkey: stock.passkey, pieces_hash: hashes(101) }) });
    expect(raw.status).toBe(200);
    const text = await raw.text();
    expect(JSON.parse(text)).toMatchObject({ ret: -1 });
    expect(text).toContain(stock.passkey);
  });

  it('a wrong passkey: 401 (its body echoes the passkey sent) is wrong-passkey; without the JSON accept the site redirects to login.php', async () => {
    const nexus = site('nexus-401.test');
    const wrong = 'f'.repeat(32);
    expect(await ask({ endpoint: nexus.endpoint, passkey: wrong, hashes: hashes(2) })).toEqual({ kind: 'wrong-passkey' });
    const raw = await sites.fetch(nexus.endpoint, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ passkey: wrong, pieces_hash: hashes(2) }) });
    expect(raw.status).toBe(401);
    expect(await raw.text()).toContain(wrong);
    const html = await sites.fetch(nexus.endpoint, { method: 'POST', headers: { accept: 'text/html' }, body: new URLSearchParams({ passkey: wrong, 'pieces_hash[]': hashes(1)[0]! }), redirect: 'manual' });
    expect(html.status).toBe(302);
    expect(html.headers.get('location')).toBe('https://nexus-401.test/login.php');
  });

  it('60 requests a minute, then 429 with Retry-After (the body echoing the passkey): rate-limited with its seconds', async () => {
    const nexus = site('nexus-busy.test');
    for (let index = 0; index < 60; index++) {
      expect((await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(1, `busy-${index}`) })).kind).toBe('found');
    }
    const limited = await ask({ endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(1) });
    expect(limited).toMatchObject({ kind: 'rate-limited' });
    const seconds = (limited as { retryAfterSeconds?: number }).retryAfterSeconds!;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(nexus.requests.at(-1)!.status).toBe(429);
  });

  it('a moved path (keepfrds’ /api/torrents/pieces-hash): found there, and the default path on that site is no-api', async () => {
    const keepfrds = site('pt.keepfrds.test', { path: '/api/torrents/pieces-hash' });
    const asked = hashes(2, 'frds');
    keepfrds.list(asked[1]!, 9);
    const moved = piecesHashEndpoint(keepfrds.base, '/api/torrents/pieces-hash')!;
    expect(moved).toBe('https://pt.keepfrds.test/api/torrents/pieces-hash');
    expect(await ask({ endpoint: moved, passkey: keepfrds.passkey, hashes: asked })).toEqual({ kind: 'found', ids: new Map([[asked[1]!, 9]]), skipped: 0 });
    expect(await ask({ endpoint: piecesHashEndpoint(keepfrds.base)!, passkey: keepfrds.passkey, hashes: asked })).toEqual({ kind: 'no-api', why: 'not-found' });
  });

  it('a site without the API: its 404 page, a home page for everything, a redirect to login.php — each is no-api', async () => {
    const old = site('nexus-old.test', { withoutApi: 'not-found' });
    const query = { endpoint: old.endpoint, passkey: old.passkey, hashes: hashes(2) };
    expect(await ask(query)).toEqual({ kind: 'no-api', why: 'not-found' });
    old.withoutApi = 'home-page';
    expect(await ask(query)).toEqual({ kind: 'no-api', why: 'not-json' });
    old.withoutApi = 'login-redirect';
    expect(await ask(query)).toEqual({ kind: 'no-api', why: 'redirect' });
    old.withoutApi = undefined;
    old.rewrite = () => ({ status: 'ok', data: {} });
    expect(await ask(query)).toEqual({ kind: 'no-api', why: 'no-ret' });
  });

  it('another ret, a 5xx or 403, and an answer past the size cap: said by kind and number only', async () => {
    const nexus = site('nexus-odd.test');
    const query = { endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(2) };
    nexus.rewrite = (answer) => ({ ...answer, ret: 3, msg: `passkey ${nexus.passkey} is banned` });
    expect(await ask(query)).toEqual({ kind: 'refused', ret: 3, status: 200 });
    nexus.rewrite = (answer) => ({ ...answer, msg: 'x'.repeat(300_000) });
    expect(await ask(query)).toEqual({ kind: 'site-error', status: 200, tooLarge: true });
    nexus.rewrite = undefined;
    nexus.failWith = 500;
    expect(await ask(query)).toEqual({ kind: 'site-error', status: 500 });
    nexus.failWith = 403;
    expect(await ask(query)).toEqual({ kind: 'site-error', status: 403 });
  });

  it('unreachable: nothing listening, or no answer within the timeout', async () => {
    const closed = await ask({ endpoint: 'http://127.0.0.1:9/api/pieces-hash', passkey: 'a'.repeat(32), hashes: hashes(1), fetch: globalThis.fetch });
    expect(closed).toEqual({ kind: 'unreachable', why: 'network' });
    const slow = site('nexus-slow.test');
    slow.hang = true;
    expect(await ask({ endpoint: slow.endpoint, passkey: slow.passkey, hashes: hashes(1), timeoutMs: 500 })).toEqual({ kind: 'unreachable', why: 'timeout' });
    slow.release();
  });

  it('nothing is sent for a passkey, hashes or an address the API does not take', async () => {
    const nexus = site('nexus-strict.test');
    const before = sites.router.requestsTo('nexus-strict.test').length;
    const good = { endpoint: nexus.endpoint, passkey: nexus.passkey, hashes: hashes(1) };
    expect(await ask({ ...good, passkey: 'short' })).toEqual({ kind: 'bad-request', why: 'passkey' });
    expect(await ask({ ...good, passkey: `${nexus.passkey.slice(1)}&` })).toEqual({ kind: 'bad-request', why: 'passkey' });
    expect(await ask({ ...good, hashes: [] })).toEqual({ kind: 'bad-request', why: 'hashes' });
    expect(await ask({ ...good, hashes: [hashes(1)[0]!.toUpperCase()] })).toEqual({ kind: 'bad-request', why: 'hashes' });
    expect(await ask({ ...good, endpoint: 'ftp://nexus-strict.test/api/pieces-hash' })).toEqual({ kind: 'bad-request', why: 'endpoint' });
    expect(await ask({ ...good, endpoint: 'https://user:pw@nexus-strict.test/api/pieces-hash' })).toEqual({ kind: 'bad-request', why: 'endpoint' });
    expect(sites.router.requestsTo('nexus-strict.test').length).toBe(before);
  });
});

describe('pieces-hash helpers', () => {
  it('batches of 100, duplicates once, in order', () => {
    const all = hashes(250);
    const batches = piecesHashBatches([...all, ...all.slice(0, 10)]);
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(batches.flat()).toEqual(all);
    expect(piecesHashBatches([])).toEqual([]);
  });

  it('the endpoint: a path on the site or an absolute http(s) address (piggo’s api host)', () => {
    expect(piecesHashEndpoint('https://pt.example/')).toBe('https://pt.example/api/pieces-hash');
    expect(piecesHashEndpoint('https://pt.example/', '/npapi/pieces-hash')).toBe('https://pt.example/npapi/pieces-hash');
    expect(piecesHashEndpoint('https://piggo.me/', 'https://api.piggo.me/api/pieces-hash')).toBe('https://api.piggo.me/api/pieces-hash');
    expect(piecesHashEndpoint('https://pt.example/', 'javascript:alert(1)')).toBeNull();
    expect(piecesHashEndpoint('https://pt.example/', '  ')).toBe('https://pt.example/api/pieces-hash');
  });

  it('Retry-After: seconds or an HTTP date, bounded', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds('99999999')).toBe(86_400);
    expect(retryAfterSeconds(new Date(1_000_000 + 42_000).toUTCString(), 1_000_000)).toBe(42);
  });
});
