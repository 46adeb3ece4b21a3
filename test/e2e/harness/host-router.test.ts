/** The test router on its own, driven by plain Node HTTP clients acting as a browser would. */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../service/server.ts';
import { fixture, fixturePages, startRouter, type Router } from './host-router.ts';

interface Answer {
  status: number;
  type: string | undefined;
  body: string;
}

/** Sends an absolute-form request to the router, the way a browser talks to its HTTP proxy. */
function viaProxy(router: Router, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: router.port, method: init.method ?? 'GET', path: target.href, headers: { host: target.host, ...init.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
  });
}

let router: Router | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  await router?.close();
  router = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('test router', () => {
  it('serves static pages by host, path and query, and records each request', async () => {
    router = await startRouter({
      hosts: {
        'hdsky.me': {
          '/details.php?id=1': '<title>one</title>',
          '/details.php': { body: '{"any":true}', type: 'application/json' },
        },
      },
    });
    const exact = await viaProxy(router, 'http://hdsky.me/details.php?id=1');
    expect(exact).toMatchObject({ status: 200, body: '<title>one</title>' });
    expect(exact.type).toMatch(/^text\/html/);
    expect(await viaProxy(router, 'http://hdsky.me/details.php?id=2')).toMatchObject({ status: 200, body: '{"any":true}', type: 'application/json' });
    expect((await viaProxy(router, 'http://hdsky.me/torrents.php')).status).toBe(404);

    expect(router.requests.map((r) => [r.seq, r.method, r.url, r.host, r.path, r.via, r.route, r.status])).toEqual([
      [1, 'GET', 'http://hdsky.me/details.php?id=1', 'hdsky.me', '/details.php?id=1', 'proxy', 'hdsky.me', 200],
      [2, 'GET', 'http://hdsky.me/details.php?id=2', 'hdsky.me', '/details.php?id=2', 'proxy', 'hdsky.me', 200],
      [3, 'GET', 'http://hdsky.me/torrents.php', 'hdsky.me', '/torrents.php', 'proxy', 'hdsky.me', 404],
    ]);
  });

  it('reads fixture files when requested and reports a missing one as 500', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-fixture-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'details.html'), '<h1>from file</h1>');
    router = await startRouter({
      hosts: {
        'hdsky.me': fixturePages({ '/details.php?id=1': join(dir, 'details.html') }),
        'ourbits.club': { '/x': fixture(join(dir, 'missing.html')) },
      },
    });
    const page = await viaProxy(router, 'http://hdsky.me/details.php?id=1');
    expect(page).toMatchObject({ status: 200, body: '<h1>from file</h1>' });
    expect(page.type).toMatch(/^text\/html/);
    const missing = await viaProxy(router, 'http://ourbits.club/x');
    expect(missing.status).toBe(500);
    expect(missing.body).toContain('missing.html');
  });

  it('answers unknown hosts with 502 and still records them', async () => {
    router = await startRouter({ hosts: { 'hdsky.me': {} } });
    const answer = await viaProxy(router, 'http://tracker.invalid/index.php', { headers: { token: 'secret' } });
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('tracker.invalid');
    expect(router.requestsTo('tracker.invalid')).toEqual([expect.objectContaining({ route: 'unrouted', status: 502 })]);
    expect(router.hostsWithHeader('Token')).toEqual(['tracker.invalid']);
  });

  it('delegates to a handler with an origin-form URL and a replayed body, recording the body too', async () => {
    const seen: { url?: string; body?: string; method?: string; token?: string } = {};
    router = await startRouter({
      hosts: {
        '2025.iyuu.cn': async (req, res) => {
          seen.url = req.url;
          seen.method = req.method;
          seen.token = req.headers.token as string;
          seen.body = await readAll(req);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"code":0}');
        },
        'hdsky.me': { '/': 'home' },
      },
    });
    const form = 'hash=%5B%22abc%22%5D&sha1=def';
    const answer = await viaProxy(router, 'http://2025.iyuu.cn/reseed/index/index', {
      method: 'POST',
      headers: { token: 'IYUU1T2', 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    await viaProxy(router, 'http://hdsky.me/');
    expect(answer).toMatchObject({ status: 200, body: '{"code":0}' });
    expect(seen).toEqual({ url: '/reseed/index/index', method: 'POST', token: 'IYUU1T2', body: form });
    expect(router.requestsTo('2025.iyuu.cn')[0]).toMatchObject({ method: 'POST', body: form, status: 200 });
    expect(router.hostsWithHeader('token')).toEqual(['2025.iyuu.cn']);
  });

  it("hands requests for the service host to the reference service's handle, body and headers intact", async () => {
    const service = await startReferenceService();
    cleanups.push(() => service.close());
    router = await startRouter({ hosts: { '2025.iyuu.cn': service.handle } });
    const form = 'sid_sha1=abc&timestamp=1&version=8.0.0&hash=%5B%5D&sha1=x';
    const answer = await viaProxy(router, 'http://2025.iyuu.cn/reseed/index/index', {
      method: 'POST',
      headers: { token: 'demo-token', 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(answer.type).toMatch(/json/);
    expect(() => JSON.parse(answer.body) as unknown).not.toThrow();
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]).toMatchObject({ method: 'POST', path: '/reseed/index/index', body: form });
    expect(service.requests[0]?.headers.token).toBe('demo-token');
    expect(router.requestsTo('2025.iyuu.cn')[0]).toMatchObject({ body: form, status: answer.status });
  });

  it('turns a throwing handler into a 500 instead of a hung request', async () => {
    router = await startRouter({
      hosts: {
        'hdsky.me': () => {
          throw new Error('handler bug');
        },
      },
    });
    const answer = await viaProxy(router, 'http://hdsky.me/');
    expect(answer.status).toBe(500);
    expect(answer.body).toContain('handler bug');
  });

  it('uses the fallback for unlisted hosts, and routes can change while running', async () => {
    router = await startRouter({
      fallback: (_req, res, recorded) => {
        res.end(`fallback for ${recorded.host}`);
      },
    });
    expect((await viaProxy(router, 'http://a.example/')).body).toBe('fallback for a.example');
    router.setHost('a.example', { '/': 'now static' });
    expect((await viaProxy(router, 'http://a.example/')).body).toBe('now static');
    router.removeHost('a.example');
    expect((await viaProxy(router, 'http://a.example/')).body).toBe('fallback for a.example');
    expect(router.requests.map((r) => r.route)).toEqual(['fallback', 'a.example', 'fallback']);
    router.clear();
    expect(router.requests).toEqual([]);
  });

  it('refuses HTTPS tunnels with 502 and records the CONNECT', async () => {
    router = await startRouter({ hosts: { 'hdsky.me': { '/': 'x' } } });
    const port = router.port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'CONNECT', path: 'hdsky.me:443' });
      req.on('connect', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(502);
    expect(router.requests).toEqual([expect.objectContaining({ method: 'CONNECT', url: 'https://hdsky.me:443', host: 'hdsky.me', via: 'connect', status: 502 })]);
  });

  it('passes loopback requests through to the real local server', async () => {
    const local: Server = createServer((req, res) => {
      res.end(`local saw ${req.method} ${req.url}`);
    });
    await new Promise<void>((ready) => local.listen(0, '127.0.0.1', ready));
    cleanups.push(() => new Promise((done) => local.close(done)));
    const localPort = (local.address() as AddressInfo).port;
    router = await startRouter();
    const answer = await viaProxy(router, `http://127.0.0.1:${localPort}/api?x=1`);
    expect(answer).toMatchObject({ status: 200, body: 'local saw GET /api?x=1' });
    expect(router.requests[0]).toMatchObject({ host: '127.0.0.1', route: 'loopback', status: 200 });

    const refusing = await startRouter({ forwardLoopback: false });
    cleanups.push(() => refusing.close());
    expect((await viaProxy(refusing, `http://127.0.0.1:${localPort}/api`)).status).toBe(502);
  });

  it('closes the connection without an answer when nothing listens on the loopback port, as the browser would see it without a proxy', async () => {
    const closed: Server = createServer();
    await new Promise<void>((ready) => closed.listen(0, '127.0.0.1', ready));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    router = await startRouter();
    await expect(viaProxy(router, `http://127.0.0.1:${deadPort}/api/v2/auth/login`)).rejects.toThrow();
    expect(router.requests[0]).toMatchObject({ host: '127.0.0.1', route: 'loopback' });
  });

  it('waits for a request that has not happened yet, and explains a timeout', async () => {
    router = await startRouter({ hosts: { 'hdsky.me': { '/': 'x' } } });
    const waiting = router.waitForRequest((r) => r.host === 'hdsky.me', 5_000);
    await viaProxy(router, 'http://hdsky.me/');
    await expect(waiting).resolves.toMatchObject({ url: 'http://hdsky.me/' });
    // Already-seen requests count as well.
    await expect(router.waitForRequest((r) => r.path === '/')).resolves.toMatchObject({ seq: 1 });
    await expect(router.waitForRequest((r) => r.host === 'never.example', 100)).rejects.toThrow(/GET http:\/\/hdsky\.me\//);
  });

  it('closes promptly even with a kept-alive client connection', async () => {
    router = await startRouter({ hosts: { 'hdsky.me': { '/': 'x' } } });
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    await new Promise<void>((done) => {
      request({ host: '127.0.0.1', port: router!.port, path: 'http://hdsky.me/', headers: { host: 'hdsky.me' }, agent }, (res) => {
        res.resume();
        res.on('end', done);
      }).end();
    });
    const started = Date.now();
    await router.close();
    router = undefined;
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
