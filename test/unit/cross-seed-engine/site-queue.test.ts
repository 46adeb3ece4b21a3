/**
 * Downloading from a candidate's site: the per-site pace (real time, real loopback servers), and
 * what each kind of answer means — a .torrent, a login page, NexusPHP's redirect to login.php, a
 * download limit (page or 429), a refusal, no answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { downloadFromSite, problemOfPage, readSitePage, SITE_GAP_MS, SitePace, siteWordsOf } from '../../../utils/cross-seed-engine/site-queue';
import { FIXTURE_PAGES_DIR } from '../../e2e/harness/host-router';
import { makeTorrent, TRACKERS } from '../../clients/torrent-content';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

interface Hit {
  path: string;
  at: number;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '', at: performance.now() });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

const torrent = makeTorrent({ savePath: '/unused', name: 'a.bin', files: [{ path: 'a.bin', size: 40_000 }], single: true, seed: 'dl' }, TRACKERS.beta);
const LOGIN_PAGE = readFileSync(join(FIXTURE_PAGES_DIR, 'nexusphp-login.html'), 'utf8');
const html = (res: ServerResponse, body: string, status = 200) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);

describe('SitePace', () => {
  it('keeps at least the gap between the end of one request and the start of the next on a site, in call order, and lets other sites go at once', async () => {
    const pace = new SitePace();
    const events: { site: string; name: string; start: number; end: number }[] = [];
    const task = (site: string, name: string, ms: number) => async () => {
      const start = performance.now();
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push({ site, name, start, end: performance.now() });
      return name;
    };
    const results = await Promise.all([
      pace.run('sid:9', task('sid:9', 'a', 50)),
      pace.run('sid:9', task('sid:9', 'b', 10)),
      pace.run('sid:4', task('sid:4', 'x', 10)),
      pace.run('sid:9', task('sid:9', 'c', 10)),
    ]);
    expect(results).toEqual(['a', 'b', 'x', 'c']);
    const nine = events.filter((event) => event.site === 'sid:9');
    expect(nine.map((event) => event.name)).toEqual(['a', 'b', 'c']);
    for (let index = 1; index < nine.length; index++) expect(nine[index]!.start - nine[index - 1]!.end).toBeGreaterThanOrEqual(SITE_GAP_MS);
    // Another site did not wait for sid:9's queue.
    const x = events.find((event) => event.name === 'x')!;
    expect(x.start).toBeLessThan(nine[1]!.start);
  });

  it('a failed task does not break the queue, and still counts for the gap', async () => {
    const pace = new SitePace(200);
    let failedAt = 0;
    const failed = pace.run('s', async () => {
      failedAt = performance.now();
      throw new Error('boom');
    });
    const next = pace.run('s', async () => performance.now());
    await expect(failed).rejects.toThrow('boom');
    expect((await next) - failedAt).toBeGreaterThanOrEqual(200);
    expect(pace.readyIn('s')).toBeGreaterThan(0);
  });
});

describe('downloadFromSite', () => {
  const request = () => ({ siteKey: 'sid:9', pace: new SitePace(0) });

  it('gives the bytes of a .torrent, with the session the fetch carries', async () => {
    const site = await serve((req, res) => {
      if (req.headers.cookie !== 'c_secure_pass=abc') return void res.writeHead(302, { location: '/login.php' }).end();
      res.writeHead(200, { 'content-type': 'application/x-bittorrent' }).end(torrent.bytes);
    });
    const withSession: typeof fetch = (input, init) => fetch(input, { ...init, headers: { cookie: 'c_secure_pass=abc' } });
    const answer = await downloadFromSite(`${site.url}/download.php?id=1`, { ...request(), fetch: withSession });
    expect(answer.ok && Buffer.from(answer.bytes).equals(torrent.bytes)).toBe(true);
  });

  it("tells apart the site's answers that are not a torrent", async () => {
    const answers: Record<string, (res: ServerResponse) => void> = {
      '/redirect': (res) => res.writeHead(302, { location: '/login.php?returnto=download.php%3Fid%3D1' }).end(),
      '/login': (res) => html(res, LOGIN_PAGE),
      '/limit': (res) => html(res, '<h2>下载失败</h2><table><tr><td class="text">你今天的下载次数已达上限（60 个），请明天再来。</td></tr></table>'),
      '/429': (res) => res.writeHead(429, { 'retry-after': '120' }).end('Too Many Requests'),
      '/403': (res) => html(res, '<h1>Forbidden</h1>', 403),
      '/404': (res) => html(res, '<h1>Not Found</h1>', 404),
      '/denied': (res) => html(res, '<html><head><title>HDSky</title></head><body><h2>错误！</h2><table><tr><td class="text">权限不足！<script>x()</script></td></tr></table></body></html>'),
      '/notice': (res) => res.writeHead(302, { location: '/downloadnotice.php?torrentid=1&type=firsttime' }).end(),
      '/challenge': (res) => res.writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge', server: 'cloudflare' }).end('<title>Just a moment...</title>'),
      '/cf-503': (res) => res.writeHead(503, { 'content-type': 'text/html', server: 'cloudflare' }).end('<title>Just a moment...</title>'),
      '/json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"Unauthenticated."}'),
      '/huge': (res) => res.writeHead(200, { 'content-length': String(20 * 1024 * 1024) }).end(),
    };
    const site = await serve((req, res) => answers[req.url ?? '']!(res));
    const problem = async (path: string) => {
      const answer = await downloadFromSite(`${site.url}${path}`, request());
      return answer.ok ? 'a torrent' : answer.problem;
    };
    expect(await problem('/redirect')).toEqual({ kind: 'not-logged-in', evidence: 'redirect' });
    expect(await problem('/login')).toEqual({ kind: 'not-logged-in', evidence: 'login-page' });
    expect(await problem('/limit')).toEqual({ kind: 'site-limit', status: 200, siteWords: '你今天的下载次数已达上限（60 个），请明天再来。' });
    expect(await problem('/429')).toEqual({ kind: 'site-limit', status: 429, retryAfterSeconds: 120 });
    expect(await problem('/403')).toEqual({ kind: 'site-refused', status: 403 });
    expect(await problem('/404')).toEqual({ kind: 'site-refused', status: 404 });
    expect(await problem('/denied')).toEqual({ kind: 'site-refused', status: 200, siteWords: '权限不足！' });
    expect(await problem('/json')).toEqual({ kind: 'site-refused', status: 200, siteWords: '{"message":"Unauthenticated."}' });
    expect(await problem('/huge')).toEqual({ kind: 'too-large' });
    expect(await problem('/notice')).toEqual({ kind: 'site-notice', evidence: 'redirect' });
    expect(await problem('/challenge')).toEqual({ kind: 'site-challenge', status: 403 });
    expect(await problem('/cf-503')).toEqual({ kind: 'site-challenge', status: 503 });
    // The redirect was not followed.
    expect(site.hits.map((hit) => hit.path)).not.toContain('/login.php?returnto=download.php%3Fid%3D1');
  });

  it('no answer at all is site-unreachable, and so is a site that does not answer in time', async () => {
    const site = await serve(() => undefined);
    servers.pop()!.close();
    expect(await downloadFromSite(`${site.url}/download.php?id=1`, request())).toEqual({ ok: false, problem: { kind: 'site-unreachable' } });
    const silent = await serve(() => undefined); // never answers
    expect(await downloadFromSite(`${silent.url}/download.php?id=1`, { ...request(), timeoutMs: 300 })).toEqual({ ok: false, problem: { kind: 'site-unreachable' } });
    servers.splice(0).forEach((server) => server.closeAllConnections());
  });

  it('readSitePage gives a page as text, and a redirect as not logged in', async () => {
    const site = await serve((req, res) => (req.url === '/details.php?id=1' ? html(res, '<a href="download.php?id=1">下载</a>') : res.writeHead(302, { location: '/login.php' }).end()));
    expect(await readSitePage(`${site.url}/details.php?id=1`, request())).toEqual({ ok: true, html: '<a href="download.php?id=1">下载</a>' });
    expect(await readSitePage(`${site.url}/details.php?id=2`, request())).toEqual({ ok: false, problem: { kind: 'not-logged-in', evidence: 'redirect' } });
  });
});

describe('problemOfPage / siteWordsOf', () => {
  it('reads limit pages in the words trackers use', () => {
    for (const text of ['下载频率过快，请稍后再试', '您已超过今日下载数量限制', 'You have reached your download limit for today', 'Too many downloads, slow down', '下載次數已達上限']) {
      expect(problemOfPage(`<p>${text}</p>`).kind, text).toBe('site-limit');
    }
    expect(problemOfPage('<p>种子不存在</p>').kind).toBe('site-refused');
  });

  it("tells a notice to confirm and a browser check from a login page or a refusal", () => {
    const notice = '<h1>第一次下载提示</h1><table><tr><td class="text">你是第一次在本站下载种子，请先阅读规则。<a href="download.php?id=7&amp;letdown=1">我已阅读</a></td></tr></table>';
    expect(problemOfPage(notice, 200)).toEqual({ kind: 'site-notice', evidence: 'page', siteWords: '你是第一次在本站下载种子，请先阅读规则。 我已阅读' });
    expect(problemOfPage('<title>Just a moment...</title><script>window._cf_chl_opt={}</script>', 403)).toEqual({ kind: 'site-challenge', status: 403 });
    expect(problemOfPage('<html><head><title>DDoS-Guard</title></head></html>').kind).toBe('site-challenge');
    // Cloudflare's bot script in an ordinary login page: still the login page.
    expect(problemOfPage('<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><form action="takelogin.php"><input type="password"></form>').kind).toBe('not-logged-in');
    expect(problemOfPage('<p>种子不存在</p>').kind).toBe('site-refused');
  });

  it('takes the words as plain text, without markup or scripts, and cuts them short', () => {
    expect(siteWordsOf('<td class="text"><b>Hi</b> &amp; <script>alert(1)</script>bye</td>')).toBe('Hi & bye');
    expect(siteWordsOf(`<h1>${'x'.repeat(500)}</h1>`)).toHaveLength(200);
  });
});
