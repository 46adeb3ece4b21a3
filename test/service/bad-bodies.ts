/**
 * Ways the reference service can spoil an answer, to test that the client refuses (or, for the
 * harmless oddities at the end, accepts) what a real service, proxy or captive portal might send.
 */

/** Answers the client must refuse as bad answers. */
export const BAD_BODY_MODES = [
  'html', // a 200 HTML page (login, captive portal, CDN)
  'truncated-json', // the connection's JSON cut in half
  'empty', // no body at all
  'json-null', // `null`
  'not-envelope', // a JSON array instead of {code, msg, data}
  'wrong-types', // inside data: numbers become booleans, strings become arrays
  'missing-fields', // required fields (torrent, info_hash, count, list, sites, sid_sha1…) removed; else data removed
  'bad-hash', // 40-hex values inside data lose their last digit for a 'z'
  'string-id', // ids (sid, torrent_id, id) become non-numeric strings
  'huge', // > 2 MB, with Content-Length
  'huge-chunked', // > 2 MB, chunked, no Content-Length
] as const;

/**
 * A server failing in words instead of answering (REAL-ANSWERS.md): transient, so the client
 * retries (kind 'server'), never takes it as a final refusal or a broken answer.
 */
export const SERVER_FAILURE_BODY_MODES = [
  'not-json', // plain text at HTTP 200: "Server busy, please retry later"
  'server-internal-error', // webman's handler: HTTP 200, {"code": 400, "msg": "Server internal error"} (ledccn/iyuuplus-dev#244, MoviePilot-Plugins#1072)
  'redis-oom', // Redis out of memory, as bare text at HTTP 200 (ledccn/iyuuplus-dev#244)
  'php-fatal', // PHP's own fatal error in its HTML dress, at HTTP 200
] as const;

/** Oddities a real PHP service may produce that the client must take in its stride. */
export const ODD_BODY_MODES = [
  'numeric-string-id', // ids as digit strings ("7")
  'uppercase-hash', // hashes (keys and values) in uppercase
  'invented-keys', // extra keys: hashes nobody asked for, junk fields
  'markup', // HTML in text fields (nickname, msg…) and in base_url/details_page
] as const;

export type BadBodyMode = (typeof BAD_BODY_MODES)[number] | (typeof SERVER_FAILURE_BODY_MODES)[number] | (typeof ODD_BODY_MODES)[number];

export const REDIS_OOM_TEXT = "OOM command not allowed when used memory > 'maxmemory'. script: c253b7d9ec59b467750e672b358427bbaa6015c5, on @user_script:1.";

export interface JsonAnswer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

