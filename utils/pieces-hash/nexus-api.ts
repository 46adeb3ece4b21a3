/**
 * One request to a NexusPHP site's pieces-hash API (NexusPHP ≥ 1.8.5): `POST {site}/api/pieces-hash`
 * (some sites move it: keepfrds `/api/torrents/pieces-hash`), the user's passkey in the body (a
 * cookie session is not accepted, and none is sent), `pieces_hash` up to 100 lowercase-hex SHA-1s of
 * raw `info.pieces` bytes. The answer is `{"ret":0,"msg":…,"data":{"<pieces hash>":<torrent id>}}`;
 * more than 100 → HTTP 200 `ret: -1`; a wrong passkey → 401 (with `Accept: application/json`; a
 * redirect to login.php without it); 60 requests a minute per user, then 429 with `Retry-After`.
 *
 * Error bodies echo the request, passkey included: no body, `msg` or site text ever goes into a
 * result here, only kinds, numbers and the asked hashes. Strict where safety needs it (only hashes
 * that were asked, only positive safe-integer ids, a size cap, no redirect followed), tolerant where
 * sites are untidy (`data` `{}` or `[]` for no hits, an id or `ret` given as a digit string).
 */
import { readCappedText } from '../read-capped';

/** NexusPHP's cap per request. */
export const PIECES_HASH_BATCH = 100;
export const DEFAULT_PIECES_HASH_PATH = '/api/pieces-hash';
export const PIECES_HASH_TIMEOUT_MS = 20_000;
/**
 * 100 hits are about 6 KB and an echoed request about 5 KB; a site's HTML page can be larger, and is
 * not read past this.
 */
export const MAX_PIECES_HASH_ANSWER_BYTES = 256 * 1024;
/** A Retry-After beyond a day is taken as a day. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

const PIECES_HASH = /^[0-9a-f]{40}$/;
/** NexusPHP's passkey: 32 characters (md5 hex on stock sites; letters and digits allowed). */
const PASSKEY = /^[A-Za-z0-9]{32}$/;

export type PiecesHashAnswer =
  /** `ids`: asked pieces hash → the site's torrent id; `skipped`: entries left out (not asked, or no usable id). */
  | { kind: 'found'; ids: Map<string, number>; skipped: number }
  /** `ret: -1`: more than the site takes in one request. */
  | { kind: 'too-many' }
  /** 401: the site does not accept this passkey. */
  | { kind: 'wrong-passkey' }
  /** 429; `retryAfterSeconds` from Retry-After when it says one. */
  | { kind: 'rate-limited'; retryAfterSeconds?: number }
  /** This site has no such API at this address: 404/405/410, a redirect, an HTML page, or JSON without `ret`. */
  | { kind: 'no-api'; why: 'not-found' | 'redirect' | 'not-json' | 'no-ret' }
  /** Another `ret` in a JSON answer (the site's refusal); its `msg` is not kept. */
  | { kind: 'refused'; ret: number; status: number }
  /** Any other HTTP status (403, 5xx…), or an answer larger than the cap. */
  | { kind: 'site-error'; status: number; tooLarge?: true }
  /** No answer: the network failed or the timeout passed. */
  | { kind: 'unreachable'; why: 'timeout' | 'network' }
  /** Nothing was sent: the passkey, the hashes or the address are not what the API takes. */
  | { kind: 'bad-request'; why: 'passkey' | 'hashes' | 'too-many-hashes' | 'endpoint' };

