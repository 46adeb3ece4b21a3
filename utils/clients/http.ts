/**
 * The transport the three clients share: one fetch with a timeout, failures sorted into kinds, the
 * answer read as text with a size cap, and the address checked once. It uses only fetch,
 * AbortController and TextDecoder, so it runs in the background (MV3 worker, MV2 page) and in Node.
 */
import { infoHashFromTorrent } from '../torrent/info-hash';
import { ClientError } from './client-errors';
import { readCapped } from '../read-capped';

export const CLIENT_TIMEOUT_MS = 15_000;
const utf8 = new TextDecoder();
/** No answer comes near this: list() reads in pages (5,000 qBittorrent entries with 200-character names are about 10 MB). */
export const MAX_CLIENT_ANSWER_BYTES = 64 * 1024 * 1024;
/** One request asks about at most this many hashes (a list page has 100 rows at most). */
export const MAX_HASHES_PER_CLIENT_REQUEST = 200;

export interface Transport {
  fetch: typeof fetch;
  timeoutMs: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams | FormData;
  /**
   * `include` where the client keeps a session in a cookie (qBittorrent, Deluge): in the browser
   * the cookie jar is the browser's own. `omit` to check a password without touching that session,
   * and for Transmission, which takes Basic auth on every request.
   */
  credentials: 'include' | 'omit';
  /** Keep the answer's bytes (a .torrent): `bytes` holds them, `text` is decoded only for a status other than 200. */
  binary?: boolean;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body's bytes, for a `binary` request. */
  bytes?: Uint8Array;
}

export function transportFrom(settings: { fetch?: typeof fetch; timeoutMs?: number }): Transport {
  const timeoutMs = settings.timeoutMs !== undefined && Number.isFinite(settings.timeoutMs) && settings.timeoutMs > 0 ? settings.timeoutMs : CLIENT_TIMEOUT_MS;
  // Bound to globalThis: a detached `fetch` throws "Illegal invocation" in browsers.
  return { fetch: settings.fetch ?? ((input, init) => globalThis.fetch(input, init)), timeoutMs };
}

/**
 * The client's address without a trailing slash. Only http(s); no user:password@ (credentials go
 * in their own fields, never in a URL that could end up in a log), no query or fragment.
 */
export function clientBaseUrl(address: string): string {
  const text = String(address ?? '').trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ClientError({ kind: 'bad-config', detail: `the client address is not a URL: ${text.slice(0, 100)}` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ClientError({ kind: 'bad-config', detail: `the client address must start with http:// or https://: ${text.slice(0, 100)}` });
  }
  if (url.username || url.password) throw new ClientError({ kind: 'bad-config', detail: 'the client address must not contain a user name or password' });
  if (url.search || url.hash) throw new ClientError({ kind: 'bad-config', detail: 'the client address must not contain a query or fragment' });
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

// Node's fetch (undici) names the cause; browsers only say "Failed to fetch" / "NetworkError".
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function causeCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 300);
}

/** Sends one request; every failure to get an answer is a ClientError (timeout, certificate, unreachable). */
export async function send(transport: Transport, request: HttpRequest, operation: string): Promise<HttpAnswer> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, transport.timeoutMs);
  try {
    let response: Response;
    try {
      response = await transport.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        credentials: request.credentials,
        signal: controller.signal,
        cache: 'no-store',
        redirect: 'manual', // a client API never redirects; a redirect means the address is wrong
      });
    } catch (error) {
      if (timedOut) throw new ClientError({ kind: 'timeout', detail: `${operation}: no answer within ${transport.timeoutMs} ms` });
      const code = causeCode(error);
      if (code && CERTIFICATE_CODES.has(code)) {
        throw new ClientError({ kind: 'certificate', detail: `${operation}: the client's certificate is not trusted (${code})` });
      }
      throw new ClientError({
        kind: 'unreachable',
        detail: `${operation}: the client could not be reached (${code ?? describe(error)})`,
        certificatePossible: request.url.startsWith('https:') && !code ? true : undefined,
      });
    }
    let bytes: Uint8Array | null;
    try {
      bytes = await readCapped(response, MAX_CLIENT_ANSWER_BYTES);
    } catch (error) {
      if (timedOut) throw new ClientError({ kind: 'timeout', detail: `${operation}: the answer did not arrive within ${transport.timeoutMs} ms` });
      throw new ClientError({ kind: 'unreachable', detail: `${operation}: the connection broke while reading the answer (${describe(error)})` });
    }
    if (bytes === null) throw new ClientError({ kind: 'bad-answer', detail: `${operation}: the answer is larger than ${MAX_CLIENT_ANSWER_BYTES} bytes` });
    if (request.binary) {
      return { status: response.status, headers: response.headers, text: response.status === 200 ? '' : utf8.decode(bytes), bytes };
    }
    return { status: response.status, headers: response.headers, text: utf8.decode(bytes) };
  } finally {
    clearTimeout(timer);
  }
}


