/**
 * The reference lookup service: a real HTTP server that follows lookup-service.md strictly and
 * fills the spec's gaps the way service-notes.md reports the live service behaves. Used by unit
 * tests, e2e (through a proxy that routes 2025.iyuu.cn here; it ignores the Host header and takes
 * absolute-form request URLs), the demo and benchmarks.
 *
 * Two answer shapes: 'strict' (the default) answers exactly as the spec writes; 'realistic'
 * answers the same in the untidy shapes the live service uses (realistic.ts: nulls, PHP objects,
 * trailing slashes, extra fields, unusable entries beside good ones) and, now and then, fails the
 * way it does (transientLookupFailures).
 */
import { createHash } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spoil, type BadBodyMode, type JsonAnswer, type RawAnswerOut, type SERVER_FAILURE_BODY_MODES } from './bad-bodies';
import { realisticLookup, realisticProfile, realisticRecommend, realisticSigned, realisticSites, type Shapes } from './realistic';
import { indexReferenceData, loadReferenceData, renumberSites, type DataIndex, type IndexedMember, type ReferenceData } from './data';

export { BAD_BODY_MODES, ODD_BODY_MODES, SERVER_FAILURE_BODY_MODES, INVENTED_HASH, type BadBodyMode } from './bad-bodies';
export { UNUSABLE_SITES, type Shapes } from './realistic';

/** A way the live service fails now and then, in words instead of an answer. */
export type ServerFailureMode = (typeof SERVER_FAILURE_BODY_MODES)[number];
export { loadReferenceData, indexReferenceData, type ReferenceData } from './data';

export interface RateLimitSettings {
  /** Requests allowed per window per caller (token, else appid, else address). */
  max: number;
  windowSeconds: number;
  /** 'http-429': HTTP 429 + code 429 访问频率过快 (service-notes); 'envelope': HTTP 200 + code 400 辅种间隔过于频繁. */
  style: 'http-429' | 'envelope';
  /** Where the wait is stated. */
  retryAfterIn: 'header' | 'body' | 'both' | 'none';
}

export interface ServiceSettings {
  rateLimit: RateLimitSettings;
  /** Every answer waits this long before its headers go out. */
  delayMs: number;
  /** The server's clock is this far ahead of the real one (negative: behind); its Date header follows it. */
  clockSkewSeconds: number;
  /** A timestamp further than this from the server's clock is expired (either direction). */
  timestampWindowSeconds: number;
  /** Most hashes one list lookup may carry. */
  maxHashes: number;
  /** List lookups return only candidates on the sites the token reported (our reading of sid_sha1). */
  filterBySiteList: boolean;
  /** How long an issued sid_sha1 stays valid (7 days per the official client). */
  siteHashTtlSeconds: number;
  /** 'strict' (default): the spec's shapes; 'realistic': the live service's untidy shapes (realistic.ts). */
  shapes: Shapes;
}

export interface ReferenceOptions extends Partial<Omit<ServiceSettings, 'rateLimit'>> {
  rateLimit?: Partial<RateLimitSettings>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default: test/service/sites.json + data.json. */
  data?: ReferenceData;
  /**
   * Serve the data as a service that renumbered these sites (short name → new id): its site list
   * and every answer use the new ids (data.ts renumberSites). Two sites given each other's ids: a swap.
   */
  renumberedSites?: Record<string, number>;
  /** One line per answered request. */
  log?: (line: string) => void;
  /** Oldest requests are dropped beyond this (default 10000). */
  maxRecordedRequests?: number;
  /** Spoil the first answers from the start (and again after reset()), as control.badBody would. */
  badBody?: { mode: BadBodyMode; count?: number; path?: string };
  /** Force a status on the first answers from the start (and again after reset()), as control.forceStatus would. */
  forceStatus?: { status: number; count?: number } & ForcedStatus;
  /**
   * The first N list lookups (from the start, and again after reset()) fail as the live service
   * now and then does: webman's HTTP 200 + code 400 "Server internal error", then Redis's OOM
   * text, in turn; the server loses the caller's site hashes with them. Default 2 in realistic
   * shapes, 0 in strict.
   */
  transientLookupFailures?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The request target as received (absolute form when it came through a proxy). */
  url: string;
  headers: IncomingHttpHeaders;
  /** Raw body text. */
  body: string;
  /** Real time (ms) of arrival. */
  time: number;
}