export interface PiecesHashQuery {
  /** The API's full address (see piecesHashEndpoint). */
  endpoint: string;
  passkey: string;
  /** Lowercase 40-hex pieces hashes, at most PIECES_HASH_BATCH (duplicates are sent once). */
  hashes: readonly string[];
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * The API's address for a site: `path` is a path on the site (`/api/pieces-hash`, the default) or
 * an absolute http(s) URL (piggo's `https://api.piggo.me/…`). Null for anything else: another
 * scheme, user:password@, a fragment, or text that is not a URL.
 */
export function piecesHashEndpoint(siteBase: string, path: string = DEFAULT_PIECES_HASH_PATH): string | null {
  return checkedUrl(path.trim() || DEFAULT_PIECES_HASH_PATH, siteBase);
}

function checkedUrl(text: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.hash) return null;
  return url.href;
}

/** Splits pieces hashes (deduplicated, in order) into batches the API takes. */
export function piecesHashBatches(hashes: Iterable<string>, size: number = PIECES_HASH_BATCH): string[][] {
  const unique = [...new Set(hashes)];
  const batches: string[][] = [];
  for (let start = 0; start < unique.length; start += size) batches.push(unique.slice(start, start + size));
  return batches;
}

/** Retry-After in seconds (delta-seconds or an HTTP date), bounded; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/** An id as a positive safe integer (a number, or a digit string as some PHP answers give); else undefined. */
function torrentId(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function retOf(value: unknown): number | undefined {
  const ret = typeof value === 'string' && /^-?\d{1,6}$/.test(value) ? Number(value) : value;
  return typeof ret === 'number' && Number.isSafeInteger(ret) ? ret : undefined;
}

/** Reads a `ret: 0` answer's `data`: only asked hashes, only usable ids. */
function hitsOf(data: unknown, asked: ReadonlySet<string>): { ids: Map<string, number>; skipped: number } {
  const ids = new Map<string, number>();
  let skipped = 0;
  if (data === null || data === undefined || Array.isArray(data)) return { ids, skipped: Array.isArray(data) ? data.length : 0 };
  if (typeof data !== 'object') return { ids, skipped: 1 };
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const hash = key.toLowerCase();
    const id = torrentId(value);
    if (!asked.has(hash) || id === undefined || ids.has(hash)) skipped++;
    else ids.set(hash, id);
  }
  return { ids, skipped };
}

/** Asks one site about up to 100 pieces hashes. Never throws; never returns or logs the answer's text. */
export async function askPiecesHash(query: PiecesHashQuery): Promise<PiecesHashAnswer> {
  if (!PASSKEY.test(query.passkey)) return { kind: 'bad-request', why: 'passkey' };
  const hashes = [...new Set(query.hashes)];
  if (hashes.length === 0 || !hashes.every((hash) => PIECES_HASH.test(hash))) return { kind: 'bad-request', why: 'hashes' };
  if (hashes.length > PIECES_HASH_BATCH) return { kind: 'bad-request', why: 'too-many-hashes' };
  const endpoint = checkedUrl(query.endpoint);
  if (!endpoint) return { kind: 'bad-request', why: 'endpoint' };

  const fetcher = query.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const timeoutMs = query.timeoutMs !== undefined && query.timeoutMs > 0 ? query.timeoutMs : PIECES_HASH_TIMEOUT_MS;
  // AbortSignal.timeout: the browsers' and Node's own; its reason tells a timeout from a broken network.
  const signal = AbortSignal.timeout(timeoutMs);
  const failed = (): PiecesHashAnswer => ({ kind: 'unreachable', why: signal.aborted ? 'timeout' : 'network' });
  let response: Response;
  try {
    response = await fetcher(endpoint, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ passkey: query.passkey, pieces_hash: hashes }),
      credentials: 'omit', // the passkey signs it; the user's session on the site is not sent
      redirect: 'manual',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      signal,
    });
  } catch {
    return failed();
  }
  const status = response.status;
  // A browser's manual redirect is an opaque answer with status 0; Node's shows the 3xx.
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) return done(response, { kind: 'no-api', why: 'redirect' });
  if (status === 401) return done(response, { kind: 'wrong-passkey' });
  if (status === 429) return done(response, { kind: 'rate-limited', retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')) });
  if (status === 404 || status === 405 || status === 410) return done(response, { kind: 'no-api', why: 'not-found' });
  if (status !== 200) return done(response, { kind: 'site-error', status });
  let text: string | null;
  try {
    text = await readCappedText(response, MAX_PIECES_HASH_ANSWER_BYTES);
  } catch {
    return failed();
  }
  if (text === null) return { kind: 'site-error', status, tooLarge: true };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'no-api', why: 'not-json' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { kind: 'no-api', why: 'not-json' };
  const ret = retOf((body as { ret?: unknown }).ret);
  if (ret === undefined) return { kind: 'no-api', why: 'no-ret' };
  if (ret === -1) return { kind: 'too-many' };
  if (ret !== 0) return { kind: 'refused', ret, status };
  return { kind: 'found', ...hitsOf((body as { data?: unknown }).data, new Set(hashes)) };
}

/** Drops an unread body (it may echo the passkey) and returns the result. */
async function done(response: Response, answer: PiecesHashAnswer): Promise<PiecesHashAnswer> {
  await response.body?.cancel().catch(() => undefined);
  return answer;
}
