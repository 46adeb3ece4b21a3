/**
 * The lookup service client: one function per operation (spec lookup-service.md, service-notes.md).
 * It runs in the background (MV3 service worker, MV2 background page) and in Node tests, so it uses
 * only fetch, AbortController, URLSearchParams and crypto.subtle. Every failure is a ServiceError.
 */
import { z } from 'zod';
import { NO_CANDIDATES, interpretAnswer, type AnswerRules, type RawAnswer } from './answers';
import { ServiceError } from './service-errors';
import {
  bindSuccessSchema,
  infoHashSchema,
  listLookupSuccessSchema,
  profileSuccessSchema,
  readCandidates,
  readLookupEntry,
  recommendSuccessSchema,
  reportExistingSuccessSchema,
  serviceSiteSchema,
  signedEntrySchema,
  signedLookupSuccessSchema,
  siteListSuccessSchema,
  type Candidate,
  type Profile,
  type RecommendedSite,
  type ServiceSite,
} from './answer-schemas';
import { sha1HexOfText } from '../sha1';
import { readCappedText } from '../read-capped';

export type { Candidate, Profile, RecommendedSite, ServiceSite } from './answer-schemas';

export interface ServiceConfig {
  /** e.g. https://2025.iyuu.cn (a trailing slash is tolerated; a path prefix is kept). */
  baseUrl: string;
  token?: string;
  appId?: string;
  secret?: string;
  /** Sent as `version`; SERVICE_CLIENT_VERSION unless a test says otherwise. */
  version?: string;
  /** Default 15000; when it runs out the call fails with kind 'timeout'. */
  timeoutMs?: number;
  /** Added to local time when making `timestamp` (from an expired-timestamp error's clockOffsetSeconds). */
  clockOffsetSeconds?: number;
  fetch?: typeof fetch;
  /** ms since the epoch; default Date.now. */
  now?: () => number;
  /** Cancels the call; a cancelled call fails with kind 'network'. */
  signal?: AbortSignal;
}

/**
 * The `version` every request carries. Not the extension's own version: the service knows its
 * clients' versions, and the old API answered differently by version. `8.2.0` is what every
 * third-party client sends (MoviePilot's IYUU plugin, sagan/ptool, the IYUU userscripts); the
 * official client sends its own release (8.3.x). Evidence: REAL-ANSWERS.md.
 */
export const SERVICE_CLIENT_VERSION = '8.2.0';

export const SERVICE_TIMEOUT_MS = 15_000;
/** The official client's batch size since late 2024 (service-notes); the server's own cap is unknown. */
export const MAX_HASHES_PER_LOOKUP = 200;
/** Larger answers are refused unread: no honest answer of this service comes near it. */
export const MAX_SERVICE_ANSWER_BYTES = 2 * 1024 * 1024;

type Auth = 'token' | 'none';

interface ServiceRequest {
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  auth: Auth;
  form?: URLSearchParams;
}

// ---------------------------------------------------------------------------------------------
// Operations

/**
 * Spec 4.1: candidates for up to 200 hashes. Hashes are lowercased, de-duplicated and sorted; the
 * result maps every one of them to its candidates ([] when the service has none), except a hash
 * whose entry was wholly broken: it is left out, to be asked again rather than taken as "none".
 * Bad candidates are skipped alone; an answer with nothing usable in it is a bad answer.
 */
export async function lookupBatch(config: ServiceConfig, hashes: string[], sidSha1: string): Promise<Map<string, Candidate[]>> {
  const asked = normaliseHashes(hashes);
  if (asked.length > MAX_HASHES_PER_LOOKUP) {
    throw new ServiceError({
      kind: 'bad-request',
      detail: `list lookup: ${asked.length} hashes; at most ${MAX_HASHES_PER_LOOKUP} go in one request`,
    });
  }
  if (asked.length === 0) return new Map();
  const siteHash = typeof sidSha1 === 'string' ? sidSha1.trim().toLowerCase() : '';
  if (!/^[0-9a-f]{40}$/.test(siteHash)) {
    // Nothing to send yet: the caller must report its sites first (reportExisting).
    throw new ServiceError({ kind: 'stale-site-hash', detail: 'list lookup: no valid site hash (sid_sha1); report the site list first' });
  }
  requireToken(config, 'list lookup');

  const hash = JSON.stringify(asked);
  const form = new URLSearchParams({
    hash,
    sha1: await digest(hash),
    sid_sha1: siteHash,
    timestamp: timestamp(config),
    version: clientVersion(config),
  });
  const found = await call(config, { operation: 'list lookup', method: 'POST', path: '/reseed/index/index', auth: 'token', form }, {
    operation: 'list lookup',
    successCode: 0,
    noCandidatesIsEmpty: true,
    parse: (json) => candidatesForAsked(listLookupSuccessSchema.parse(json).data, asked),
  });
  return found === NO_CANDIDATES ? new Map(asked.map((hash) => [hash, []])) : found;
}