export interface RawAnswerOut {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Send without Content-Length, in pieces. */
  chunked?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** A hash no test asks for, carrying a believable candidate: it must never reach a result. */
export const INVENTED_HASH = 'feedfacefeedfacefeedfacefeedfacefeedface';
const HUGE_BYTES = 2 * 1024 * 1024 + 64 * 1024;
const ID_KEYS = new Set(['sid', 'torrent_id', 'id']);
const REQUIRED_KEYS = new Set(['torrent', 'info_hash', 'count', 'list', 'sites', 'sid_sha1']);
const TEXT_KEYS = new Set(['nickname', 'site', 'title']);
const LINK_KEYS = new Set(['base_url', 'details_page', 'download_page']);

export function spoil(mode: BadBodyMode, answer: JsonAnswer): RawAnswerOut {
  const headers = { 'Content-Type': JSON_TYPE, ...answer.headers };
  const json = (value: unknown): RawAnswerOut => ({ status: answer.status, headers, body: JSON.stringify(value) });
  const envelope = isObject(answer.json) ? answer.json : { code: 0, msg: '', data: answer.json };
  const withData = (data: unknown) => json({ ...envelope, data });

  switch (mode) {
    case 'html':
      return {
        status: answer.status,
        headers: { ...answer.headers, 'Content-Type': 'text/html; charset=utf-8' },
        body: '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><p>Checking your browser</p></body></html>',
      };
    case 'not-json':
      return { status: answer.status, headers: { ...answer.headers, 'Content-Type': 'text/plain' }, body: 'Server busy, please retry later' };
    case 'server-internal-error':
      // webman renders an uncaught exception with its code (here 400) and, debug off, this text; pretty-printed.
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: 400, msg: 'Server internal error' }, null, 4) };
    case 'redis-oom':
      return { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: REDIS_OOM_TEXT };
    case 'php-fatal':
      return {
        status: 200,
        headers: { 'Content-Type': 'text/html; charset=UTF-8' },
        body: '<br />\n<b>Fatal error</b>:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in <b>/www/wwwroot/app/service/Reseed.php</b> on line <b>88</b><br />\n',
      };
    case 'truncated-json': {
      const text = JSON.stringify(answer.json);
      return { status: answer.status, headers, body: text.slice(0, Math.max(1, Math.floor(text.length / 2))) };
    }
    case 'empty':
      return { status: answer.status, headers, body: '' };
    case 'json-null':
      return { status: answer.status, headers, body: 'null' };
    case 'not-envelope':
      return json([envelope]);
    case 'wrong-types':
      return withData(mapDeep(envelope.data, (value) => (typeof value === 'number' ? value !== 0 : typeof value === 'string' ? [value] : value)));
    case 'missing-fields': {
      let removed = false;
      const data = filterKeysDeep(envelope.data, (key) => {
        const drop = REQUIRED_KEYS.has(key);
        removed ||= drop;
        return !drop;
      });
      if (removed) return withData(data);
      const { data: _dropped, ...rest } = envelope;
      return json(rest);
    }
    case 'bad-hash':
      return withData(mapDeep(envelope.data, (value) => (typeof value === 'string' && /^[0-9a-f]{40}$/i.test(value) ? `${value.slice(0, 39)}z` : value)));
    case 'string-id':
      return withData(mapDeep(envelope.data, (value, key) => (key !== undefined && ID_KEYS.has(key) && typeof value === 'number' ? `n${value}` : value)));
    case 'numeric-string-id':
      return withData(mapDeep(envelope.data, (value, key) => (key !== undefined && ID_KEYS.has(key) && typeof value === 'number' ? String(value) : value)));
    case 'uppercase-hash': {
      const upper = (value: unknown) => (typeof value === 'string' && /^[0-9a-f]{40}$/.test(value) ? value.toUpperCase() : value);
      return withData(mapKeysDeep(mapDeep(envelope.data, upper), (key) => upper(key) as string));
    }
    case 'invented-keys': {
      const data = isObject(envelope.data)
        ? {
            ...envelope.data,
            [INVENTED_HASH]: { torrent: [{ sid: 1, torrent_id: 1, info_hash: INVENTED_HASH }] },
            'not-a-hash': { torrent: 'junk' },
            unexpected_field: { nested: [1, 2, 3] },
          }
        : Array.isArray(envelope.data)
          ? [...envelope.data, { hash: INVENTED_HASH, torrent: [{ sid: 1, torrent_id: 1, info_hash: INVENTED_HASH }] }]
          : envelope.data;
      return json({ ...envelope, data, server_time: Date.now(), trace_id: 'x-1' });
    }
    case 'markup': {
      const data = mapDeep(envelope.data, (value, key) => {
        if (typeof value !== 'string' || key === undefined) return value;
        if (TEXT_KEYS.has(key)) return `${value}<img src=x onerror=alert(1)>`;
        if (LINK_KEYS.has(key)) return `${value}"><script>alert(1)</script>`;
        return value;
      });
      const msg = typeof envelope.msg === 'string' ? `${envelope.msg}<script>alert(1)</script>` : envelope.msg;
      return json({ ...envelope, msg, data });
    }
    case 'huge':
    case 'huge-chunked': {
      const body = JSON.stringify({ ...envelope, padding: 'x'.repeat(HUGE_BYTES) });
      return { status: answer.status, headers, body, chunked: mode === 'huge-chunked' };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Maps every leaf (and array/object value) bottom-up; `key` is the property name holding it. */
function mapDeep(value: unknown, map: (value: unknown, key: string | undefined) => unknown, key?: string): unknown {
  if (Array.isArray(value)) return map(value.map((item) => mapDeep(item, map, key)), key);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapDeep(v, map, k)]));
  return map(value, key);
}

function mapKeysDeep(value: unknown, map: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapKeysDeep(item, map));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [map(k), mapKeysDeep(v, map)]));
  return value;
}

function filterKeysDeep(value: unknown, keep: (key: string) => boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => filterKeysDeep(item, keep));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).filter(([k]) => keep(k)).map(([k, v]) => [k, filterKeysDeep(v, keep)]));
  return value;
}