export interface ForcedStatus {
  path?: string;
  /** 'json' (default): an envelope {code: status, msg}; 'html': an HTML error page; 'empty'. */
  body?: 'json' | 'html' | 'empty';
  headers?: Record<string, string>;
}

export interface RawOverride {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface ServiceControl extends ServiceSettings {
  /** Spoils the next `count` answers (of `path` only, when given). */
  badBody(mode: BadBodyMode, count?: number, path?: string): void;
  /** Answers the next `count` requests with this HTTP status, before any checks. */
  forceStatus(status: number, count?: number, options?: ForcedStatus): void;
  /** Answers the next `count` requests with exactly this, before any checks. */
  rawAnswer(answer: RawOverride, count?: number, path?: string): void;
  /**
   * The next `count` requests (of `path`, default the list lookup) fail transiently in these ways,
   * in turn (default: "Server internal error" then Redis OOM), and the caller's site hashes are lost.
   */
  transientFailures(count: number, path?: string, modes?: readonly ServerFailureMode[]): void;
  /**
   * Requests (of `path` only, when given) wait unanswered until the returned release is called (or
   * reset()): a test sees a state that lasts while a request is out without guessing how long.
   */
  hold(path?: string): () => void;
  /** Drops pending badBody / forceStatus / rawAnswer / transient overrides. */
  clearOverrides(): void;
  resetRateLimits(): void;
  /** Forgets issued site hashes (all, or one token's): the next list lookup gets 站点缓存哈希值无效. */
  forgetSiteHashes(token?: string): void;
  /** The site account a token is bound to now, if any. */
  binding(token: string): { site: string; user_id: string } | undefined;
  /** The server's clock (ms), skew included. */
  now(): number;
  /** Back to the state right after start: settings, bindings, site hashes, rate limits, overrides, recorded requests. */
  reset(): void;
}

export interface ReferenceService {
  url: string;
  port: number;
  close(): Promise<void>;
  requests: RecordedRequest[];
  control: ServiceControl;
  /** The request listener, so another server (a proxy) can delegate to it. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  data: ReferenceData;
  index: DataIndex;
}

export const DEMO_TOKEN = 'demo-token';
export const DEMO_UNBOUND_TOKEN = 'demo-unbound-token';
export const DEMO_EXPIRED_TOKEN = 'demo-expired-token';
export const DEMO_APP_ID = 'demo-app';
export const DEMO_SECRET = 'demo-secret';

const DEFAULT_SETTINGS: ServiceSettings = {
  rateLimit: { max: 60, windowSeconds: 60, style: 'http-429', retryAfterIn: 'both' },
  delayMs: 0,
  clockSkewSeconds: 0,
  timestampWindowSeconds: 300,
  maxHashes: 200,
  filterBySiteList: false,
  siteHashTtlSeconds: 7 * 24 * 3600,
  shapes: 'strict',
};

/** What the live service was seen to answer in turn on a bad day (ledccn/iyuuplus-dev#244). */
const TRANSIENT_MODES: readonly ServerFailureMode[] = ['server-internal-error', 'redis-oom'];
const LOOKUP_PATH = '/reseed/index/index';

const MAX_REQUEST_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

export const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

interface Override<T> {
  value: T;
  remaining: number;
  path?: string;
}

interface IssuedSiteHash {
  sids: number[];
  issuedAt: number;
}

export async function startReferenceService(options: ReferenceOptions = {}): Promise<ReferenceService> {
  const loaded = options.data ?? loadReferenceData();
  const data = options.renumberedSites ? renumberSites(loaded, options.renumberedSites) : loaded;
  const index = indexReferenceData(data);
  const tokens = new Map(data.tokens.map((token) => [token.token, token]));
  const apps = new Map(data.apps.map((app) => [app.appid, app.secret]));
  const rawPasskeys = new Set(data.accounts.map((account) => account.passkey.toLowerCase()));
  const initialSettings = (): ServiceSettings => {
    const { rateLimit, host: _h, port: _p, data: _d, log: _l, maxRecordedRequests: _m, badBody: _b, forceStatus: _f, transientLookupFailures: _t, ...rest } = options;
    const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<ServiceSettings>;
    return { ...DEFAULT_SETTINGS, ...defined, rateLimit: { ...DEFAULT_SETTINGS.rateLimit, ...rateLimit } };
  };
  const initialBindings = () => new Map(data.tokens.flatMap((token) => (token.bound ? [[token.token, { ...token.bound }] as const] : [])));

  let bindings = initialBindings();
  let siteHashes = new Map<string, Map<string, IssuedSiteHash>>();
  let rateBuckets = new Map<string, { start: number; count: number }>();
  let badBodies: Override<BadBodyMode>[] = [];
  /** Requests wait on these (control.hold). */
  let holds: { path?: string; released: Promise<void>; release: () => void }[] = [];
  let forcedStatuses: Override<{ status: number } & ForcedStatus>[] = [];
  let rawAnswers: Override<RawOverride>[] = [];
  let transients: Override<ServerFailureMode>[] = [];
  const requests: RecordedRequest[] = [];
  const maxRecorded = options.maxRecordedRequests ?? 10_000;

  const control: ServiceControl = {
    ...initialSettings(),
    badBody(mode, count = 1, path) {
      badBodies.push({ value: mode, remaining: count, path });
    },
    forceStatus(status, count = 1, forced = {}) {
      forcedStatuses.push({ value: { status, ...forced }, remaining: count, path: forced.path });
    },
    rawAnswer(answer, count = 1, path) {
      rawAnswers.push({ value: answer, remaining: count, path });
    },
    transientFailures(count, path = LOOKUP_PATH, modes = TRANSIENT_MODES) {
      for (let i = 0; i < count; i++) transients.push({ value: modes[i % modes.length]!, remaining: 1, path });
    },
    hold(path) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = { path, released, release };
      holds.push(held);
      return () => {
        holds = holds.filter((other) => other !== held);
        release();
      };
    },
    clearOverrides() {
      badBodies = [];
      forcedStatuses = [];
      rawAnswers = [];
      transients = [];
    },
    resetRateLimits() {
      rateBuckets = new Map();
    },
    forgetSiteHashes(token) {
      if (token === undefined) siteHashes = new Map();
      else siteHashes.delete(token);
    },
    binding: (token) => bindings.get(token),
    now: () => Date.now() + control.clockSkewSeconds * 1000,
    reset() {
      Object.assign(control, initialSettings());
      control.clearOverrides();
      control.resetRateLimits();
      control.forgetSiteHashes();
      for (const held of holds) held.release();
      holds = [];
      bindings = initialBindings();
      requests.length = 0;
      startOverrides();
    },
  };
  const startOverrides = () => {
    if (options.badBody) control.badBody(options.badBody.mode, options.badBody.count, options.badBody.path);
    if (options.forceStatus) control.forceStatus(options.forceStatus.status, options.forceStatus.count, options.forceStatus);
    const transientCount = options.transientLookupFailures ?? (control.shapes === 'realistic' ? 2 : 0);
    if (transientCount > 0) control.transientFailures(transientCount);
  };
  startOverrides();

