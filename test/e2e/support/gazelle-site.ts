/**
 * A Gazelle tracker's JSON API (`ajax.php`) and .torrent download as the e2e router's handler for one
 * host, answering as Gazelle's own code does, in two flavours:
 *
 * `ops` — OPSnet/Gazelle (Orpheus) master 71b45155dbb9 (2025-02-24), with orpheusnet/bencode-torrent
 * v1.3.0 (its composer.lock) and the docker sphinx.conf of the same commit:
 *
 * - Who asks (gazelle.php L59-112): for `ajax.php` only, a non-empty Authorization header is read
 *   first (app/Manager/User.php L79-113): one word = the key itself ("for compatibility with RED"),
 *   two words = `token <key>` (exactly `token`, else `invalid authorization type, must be "token"`),
 *   an unknown key = `invalid token`; each failure is HTTP 200 `{"status":"failure","error":…}`.
 *   Otherwise the `session` cookie (a bad one: its cookie cleared, 302 to login.php). A download with
 *   `torrent_pass` and no cookie: the user whose announce key it is, else 403 with no body. Anything
 *   else without a user: 302 to login.php. Only a known token of a disabled/locked user, or a
 *   revoked one, counts toward a login-watch ban (User.php L100-110); an unknown key does not (its
 *   "FIXME", L98), and this site models neither.
 * - Rate limit (sections/ajax/index.php L8-42, L76-88): ONE counter per user, `ajax_requests_<id>`,
 *   shared by every listed action, made (at 0) by the first listed request with the expiry of that
 *   request's action ([5,10] for browse) and not moved after; each later listed request adds 1 and
 *   is refused when the value read before adding is over the action's rate, so a window lets rate + 2
 *   requests through (7 browses in 10 s). Refused requests count too. `torrent` and `index` are not
 *   listed: never limited. The refusal: `{"status":"failure","error":"Rate limit exceeded",
 *   "response":[],"info":…}` with HTTP 200 (lib/util.php L440-443).
 * - `action=torrent` (sections/ajax/torrent.php): `id` and `hash` both present = "bad parameters";
 *   `hash` matched as `info_hash = unhex(?)` (app/Manager/Torrent.php L111-116: 40 hex, any case);
 *   unknown = "bad parameters" (not WhatCD's "bad hash parameter"). Answer version 5 (app/Json.php
 *   L55-100), `response.torrent` as app/Json/Torrent.php L12-51: `infoHash` (lower-case hex,
 *   app/TorrentAbstract.php L386-388) only when the user snatched or uploaded it; `fileList` =
 *   `name{{{bytes}}}|||…` (TorrentAbstract.php L296-306) with names as uploaded (NOT HTML-escaped:
 *   sections/upload/upload_handle.php L408-434 stores them raw) except leading blanks, each made
 *   `&nbsp;` (L181-197); the files in natural case-insensitive order of their paths
 *   (BencodeTorrent::getFileList's strnatcasecmp), not torrent order; `filePath` = root folder or "".
 * - `action=browse` (sections/ajax/browse.php, app/Search/Torrent.php, app/Json/TGroupList.php):
 *   `filelist` is a Sphinx proximity query `"<term>"~20` (Torrent.php L541-547) over the stored file
 *   list with `_` made a blank (sphinx.conf `REPLACE(filelist, '_', ' ')`), words of at least 2
 *   characters (min_word_len), accents folded, one file at a time (phrase_boundary at the list's ÷
 *   with a step of 50). The term is lower-cased and escaped (classes/sphinxql.class.php L117), but
 *   its `_` stays a word character: a term with `_` finds nothing. Matching = every word of the term
 *   within a span of fewer than 20 + (number of words) words of one file's entry (modelled so).
 *   `searchstr` = every word in the group's name, artists or year. `group_results` (default 1):
 *   Music groups list ALL their torrents (not only the matching one), other categories their first;
 *   0 lists each matching torrent. Each torrent: `torrentId`, `size`, `fileCount`, no file list.
 *   `currentPage`, `pages` (50 a page, config TORRENTS_PER_PAGE); no hit at all answers
 *   `{"results":[],"youMightLike":[]}` without them (browse.php L32-37). Answer version 2.
 * - `action=index` (sections/ajax/info.php): `passkey` (the announce key), `authkey`, username, id.
 * - Download `torrents.php?action=download&id=&torrent_pass=` (sections/torrents/download.php,
 *   app/Torrent.php L96-114): the stored .torrent with only `encoding` and `info` kept, `announce` =
 *   https://<tracker>/<key>/announce and `comment` = the torrent's URL; the fifth download of one
 *   torrent from a User-Agent starting BTWebClient|Python-urllib|python-requests|uTorrent is refused.
 * - Upload (upload_handle.php L280-282, app/Manager/Torrent.php L245-258, config SOURCE "OPS"):
 *   private = 1 and `info.source` = the site's flag, other `info` keys kept, but `x_cross_seed` and
 *   `unique` dropped when the flag changes (BencodeTorrent::setSource). Grandfathering of old
 *   torrents without a flag is not modelled.
 *
 * `whatcd` — WhatCD/Gazelle master 63b337026d49 (2016-11-08), what most older Gazelle sites forked:
 *
 * - `ajax.php` needs the session cookie (`enforce_login()`, sections/ajax/index.php L11); an
 *   Authorization header is ignored; no session → 302 to login.php.
 * - One limit of 5 in 10 s for the listed actions (L13-36, `browse` listed, `torrent` and `index`
 *   not), and because `!'0'` is true in PHP the counter is re-made at 0 while it reads 0, so a
 *   window lets 6 requests through; refused requests do not count; the refusal is
 *   `{"status":"failure","error":"rate limit exceeded"}`.
 * - `action=torrent` (sections/ajax/torrent.php L7-33, sections/torrents/functions.php L170-186):
 *   `id` and `hash` both = "bad parameters"; a hash that is not 40 hex once blanks are removed, or
 *   that no torrent has, = "bad hash parameter" (the look-up uses the hash as sent, blanks and all,
 *   against HEX(info_hash)); no id = "bad id parameter". `infoHash` always, upper-case.
 * - Every field read from the database is display_str()ed (classes/mysql.class.php L338-351 with
 *   Misc::display_array; classes/util.php L99-128): non-ASCII characters as HTML entities
 *   (mbstring's HTML-ENTITIES: a name where HTML 4 has one, else `&#N;`), `&` not starting an
 *   entity-like text as `&amp;`, `' " < >` as `&#39; &quot; &lt; &gt;`. So `fileList` names and
 *   `filePath` come entity-encoded; leading blanks become `&nbsp;` (classes/torrents.class.php
 *   L622-633). Files in natcasesort order (classes/torrent.class.php L261-290). No `info` block in
 *   any answer (classes/util.php L171-187). No source flag at upload (site option `source`: none).
 * - Download needs both `authkey` and `torrent_pass` (the authkey is not checked), else the session
 *   (sections/torrents/download.php L1-36); `announce` = <tracker>/<key>/announce.
 *
 * Requests the site does not model (another action, a browse parameter it does not read) answer
 * HTTP 501 with a JSON message, so a test cannot lean on a behaviour nobody wrote. Every request is
 * kept in `requests` with its Authorization and Cookie headers.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Value } from '../../fixtures/torrents/bencode';
import type { RecordedRequest } from '../harness/index.ts';
import { cookiesOf, intval, phpJson, phpQuery, strnatcasecmp } from './php';
import { rootName, siteTorrent, totalSize, type SiteFile, type SiteLayout } from './site-torrent';

export type GazelleFlavour = 'ops' | 'whatcd';

export interface GazelleUser {
  id: number;
  username: string;
  /** OPS: base64 of 87 random bytes (app/User.php L1930-1945). */
  apiToken: string;
  /** The announce key (`torrent_pass`), 32 hex. */
  passkey: string;
  authkey: string;
  /** The `session` cookie's value. */
  session: string;
}

