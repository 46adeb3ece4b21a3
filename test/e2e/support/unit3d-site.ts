/**
 * A UNIT3D tracker's torrent API and .torrent download as the e2e router's handler for one host,
 * answering as UNIT3D's own code does. Written from HDInnovations/UNIT3D master 8b88f4c8182e (tag
 * v9.2.0, 2025-12-03; development 2ffb48fb1e50 of 2025-12-06 has no change in these files) and
 * laravel/framework v12.40.2 (what its composer.lock pins), file and lines below:
 *
 * - Routes: `GET /api/torrents/filter`, `GET /api/torrents/{id}` (`[0-9]+`) under `auth:api` and
 *   `banned` (routes/api.php L40-47), prefix `api`, group `throttle:api` (app/Providers/
 *   RouteServiceProvider.php L56-58, app/Http/Kernel.php L74-76). Other /api paths answer 404 here;
 *   `GET /api/torrents` (the index) and the upload answer 501 (not modelled).
 * - The key: guard `api` is Laravel's TokenGuard, `hash => false` (config/auth.php L47-51), which
 *   reads `api_token` from the query first, then the body, then `Authorization: Bearer`, then the
 *   basic-auth password (laravel TokenGuard::getTokenForRequest): a wrong `?api_token=` wins over a
 *   right Bearer. The key is `Str::random(100)` (app/Http/Controllers/User/ApikeyController.php L43).
 * - No key, or a wrong one: Laravel's default (UNIT3D overrides nothing, app/Exceptions/Handler.php):
 *   401 `{"message":"Unauthenticated."}` when the request expects JSON (Accept's first type is
 *   …/json or …+json, or X-Requested-With: XMLHttpRequest with an Accept of any type), else 302 to /login.
 * - Rate limit: `Limit::perMinute(30)->by('api'.user id)` (RouteServiceProvider.php L91) through
 *   ThrottleRequestsWithRedis (Kernel.php L105): a fixed window of 60 s opened by the first request
 *   (Illuminate/Redis/Limiters/DurationLimiter.php), not a rolling minute; then 429
 *   `{"message":"Too Many Attempts."}` with Retry-After = seconds to the window's end and the
 *   X-RateLimit-* headers. Laravel runs `auth` before `throttle` (its middleware priority), so a
 *   request with a bad key costs nothing (code reading).
 * - A banned user gets HTTP 200 `{"message":"This account is banned!"}` (app/Http/Middleware/
 *   CheckIfBanned.php L34-38, lang/en/auth.php L35).
 * - `/filter` (app/Http/Controllers/API/TorrentController.php L534-739), a normal user's
 *   (Meilisearch) path: `sortField`/`sortDirection` validated (L540-551, 422 otherwise); the answer
 *   cached by the sorted query string without `api_token`, for every user alike, fresh 300 s and
 *   served stale up to 360 s while it is made again (L553-570, `cache()->flexible`); filter
 *   `deleted_at IS NULL` and `status = approved` always (app/DTO/TorrentSearchFiltersDTO.php
 *   L454-461), `file_name` as `files.name = "<value>"` (DTO L690-692): equality with ONE file's
 *   path inside the root folder, trimmed first (the global TrimStrings middleware, app/Http/
 *   Kernel.php L37: a name with a leading or trailing blank cannot be asked for), which
 *   Meilisearch compares case-insensitively (its filter
 *   reference: "When operating on strings, = is case-insensitive"); `name` with
 *   `matchingStrategy: all` (L631-640; modelled as: every word of the query is a word of the name,
 *   the last one may be a prefix); `alive`/`dead` (DTO L677-688); `perPage` (25, max 100) and
 *   `page` (L646, L712-713). Every other filter parameter answers 501 from this test site, so a
 *   test cannot lean on one it does not model.
 * - `/filter`'s answer (L654-738): `data[]` of `{type:"torrent", id:"<string>", attributes:{…}}`
 *   with `size`, `num_file`, `files[{id,name,size}]` (app/Models/Torrent.php L465-473, L938), no
 *   `folder`, no `info_hash`; `download_link` (the user's rsskey) and `magnet_link: null` added
 *   after the cache (L715-720, config/torrent.php L71); `links` whose `first` is NOT page 1:
 *   `fullUrlWithoutQuery(['page' => 1])` removes the key `1`, not `page`, so `first` is the asked
 *   URL again; `prev`/`next`/`self` keep `api_token` when it came in the query; `meta`
 *   {current_page, per_page, from, to} (L723-738). Written by PHP's json_encode (`\/`, `\uXXXX`).
 * - `/api/torrents/{id}` (L497-529, app/Http/Resources/TorrentResource.php L89-151): unwrapped, pretty
 *   printed with unescaped slashes; `folder` (null for a single file: app/Helpers/Bencode.php
 *   L245-260), `files[{index (from 1), name, size}]`, no `magnet_link` key at all while
 *   `torrent.magnet` is 0 (`when(config(…) === true)`), `tmdb_id` null without one; only approved
 *   torrents (the global ApprovedScope): others answer 404 `{"message":"No query results for model
 *   [App\\Models\\Torrent] <id>"}`.
 * - What the site keeps of an upload (app/Helpers/TorrentTools.php L30-66): top level `comment`,
 *   `created by` (the uploader's, trimmed, then ". Edited by UNIT3D"), `encoding`, `info`; `info`
 *   cut to files, length, name, piece length, pieces, then `source` = config torrent.source
 *   ("UNIT3D", config/torrent.php L37), `private` = 1, `entropy` = 128 random hex (commit
 *   e1486613bbf6, first in v9.1.6): every upload's info-hash is new and no API answer shows it.
 *   The file list is `info.files` paths joined with `/` without the root, or `info.name` for a
 *   single file (TorrentTools.php L80-106).
 * - `GET /torrent/download/{id}.{rsskey}` (routes/rss.php L28-32): guard `auth:rss` = the user whose
 *   rsskey is the segment (app/Providers/AppServiceProvider.php L106), its own limit of 30 a minute
 *   (RouteServiceProvider.php L94). The controller (app/Http/Controllers/TorrentDownloadController.php
 *   L44-106) redirects (302) to the torrent's page instead of a file when the user's ratio is under
 *   `other.ratio` (0.4, config/other.php L112) or their download right is revoked (unless they
 *   uploaded or have seeded it), when the torrent is rejected or its file is missing; otherwise it
 *   records a `torrent_downloads` row "RSS/API using <User-Agent>", sets `announce` to
 *   /announce/<passkey> and `comment` to "<config comment>. <torrent URL>" and sends
 *   `[UNIT3D]<name>.torrent` as application/x-bittorrent (the info dictionary unchanged).
 *
 * Every request is kept in `requests` (with its Authorization header), whatever its path.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from '../harness/index.ts';
import { intval, phpJson, phpQuery, rawurlencode } from './php';
import { randomEntropy, siteTorrent, totalSize, type SiteLayout } from './site-torrent';

export interface Unit3dUser {
  id: number;
  username: string;
  /** `Str::random(100)`: letters and digits. */
  apiToken: string;
  /** md5 of random bytes: the download links' key. */
  rsskey: string;
  /** The announce key a served .torrent carries. */
  passkey: string;
  ratio: number;
  /** users.can_download */
  canDownload: boolean;
  banned: boolean;
}