  const take = <T>(list: Override<T>[], path: string): T | undefined => {
    const found = list.find((item) => item.remaining > 0 && (item.path === undefined || item.path === path));
    if (!found) return undefined;
    found.remaining -= 1;
    if (found.remaining <= 0) list.splice(list.indexOf(found), 1);
    return found.value;
  };

  // ------------------------------------------------------------------------------------------
  // Envelopes

  const answer = (json: unknown, status = 200): JsonAnswer => ({ status, json });
  const ok = (data: unknown, msg = 'ok', code = 0) => answer({ code, msg, data });
  /** Spec 4.1 error form: code, msg and an empty array as data. */
  const refuse = (code: number, msg: string) => answer({ code, msg, data: [] });
  /** Spec 4.2 error form: no data field. */
  const refuseSigned = (code: number, msg: string) => answer({ code, msg });

  // ------------------------------------------------------------------------------------------
  // Checks shared by operations

  type Caller = { token: string };
  const checkToken = (req: IncomingMessage, need: { bound?: boolean; allowExpired?: boolean }): Caller | JsonAnswer => {
    const token = header(req, 'token').trim();
    if (!token) return refuse(401, '请求缺少token');
    if (!/^[\x21-\x7e]{1,128}$/.test(token)) return refuse(401, 'token无效');
    const entry = tokens.get(token);
    if (!entry) return refuse(401, 'token未注册，请先绑定推荐站点');
    if (!need.allowExpired && entry.overdue_time * 1000 < control.now()) return refuse(403, 'token已过期');
    if (need.bound && !bindings.has(token)) return refuse(403, '用户未绑定推荐站点');
    return { token };
  };