export interface GazelleGroup {
  id: number;
  name: string;
  artist: string;
  year: number;
  /** 'Music' groups its torrents in browse answers; other categories do not. */
  category: string;
}

export interface GazelleTorrentInput extends SiteLayout {
  id?: number;
  /** The group (a new one per torrent when absent or without id; torrents given the same id share it). */
  group?: Partial<GazelleGroup>;
  media?: string;
  format?: string;
  encoding?: string;
  /** The viewer snatched it (OPS shows `infoHash` then). */
  snatched?: boolean;
  /** The viewer uploaded it (OPS shows `infoHash` then). */
  uploadedByUser?: boolean;
  seeders?: number;
  leechers?: number;
  snatches?: number;
  /** ms; default the site's clock. */
  time?: number;
  /** The uploaded torrent's other info keys (kept), and its own `source` (replaced by the site's). */
  info?: Record<string, Value>;
  description?: string;
}

export interface GazelleTorrent {
  readonly id: number;
  readonly group: GazelleGroup;
  readonly folder: string | null;
  readonly files: SiteFile[];
  readonly size: number;
  media: string;
  format: string;
  encoding: string;
  snatched: boolean;
  uploadedByUser: boolean;
  seeders: number;
  leechers: number;
  snatches: number;
  time: number;
  description: string;
  /** torrents.FileList: one `.ext sSIZEs NAME ÷` line a file, natural order. */
  readonly fileListStored: string;
  /** The .torrent as stored (after upload) and its info-hash (lower-case hex). */
  readonly bytes: Buffer;
  readonly hash: string;
  readonly layout: SiteLayout;
  readonly info: Record<string, Value>;
}

export interface GazelleSiteOptions {
  flavour?: GazelleFlavour;
  /** SITE_NAME: `info.source` of every answer (OPS). */
  siteName?: string;
  /** The upload's source flag (OPS "OPS"; WhatCD none). */
  source?: string;
  /** The user has site_unlimit_ajax (OPS). */
  unlimited?: boolean;
  now?: () => number;
  user?: Partial<GazelleUser>;
  /** The tracker's host in announce URLs (default `tracker.<host>`). */
  trackerHost?: string;
}

export interface GazelleRequest {
  at: number;
  method: string;
  url: string;
  path: string;
  action?: string;
  authorization?: string;
  cookie?: string;
  userAgent?: string;
  status: number;
  /** The JSON answer's `status` and `error`, when it was one. */
  answerStatus?: string;
  error?: string;
}