/**
 * Only the hashes we asked for count: keys are matched case-insensitively and anything else is
 * ignored, so a key the service invents can neither spoil nor extend the result.
 */
function candidatesForAsked(data: Record<string, unknown>, asked: readonly string[]): Map<string, Candidate[]> {
  const wanted = new Set(asked);
  const found = new Map<string, Candidate[]>();
  const broken = new Set<string>();
  for (const key of Object.keys(data)) {
    const hash = key.toLowerCase();
    if (!wanted.has(hash)) continue;
    const entry = readLookupEntry(data[key]);
    if (!entry.usable) broken.add(hash);
    else found.set(hash, [...(found.get(hash) ?? []), ...entry.candidates]);
  }
  if (found.size === 0 && broken.size > 0) throw new Error(`nothing usable: the entries for ${broken.size} asked hashes are broken`);
  const result = new Map<string, Candidate[]>();
  for (const hash of asked) {
    const candidates = found.get(hash);
    if (candidates) result.set(hash, uniqueCandidates(candidates));
    else if (!broken.has(hash)) result.set(hash, []);
  }
  return result;
}

/** Spec 4.2's data for the asked hash; entries for other hashes are ignored, broken ones skipped alone. */
function candidatesForSigned(entries: readonly unknown[], asked: string): Candidate[] {
  const candidates: Candidate[] = [];
  let usable = 0;
  let broken = 0;
  for (const raw of entries) {
    const entry = signedEntrySchema.safeParse(raw);
    if (!entry.success) {
      broken += 1;
      continue;
    }
    if (entry.data.hash !== asked) continue;
    const reading = readCandidates(entry.data.torrent);
    if (!reading.usable) broken += 1;
    else {
      usable += 1;
      candidates.push(...reading.candidates);
    }
  }
  if (usable === 0 && broken > 0) throw new Error(`nothing usable: ${broken} broken entries`);
  return uniqueCandidates(candidates);
}

/** Spec 4.2: candidates for one hash, signed with App ID and Secret (no token is sent). */
export async function lookupSigned(config: ServiceConfig, hash: string): Promise<Candidate[]> {
  const [asked] = normaliseHashes([hash]);
  const appId = typeof config.appId === 'string' ? config.appId.trim() : '';
  const secret = config.secret;
  if (!appId || !secret) throw new ServiceError({ kind: 'no-credentials', detail: 'signed lookup: App ID and Secret are not set' });
  if (!asked) throw new ServiceError({ kind: 'bad-request', detail: 'signed lookup: no hash given' });

  const time = timestamp(config);
  const form = new URLSearchParams({
    info_hash: asked,
    sign: await digest(time + secret),
    appid: appId,
    timestamp: time,
    version: clientVersion(config),
  });
  const found = await call(config, { operation: 'signed lookup', method: 'POST', path: '/spider/reseed/index', auth: 'none', form }, {
    operation: 'signed lookup',
    successCode: 200,
    noCandidatesIsEmpty: true,
    // Spec 5 rule 1: 403 here is the expired timestamp; a 401 can only be about the signature.
    codeMeanings: { 403: 'expired-timestamp', 401: 'bad-sign' },
    parse: (json) => candidatesForSigned(signedLookupSuccessSchema.parse(json).data, asked),
  });
  return found === NO_CANDIDATES ? [] : found;
}

/** Spec 4.3: the recommended sites a token can be bound with. */
export async function getRecommendedSites(config: ServiceConfig): Promise<{ count: number; list: RecommendedSite[] }> {
  requireToken(config, 'recommended sites');
  return settle(
    await call(config, { operation: 'recommended sites', method: 'GET', path: '/reseed/sites/recommend', auth: 'token' }, {
      operation: 'recommended sites',
      successCode: 0,
      parse: (json) => recommendSuccessSchema.parse(json).data,
    }),
  );
}

/**
 * The service's site list. Entries that fail validation (no id, no usable base_url, an unsafe
 * template, a closed site) are skipped and counted, not fatal.
 */