  /** The timestamp field against the server's clock; `refusal` builds the operation's own error form. */
  const checkTimestamp = (value: string | null, refusal: (code: number, msg: string) => JsonAnswer, expiredCode: number) => {
    if (!value) return refusal(400, 'timestamp require');
    if (!/^\d{1,12}$/.test(value)) return refusal(400, 'timestamp格式错误');
    if (Math.abs(Math.floor(control.now() / 1000) - Number(value)) > control.timestampWindowSeconds) return refusal(expiredCode, '时间戳已过期');
    return undefined;
  };

  const checkVersion = (value: string | null, refusal: (code: number, msg: string) => JsonAnswer) => {
    if (!value) return refusal(400, 'version require');
    if (!/^\d{1,4}(\.\d{1,6}){0,3}$/.test(value)) return refusal(400, 'version格式错误');
    return undefined;
  };

  const realistic = () => control.shapes === 'realistic';
  const groupOf = (hash: string) => index.memberByHash.get(hash)?.group ?? 0;

  const candidatesFor = (hash: string, allowedSids?: ReadonlySet<number>) => {
    const member = index.memberByHash.get(hash);
    if (!member) return [];
    return (index.groups[member.group] ?? [])
      .filter((other: IndexedMember) => other !== member && (!allowedSids || allowedSids.has(other.sid)))
      .map(({ sid, torrent_id, info_hash }) => ({ sid, torrent_id, info_hash }));
  };

  // ------------------------------------------------------------------------------------------
  // Operations