/** OPS's [requests, seconds] per limited action (sections/ajax/index.php L9-42). */
export const OPS_LIMITED_ACTIONS: Record<string, [number, number]> = {
  add_log: [5, 10], add_similar: [10, 20], add_tag: [10, 20], announcements: [2, 60], artist: [15, 30], better: [5, 10],
  bookmarks: [5, 60], browse: [5, 10], collage: [5, 60], delete_tag: [10, 30], forum: [5, 10], inbox: [15, 60],
  news_ajax: [2, 60], notifications: [2, 60], post_edit: [2, 10], raw_bbcode: [5, 10], request: [4, 60], request_fill: [5, 10],
  requests: [5, 60], riplog: [5, 10], similar_artists: [10, 60], subscriptions: [5, 10], tcomments: [5, 10], top10: [2, 60],
  torrentgroup: [15, 60], user: [4, 60], user_recents: [5, 10], userhistory: [5, 10], usersearch: [5, 60], votefavorite: [5, 10],
  wiki: [5, 60], push_test: [2, 5],
};
/** WhatCD's one limit and its list (sections/ajax/index.php L15-16). */
export const WHATCD_LIMIT: [number, number] = [5, 10];
export const WHATCD_LIMITED_ACTIONS = ['tcomments', 'user', 'forum', 'top10', 'browse', 'usersearch', 'requests', 'artist', 'inbox', 'subscriptions', 'bookmarks', 'announcements', 'notifications', 'request', 'better', 'similar_artists', 'userhistory', 'votefavorite', 'wiki', 'torrentgroup', 'news_ajax', 'user_recents', 'collage', 'raw_bbcode'];

/** The file-list delimiter, ÷ (lib/config.php L891). */
const DELIM = '\u00f7';
const BROWSE_PARAMETERS = new Set(['action', 'filelist', 'searchstr', 'group_results', 'page', 'order_by', 'order_way']);
const PER_PAGE = 50;

type Answer = { status: number; type: string; body: string | Buffer; headers?: Record<string, string | string[]> };

export class GazelleSite {
  readonly flavour: GazelleFlavour;
  readonly siteName: string;
  readonly source?: string;
  unlimited: boolean;
  readonly user: GazelleUser;
  readonly trackerHost: string;
  readonly torrents = new Map<number, GazelleTorrent>();
  readonly requests: GazelleRequest[] = [];
  /** Downloads served, per torrent id (the four-times rule counts them). */
  readonly downloads: { at: number; torrentId: number; userAgent: string }[] = [];
  private readonly now: () => number;
  private nextTorrentId = 1;
  private nextGroupId = 1;
  private readonly groups = new Map<number, GazelleGroup>();
  /** The memcached `ajax_requests_<id>` key: its value and when it expires (ms). */
  private counter?: { value: number; expires: number };

  constructor(
    readonly host: string,
    options: GazelleSiteOptions = {},
  ) {
    this.flavour = options.flavour ?? 'ops';
    this.siteName = options.siteName ?? (this.flavour === 'ops' ? 'Orpheus' : 'What.CD');
    this.source = 'source' in options ? options.source : this.flavour === 'ops' ? 'OPS' : undefined;
    this.unlimited = options.unlimited ?? false;
    this.now = options.now ?? Date.now;
    this.trackerHost = options.trackerHost ?? `tracker.${host}`;
    this.user = {
      id: 1234,
      username: 'reseeder',
      apiToken: randomBytes(87).toString('base64'),
      passkey: randomBytes(16).toString('hex'),
      authkey: randomBytes(16).toString('hex'),
      session: randomBytes(24).toString('base64url'),
      ...options.user,
    };
  }

  get base(): string {
    return `https://${this.host}/`;
  }

  /** The Cookie header of the user's logged-in browser. */
  get cookie(): string {
    return `session=${this.user.session}`;
  }

  /** Lists an upload as the site stores it (private, the site's source flag). */
  add(input: GazelleTorrentInput): GazelleTorrent {
    const id = input.id ?? this.nextTorrentId;
    this.nextTorrentId = Math.max(this.nextTorrentId, id + 1);
    const groupId = input.group?.id ?? this.nextGroupId;
    this.nextGroupId = Math.max(this.nextGroupId, groupId + 1);
    const group = this.groups.get(groupId) ?? {
      id: groupId,
      name: input.group?.name ?? rootName(input),
      artist: input.group?.artist ?? 'Various Artists',
      year: input.group?.year ?? 2024,
      category: input.group?.category ?? 'Music',
    };
    this.groups.set(groupId, group);
    const info: Record<string, Value> = { ...input.info, private: 1 };
    if (this.source !== undefined && info.source !== this.source) {
      delete info.x_cross_seed;
      delete info.unique;
      info.source = this.source;
    }
    const layout: SiteLayout = { folder: input.folder, files: input.files, seed: input.seed, pieceLength: input.pieceLength };
    const made = siteTorrent(layout, info, { 'created by': 'mktorrent 1.1', 'creation date': 1_700_000_000 });
    // BencodeTorrent::getFileList (natural order for a folder) then metaFilename for each.
    const ordered = input.folder === null ? [...input.files] : [...input.files].sort((a, b) => strnatcasecmp(a.name, b.name));
    const fileListStored = ordered
      .map((file) => {
        const name = file.name.replace(/[\n\r\t]/g, ' ');
        const dot = name.lastIndexOf('.');
        const ext = this.flavour === 'ops' ? (dot === -1 ? '' : name.slice(dot + 1).trim()) : dot > 0 ? name.slice(dot + 1).trim() : '';
        return `.${ext} s${file.size}s ${name} ${DELIM}`;
      })
      .join('\n');
    const torrent: GazelleTorrent = {
      id,
      group,
      folder: input.folder,
      files: input.files,
      size: totalSize(layout),
      media: input.media ?? 'WEB',
      format: input.format ?? 'FLAC',
      encoding: input.encoding ?? 'Lossless',
      snatched: input.snatched ?? false,
      uploadedByUser: input.uploadedByUser ?? false,
      seeders: input.seeders ?? 1,
      leechers: input.leechers ?? 0,
      snatches: input.snatches ?? 0,
      time: input.time ?? this.now(),
      description: input.description ?? '',
      fileListStored,
      bytes: made.bytes,
      hash: made.hash,
      layout,
      info,
    };
    this.torrents.set(id, torrent);
    return torrent;
  }

