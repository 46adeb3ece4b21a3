/**
 * A NexusPHP site's pieces-hash API (NexusPHP ≥ 1.8.5) as the e2e router's handler for one host,
 * answering as the issue records NexusPHP's code:
 *
 * - `POST {path}` (default `/api/pieces-hash`; keepfrds moves it to `/api/torrents/pieces-hash`),
 *   `passkey` (the user's, 32 hex) and `pieces_hash` (an array) in the body, as JSON or as a form
 *   (`pieces_hash[]=…`). A cookie session counts for nothing.
 * - `{"ret":0,"msg":"","data":{"<pieces hash>":<id>}}`; no hits → `data` is `[]` (PHP's empty array).
 * - more than `maxHashes` (100) → HTTP 200 `{"ret":-1,…}`.
 * - a wrong passkey → 401 with a JSON body when the request accepts JSON, else 302 to login.php.
 * - `perMinute` (60) requests a minute per user, then 429 with Retry-After (seconds until the oldest
 *   request of the minute leaves it).
 * - error bodies echo the request, passkey included, as the real ones do: a client must never show them.
 *
 * Other paths answer NexusPHP's 404 page; `withoutApi` makes a site of an older NexusPHP (404 on the
 * API path, a home page answered to everything, or a redirect to login.php). Usable in Node through
 * the router (`router.setHost(site.host, site.handle)`, fetch by test/clients/proxy-fetch.ts) and in
 * the e2e tests the same way.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from '../harness/index.ts';

export interface PiecesHashSiteOptions {
  /** The API's path on this host (default `/api/pieces-hash`). */
  path?: string;
  /** NexusPHP's cap per request (100). */
  maxHashes?: number;
  /** Requests a minute per user before 429 (60). */
  perMinute?: number;
  /** The Retry-After a 429 says, in seconds, instead of the time until the minute frees a request (a site asking for an hour). */
  retryAfterSeconds?: number;
  /** An older NexusPHP: no API at all, answered as this. */
  withoutApi?: 'not-found' | 'home-page' | 'login-redirect';
  /** The clock (ms), for the rate limit's minute. */
  now?: () => number;
  /** The user's passkey (random when absent): the same as the site's download.php takes, when a tracker shares the host. */
  passkey?: string;
}

/** One request the API saw (tests read the pace and what was sent). */
export interface PiecesHashRequest {
  at: number;
  status: number;
  /** How many pieces hashes it asked. */
  asked: number;
  accept: string;
  cookie?: string;
  contentType?: string;
}

/** Every request the site was handed, whatever its path or method (what a failing test prints). */
export interface PiecesHashSeen {
  at: number;
  method: string;
  /** Scheme, host and path as the browser asked (`http://tjupt.org/api/pieces-hash`). */
  url: string;
  path: string;
  /** What the site answered; 0 while it has not (or never: `hang`). */
  status: number;
}

const NOT_FOUND_PAGE = '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>';
const HOME_PAGE = '<!DOCTYPE html><html><head><title>NexusPHP :: 首页</title></head><body><table id="info_block"><tr><td>欢迎回来</td></tr></table></body></html>';

export class PiecesHashSite {
  readonly path: string;
  readonly maxHashes: number;
  perMinute: number;
  retryAfterSeconds?: number;
  withoutApi?: PiecesHashSiteOptions['withoutApi'];
  /** The user's passkey on this site. */
  readonly passkey: string;
  /** Pieces hash → this site's torrent id. */
  readonly torrents = new Map<string, number>();
  readonly requests: PiecesHashRequest[] = [];
  /** Every request handed to this site, API or not (`requests` holds only the API's). */
  readonly seen: PiecesHashSeen[] = [];
  /** Changes a `ret: 0` answer's JSON before it is sent (an untidy site). */
  rewrite?: (answer: { ret: number; msg: string; data: unknown }) => unknown;
  /** Answers every API request with this status and a body echoing the request (a 500, a 403…). */
  failWith?: number;
  /** Never answers the API (the socket stays open): a client's timeout. */
  hang = false;
  private readonly now: () => number;
  /** Request times per passkey within the last minute. */
  private readonly recent = new Map<string, number[]>();
  private readonly hanging: ServerResponse[] = [];

  constructor(
    readonly host: string,
    options: PiecesHashSiteOptions = {},
  ) {
    this.path = options.path ?? '/api/pieces-hash';
    this.maxHashes = options.maxHashes ?? 100;
    this.perMinute = options.perMinute ?? 60;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.withoutApi = options.withoutApi;
    this.now = options.now ?? Date.now;
    this.passkey = options.passkey ?? randomBytes(16).toString('hex');
  }

