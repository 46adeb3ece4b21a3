/**
 * The e2e "internet": one loopback HTTP server that the browser uses as its HTTP proxy.
 *
 * A browser sends proxied plain-HTTP requests in absolute form (`GET http://hdsky.me/details.php?id=1`),
 * so one server can answer for any number of real host names (trackers, the lookup service) without
 * DNS tricks or network access. Every request is recorded before it is answered, so a test can
 * prove what the extension sent where (e.g. that the `Token` header only went to the service host).
 *
 * HTTPS is not intercepted: `CONNECT` is refused with 502 and recorded, which makes an unexpected
 * https:// call visible instead of hanging.
 */
import { createServer, request as httpRequest, IncomingMessage, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where tracker page fixtures live; `fixture('x.html')` resolves against it. */
export const FIXTURE_PAGES_DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../fixtures/pages');

export interface RecordedRequest {
  /** Order of arrival, from 1. */
  seq: number;
  method: string;
  /** Absolute URL, e.g. `http://hdsky.me/details.php?id=1`; for CONNECT `https://host:port`. */
  url: string;
  /** Host name without port, lower case. */
  host: string;
  /** Path plus query, e.g. `/details.php?id=1`. */
  path: string;
  /** Header names in lower case (Node's convention). */
  headers: IncomingHttpHeaders;
  /** Request body as UTF-8 text ('' when none). */
  body: string;
  /** `proxy` = absolute-form request, `direct` = origin-form (someone called the router itself), `connect` = refused tunnel. */
  via: 'proxy' | 'direct' | 'connect';
  /** Status the router answered with; undefined while the handler is still running. */
  status?: number;
  /** Which route answered: a host name, 'fallback', 'loopback' (passed through) or 'unrouted'. */
  route: string;
  time: number;
}

/**
 * Answers one request. `req.url` is rewritten to origin form (`/path?query`) so handlers written
 * for an ordinary server (such as the reference service's `handle`) work unchanged; the body is
 * replayed, so the handler may read it although the router already recorded it.
 */
export type HostHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => unknown;

/** A canned answer: an HTML string, a file, or a full response. */
export type PageSpec =
  | string
  | { file: string; status?: number; type?: string; headers?: Record<string, string> }
  | { body: string | Uint8Array; status?: number; type?: string; headers?: Record<string, string> };

/** Keys are `/path?query` (exact match wins) or `/path` (matches any query). */
export type StaticPages = Record<string, PageSpec>;

export interface RouterOptions {
  /** Host name (no port, e.g. `hdsky.me`) → handler or static pages. */
  hosts?: Record<string, HostHandler | StaticPages>;
  /** For hosts not listed; without it unknown hosts get 502. */
  fallback?: HostHandler;
  /**
   * Proxied requests to 127.0.0.1/localhost/[::1] that no route claims are passed through to that
   * loopback address (default true), so a test may also point the extension at a service's own
   * `http://127.0.0.1:PORT` and still see the requests recorded.
   */
  forwardLoopback?: boolean;
}

export interface Router {
  /** `http://127.0.0.1:PORT`, the proxy address. */
  url: string;
  port: number;
  /** Every request seen, in order of arrival (live array). */
  requests: RecordedRequest[];
  /** Requests to one host name. */
  requestsTo(host: string): RecordedRequest[];
  /** Host names that received a request carrying this header (case-insensitive name). */
  hostsWithHeader(name: string): string[];
  /** Resolves with the first recorded request (past or future) matching; rejects after `timeoutMs`. */
  waitForRequest(match: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Adds or replaces a host's route while running. */
  setHost(host: string, route: HostHandler | StaticPages): void;
  removeHost(host: string): void;
  /** Forgets recorded requests (routes stay). */
  clear(): void;
  close(): Promise<void>;
}

/** A page whose body is read from test/fixtures/pages/ (or an absolute path) when requested. */
export function fixture(relativePath: string, extra: { status?: number; type?: string; headers?: Record<string, string> } = {}): PageSpec {
  const file = isAbsolute(relativePath) ? relativePath : join(FIXTURE_PAGES_DIR, relativePath);
  return { file, ...extra };
}

/**
 * Static pages for a host from fixture files: `fixturePages({ '/details.php?id=1': 'nexusphp/details.html' })`.
 */
export function fixturePages(map: Record<string, string>): StaticPages {
  return Object.fromEntries(Object.entries(map).map(([path, file]) => [path, fixture(file)]));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.torrent': 'application/x-bittorrent',
};

function isStaticPages(route: HostHandler | StaticPages): route is StaticPages {
  return typeof route !== 'function';
}

async function serveStatic(pages: StaticPages, recorded: RecordedRequest, res: ServerResponse): Promise<void> {
  const pathname = recorded.path.split('?')[0] ?? '/';
  const spec = pages[recorded.path] ?? pages[pathname];
  if (spec === undefined) {
    send(res, 404, 'text/plain; charset=utf-8', `test router: no page ${recorded.path} on ${recorded.host}`);
    return;
  }
  if (typeof spec === 'string') {
    send(res, 200, TYPES['.html']!, spec);
    return;
  }
  let body: string | Uint8Array;
  let type = spec.type;
  if ('file' in spec) {
    try {
      body = await readFile(spec.file);
    } catch (error) {
      send(res, 500, 'text/plain; charset=utf-8', `test router: cannot read fixture ${spec.file}: ${String(error)}`);
      return;
    }
    type ??= TYPES[extname(spec.file).toLowerCase()] ?? 'application/octet-stream';
  } else {
    body = spec.body;
    type ??= typeof body === 'string' ? TYPES['.html'] : 'application/octet-stream';
  }
  send(res, spec.status ?? 200, type!, body, spec.headers);
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/** A fresh IncomingMessage carrying the same head and the already-read body, with an origin-form URL. */
function replay(original: IncomingMessage, path: string, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(original.socket as Socket);
  copy.method = original.method;
  copy.url = path;
  copy.headers = original.headers;
  copy.rawHeaders = original.rawHeaders;
  copy.httpVersion = original.httpVersion;
  copy.httpVersionMajor = original.httpVersionMajor;
  copy.httpVersionMinor = original.httpVersionMinor;
  // The body is already in memory: never pull from the socket (it belongs to the original message),
  // and mark the message complete, or IncomingMessage destroys the shared socket when it is done.
  copy._read = () => {};
  copy.complete = true;
  if (body.length > 0) copy.push(body);
  copy.push(null);
  return copy;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Passes a request through to a loopback server, streaming its answer back. Node keeps connections
 * alive by default: a daemon that closes an idle one as it is reused resets it (ECONNRESET on a
 * reused socket, Node's documented race), and such a request is sent again once, on a new
 * connection, as a browser does; a reset on a fresh connection is the daemon's and is passed on.
 */
function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse, retried = false): Promise<void> {
  return new Promise((done) => {
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = httpRequest(
      { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || 80, method: req.method, path: target.pathname + target.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => done());
      },
    );
    upstream.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' && upstream.reusedSocket && !retried && !res.headersSent) {
        void forward(target, req, body, res, true).then(done);
        return;
      }
      // Nothing listening there: the browser must see what it sees without a proxy, a connection
      // that fails (not a 502 answer, which a torrent client would take for its own failure).
      if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') res.destroy();
      else send(res, 502, 'text/plain; charset=utf-8', `test router: loopback ${target.host} unreachable: ${error.message}`);
      done();
    });
    upstream.end(body);
  });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startRouter(options: RouterOptions = {}): Promise<Router> {
  const routes = new Map<string, HostHandler | StaticPages>();
  for (const [host, route] of Object.entries(options.hosts ?? {})) routes.set(host.toLowerCase(), route);
  const requests: RecordedRequest[] = [];
  const waiters = new Set<{ match: (r: RecordedRequest) => boolean; done: (r: RecordedRequest) => void }>();
  let seq = 0;

  const record = (entry: Omit<RecordedRequest, 'seq' | 'time'>): RecordedRequest => {
    const recorded: RecordedRequest = { seq: ++seq, time: Date.now(), ...entry };
    requests.push(recorded);
    for (const waiter of waiters) {
      if (waiter.match(recorded)) waiter.done(recorded);
    }
    return recorded;
  };

  let port = 0;
  const server: Server = createServer(async (req, res) => {
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(req.url ?? '');
    let target: URL;
    try {
      target = absolute ? new URL(req.url!) : new URL(req.url ?? '/', `http://${req.headers.host ?? 'unknown.invalid'}`);
    } catch {
      send(res, 400, 'text/plain; charset=utf-8', 'test router: bad request target');
      return;
    }
    const host = target.hostname.toLowerCase();
    const route = routes.get(host);
    const passThrough =
      !route && absolute && (options.forwardLoopback ?? true) && LOOPBACK_HOSTS.has(host) && Number(target.port || 80) !== port;
    const recorded = record({
      method: req.method ?? 'GET',
      url: target.href,
      host,
      path: target.pathname + target.search,
      headers: req.headers,
      body: body.toString('utf8'),
      via: absolute ? 'proxy' : 'direct',
      route: route ? host : passThrough ? 'loopback' : options.fallback ? 'fallback' : 'unrouted',
    });
    res.on('finish', () => {
      recorded.status = res.statusCode;
    });
    try {
      if (route && isStaticPages(route)) {
        await serveStatic(route, recorded, res);
      } else if (passThrough) {
        await forward(target, req, body, res);
      } else {
        const handler = route ?? options.fallback;
        if (!handler) {
          send(res, 502, 'text/plain; charset=utf-8', `test router: no route for host ${host}`);
          return;
        }
        await handler(replay(req, recorded.path, body), res, recorded);
      }
    } catch (error) {
      send(res, 500, 'text/plain; charset=utf-8', `test router: handler for ${host} threw: ${String(error)}`);
    }
  });

  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const authority = req.url ?? '';
    const host = authority.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
    record({
      method: 'CONNECT',
      url: `https://${authority}`,
      host,
      path: '',
      headers: req.headers,
      body: '',
      via: 'connect',
      status: 502,
      route: 'unrouted',
    });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\ntest router: HTTPS tunnels are not served\n');
  });
  server.on('clientError', (_error, socket) => {
    socket.destroy();
  });

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ready());
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    requestsTo: (host) => requests.filter((r) => r.host === host.toLowerCase()),
    hostsWithHeader: (name) => {
      const key = name.toLowerCase();
      return [...new Set(requests.filter((r) => r.headers[key] !== undefined).map((r) => r.host))];
    },
    waitForRequest: (match, timeoutMs = 10_000) =>
      new Promise((found, fail) => {
        const seen = requests.find(match);
        if (seen) {
          found(seen);
          return;
        }
        const waiter = {
          match,
          done: (r: RecordedRequest) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            found(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seenList = requests.map((r) => `${r.method} ${r.url}`).join('\n  ') || '(none)';
          fail(new Error(`test router: no matching request within ${timeoutMs} ms; saw:\n  ${seenList}`));
        }, timeoutMs);
        waiters.add(waiter);
      }),
    setHost: (host, route) => {
      routes.set(host.toLowerCase(), route);
    },
    removeHost: (host) => {
      routes.delete(host.toLowerCase());
    },
    clear: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((closed) => {
        // Browsers keep proxy connections alive; drop them so close() cannot hang.
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