export interface Unit3dTorrentInput extends SiteLayout {
  id?: number;
  /** The title on the site (not the torrent's root name). */
  name: string;
  /** Only approved torrents are searchable or shown by the API; a rejected one is never served. */
  status?: 'approved' | 'pending' | 'rejected';
  seeders?: number;
  leechers?: number;
  timesCompleted?: number;
  /** ms; default: the site's clock when added. */
  createdAt?: number;
  bumpedAt?: number;
  /** Who uploaded it (a user id of this site; default none of them). */
  uploaderId?: number;
  anon?: boolean;
  /** Users with a seeding history of it: their low ratio does not stop the download. */
  seededBy?: number[];
  /** The stored .torrent is gone: the download redirects. */
  fileMissing?: boolean;
  /** The uploaded torrent's `created by`. */
  createdBy?: string;
}

export interface Unit3dFile {
  /** The files table's id (site-wide). */
  id: number;
  name: string;
  size: number;
}

export interface Unit3dTorrent {
  readonly id: number;
  readonly name: string;
  readonly folder: string | null;
  readonly files: Unit3dFile[];
  readonly size: number;
  status: 'approved' | 'pending' | 'rejected';
  seeders: number;
  leechers: number;
  timesCompleted: number;
  createdAt: number;
  bumpedAt: number;
  uploaderId?: number;
  anon: boolean;
  readonly seededBy: Set<number>;
  fileMissing: boolean;
  /** `info.entropy`. */
  readonly entropy: string;
  /** The .torrent as the site stores it (no announce) and its info-hash, which no answer shows. */
  readonly bytes: Buffer;
  readonly hash: string;
  /** How to make it again with a user's announce (internal). */
  readonly layout: SiteLayout;
  readonly info: Record<string, string | number>;
  readonly createdBy: string;
}