  type Handler = (req: IncomingMessage, body: string) => JsonAnswer;
  const routes: Record<string, { method: 'GET' | 'POST'; handler: Handler }> = {
    /** Spec 4.1. */
    '/reseed/index/index': {
      method: 'POST',
      handler(req, body) {
        const caller = checkToken(req, { bound: true });
        if (!('token' in caller)) return caller;
        const form = formOf(req, body);
        const refused =
          checkVersion(form.get('version'), refuse) ??
          checkTimestamp(form.get('timestamp'), refuse, 400);
        if (refused) return refused;

        const sidSha1 = form.get('sid_sha1');
        if (!sidSha1) return refuse(400, '站点哈希值 require');
        const issued = siteHashes.get(caller.token)?.get(sidSha1.toLowerCase());
        if (!issued || Date.now() - issued.issuedAt > control.siteHashTtlSeconds * 1000) return refuse(400, '站点缓存哈希值无效');

        const hashText = form.get('hash');
        if (!hashText) return refuse(400, 'hash require');
        let hashes: unknown;
        try {
          hashes = JSON.parse(hashText);
        } catch {
          return refuse(400, 'hash格式错误：不是JSON数组');
        }
        if (!Array.isArray(hashes) || hashes.length === 0) return refuse(400, 'hash格式错误：不是JSON数组');
        if (hashes.length > control.maxHashes) return refuse(400, `hash数量超过限制（最多${control.maxHashes}个）`);
        if (!hashes.every((hash): hash is string => typeof hash === 'string' && /^[0-9a-fA-F]{40}$/.test(hash))) {
          return refuse(400, 'hash格式错误：info_hash应为40位十六进制');
        }
        const checksum = form.get('sha1');
        if (!checksum) return refuse(400, 'sha1 require');
        if (checksum.toLowerCase() !== sha1(hashText)) return refuse(400, 'sha1校验失败');

        const allowed = control.filterBySiteList ? new Set(issued.sids) : undefined;
        const found: Record<string, { torrent: ReturnType<typeof candidatesFor> }> = {};
        for (const hash of hashes) {
          const torrent = candidatesFor(hash.toLowerCase(), allowed);
          if (torrent.length > 0) found[hash] = { torrent };
        }
        if (Object.keys(found).length === 0) return refuse(400, '未查询到可辅种数据');
        return ok(realistic() ? realisticLookup(found, groupOf) : found, 'ok');
      },
    },

    /** Spec 4.2: signed with appid + sha1(timestamp . secret); no token. */
    '/spider/reseed/index': {
      method: 'POST',
      handler(req, body) {
        const form = formOf(req, body);
        const versionRefused = checkVersion(form.get('version'), refuseSigned);
        if (versionRefused) return versionRefused;
        const appid = form.get('appid');
        if (!appid) return refuseSigned(400, 'appid require');
        const secret = apps.get(appid);
        if (secret === undefined) return refuseSigned(403, 'appid无效');
        const time = form.get('timestamp');
        const timeRefused = checkTimestamp(time, refuseSigned, 403);
        if (timeRefused) return timeRefused;
        const sign = form.get('sign');
        if (!sign) return refuseSigned(400, 'sign require');
        if (sign.toLowerCase() !== sha1(`${time}${secret}`)) return refuseSigned(403, '签名错误');
        const hash = form.get('info_hash');
        if (!hash) return refuseSigned(400, 'info_hash require');
        if (!/^[0-9a-fA-F]{40}$/.test(hash)) return refuseSigned(400, 'info_hash格式错误');
        const torrent = candidatesFor(hash.toLowerCase());
        const entries = torrent.length > 0 ? [{ hash, torrent }] : [];
        return ok(realistic() ? realisticSigned(entries, groupOf) : entries, '', 200);
      },
    },

    /** Spec 4.3: works for unbound tokens too (binding needs it). */
    '/reseed/sites/recommend': {
      method: 'GET',
      handler(req) {
        const caller = checkToken(req, {});
        if (!('token' in caller)) return caller;
        const recommend = { count: data.recommend.length, list: data.recommend };
        return ok(realistic() ? realisticRecommend(recommend) : recommend, 'ok');
      },
    },

    '/reseed/sites/index': {
      method: 'GET',
      handler(req) {
        const caller = checkToken(req, {});
        if (!('token' in caller)) return caller;
        return ok({ sites: realistic() ? realisticSites(data.sites) : data.sites }, 'ok');
      },
    },

    /** Form (sid_list[0]=1, sid_list[]=1) or JSON ({"sid_list":[1]}); answers an opaque sid_sha1 bound to the token. */
    '/reseed/sites/reportExisting': {
      method: 'POST',
      handler(req, body) {
        const caller = checkToken(req, { bound: true });
        if (!('token' in caller)) return caller;
        const raw = sidListOf(req, body);
        if (raw === undefined || raw.length === 0) return refuse(400, '缺少sid_list');
        if (!raw.every((sid) => (typeof sid === 'number' && Number.isSafeInteger(sid) && sid >= 0) || (typeof sid === 'string' && /^\d{1,9}$/.test(sid)))) {
          return refuse(400, 'sid_list格式错误');
        }
        const sids = [...new Set(raw.map(Number))].sort((a, b) => a - b);
        const sidSha1 = sha1(`${caller.token}\n${sids.join(',')}`);
        const issued = siteHashes.get(caller.token) ?? new Map<string, IssuedSiteHash>();
        issued.set(sidSha1, { sids, issuedAt: Date.now() });
        siteHashes.set(caller.token, issued);
        return ok({ sid_sha1: sidSha1 }, 'ok');
      },
    },

    /** Answers even for an expired token, so a client can show when it expired. */
    '/reseed/users/profile': {
      method: 'GET',
      handler(req) {
        const caller = checkToken(req, { allowExpired: true });
        if (!('token' in caller)) return caller;
        const entry = tokens.get(caller.token)!;
        const profile = { state: bindings.has(caller.token) ? 1 : 0, overdue_time: entry.overdue_time, is_ever_level: entry.is_ever_level };
        return ok(realistic() ? realisticProfile(profile) : profile, 'ok');
      },
    },

    /** Binds a token to a recommended-site account; passkey must be the SHA-1 of the raw passkey. */
    '/reseed/users/bind': {
      method: 'POST',
      handler(req, body) {
        const caller = checkToken(req, {});
        if (!('token' in caller)) return caller;
        const form = formOf(req, body);
        for (const field of ['token', 'id', 'site', 'sid', 'passkey']) if (!form.get(field)) return refuse(400, `${field} require`);
        if (form.get('token') !== caller.token) return refuse(400, '参数token与请求头Token不一致');
        if (bindings.has(caller.token)) return refuse(400, '用户已绑定，请勿重复操作');
        const site = form.get('site')!;
        const sid = form.get('sid')!;
        const userId = form.get('id')!;
        const passkey = form.get('passkey')!.toLowerCase();
        if (!data.recommend.some((entry) => entry.site === site && String(entry.id) === sid)) return refuse(400, '该站点不在推荐站点列表');
        if (!/^\d{1,15}$/.test(userId)) return refuse(400, 'id格式错误');
        if (rawPasskeys.has(passkey) || !/^[0-9a-f]{40}$/.test(passkey)) return refuse(400, 'passkey应为sha1值，请勿提交明文passkey');
        const account = data.accounts.find((entry) => entry.site === site && entry.user_id === userId);
        if (!account || sha1(account.passkey) !== passkey) return refuse(400, '绑定失败：站点用户校验未通过');
        for (const [other, bound] of bindings) {
          if (other !== caller.token && bound.site === site && bound.user_id === userId) return refuse(400, '该站点账号已被其他token绑定');
        }
        bindings.set(caller.token, { site, user_id: userId });
        return ok([], '绑定成功');
      },
    },
  };