  /** The `fileList` the `torrent` action answers for this torrent. */
  fileListOf(torrent: GazelleTorrent): string {
    if (this.flavour === 'ops') {
      // TorrentAbstract::filenameParse then fileListLegacyAPI.
      return torrent.fileListStored
        .split('\n')
        .map((line) => {
          const match = /^(\..*?) s(\d+)s (.+) (?:&divide;|\u00f7)$/su.exec(line);
          if (!match) return '{{{0}}}';
          const name = match[3]!.replace(/^[ \t\n\r\v\f]+/, (blanks) => '&nbsp;'.repeat(Buffer.byteLength(blanks)));
          return `${name}{{{${match[2]}}}}`;
        })
        .join('|||');
    }
    // WhatCD: the column display_str()ed, then Torrents::filelist_get_file on each line.
    const escapedDelim = displayStr(DELIM);
    return displayStr(torrent.fileListStored)
      .split('\n')
      .map((line) => {
        const [, size = '', rest = ''] = splitLimit(line, ' ', 3);
        const spaces = /^ */.exec(rest)![0].length;
        const name = '&nbsp;'.repeat(spaces) + rest.slice(spaces);
        return `${name.slice(0, -(escapedDelim.length + 1))}{{{${size.slice(1, -1)}}}}`;
      })
      .join('|||');
  }