export interface Unit3dSiteOptions {
  /** config torrent.source ("UNIT3D"): `info.source` and the download's file-name prefix. */
  source?: string;
  /** API requests a minute per user (30). */
  perMinute?: number;
  /** Downloads a minute per user (30). */
  downloadsPerMinute?: number;
  /** config other.ratio (0.4). */
  requiredRatio?: number;
  /** Cache `/filter` answers as UNIT3D does (default true). */
  cache?: boolean;
  /** The clock (ms), for the limits, the cache and dates. */
  now?: () => number;
  /** The user the tests act as (random keys when absent). */
  user?: Partial<Unit3dUser>;
}

export interface Unit3dRequest {
  at: number;
  method: string;
  /** As the browser asked (`https://host/api/torrents/filter?…`). */
  url: string;
  path: string;
  /** The Authorization header as sent (undefined when none). */
  authorization?: string;
  accept?: string;
  userAgent?: string;
  /** The user the key named, if any. */
  userId?: number;
  /** 0 until answered. */
  status: number;
}

/** A `torrent_downloads` row. */
export interface Unit3dDownload {
  at: number;
  userId: number;
  torrentId: number;
  type: string;
}

const CONFIG_COMMENT = 'This torrent was downloaded from UNIT3D';
const CONFIG_CREATED_BY = 'Edited by UNIT3D';
const SORT_FIELDS = ['name', 'size', 'seeders', 'leechers', 'times_completed', 'created_at', 'bumped_at'] as const;
/** The /filter parameters this site models; any other answers 501. */
const MODELLED = new Set(['api_token', 'file_name', 'name', 'perPage', 'page', 'sortField', 'sortDirection', 'alive', 'dead']);
const CATEGORY = { id: 1, name: 'Movies' };
const TYPE = { id: 3, name: 'Encode' };
const RESOLUTION = { id: 3, name: '1080p' };
const NOT_FOUND_PAGE = '<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>404</h1><p>Not Found</p></body></html>';

type Answer = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };
type CachedFilter = { made: number; items: FilterItem[]; hasMore: boolean };
type FilterItem = { type: 'torrent'; id: string; attributes: Record<string, unknown> };

const random62 = (length: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % 62]).join('');
};

export class Unit3dSite {
  readonly source: string;
  perMinute: number;
  downloadsPerMinute: number;
  requiredRatio: number;
  cache: boolean;
  readonly users: Unit3dUser[] = [];
  readonly torrents = new Map<number, Unit3dTorrent>();
  readonly requests: Unit3dRequest[] = [];
  readonly downloads: Unit3dDownload[] = [];
  private readonly now: () => number;
  private nextTorrentId = 1;
  private nextFileId = 1;
  /** Limiter windows by key ('api<id>', 'rss<id>'): DurationLimiter's start, end (s) and count. */
  private readonly windows = new Map<string, { start: number; end: number; count: number }>();
  private readonly filterCache = new Map<string, CachedFilter>();

  constructor(
    readonly host: string,
    options: Unit3dSiteOptions = {},
  ) {
    this.source = options.source ?? 'UNIT3D';
    this.perMinute = options.perMinute ?? 30;
    this.downloadsPerMinute = options.downloadsPerMinute ?? 30;
    this.requiredRatio = options.requiredRatio ?? 0.4;
    this.cache = options.cache ?? true;
    this.now = options.now ?? Date.now;
    this.addUser({ id: 3, username: 'reseeder', ...options.user });
  }