/** Parses JSON, or fails as a bad answer naming the operation. */
export function parseJson(text: string, operation: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ClientError({ kind: 'bad-answer', detail: `${operation}: the answer is not JSON (${text.slice(0, 80)})` });
  }
}

/** The answer's text as the client's words: trimmed, tags stripped (Transmission answers in HTML), cut. */
export function clientWords(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
}

export const INFO_HASH = /^[0-9a-f]{40}$/;

/** Hashes asked about: trimmed, lowercased, de-duplicated; anything that is not 40 hex is refused. */
export function normaliseHashes(hashes: readonly string[]): string[] {
  const unique = new Set<string>();
  for (const raw of hashes) {
    const hash = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (!INFO_HASH.test(hash)) throw new ClientError({ kind: 'bad-input', detail: `not an info-hash: ${String(raw).slice(0, 60)}` });
    unique.add(hash);
  }
  return [...unique];
}

/** A hash as a client reports it, or undefined when it is not a v1 info-hash (that entry is skipped). */
export function reportedHash(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hash = value.toLowerCase();
  return INFO_HASH.test(hash) ? hash : undefined;
}

/** The page size a client's settings ask for (a positive whole number), else the client's default. */
export function pageSizeFrom(settings: { pageSize?: number }, fallback: number): number {
  const asked = settings.pageSize;
  return asked !== undefined && Number.isSafeInteger(asked) && asked > 0 ? asked : fallback;
}

/** How a list() reads each page: through the caller's wrapper (steady.ts's retry), or as it is. */
export function pageReader(options: { eachRead?: <T>(read: () => Promise<T>) => Promise<T> } | undefined): <T>(read: () => Promise<T>) => Promise<T> {
  return options?.eachRead ?? ((read) => read());
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** Base64 of bytes, in pieces so a large .torrent does not overflow the argument list. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/** Base64 of a text's UTF-8 bytes (Basic auth with non-ASCII passwords). */
export function utf8Base64(text: string): string {
  return toBase64(new TextEncoder().encode(text));
}

/** Joins a folder and a name with the folder's own separator (Windows clients use `\`). */
export function joinPath(folder: string, name: string): string {
  if (!folder) return name;
  const separator = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  return folder.endsWith(separator) ? `${folder}${name}` : `${folder}${separator}${name}`;
}

/** The folder a path sits in (`/a/b` → `/a`). */
export function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  return cut > 0 ? trimmed.slice(0, cut) : cut === 0 ? '/' : '';
}

/** A path's last element (`/a/b/` → `b`). */
export function lastElement(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** 0..1 from a fraction, or from a percentage when `percent`. */
export function fraction(value: number, percent = false): number {
  const ratio = percent ? value / 100 : value;
  if (!Number.isFinite(ratio)) return 0;
  return Math.min(1, Math.max(0, ratio));
}

export function byteCount(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** The v1 info-hash of a .torrent to add, or a bad-input failure (nothing is sent for a file that is not one). */
export async function hashOf(torrent: Uint8Array): Promise<string> {
  const result = await infoHashFromTorrent(torrent);
  if ('error' in result) throw new ClientError({ kind: 'bad-input', detail: `add: this is not a usable .torrent file (${result.error})` });
  return result.hash;
}