export async function getSites(config: ServiceConfig): Promise<{ sites: ServiceSite[]; skipped: number }> {
  requireToken(config, 'site list');
  const entries = settle(
    await call(config, { operation: 'site list', method: 'GET', path: '/reseed/sites/index', auth: 'token' }, {
      operation: 'site list',
      successCode: 0,
      parse: (json) => siteListSuccessSchema.parse(json).data.sites,
    }),
  );
  const sites: ServiceSite[] = [];
  const seen = new Set<number>();
  let skipped = 0;
  for (const entry of entries) {
    const site = serviceSiteSchema.safeParse(entry);
    // A second entry with a known id is skipped too: one sid must mean one site.
    if (!site.success || seen.has(site.data.id)) {
      skipped += 1;
      continue;
    }
    seen.add(site.data.id);
    sites.push(site.data);
  }
  return { sites, skipped };
}

/** Reports the sids of the sites the user holds; the answer is the opaque sid_sha1 for lookups. */
export async function reportExisting(config: ServiceConfig, sids: number[]): Promise<string> {
  const list = [...new Set(sids)].sort((a, b) => a - b);
  if (list.length === 0) throw new ServiceError({ kind: 'bad-request', detail: 'report sites: no site to report' });
  const odd = list.find((sid) => !Number.isSafeInteger(sid) || sid < 0);
  if (odd !== undefined) throw new ServiceError({ kind: 'bad-request', detail: `report sites: ${odd} is not a site id` });
  requireToken(config, 'report sites');

  // The official client's form encoding: sid_list[0]=1&sid_list[1]=7.
  const form = new URLSearchParams(list.map((sid, index) => [`sid_list[${index}]`, String(sid)]));
  return settle(
    await call(config, { operation: 'report sites', method: 'POST', path: '/reseed/sites/reportExisting', auth: 'token', form }, {
      operation: 'report sites',
      successCode: 0,
      parse: (json) => reportExistingSuccessSchema.parse(json).data.sid_sha1,
    }),
  );
}

/** The token's state (activated, expiry); used to check a token. */
export async function getProfile(config: ServiceConfig): Promise<Profile> {
  requireToken(config, 'profile');
  return settle(
    await call(config, { operation: 'profile', method: 'GET', path: '/reseed/users/profile', auth: 'token' }, {
      operation: 'profile',
      successCode: 0,
      parse: (json) => profileSuccessSchema.parse(json).data,
    }),
  );
}

const accountSchema = z.object({
  sid: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  site: z.string().trim().min(1).max(200),
  userId: z.string().trim().regex(/^\d{1,15}$/, 'the user id is a number'),
  passkey: z.string().trim().min(1).max(500),
});

/**
 * Binds the token to an account on a recommended site, which activates it. Only the SHA-1 of the
 * passkey leaves the extension, never the passkey itself. Returns the service's message.
 */