  // ------------------------------------------------------------------------------------------
  // HTTP

  const sleepers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });
  let closed = false;

  const send = (res: ServerResponse, out: RawAnswerOut) => {
    if (res.destroyed || res.headersSent) return;
    const headers: Record<string, string> = { Date: new Date(control.now()).toUTCString(), ...out.headers };
    if (!out.chunked) headers['Content-Length'] = String(Buffer.byteLength(out.body));
    res.writeHead(out.status, headers);
    if (!out.chunked) {
      res.end(out.body);
      return;
    }
    const pieces = out.body.match(/[\s\S]{1,65536}/g) ?? [];
    const next = () => {
      while (pieces.length > 0 && !res.destroyed) {
        if (!res.write(pieces.shift()!)) return void res.once('drain', next);
      }
      if (!res.destroyed) res.end();
    };
    next();
  };

  const jsonOut = (json: JsonAnswer): RawAnswerOut => ({
    status: json.status,
    headers: { 'Content-Type': JSON_TYPE, ...json.headers },
    body: JSON.stringify(json.json),
  });

  const rateLimited = (req: IncomingMessage, body: string, path: string): JsonAnswer | undefined => {
    const { max, windowSeconds, style, retryAfterIn } = control.rateLimit;
    const key = header(req, 'token').trim() || (path === '/spider/reseed/index' && formOf(req, body).get('appid')) || `addr:${req.socket.remoteAddress}`;
    const now = Date.now();
    let bucket = rateBuckets.get(key);
    if (!bucket || now - bucket.start >= windowSeconds * 1000) {
      bucket = { start: now, count: 0 };
      rateBuckets.set(key, bucket);
    }
    bucket.count += 1;
    if (bucket.count <= max) return undefined;
    const wait = Math.max(1, Math.ceil((bucket.start + windowSeconds * 1000 - now) / 1000));
    const reset = Math.floor(control.now() / 1000) + wait;
    const inBody = retryAfterIn === 'body' || retryAfterIn === 'both';
    const inHeader = retryAfterIn === 'header' || retryAfterIn === 'both';
    const data = inBody ? { 'Retry-After': wait, 'X-RateLimit-Limit': max, 'X-RateLimit-Reset': reset } : [];
    const json = style === 'http-429' ? { code: 429, msg: '访问频率过快', data } : { code: 400, msg: '辅种间隔过于频繁', data };
    const headers: Record<string, string> = { 'X-RateLimit-Limit': String(max), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(reset) };
    if (inHeader) headers['Retry-After'] = String(wait);
    return { status: style === 'http-429' ? 429 : 200, json, headers };
  };

  const forcedOut = (forced: { status: number } & ForcedStatus): RawAnswerOut => {
    const text = STATUS_CODES[forced.status] ?? 'Error';
    if (forced.body === 'html') {
      return {
        status: forced.status,
        headers: { 'Content-Type': 'text/html', ...forced.headers },
        body: `<html><head><title>${forced.status} ${text}</title></head><body><center><h1>${forced.status} ${text}</h1></center><hr><center>nginx</center></body></html>`,
      };
    }
    if (forced.body === 'empty') return { status: forced.status, headers: { ...forced.headers }, body: '' };
    return { ...jsonOut({ status: forced.status, json: { code: forced.status, msg: text, data: [] } }), headers: { 'Content-Type': JSON_TYPE, ...forced.headers } };
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://reference.invalid'); // absolute-form URLs (proxies) keep their own host
    const path = url.pathname;
    const body = await readBody(req);
    if (body === undefined) return send(res, jsonOut({ status: 413, json: { code: 413, msg: 'Payload Too Large', data: [] } }));
    requests.push({ method: req.method ?? '', path, url: req.url ?? '', headers: req.headers, body, time: Date.now() });
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded);

    if (control.delayMs > 0) await sleep(control.delayMs);
    for (const held of holds.filter((hold) => hold.path === undefined || hold.path === path)) await held.released;
    if (closed || res.destroyed) return;

    const raw = take(rawAnswers, path);
    if (raw) return send(res, { status: raw.status ?? 200, headers: { 'Content-Type': JSON_TYPE, ...raw.headers }, body: raw.body });
    const forced = take(forcedStatuses, path);
    if (forced) return send(res, forcedOut(forced));
    const failing = take(transients, path);
    if (failing) {
      // The server lost its state (Redis) with this failure: the caller's site report is gone too.
      const token = header(req, 'token').trim();
      if (token) control.forgetSiteHashes(token);
      const out = spoil(failing, { status: 200, json: {} });
      options.log?.(`${req.method} ${path} -> HTTP ${out.status} [transient ${failing}] ${out.body.slice(0, 160)}`);
      return send(res, out);
    }

    let result: JsonAnswer;
    const route = routes[path];
    if (!route) result = { status: 404, json: { code: 404, msg: 'Not Found', data: [] } };
    else if (req.method !== route.method) result = { status: 405, json: { code: 405, msg: 'Method Not Allowed', data: [] }, headers: { Allow: route.method } };
    else result = rateLimited(req, body, path) ?? route.handler(req, body);

    const mode = take(badBodies, path);
    const out = mode ? spoil(mode, result) : jsonOut(result);
    options.log?.(`${req.method} ${path} -> HTTP ${out.status}${mode ? ` [${mode}]` : ''} ${out.body.slice(0, 160)}`);
    send(res, out);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    respond(req, res).catch((error: unknown) => {
      options.log?.(`internal error: ${String(error)}`);
      send(res, jsonOut({ status: 500, json: { code: 500, msg: 'Server internal error', data: [] } }));
    });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    control,
    handle,
    data,
    index,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const wake of [...sleepers]) wake();
        for (const held of holds) held.release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** Form fields, only when the body is form-encoded (as PHP would see them). */
function formOf(req: IncomingMessage, body: string): URLSearchParams {
  return /^application\/x-www-form-urlencoded\b/i.test(header(req, 'content-type')) ? new URLSearchParams(body) : new URLSearchParams();
}

function sidListOf(req: IncomingMessage, body: string): unknown[] | undefined {
  if (/^application\/json\b/i.test(header(req, 'content-type'))) {
    try {
      const parsed = JSON.parse(body) as unknown;
      const list = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>).sid_list : undefined;
      return Array.isArray(list) ? list : undefined;
    } catch {
      return undefined;
    }
  }
  const values = [...formOf(req, body)].filter(([key]) => /^sid_list(\[\d*\])?$/.test(key)).map(([, value]) => value);
  return values.length > 0 ? values : undefined;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even when too large, so the 413 can still be answered on this connection.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
  }
  return size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}
