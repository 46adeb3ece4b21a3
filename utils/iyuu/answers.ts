/**
 * Turning one HTTP answer of the lookup service into a value or a ServiceError.
 * Pure (no I/O), so it can be fuzzed directly; client.ts does the transport.
 */
import { z } from 'zod';
import { ServiceError, type ServiceErrorKind } from './service-errors';
import { errorEnvelopeSchema, type ErrorEnvelope } from './answer-schemas';

/** What a service message means. 'no-candidates' is not a failure: the lookup simply found nothing. */
export type MessageOutcome = ServiceErrorKind | 'no-candidates';

export interface MessageRule {
  pattern: RegExp;
  outcome: MessageOutcome;
}

/**
 * What a failing server says instead of an answer: webman's "Server internal error" (ThinkPHP's
 * "页面错误！请稍后再试～"), Redis
 * ("OOM command not allowed when used memory > 'maxmemory'", MISCONF, LOADING, READONLY), PHP
 * ("Fatal error", "Allowed memory size", "Uncaught …"), a database (SQLSTATE, "Too many
 * connections"), a gateway. Seen in the official client's and MoviePilot's issue reports.
 */
export const SERVER_FAILURE_TEXT =
  /server internal error|internal server error|服务器(内部)?错误|服务器繁忙|系统(繁忙|错误)|页面错误|\bOOM command not allowed|\bmaxmemory\b|^\s*(ERR|MISCONF|LOADING|READONLY|BUSY|CLUSTERDOWN)\b|redis\s*(server\s*)?(went away|connection)|(Fatal|Parse) error|Allowed memory size|\bUncaught\b|SQLSTATE\[|too many connections|bad gateway|gateway time-?out|service (temporarily )?unavailable/i;

/**
 * The service's messages, as seen in its public clients (service-notes.md). First match wins, so
 * specific rules come before broad ones ("token未注册，请先绑定推荐站点" is about the token, while
 * "用户未绑定推荐站点" is about binding). Extend here when the service says something new.
 */
export const MESSAGE_RULES: readonly MessageRule[] = [
  { pattern: /未查询到可辅种数据/, outcome: 'no-candidates' },
  { pattern: /访问频率过快|过于频繁|too many requests|rate.?limit/i, outcome: 'rate-limited' },
  // The server failed, whatever code it put on the envelope (webman answers 200 + code 400 "Server internal error").
  { pattern: SERVER_FAILURE_TEXT, outcome: 'server' },
  { pattern: /未绑定/, outcome: 'not-bound' },
  { pattern: /站点(缓存)?哈希值|sid_?sha1/i, outcome: 'stale-site-hash' },
  { pattern: /时间戳.{0,4}(过期|失效)|timestamp.{0,20}expire|expired.{0,20}timestamp/i, outcome: 'expired-timestamp' },
  { pattern: /签名|\bsign(ature)?\b|\bapp_?id\b/i, outcome: 'bad-sign' },
  // 请求缺少token / token未注册 / token无效 / token已过期; not any sentence naming "token" (e.g. an account bound to another token).
  { pattern: /缺少\s*token|token\s*(未注册|无效|不存在|错误|已?过期|失效)|\b(missing|invalid|unknown|expired)\s+token|token\s+(is\s+)?(missing|invalid|unknown|expired)/i, outcome: 'auth' },
];

export function matchMessage(message: string): MessageOutcome | undefined {
  return MESSAGE_RULES.find((rule) => rule.pattern.test(message))?.outcome;
}

/** Header access as both the Fetch API and tests provide it. */
export interface HeaderSource {
  get(name: string): string | null;
}

export interface RawAnswer {
  status: number;
  headers: HeaderSource;
  /** The body as text, or null when it was larger than the client accepts. */
  text: string | null;
  /** Local time (ms) when the answer arrived. */
  receivedAt: number;
}

export interface AnswerRules<T> {
  /** For details in errors, e.g. "list lookup". */
  operation: string;
  /** The envelope `code` of success: 0, or 200 for the signed lookup (spec section 7). */
  successCode: number;
  /** Lookups: "未查询到可辅种数据" means an empty result, not a failure. */
  noCandidatesIsEmpty?: boolean;
  /** Envelope codes whose meaning this operation defines, e.g. 403 = expired timestamp on 4.2. */
  codeMeanings?: Readonly<Record<number, ServiceErrorKind>>;
  /** Reads a success envelope; may throw a zod error or ServiceError, both become bad answers. */
  parse(json: unknown): T;
}

export const NO_CANDIDATES: unique symbol = Symbol('no candidates');

/** Default wait after a 429 without a usable Retry-After (service-notes). */
export const DEFAULT_RETRY_AFTER_SECONDS = 30;
/** A Retry-After beyond a day is taken as a day: a broken header must not lock the user out for good. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

export function interpretAnswer<T>(rules: AnswerRules<T>, raw: RawAnswer): T | typeof NO_CANDIDATES {
  const { json, problem, serverText } = readJson(raw.text);
  const envelopeResult = json === undefined ? undefined : errorEnvelopeSchema.safeParse(json);
  const envelope = envelopeResult?.success ? envelopeResult.data : undefined;
  const ok = raw.status >= 200 && raw.status < 300;

  if (raw.status === 429) throw rateLimited(rules, raw, envelope);

  if (ok && envelope && envelope.code === rules.successCode) {
    try {
      return rules.parse(json);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      // An exception rendered with code 0 ("success") and the framework's failure text: the server failed.
      const failed = SERVER_FAILURE_TEXT.test(envelope.msg);
      throw new ServiceError({
        kind: failed ? 'server' : 'bad-answer',
        detail: failed ? `${rules.operation}: the service failed` : `${rules.operation}: the answer does not match the spec (${describe(error)})`,
        serviceMessage: envelope.msg || undefined,
        code: envelope.code,
        httpStatus: raw.status,
      });
    }
  }

  const base = { serviceMessage: envelope?.msg || undefined, code: envelope?.code, httpStatus: raw.status };
  const fail = (kind: ServiceErrorKind, detail: string) => new ServiceError({ kind, detail: `${rules.operation}: ${detail}`, ...base });

  // The HTTP status speaks first where it is unambiguous: a proxy's 502 page is not the service's word.
  if (raw.status >= 500) throw fail('server', `the service failed (HTTP ${raw.status})`);

  if (envelope) {
    const outcome = matchMessage(envelope.msg);
    if (outcome === 'no-candidates') {
      if (rules.noCandidatesIsEmpty) return NO_CANDIDATES;
      throw fail('bad-request', 'the service refused the request');
    }
    const kind = outcome ?? codeMeaning(rules, envelope.code) ?? statusMeaning(raw.status);
    if (kind === 'rate-limited') throw rateLimited(rules, raw, envelope);
    if (kind === 'expired-timestamp') throw expired(rules, raw, base);
    if (kind) throw fail(kind, kindDetail(kind));
    if (envelope.code === rules.successCode) throw fail('bad-answer', `unexpected HTTP status ${raw.status}`);
    throw fail('bad-request', `the service refused the request (code ${envelope.code})`);
  }

  const kind = statusMeaning(raw.status);
  if (kind) throw fail(kind, kindDetail(kind));
  if (serverText !== undefined) {
    throw new ServiceError({
      kind: 'server',
      detail: `${rules.operation}: the service failed and said so in words instead of an answer`,
      serviceMessage: firstLine(serverText) || undefined,
      httpStatus: raw.status,
    });
  }
  throw fail('bad-answer', problem ?? (ok ? 'the answer is not a {code, msg, data} envelope' : `unexpected HTTP status ${raw.status}`));
}

interface ReadBody {
  json?: unknown;
  problem?: string;
  /** The body is the server's own failure, in words (plain text, or a PHP error in HTML): transient. */
  serverText?: string;
}