export async function bindAccount(config: ServiceConfig, account: { sid: number; site: string; userId: string; passkey: string }): Promise<string> {
  const checked = accountSchema.safeParse(account);
  if (!checked.success) {
    throw new ServiceError({ kind: 'bad-request', detail: `bind: ${checked.error.issues[0]?.message ?? 'invalid account'}` });
  }
  const token = requireToken(config, 'bind');
  const { sid, site, userId, passkey } = checked.data;
  const form = new URLSearchParams({ token, id: userId, site, sid: String(sid), passkey: await digest(passkey) });
  return settle(
    await call(config, { operation: 'bind', method: 'POST', path: '/reseed/users/bind', auth: 'token', form }, {
      operation: 'bind',
      successCode: 0,
      parse: (json) => bindSuccessSchema.parse(json).msg,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Request building

function normaliseHashes(hashes: readonly string[]): string[] {
  const unique = new Set<string>();
  for (const raw of hashes) {
    const hash = infoHashSchema.safeParse(typeof raw === 'string' ? raw.trim() : raw);
    if (!hash.success) throw new ServiceError({ kind: 'bad-request', detail: `not an info-hash: ${String(raw).slice(0, 60)}` });
    unique.add(hash.data);
  }
  return [...unique].sort();
}

/** SHA-1 that fails as a ServiceError: Web Crypto is missing outside secure contexts. */
async function digest(text: string): Promise<string> {
  try {
    return await sha1HexOfText(text);
  } catch (error) {
    throw new ServiceError({ kind: 'bad-request', detail: `SHA-1 is not available here (${error instanceof Error ? error.message : String(error)})` });
  }
}

function uniqueCandidates(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    const key = `${candidate.sid}:${candidate.torrent_id}:${candidate.info_hash}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function requireToken(config: ServiceConfig, operation: string): string {
  const token = typeof config.token === 'string' ? config.token.trim() : '';
  if (!token) throw new ServiceError({ kind: 'no-credentials', detail: `${operation}: no token is set` });
  // A header value must be visible ASCII; anything else cannot be a token (and fetch would throw).
  if (!/^[\x21-\x7e]{1,500}$/.test(token)) throw new ServiceError({ kind: 'auth', detail: `${operation}: the token contains characters a token cannot have` });
  return token;
}

function clientVersion(config: ServiceConfig): string {
  const version = typeof config.version === 'string' ? config.version.trim() : '';
  return version || SERVICE_CLIENT_VERSION;
}

/** Unix seconds on the service's clock as best we know it, as the string the spec asks for. */
function timestamp(config: ServiceConfig): string {
  const now = (config.now ?? Date.now)();
  const offset = Number.isFinite(config.clockOffsetSeconds) ? (config.clockOffsetSeconds ?? 0) : 0;
  return String(Math.floor(now / 1000 + offset));
}

function settle<T>(value: T | typeof NO_CANDIDATES): T {
  if (value === NO_CANDIDATES) throw new ServiceError({ kind: 'bad-request', detail: 'unexpected "no candidates" answer' });
  return value;
}

// ---------------------------------------------------------------------------------------------
// Transport

function endpoint(baseUrl: string, path: string): string {
  const base = String(baseUrl ?? '').trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base + path);
  } catch {
    throw new ServiceError({ kind: 'bad-request', detail: `the service address is not a URL: ${base.slice(0, 100)}` });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceError({ kind: 'bad-request', detail: `the service address must be http(s): ${base.slice(0, 100)}` });
  }
  return url.href;
}

async function call<T>(config: ServiceConfig, request: ServiceRequest, rules: AnswerRules<T>): Promise<T | typeof NO_CANDIDATES> {
  return interpretAnswer(rules, await send(config, request));
}

async function send(config: ServiceConfig, request: ServiceRequest): Promise<RawAnswer> {
  const url = endpoint(config.baseUrl, request.path);
  const now = config.now ?? Date.now;
  const doFetch = config.fetch ?? globalThis.fetch;
  const timeoutMs = config.timeoutMs !== undefined && config.timeoutMs > 0 && Number.isFinite(config.timeoutMs) ? config.timeoutMs : SERVICE_TIMEOUT_MS;

  const headers: Record<string, string> = { Accept: 'application/json' };
  if (request.auth === 'token') headers.Token = requireToken(config, request.operation);
  if (request.form) headers['Content-Type'] = 'application/x-www-form-urlencoded';

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const cancel = () => controller.abort();
  const callerSignal = config.signal;
  if (callerSignal?.aborted) controller.abort();
  else callerSignal?.addEventListener('abort', cancel, { once: true });

  const failure = (stage: string, error: unknown) =>
    timedOut
      ? new ServiceError({ kind: 'timeout', detail: `${request.operation}: no answer within ${timeoutMs} ms` })
      : new ServiceError({
          kind: 'network',
          detail: callerSignal?.aborted
            ? `${request.operation}: cancelled`
            : `${request.operation}: ${stage} (${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)})`.slice(0, 300),
        });

  try {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: request.method,
        headers,
        body: request.form?.toString(),
        signal: controller.signal,
        credentials: 'omit', // the service knows the user by token, never by cookies
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
        // Never follow a redirect: the token would go wherever the redirect points.
        redirect: 'manual',
      });
    } catch (error) {
      throw failure('the service could not be reached', error);
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      throw redirected(request.operation, url, response);
    }
    let text: string | null;
    try {
      text = await readCappedText(response, MAX_SERVICE_ANSWER_BYTES);
    } catch (error) {
      throw failure('the connection broke while reading the answer', error);
    }
    return { status: response.status, headers: response.headers, text, receivedAt: now() };
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', cancel);
  }
}

/** A redirect, not followed. Browsers hide where it pointed (opaqueredirect); Node tells. */
function redirected(operation: string, from: string, response: Response): ServiceError {
  let target = '';
  try {
    const location = response.headers.get('location');
    if (location) target = new URL(location, from).origin;
  } catch {
    // No usable Location: say nothing of where.
  }
  const where = target && target !== new URL(from).origin ? ` to ${target.slice(0, 100)}` : '';
  return new ServiceError({
    kind: 'bad-answer',
    detail: `${operation}: the service redirected elsewhere${where}; check the API base URL`,
    httpStatus: response.status || undefined,
    redirected: true,
  });
}