  /** The site's address (what a site definition holds). */
  get base(): string {
    return `https://${this.host}/`;
  }

  /** The API's full address on this site. */
  get endpoint(): string {
    return `https://${this.host}${this.path}`;
  }

  list(piecesHash: string, id: number): void {
    this.torrents.set(piecesHash, id);
  }

  /** Ends the requests held open by `hang`. */
  release(): void {
    for (const res of this.hanging.splice(0)) res.destroy();
  }

  /** The router's handler for this host. */
  readonly handle = (_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void => {
    const url = new URL(recorded.path, `https://${this.host}`);
    const seen: PiecesHashSeen = { at: this.now(), method: recorded.method, url: recorded.url, path: recorded.path, status: 0 };
    this.seen.push(seen);
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      seen.status = status;
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => send(status, 'application/json', JSON.stringify(body), headers);

    if (this.withoutApi === 'home-page') return send(200, 'text/html; charset=utf-8', HOME_PAGE);
    if (this.withoutApi === 'login-redirect') return send(302, 'text/html; charset=utf-8', '', { location: `https://${this.host}/login.php` });
    if (this.withoutApi === 'not-found' || url.pathname !== this.path) return send(404, 'text/html; charset=utf-8', NOT_FOUND_PAGE);
    if (recorded.method !== 'POST') return send(405, 'text/html; charset=utf-8', '<h1>405 Method Not Allowed</h1>');

    const accept = String(recorded.headers.accept ?? '');
    const contentType = recorded.headers['content-type'] as string | undefined;
    const request = parseBody(recorded.body, contentType);
    const hashes = Array.isArray(request.pieces_hash) ? request.pieces_hash : [];
    const log: PiecesHashRequest = { at: this.now(), status: 0, asked: hashes.length, accept, cookie: recorded.headers.cookie as string | undefined, contentType };
    this.requests.push(log);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      log.status = status;
      json(status, body, headers);
    };
    // What NexusPHP's error bodies carry: the request as it came, passkey included.
    const echo = { ret: -1, msg: '', data: request };

    if (this.hang) {
      this.hanging.push(res);
      return;
    }
    if (request.passkey !== this.passkey) {
      if (!/json/i.test(accept)) {
        log.status = 302;
        return send(302, 'text/html; charset=utf-8', '', { location: `https://${this.host}/login.php` });
      }
      return answer(401, { ...echo, msg: 'Unauthenticated.' });
    }
    const times = (this.recent.get(this.passkey) ?? []).filter((at) => at > this.now() - 60_000);
    this.recent.set(this.passkey, times);
    if (times.length >= this.perMinute) {
      // With no request of the minute to wait for (perMinute 0: nothing is ever allowed), a whole minute.
      const oldest = times[0];
      const retryAfter = this.retryAfterSeconds ?? (oldest === undefined ? 60 : Math.max(1, Math.ceil((oldest + 60_000 - this.now()) / 1000)));
      return answer(429, { ...echo, msg: 'Too Many Attempts.' }, { 'retry-after': String(retryAfter) });
    }
    times.push(this.now());
    if (this.failWith) return answer(this.failWith, { ...echo, msg: 'Server Error' });
    if (!Array.isArray(request.pieces_hash) || hashes.length > this.maxHashes) {
      return answer(200, { ...echo, msg: `pieces_hash must be an array of at most ${this.maxHashes}` });
    }
    const hits: Record<string, number> = {};
    for (const hash of hashes) {
      const id = typeof hash === 'string' ? this.torrents.get(hash) : undefined;
      if (id !== undefined) hits[hash as string] = id;
    }
    const body = { ret: 0, msg: '', data: Object.keys(hits).length > 0 ? hits : [] };
    return answer(200, this.rewrite ? this.rewrite(body) : body);
  };
}

/** The request body as Laravel reads it: JSON, or a form where `pieces_hash[]` repeats. */
function parseBody(body: string, contentType: string | undefined): Record<string, unknown> {
  if (/json/i.test(contentType ?? '')) {
    try {
      const parsed: unknown = JSON.parse(body);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  const form = new URLSearchParams(body);
  const list = form.getAll('pieces_hash[]');
  return { passkey: form.get('passkey') ?? undefined, pieces_hash: list.length > 0 ? list : (form.get('pieces_hash') ?? undefined) };
}