function readJson(text: string | null): ReadBody {
  if (text === null) return { problem: 'the answer is larger than the client accepts' };
  const trimmed = text.replace(/^\uFEFF/, '').trim(); // PHP files saved with a BOM leak it into answers
  if (trimmed === '') return { problem: 'the answer is empty' };
  if (trimmed.startsWith('<')) {
    // PHP prints a fatal error as "<br />\n<b>Fatal error</b>: …": a failing server, not a login or portal page.
    const words = trimmed.slice(0, 2000).replace(/<[^>]{0,100}>/g, ' ').replace(/\s+/g, ' ').trim();
    if (/^(PHP )?(Fatal|Parse) error\b|^Uncaught\b/i.test(words)) return { problem: 'the server failed', serverText: words };
    return { problem: 'an HTML page instead of JSON (a login, proxy or error page?)' };
  }
  try {
    return { json: JSON.parse(trimmed) as unknown };
  } catch {
    // Broken JSON is a broken answer; plain words are the server (PHP, Redis, a framework) failing.
    if (/^[[{"]/.test(trimmed)) return { problem: 'the answer is not JSON' };
    return { problem: 'the server failed', serverText: trimmed };
  }
}

/** The first line of a server's failure text, short, for the user to see (as text). */
function firstLine(text: string): string {
  return (text.split(/\r?\n/, 1)[0] ?? '').trim().slice(0, 200);
}

function codeMeaning<T>(rules: AnswerRules<T>, code: number): ServiceErrorKind | undefined {
  const own = rules.codeMeanings?.[code];
  if (own) return own;
  if (code === 429) return 'rate-limited';
  if (code === 401 || code === 403) return 'auth';
  if (code >= 500 && code < 600) return 'server';
  return undefined;
}

function statusMeaning(status: number): ServiceErrorKind | undefined {
  if (status === 401) return 'auth';
  if (status >= 500) return 'server';
  if (status >= 400 && status < 500) return 'bad-request';
  return undefined;
}

const KIND_DETAILS: Partial<Record<ServiceErrorKind, string>> = {
  auth: 'the token was rejected',
  'not-bound': 'the token is not bound to a recommended site yet',
  'stale-site-hash': 'the site hash (sid_sha1) is missing or stale; report the site list again',
  'bad-sign': 'the App ID / Secret signature was rejected',
  'bad-request': 'the service refused the request',
  server: 'the service failed',
};

function kindDetail(kind: ServiceErrorKind): string {
  return KIND_DETAILS[kind] ?? kind;
}

function expired<T>(rules: AnswerRules<T>, raw: RawAnswer, base: { serviceMessage?: string; code?: number; httpStatus: number }): ServiceError {
  const serverTime = Date.parse(raw.headers.get('date') ?? '');
  const clockOffsetSeconds = Number.isFinite(serverTime) ? Math.round((serverTime - raw.receivedAt) / 1000) : undefined;
  return new ServiceError({
    kind: 'expired-timestamp',
    detail: `${rules.operation}: the timestamp was refused as expired${
      clockOffsetSeconds === undefined ? '' : `; the service's clock is ${clockOffsetSeconds} s ahead of ours`
    }`,
    ...base,
    clockOffsetSeconds,
  });
}

function rateLimited<T>(rules: AnswerRules<T>, raw: RawAnswer, envelope: ErrorEnvelope | undefined): ServiceError {
  const seconds = retryAfterSeconds(raw, envelope?.data);
  return new ServiceError({
    kind: 'rate-limited',
    detail: `${rules.operation}: too many requests; wait ${seconds} s`,
    serviceMessage: envelope?.msg || undefined,
    code: envelope?.code,
    httpStatus: raw.status,
    retryAt: raw.receivedAt + seconds * 1000,
  });
}

/** Retry-After from the header (seconds or an HTTP date), else from `data['Retry-After']`, else 30 s. */
export function retryAfterSeconds(raw: Pick<RawAnswer, 'headers' | 'receivedAt'>, data: unknown): number {
  const fromHeader = parseRetryAfter(raw.headers.get('retry-after'), raw);
  const bodyValue = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>)['Retry-After'] : undefined;
  const fromBody = typeof bodyValue === 'number' || typeof bodyValue === 'string' ? parseRetryAfter(String(bodyValue), raw) : undefined;
  const seconds = fromHeader ?? fromBody ?? DEFAULT_RETRY_AFTER_SECONDS;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}

function parseRetryAfter(value: string | null, raw: Pick<RawAnswer, 'headers' | 'receivedAt'>): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  if (!/[a-z]/i.test(text)) return undefined; // not a number and not a date
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  // An HTTP date is on the service's clock: measure it against the service's Date header when there is one.
  const serverNow = Date.parse(raw.headers.get('date') ?? '');
  return Math.ceil((at - (Number.isFinite(serverNow) ? serverNow : raw.receivedAt)) / 1000);
}

function describe(error: unknown): string {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    if (!issue) return 'invalid';
    const path = issue.path.map(String).join('.').slice(0, 120);
    return `${path || '(root)'}: ${issue.message}`.slice(0, 300);
  }
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}