  /** The router's handler for this host. */
  readonly handle = (_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void => {
    const header = (name: string): string | undefined => {
      const value = recorded.headers[name];
      return Array.isArray(value) ? value.join('; ') : value;
    };
    const url = new URL(recorded.path, `https://${this.host}`);
    const log: GazelleRequest = {
      at: this.now(),
      method: recorded.method,
      url: recorded.url,
      path: recorded.path,
      action: url.searchParams.get('action') ?? undefined,
      authorization: header('authorization'),
      cookie: header('cookie'),
      userAgent: header('user-agent'),
      status: 0,
    };
    this.requests.push(log);
    const answer = this.answer(url, header, log);
    log.status = answer.status;
    if (answer.type.startsWith('application/json') && typeof answer.body === 'string') {
      try {
        const parsed = JSON.parse(answer.body) as { status?: string; error?: string };
        log.answerStatus = parsed.status;
        log.error = parsed.error;
      } catch {
        // not JSON after all
      }
    }
    res.writeHead(answer.status, { 'content-type': answer.type, ...answer.headers });
    res.end(answer.body);
  };

  private answer(url: URL, header: (name: string) => string | undefined, log: GazelleRequest): Answer {
    const query = phpQuery(url.search);
    const module = url.pathname.replace(/^\//, '').replace(/\.php$/, '');
    const toLogin: Answer = { status: 302, type: 'text/html; charset=utf-8', body: '', headers: { location: 'login.php' } };
    const cookies = cookiesOf(header('cookie'));
    const session = cookies.get('session');
    const authorization = header('authorization');

    let viewer: GazelleUser | undefined;
    if (this.flavour === 'ops' && authorization && module === 'ajax') {
      const found = this.findByAuthorization(authorization);
      if (typeof found === 'string') return this.json(this.failure(found));
      viewer = found;
    } else if (session !== undefined) {
      if (session !== this.user.session) {
        // OPS $forceLogout / WhatCD logout(): the cookie cleared, back to login.php.
        return { ...toLogin, headers: { ...toLogin.headers, 'set-cookie': 'session=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; path=/' } };
      }
      viewer = this.user;
    } else if (this.flavour === 'ops' && module === 'torrents' && query.get('action') === 'download' && query.has('torrent_pass')) {
      if (query.get('torrent_pass') !== this.user.passkey) return { status: 403, type: 'text/html; charset=utf-8', body: '' };
      viewer = this.user;
    }

    if (module === 'ajax') {
      if (!viewer) return toLogin;
      return this.ajax(query, viewer);
    }
    if (module === 'torrents' && query.get('action') === 'download') return this.download(query, viewer, header('user-agent') ?? '', toLogin);
    if (!viewer) return toLogin;
    return { status: 404, type: 'text/html; charset=utf-8', body: '<h1>Error 404</h1>' };
  }

  /** OPS's User::findByAuthorization. */
  private findByAuthorization(authorization: string): GazelleUser | string {
    const parts = authorization.split(' ');
    let token: string;
    if (parts.length === 1) token = parts[0]!;
    else if (parts.length === 2) {
      if (parts[0] !== 'token') return 'invalid authorization type, must be "token"';
      token = parts[1]!;
    } else return 'invalid authorization type, must be "token"';
    return token === this.user.apiToken ? this.user : 'invalid token';
  }

  private json(body: unknown, status = 200): Answer {
    return { status, type: 'application/json; charset=utf-8', body: phpJson(body) };
  }

  /** `info` as add_json_info / Json::info add it (OPS only). */
  private withInfo(body: Record<string, unknown>, version = 1): Record<string, unknown> {
    return this.flavour === 'ops' ? { ...body, info: { source: this.siteName, version } } : body;
  }

  /** json_die('failure', …) (OPS: with info) / WhatCD's json_die. */
  private failure(error: string): Record<string, unknown> {
    return this.withInfo({ status: 'failure', error });
  }

  /** json_error(…) (OPS: `response: []` too). */
  private jsonError(error: string): Record<string, unknown> {
    return this.flavour === 'ops' ? this.withInfo({ status: 'failure', error, response: [] }) : { status: 'failure', error };
  }

  private ajax(query: Map<string, string>, viewer: GazelleUser): Answer {
    const action = query.get('action') ?? '';
    if (!action) return this.json(this.jsonError('failure'));
    const refused = this.rateLimited(action);
    if (refused) return this.json(refused);
    switch (action) {
      case 'torrent':
        return this.json(this.torrentAction(query, viewer));
      case 'browse':
        return this.browse(query);
      case 'index':
        return this.json(
          this.withInfo({
            status: 'success',
            response: {
              username: viewer.username,
              id: viewer.id,
              authkey: viewer.authkey,
              passkey: viewer.passkey,
              notifications: { messages: 0, notifications: 0, newAnnouncement: false, newBlog: false, newSubscriptions: false },
              userstats: { uploaded: 0, downloaded: 0, ratio: 0, requiredratio: 0, class: 'User' },
            },
          }),
        );
      default:
        return { status: 501, type: 'application/json', body: JSON.stringify({ error: `gazelle-site: action=${action} is not modelled` }) };
    }
  }

  /** The flavour's rate limit: the refusal to send, if this request is over it. */
  private rateLimited(action: string): Record<string, unknown> | undefined {
    const now = this.now();
    if (this.counter && now >= this.counter.expires) this.counter = undefined;
    if (this.flavour === 'ops') {
      const limit = OPS_LIMITED_ACTIONS[action];
      if (this.unlimited || !limit) return undefined;
      if (!this.counter) {
        this.counter = { value: 0, expires: now + limit[1] * 1000 };
        return undefined;
      }
      const before = this.counter.value++;
      return before > limit[0] ? this.jsonError('Rate limit exceeded') : undefined;
    }
    if (!WHATCD_LIMITED_ACTIONS.includes(action)) return undefined;
    if (!this.counter || this.counter.value === 0) this.counter = { value: 0, expires: now + WHATCD_LIMIT[1] * 1000 };
    if (this.counter.value > WHATCD_LIMIT[0]) return { status: 'failure', error: 'rate limit exceeded' };
    this.counter.value++;
    return undefined;
  }

  private torrentAction(query: Map<string, string>, viewer: GazelleUser): Record<string, unknown> {
    let torrent: GazelleTorrent | undefined;
    if (this.flavour === 'ops') {
      if (query.has('id') && query.has('hash')) return this.jsonError('bad parameters');
      if (query.has('hash')) {
        const hash = query.get('hash')!;
        torrent = /^[0-9a-f]{40}$/i.test(hash) ? [...this.torrents.values()].find((one) => one.hash === hash.toLowerCase()) : undefined;
      } else torrent = this.torrents.get(intval(query.get('id')));
      if (!torrent) return this.jsonError('bad parameters');
    } else {
      let id = intval(query.get('id'));
      const hash = query.get('hash') ?? '';
      if (id && hash) return this.jsonError('bad parameters');
      if (hash) {
        if (!/^[0-9a-fA-F]{40}$/.test(hash.replaceAll(' ', ''))) return this.jsonError('bad hash parameter');
        // torrenthash_to_torrentid: HEX(info_hash) = '<hash as sent>' (case-insensitive collation).
        id = [...this.torrents.values()].find((one) => one.hash.toUpperCase() === hash.toUpperCase())?.id ?? 0;
        if (!id) return this.jsonError('bad hash parameter');
      }
      if (id <= 0) return this.jsonError('bad id parameter');
      torrent = this.torrents.get(id);
      if (!torrent) return this.jsonError('bad id parameter');
    }
    return this.withInfo({ status: 'success', response: { group: this.groupPayload(torrent.group), torrent: this.torrentPayload(torrent, viewer) } }, 5);
  }

  private groupPayload(group: GazelleGroup): Record<string, unknown> {
    const music = group.category === 'Music';
    const artists = music ? [{ id: group.id + 1000, name: group.artist }] : [];
    if (this.flavour === 'whatcd') {
      return {
        wikiBody: '',
        wikiImage: '',
        id: group.id,
        name: displayStr(group.name),
        year: group.year,
        recordLabel: '',
        catalogueNumber: '',
        releaseType: 1,
        categoryId: music ? 1 : 2,
        categoryName: group.category,
        time: phpDate(this.now()),
        vanityHouse: false,
        isBookmarked: false,
        musicInfo: music ? { composers: [], dj: [], artists, with: [], conductor: [], remixedBy: [], producer: [] } : null,
        tags: [''],
      };
    }
    return {
      wikiBody: '',
      wikiBBcode: '',
      wikiImage: '',
      proxyImage: '',
      id: group.id,
      name: group.name,
      year: group.year,
      recordLabel: '',
      catalogueNumber: '',
      releaseType: music ? 1 : '',
      releaseTypeName: music ? 'Album' : null,
      categoryId: music ? 1 : 2,
      categoryName: group.category,
      time: phpDate(this.now()),
      vanityHouse: false,
      isBookmarked: false,
      tags: [],
      musicInfo: music ? { artists, with: [], remixedBy: [], composers: [], conductor: [], dj: [], producer: [], arranger: [] } : null,
    };
  }

  private torrentPayload(torrent: GazelleTorrent, viewer: GazelleUser): Record<string, unknown> {
    const common = {
      media: torrent.media,
      format: torrent.format,
      encoding: torrent.encoding,
    };
    if (this.flavour === 'whatcd') {
      return {
        id: torrent.id,
        infoHash: torrent.hash.toUpperCase(),
        ...common,
        remastered: false,
        remasterYear: 0,
        remasterTitle: '',
        remasterRecordLabel: '',
        remasterCatalogueNumber: '',
        scene: false,
        hasLog: false,
        hasCue: false,
        logScore: 0,
        fileCount: torrent.files.length,
        size: torrent.size,
        seeders: torrent.seeders,
        leechers: torrent.leechers,
        snatched: torrent.snatches,
        freeTorrent: false,
        reported: false,
        time: phpDate(torrent.time),
        description: displayStr(torrent.description),
        fileList: this.fileListOf(torrent),
        filePath: displayStr(torrent.folder ?? ''),
        userId: 1,
        username: 'uploader',
      };
    }
    return {
      ...(torrent.snatched || torrent.uploadedByUser ? { infoHash: torrent.hash } : {}),
      id: torrent.id,
      ...common,
      remastered: false,
      remasterYear: null,
      remasterTitle: '',
      remasterRecordLabel: '',
      remasterCatalogueNumber: '',
      scene: false,
      hasLog: false,
      hasCue: false,
      logScore: 0,
      logChecksum: true,
      logCount: 0,
      ripLogIds: [],
      fileCount: torrent.files.length,
      size: torrent.size,
      seeders: torrent.seeders,
      leechers: torrent.leechers,
      snatched: torrent.snatches,
      freeTorrent: '0',
      reported: false,
      time: phpDate(torrent.time),
      description: torrent.description,
      fileList: this.fileListOf(torrent),
      filePath: torrent.folder ?? '',
      userId: torrent.uploadedByUser ? viewer.id : 1,
      username: torrent.uploadedByUser ? viewer.username : 'uploader',
    };
  }

  private browse(query: Map<string, string>): Answer {
    const unknown = [...query.keys()].filter((name) => !BROWSE_PARAMETERS.has(name));
    // Only the default order (`time`, newest first; what an unknown `order_by` falls back to) is modelled.
    if (['year', 'size', 'seeders', 'leechers', 'snatched', 'random'].includes(query.get('order_by') ?? '')) unknown.push('order_by');
    if (unknown.length > 0) return { status: 501, type: 'application/json', body: JSON.stringify({ error: `gazelle-site: browse ${unknown.join(', ')} not modelled` }) };
    const groupResults = (query.get('group_results') ?? '1') !== '0';
    const page = this.flavour === 'ops' ? intval(query.get('page') ?? '1') : query.get('page') ? intval(query.get('page')) : 1;
    const fileTerm = (query.get('filelist') ?? '').trim();
    const searchWords = sphinxWords((query.get('searchstr') ?? '').trim(), false);
    const matching = [...this.torrents.values()]
      .filter((torrent) => {
        if (fileTerm && !fileListMatches(torrent.fileListStored, fileTerm)) return false;
        if (searchWords.length > 0) {
          const haystack = new Set(sphinxWords(`${torrent.group.name} ${torrent.group.artist} ${torrent.group.year}`, true));
          if (!searchWords.every((word) => haystack.has(word))) return false;
        }
        return true;
      })
      .sort((a, b) => b.id - a.id);
    if ((query.get('order_way') ?? 'desc') === 'asc') matching.reverse();

    // Grouped: one result a group (in the order of its newest matching torrent); else one a torrent.
    const results: { group: GazelleGroup; torrent: GazelleTorrent }[] = [];
    for (const torrent of matching) {
      if (groupResults && results.some((one) => one.group.id === torrent.group.id)) continue;
      results.push({ group: torrent.group, torrent });
    }
    if (results.length === 0) return this.json(this.withInfo({ status: 'success', response: { results: [], youMightLike: [] } }));
    const shown = results.slice((Math.max(page, 1) - 1) * PER_PAGE, Math.max(page, 1) * PER_PAGE);
    const list = shown.map(({ group, torrent }) => {
      const groupTorrents = [...this.torrents.values()].filter((one) => one.group.id === group.id).sort((a, b) => a.id - b.id);
      if (groupResults && (groupTorrents.length > 1 || group.category === 'Music')) {
        return {
          groupId: group.id,
          groupName: this.flavour === 'whatcd' ? displayStr(group.name) : group.name,
          artist: group.artist,
          cover: '',
          tags: [],
          bookmarked: false,
          vanityHouse: false,
          groupYear: group.year,
          releaseType: 'Album',
          groupTime: this.flavour === 'ops' ? phpDate(Math.max(...groupTorrents.map((one) => one.time))) : String(Math.floor(Math.max(...groupTorrents.map((one) => one.time)) / 1000)),
          maxSize: Math.max(...groupTorrents.map((one) => one.size)),
          totalSnatched: groupTorrents.reduce((sum, one) => sum + one.snatches, 0),
          totalSeeders: groupTorrents.reduce((sum, one) => sum + one.seeders, 0),
          totalLeechers: groupTorrents.reduce((sum, one) => sum + one.leechers, 0),
          torrents: groupTorrents.map((one) => this.browseTorrent(one, group)),
        };
      }
      const shownTorrent = groupResults ? groupTorrents[0]! : torrent;
      return {
        groupId: group.id,
        groupName: this.flavour === 'whatcd' ? displayStr(group.name) : group.name,
        torrentId: shownTorrent.id,
        tags: [],
        category: group.category,
        fileCount: shownTorrent.files.length,
        groupTime: this.flavour === 'ops' ? phpDate(shownTorrent.time) : String(Math.floor(shownTorrent.time / 1000)),
        size: shownTorrent.size,
        snatches: shownTorrent.snatches,
        seeders: shownTorrent.seeders,
        leechers: shownTorrent.leechers,
        isFreeleech: false,
        isNeutralLeech: false,
        isPersonalFreeleech: false,
        canUseToken: true,
        hasSnatched: shownTorrent.snatched,
      };
    });
    return this.json(this.withInfo({ status: 'success', response: { currentPage: page, pages: Math.ceil(results.length / PER_PAGE), results: list } }, 2));
  }

  private browseTorrent(torrent: GazelleTorrent, group: GazelleGroup): Record<string, unknown> {
    return {
      torrentId: torrent.id,
      editionId: 1,
      artists: [{ id: group.id + 1000, name: group.artist, aliasid: group.id + 1000 }],
      remastered: false,
      remasterYear: this.flavour === 'ops' ? null : 0,
      ...(this.flavour === 'ops' ? { remasterRecordLabel: '' } : {}),
      remasterCatalogueNumber: '',
      remasterTitle: '',
      media: torrent.media,
      ...(this.flavour === 'ops' ? { format: torrent.format, encoding: torrent.encoding } : { encoding: torrent.encoding, format: torrent.format }),
      hasLog: false,
      logScore: 0,
      hasCue: false,
      scene: false,
      vanityHouse: false,
      fileCount: torrent.files.length,
      time: phpDate(torrent.time),
      size: torrent.size,
      snatches: torrent.snatches,
      seeders: torrent.seeders,
      leechers: torrent.leechers,
      isFreeleech: false,
      isNeutralLeech: false,
      isPersonalFreeleech: false,
      canUseToken: true,
      hasSnatched: torrent.snatched,
    };
  }

  private download(query: Map<string, string>, viewer: GazelleUser | undefined, userAgent: string, toLogin: Answer): Answer {
    if (this.flavour === 'whatcd') {
      if (!query.has('authkey') || !query.has('torrent_pass')) {
        if (!viewer) return toLogin;
      } else {
        const pass = query.get('torrent_pass')!;
        if (pass.includes('_')) return { status: 404, type: 'text/html; charset=utf-8', body: '<h1>Error 404</h1>' };
        if (pass !== this.user.passkey) return { status: 200, type: 'text/html; charset=utf-8', body: '<h2>Unexpected Error</h2>' };
        viewer = this.user;
      }
    }
    if (!viewer) return toLogin;
    const torrent = this.torrents.get(intval(query.get('id')));
    if (!torrent) return { status: 200, type: 'text/html; charset=utf-8', body: 'could not find torrent' };
    const scripted = /^(BTWebClient|Python-urllib|python-requests|uTorrent)/.test(userAgent);
    if (scripted && this.downloads.filter((one) => one.torrentId === torrent.id).length > 3) {
      return { status: 200, type: 'text/html; charset=utf-8', body: '<h2>Error</h2><p>You have already downloaded this torrent file four times. If you need to download it again, please do so from your browser.</p>' };
    }
    this.downloads.push({ at: this.now(), torrentId: torrent.id, userAgent });
    const top: Record<string, Value> =
      this.flavour === 'ops' ? { comment: `https://${this.host}/torrents.php?torrentid=${torrent.id}` } : { 'created by': 'mktorrent 1.1', 'creation date': 1_700_000_000 };
    const announce = this.flavour === 'ops' ? `https://${this.trackerHost}/${viewer.passkey}/announce` : `http://${this.trackerHost}/${viewer.passkey}/announce`;
    const served = siteTorrent(torrent.layout, torrent.info, top, announce);
    const name = `${torrent.group.artist} - ${torrent.group.name}`.replace(/[^\w .()[\]-]/g, '_');
    return {
      status: 200,
      type: 'application/x-bittorrent; charset=utf-8',
      body: served.bytes,
      headers: { 'content-disposition': `attachment; filename="${name}-${torrent.id}.torrent"` },
    };
  }
}

/** explode($separator, $text, $limit). */
function splitLimit(text: string, separator: string, limit: number): string[] {
  const parts = text.split(separator);
  return parts.length <= limit ? parts : [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(separator)];
}

/** 'Y-m-d H:i:s' in UTC. */
function phpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

// HTML 4.01's named entities above U+007F, as mbstring's HTML-ENTITIES filter writes them
// (python's html.entities.name2codepoint): U+00A0-U+00FF in order, then name:code pairs.
const LATIN1_ENTITIES =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';
const OTHER_ENTITIES =
  'OElig:338 oelig:339 Scaron:352 scaron:353 Yuml:376 fnof:402 circ:710 tilde:732 Alpha:913 Beta:914 Gamma:915 Delta:916 Epsilon:917 Zeta:918 Eta:919 Theta:920 Iota:921 Kappa:922 Lambda:923 Mu:924 Nu:925 Xi:926 Omicron:927 Pi:928 Rho:929 Sigma:931 Tau:932 Upsilon:933 Phi:934 Chi:935 Psi:936 Omega:937 alpha:945 beta:946 gamma:947 delta:948 epsilon:949 zeta:950 eta:951 theta:952 iota:953 kappa:954 lambda:955 mu:956 nu:957 xi:958 omicron:959 pi:960 rho:961 sigmaf:962 sigma:963 tau:964 upsilon:965 phi:966 chi:967 psi:968 omega:969 thetasym:977 upsih:978 piv:982 ensp:8194 emsp:8195 thinsp:8201 zwnj:8204 zwj:8205 lrm:8206 rlm:8207 ndash:8211 mdash:8212 lsquo:8216 rsquo:8217 sbquo:8218 ldquo:8220 rdquo:8221 bdquo:8222 dagger:8224 Dagger:8225 bull:8226 hellip:8230 permil:8240 prime:8242 Prime:8243 lsaquo:8249 rsaquo:8250 oline:8254 frasl:8260 euro:8364 image:8465 weierp:8472 real:8476 trade:8482 alefsym:8501 larr:8592 uarr:8593 rarr:8594 darr:8595 harr:8596 crarr:8629 lArr:8656 uArr:8657 rArr:8658 dArr:8659 hArr:8660 forall:8704 part:8706 exist:8707 empty:8709 nabla:8711 isin:8712 notin:8713 ni:8715 prod:8719 sum:8721 minus:8722 lowast:8727 radic:8730 prop:8733 infin:8734 ang:8736 and:8743 or:8744 cap:8745 cup:8746 int:8747 there4:8756 sim:8764 cong:8773 asymp:8776 ne:8800 equiv:8801 le:8804 ge:8805 sub:8834 sup:8835 nsub:8836 sube:8838 supe:8839 oplus:8853 otimes:8855 perp:8869 sdot:8901 lceil:8968 rceil:8969 lfloor:8970 rfloor:8971 lang:9001 rang:9002 loz:9674 spades:9824 clubs:9827 hearts:9829 diams:9830';
const ENTITY_NAMES = new Map<number, string>([
  ...LATIN1_ENTITIES.split(' ').map((name, index) => [0xa0 + index, name] as [number, string]),
  ...OTHER_ENTITIES.split(' ').map((pair) => [Number(pair.split(':')[1]), pair.split(':')[0]!] as [number, string]),
]);
/** display_str's fix-ups of C1 code points written as Windows-1252 would have them. */
const CP1252: Record<number, number> = {
  128: 8364, 130: 8218, 131: 402, 132: 8222, 133: 8230, 134: 8224, 135: 8225, 136: 710, 137: 8240, 138: 352, 139: 8249, 140: 338, 142: 381, 145: 8216,
  146: 8217, 147: 8220, 148: 8221, 149: 8226, 150: 8211, 151: 8212, 152: 732, 153: 8482, 154: 353, 155: 8250, 156: 339, 158: 382, 159: 376,
};

/**
 * WhatCD's display_str (classes/util.php L99-128): mb_convert_encoding(…, 'HTML-ENTITIES'), which
 * writes every non-ASCII character as `&name;` or `&#N;` and leaves ASCII alone; then `&` not
 * followed by something entity-like becomes `&amp;` (so `&thetasym;` and `&#128512;` are written
 * `&amp;…`: the pattern allows 7-letter names and 5 digits); then `' " < >` and the C1 fix-ups.
 */
export function displayStr(text: string): string {
  if (text === '' || /^-?\d+(\.\d+)?$/.test(text)) return text;
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) out += char;
    else out += ENTITY_NAMES.has(code) ? `&${ENTITY_NAMES.get(code)};` : `&#${code};`;
  }
  out = out.replace(/&(?![A-Za-z]{0,4}\w{2,3};|#[0-9]{2,5};)/g, '&amp;');
  out = out.replaceAll("'", '&#39;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return out.replace(/&#(1[2-5]\d);/g, (whole, code: string) => (CP1252[Number(code)] ? `&#${CP1252[Number(code)]};` : whole));
}

/** Words as the torrents index splits them: letters, digits (and `_` unless `index`), lower case, accents folded, at least 2 long. */
function sphinxWords(text: string, index: boolean): string[] {
  const folded = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const pattern = index ? /[\p{L}\p{N}]+/gu : /[\p{L}\p{N}_]+/gu;
  return (folded.match(pattern) ?? []).filter((word) => [...word].length >= 2);
}

/** `"<term>"~20` against the stored file list: all the term's words within one file's entry, close enough. */
function fileListMatches(fileListStored: string, term: string): boolean {
  const wanted = [...new Set(sphinxWords(term, false))];
  if (wanted.length === 0) return false;
  return fileListStored.split('\n').some((line) => {
    const words = sphinxWords(line.replaceAll('_', ' '), true);
    const limit = 20 + wanted.length;
    for (let start = 0; start < words.length; start++) {
      const seen = new Set<string>();
      for (let end = start; end < words.length && end - start + 1 < limit; end++) {
        if (wanted.includes(words[end]!)) seen.add(words[end]!);
        if (seen.size === wanted.length) return true;
      }
    }
    return false;
  });
}