  /** The user the tests act as. */
  get user(): Unit3dUser {
    return this.users[0]!;
  }

  get base(): string {
    return `https://${this.host}/`;
  }

  addUser(user: Partial<Unit3dUser> = {}): Unit3dUser {
    const made: Unit3dUser = {
      id: this.users.reduce((max, one) => Math.max(max, one.id), 2) + 1,
      username: `user${this.users.length + 1}`,
      apiToken: random62(100),
      rsskey: randomBytes(16).toString('hex'),
      passkey: randomBytes(16).toString('hex'),
      ratio: 1.5,
      canDownload: true,
      banned: false,
      ...user,
    };
    this.users.push(made);
    return made;
  }

  /** Lists an upload as UNIT3D stores it (its .torrent normalised: source, private, entropy). */
  add(input: Unit3dTorrentInput): Unit3dTorrent {
    const id = input.id ?? this.nextTorrentId;
    this.nextTorrentId = Math.max(this.nextTorrentId, id + 1);
    const entropy = randomEntropy();
    const info = { source: this.source, private: 1, entropy };
    const createdBy = input.createdBy === undefined ? CONFIG_CREATED_BY : `${input.createdBy.replace(/^[. ]+|[. ]+$/g, '')}. ${CONFIG_CREATED_BY}`;
    const layout: SiteLayout = { folder: input.folder, files: input.files, seed: input.seed, pieceLength: input.pieceLength };
    const made = siteTorrent(layout, info, { comment: CONFIG_COMMENT, 'created by': createdBy });
    const now = this.now();
    const torrent: Unit3dTorrent = {
      id,
      name: input.name,
      folder: input.folder,
      files: input.files.map((file) => ({ id: this.nextFileId++, name: file.name, size: file.size })),
      size: totalSize(layout),
      status: input.status ?? 'approved',
      seeders: input.seeders ?? 1,
      leechers: input.leechers ?? 0,
      timesCompleted: input.timesCompleted ?? 0,
      createdAt: input.createdAt ?? now,
      bumpedAt: input.bumpedAt ?? input.createdAt ?? now,
      uploaderId: input.uploaderId,
      anon: input.anon ?? false,
      seededBy: new Set(input.seededBy ?? []),
      fileMissing: input.fileMissing ?? false,
      entropy,
      bytes: made.bytes,
      hash: made.hash,
      layout,
      info,
      createdBy,
    };
    this.torrents.set(id, torrent);
    return torrent;
  }

  /** The user's download link for a torrent (what `download_link` says). */
  downloadLink(id: number, user: Unit3dUser = this.user): string {
    return `https://${this.host}/torrent/download/${id}.${user.rsskey}`;
  }

  /** Forgets the cached /filter answers (an operator's cache clear). */
  clearCache(): void {
    this.filterCache.clear();
  }

  /** The router's handler for this host. */
  readonly handle = (_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void => {
    const header = (name: string): string | undefined => {
      const value = recorded.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const log: Unit3dRequest = {
      at: this.now(),
      method: recorded.method,
      url: recorded.url,
      path: recorded.path,
      authorization: header('authorization'),
      accept: header('accept'),
      userAgent: header('user-agent'),
      status: 0,
    };
    this.requests.push(log);
    const answer = this.answer(recorded, header, log);
    log.status = answer.status;
    res.writeHead(answer.status, { 'content-type': answer.type, 'cache-control': 'no-cache, private', ...answer.headers });
    res.end(answer.body);
  };

  private answer(recorded: RecordedRequest, header: (name: string) => string | undefined, log: Unit3dRequest): Answer {
    const url = new URL(recorded.path, `https://${this.host}`);
    const wantsJson = expectsJson(header('accept'), header('x-requested-with'));
    const json = (status: number, body: unknown, headers: Record<string, string> = {}, pretty = false): Answer => ({
      status,
      type: 'application/json',
      body: pretty ? phpJson(body, { pretty: true, unescapedSlashes: true }) : phpJson(body),
      headers,
    });
    const redirect = (location: string): Answer => ({
      status: 302,
      type: 'text/html; charset=utf-8',
      body: `<!DOCTYPE html><html><head><meta charset="UTF-8" /><meta http-equiv="refresh" content="0;url='${location}'" /><title>Redirecting to ${location}</title></head><body>Redirecting to <a href="${location}">${location}</a>.</body></html>`,
      headers: { location },
    });
    const notFound = (message = ''): Answer => (wantsJson ? json(404, { message }) : { status: 404, type: 'text/html; charset=utf-8', body: NOT_FOUND_PAGE });
    const unauthenticated = (): Answer => (wantsJson ? json(401, { message: 'Unauthenticated.' }) : redirect(`https://${this.host}/login`));
    const tooMany = (key: string, max: number): Answer | undefined => {
      const window = this.hit(key, max);
      if (window.allowed) return undefined;
      const headers = {
        'retry-after': String(window.retryAfter),
        'x-ratelimit-limit': String(max),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(window.end),
      };
      return wantsJson
        ? json(429, { message: 'Too Many Attempts.' }, headers)
        : { status: 429, type: 'text/html; charset=utf-8', body: '<!DOCTYPE html><html><head><title>Too Many Requests</title></head><body><h1>429</h1><p>Too Many Requests</p></body></html>', headers };
    };

    const download = /^\/torrent\/download\/([^/.]+)\.([^/]+)$/.exec(url.pathname);
    if (download && recorded.method === 'GET') {
      const user = this.users.find((one) => one.rsskey === download[2]);
      if (!user) return unauthenticated();
      log.userId = user.id;
      const limited = tooMany(`rss${user.id}`, this.downloadsPerMinute);
      if (limited) return limited;
      return this.serveDownload(Number(download[1]), user, header('user-agent') ?? '', redirect, notFound);
    }

    if (!url.pathname.startsWith('/api/')) return notFound();
    const route = url.pathname.replace(/\/+$/, '');
    const isFilter = route === '/api/torrents/filter' && recorded.method === 'GET';
    const show = /^\/api\/torrents\/(\d+)$/.exec(route);
    const isShow = show !== null && recorded.method === 'GET';
    const unmodelled = (route === '/api/torrents' && recorded.method === 'GET') || (route === '/api/torrents/upload' && recorded.method === 'POST');
    if (!isFilter && !isShow && !unmodelled) return notFound();

    const user = this.tokenUser(url, recorded, header('authorization'));
    if (!user) return unauthenticated();
    log.userId = user.id;
    const limited = tooMany(`api${user.id}`, this.perMinute);
    if (limited) return limited;
    const rateHeaders = { 'x-ratelimit-limit': String(this.perMinute), 'x-ratelimit-remaining': String(Math.max(0, this.perMinute - this.windows.get(`api${user.id}`)!.count)) };
    if (user.banned) return json(200, { message: 'This account is banned!' }, rateHeaders);
    if (unmodelled) return json(501, { message: `unit3d-site: ${recorded.method} ${route} is not modelled` }, rateHeaders);

    if (isShow) {
      const torrent = this.torrents.get(Number(show[1]));
      if (!torrent || torrent.status !== 'approved') return notFound(`No query results for model [App\\Models\\Torrent] ${show[1]}`);
      return json(200, this.resource(torrent, user), rateHeaders, true);
    }
    return this.filter(url, user, wantsJson, rateHeaders, json, redirect, header('referer'));
  }

  /** TokenGuard::getTokenForRequest, then the user whose api_token it is. */
  private tokenUser(url: URL, recorded: RecordedRequest, authorization: string | undefined): Unit3dUser | undefined {
    let token = laravelQuery(url.search).get('api_token') ?? '';
    if (!token && recorded.body && /application\/x-www-form-urlencoded/i.test(String(recorded.headers['content-type'] ?? ''))) {
      token = new URLSearchParams(recorded.body).get('api_token') ?? '';
    }
    if (!token && authorization) {
      // Request::bearerToken: after the last "Bearer " (any case), up to a comma.
      const at = authorization.toLowerCase().lastIndexOf('bearer ');
      if (at !== -1) token = authorization.slice(at + 7).split(',')[0]!;
    }
    if (!token && authorization && /^basic /i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      token = decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : '';
    }
    return token ? this.users.find((user) => user.apiToken === token) : undefined;
  }

  /** DurationLimiter::acquire: a window of 60 s from its first request; every call counts. */
  private hit(key: string, max: number): { allowed: boolean; retryAfter: number; end: number } {
    const seconds = this.now() / 1000;
    let window = this.windows.get(key);
    if (!window || seconds < window.start || seconds > window.end) {
      window = { start: Math.floor(seconds), end: Math.floor(seconds) + 60, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return { allowed: window.count <= max, retryAfter: window.end - Math.floor(seconds), end: window.end };
  }

  private filter(
    url: URL,
    user: Unit3dUser,
    wantsJson: boolean,
    rateHeaders: Record<string, string>,
    json: (status: number, body: unknown, headers?: Record<string, string>) => Answer,
    redirect: (location: string) => Answer,
    referer: string | undefined,
  ): Answer {
    const query = laravelQuery(url.search);
    for (const [field, allowed] of [
      ['sortField', SORT_FIELDS as readonly string[]],
      ['sortDirection', ['asc', 'desc']],
    ] as const) {
      const value = query.get(field);
      if (value && !(allowed as readonly string[]).includes(value)) {
        const message = `The selected ${field === 'sortField' ? 'sort field' : 'sort direction'} is invalid.`;
        if (!wantsJson) return redirect(referer ?? `https://${this.host}/`);
        return json(422, { message, errors: { [field]: [message] } }, rateHeaders);
      }
    }
    const unknown = [...query.keys()].filter((name) => !MODELLED.has(name));
    if (unknown.length > 0) return json(501, { message: `unit3d-site: ${unknown.join(', ')} not modelled` }, rateHeaders);

    const perPage = Math.min(100, intval(query.get('perPage')) || 25);
    const page = Math.max(1, intval(query.get('page')) || 1);
    const keyQuery = new Map([...query].filter(([name]) => name !== 'api_token'));
    keyQuery.set('isRegexAllowed', '');
    keyQuery.set('isSqlAllowed', '');
    const cacheKey = `${url.origin}${url.pathname}?${[...keyQuery].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, value]) => `${name}=${value}`).join('&')}`;

    // cache()->flexible(key, [300, 360]): fresh for 300 s; then served stale while a fresh one is
    // made after the response (Laravel's defer), so the request after that sees it; gone at 360 s.
    const now = this.now();
    let cached = this.cache ? this.filterCache.get(cacheKey) : undefined;
    if (cached && now - cached.made >= 360_000) cached = undefined;
    const result = cached ?? { made: now, ...this.search(query, perPage, page) };
    if (this.cache && !cached) this.filterCache.set(cacheKey, result);
    if (this.cache && cached && now - cached.made >= 300_000) this.filterCache.set(cacheKey, { made: now, ...this.search(query, perPage, page) });

    const items = result.items.map((item) => ({
      ...item,
      attributes: { ...item.attributes, download_link: this.downloadLink(Number(item.id), user), magnet_link: null },
    }));
    const base = `${url.origin}${url.pathname}`;
    const withQuery = (changes: Record<string, string>) => {
      const merged = new Map(query);
      for (const [name, value] of Object.entries(changes)) merged.set(name, value);
      return `${base}?${rfc3986Query(merged)}`;
    };
    const sortedQuery = new Map([...query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return json(
      200,
      {
        data: items,
        links: {
          first: query.size > 0 ? `${base}?${rfc3986Query(query)}` : base,
          last: null,
          prev: page === 1 ? null : withQuery({ page: String(page - 1) }),
          next: result.hasMore ? withQuery({ page: String(page + 1) }) : null,
          self: query.size > 0 ? `${base}?${rfc3986Query(sortedQuery)}` : base,
        },
        meta: {
          current_page: page,
          per_page: perPage,
          from: (page - 1) * perPage + 1,
          to: (page - 1) * perPage + items.length,
        },
      },
      rateHeaders,
    );
  }

  /** The Meilisearch query: filters, sort, one page; the hits as the controller maps them. */
  private search(query: Map<string, string>, perPage: number, page: number): { items: FilterItem[]; hasMore: boolean } {
    const fileName = query.get('file_name') ?? '';
    const words = (query.get('name') ?? '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    const hits = [...this.torrents.values()].filter((torrent) => {
      if (torrent.status !== 'approved') return false;
      if (fileName && !torrent.files.some((file) => file.name.toLowerCase() === fileName.toLowerCase())) return false;
      if (query.get('alive') && !(torrent.seeders > 0)) return false;
      if (query.get('dead') && torrent.seeders !== 0) return false;
      if (words.length > 0) {
        const nameWords = torrent.name.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
        const matched = words.every((word, index) => nameWords.some((one) => one === word || (index === words.length - 1 && one.startsWith(word))));
        if (!matched) return false;
      }
      return true;
    });
    const field = query.get('sortField') || 'bumped_at';
    const direction = query.get('sortDirection') ?? 'desc';
    const keyOf = (torrent: Unit3dTorrent): string | number =>
      ({
        name: torrent.name,
        size: torrent.size,
        seeders: torrent.seeders,
        leechers: torrent.leechers,
        times_completed: torrent.timesCompleted,
        created_at: Math.floor(torrent.createdAt / 1000),
        bumped_at: Math.floor(torrent.bumpedAt / 1000),
      })[field as (typeof SORT_FIELDS)[number]] ?? torrent.bumpedAt;
    hits.sort((a, b) => {
      const [x, y] = [keyOf(a), keyOf(b)];
      const order = x < y ? -1 : x > y ? 1 : b.id - a.id;
      return direction === 'asc' ? order : -order;
    });
    const slice = hits.slice((page - 1) * perPage, page * perPage);
    return {
      hasMore: perPage * page < hits.length,
      items: slice.map((torrent) => ({
        type: 'torrent' as const,
        id: String(torrent.id),
        attributes: {
          meta: { poster: null, genres: '' },
          name: torrent.name,
          release_year: null,
          category: CATEGORY.name,
          type: TYPE.name,
          resolution: RESOLUTION.name,
          media_info: null,
          bd_info: null,
          description: '',
          size: torrent.size,
          num_file: torrent.files.length,
          files: torrent.files.map((file) => ({ id: file.id, name: file.name, size: file.size })),
          freeleech: '0%',
          double_upload: false,
          refundable: false,
          internal: false,
          featured: false,
          personal_release: false,
          uploader: torrent.anon ? 'Anonymous' : this.uploaderName(torrent),
          seeders: torrent.seeders,
          leechers: torrent.leechers,
          times_completed: torrent.timesCompleted,
          tmdb_id: 0,
          imdb_id: 0,
          tvdb_id: 0,
          mal_id: 0,
          igdb_id: 0,
          category_id: CATEGORY.id,
          type_id: TYPE.id,
          resolution_id: RESOLUTION.id,
          created_at: `${new Date(Math.floor(torrent.createdAt / 1000) * 1000).toISOString().slice(0, 19)}.000000Z`,
          details_link: `https://${this.host}/torrents/${torrent.id}`,
        },
      })),
    };
  }

  private uploaderName(torrent: Unit3dTorrent): string {
    return this.users.find((user) => user.id === torrent.uploaderId)?.username ?? 'uploader';
  }

  /** TorrentResource::toArray. */
  private resource(torrent: Unit3dTorrent, user: Unit3dUser): unknown {
    return {
      type: 'torrent',
      id: String(torrent.id),
      attributes: {
        meta: { poster: 'https://via.placeholder.com/90x135', genres: '' },
        name: torrent.name,
        release_year: null,
        category: CATEGORY.name,
        type: TYPE.name,
        resolution: RESOLUTION.name,
        media_info: null,
        bd_info: null,
        description: '',
        size: torrent.size,
        folder: torrent.folder,
        num_file: torrent.files.length,
        files: torrent.files.map((file, index) => ({ index: index + 1, name: file.name, size: file.size })),
        freeleech: '0%',
        double_upload: false,
        refundable: false,
        internal: 0,
        featured: false,
        personal_release: false,
        uploader: torrent.anon ? 'Anonymous' : this.uploaderName(torrent),
        seeders: torrent.seeders,
        leechers: torrent.leechers,
        times_completed: torrent.timesCompleted,
        tmdb_id: null,
        imdb_id: 0,
        tvdb_id: 0,
        mal_id: 0,
        igdb_id: 0,
        category_id: CATEGORY.id,
        type_id: TYPE.id,
        resolution_id: RESOLUTION.id,
        created_at: `${new Date(Math.floor(torrent.createdAt / 1000) * 1000).toISOString().slice(0, 19)}.000000Z`,
        download_link: this.downloadLink(torrent.id, user),
        details_link: `https://${this.host}/torrents/${torrent.id}`,
      },
    };
  }

  /** TorrentDownloadController::store. */
  private serveDownload(id: number, user: Unit3dUser, userAgent: string, redirect: (location: string) => Answer, notFound: () => Answer): Answer {
    const torrent = Number.isSafeInteger(id) ? this.torrents.get(id) : undefined;
    if (!torrent) return notFound();
    const page = `https://${this.host}/torrents/${torrent.id}`;
    const own = torrent.uploaderId === user.id || torrent.seededBy.has(user.id);
    if (user.ratio < this.requiredRatio && !own) return redirect(page);
    if (!user.canDownload && !own) return redirect(page);
    if (torrent.status === 'rejected') return redirect(page);
    if (torrent.fileMissing) return redirect(page);
    this.downloads.push({ at: this.now(), userId: user.id, torrentId: torrent.id, type: `RSS/API using ${userAgent}` });
    const served = siteTorrent(torrent.layout, torrent.info, { comment: `${CONFIG_COMMENT}. ${page}`, 'created by': torrent.createdBy }, `https://${this.host}/announce/${user.passkey}`);
    // sanitize_filename (app/Helpers/Helpers.php L238-241), then Symfony's attachment disposition.
    const fileName = `[${this.source}]${torrent.name}.torrent`.replace(/ /g, '.').replace(/[/\\]/g, '-');
    const fallback = fileName.replace(/[^\x20-\x7e]/g, '').replaceAll('%', '');
    const disposition = `attachment; filename="${fallback.replace(/(["\\])/g, '\\$1')}"${fallback === fileName ? '' : `; filename*=utf-8''${rawurlencode(fileName)}`}`;
    return { status: 200, type: 'application/x-bittorrent', body: served.bytes, headers: { 'content-disposition': disposition } };
  }
}

/** Request::expectsJson: X-Requested-With with an Accept of any type or none, or Accept's first type is JSON. */
function expectsJson(accept: string | undefined, requestedWith: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((part, index) => {
      const [type, ...params] = part.split(';').map((piece) => piece.trim());
      const q = params.find((param) => param.startsWith('q='));
      return { type: (type ?? '').toLowerCase(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((one) => one.type)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const first = types[0]?.type;
  const ajax = requestedWith === 'XMLHttpRequest';
  if (ajax && (!first || first === '*/*' || first === '*')) return true;
  return first !== undefined && (first.includes('/json') || first.includes('+json'));
}

/**
 * The query as the controller sees it after the global TrimStrings and ConvertEmptyStringsToNull
 * middleware (app/Http/Kernel.php L37-38): every value trimmed (Str::trim: blanks, NUL, BOM,
 * zero-width space, LRM; Laravel 12 adds more invisible characters), an empty one null, and a null
 * one left out of every URL http_build_query writes. So a `file_name` with a leading or trailing
 * blank can never match.
 */
function laravelQuery(search: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of phpQuery(search)) {
    const trimmed = value.replace(/^[\s\0\uFEFF\u200B\u200E]+|[\s\0\uFEFF\u200B\u200E]+$/gu, '');
    if (trimmed !== '') query.set(name, trimmed);
  }
  return query;
}

/** Arr::query: http_build_query with PHP_QUERY_RFC3986. */
function rfc3986Query(query: Map<string, string>): string {
  return [...query].map(([name, value]) => `${rawurlencode(name)}=${rawurlencode(value)}`).join('&');
}
