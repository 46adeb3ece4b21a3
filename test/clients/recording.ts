/**
 * Recorded HTTP exchanges with the real clients (test/clients/record.ts writes them to
 * test/fixtures/clients/<client>-<version>.json) and a fetch that replays them for unit tests.
 *
 * Replay is strict: each scenario's exchanges are served in order, and every request must match the
 * next recorded one on method, path, query, credentials mode, the headers that matter (auth,
 * session id, Origin) and the body's key content (form fields; JSON method and arguments, not the
 * call counter; multipart fields and each file's SHA-1). A client that sends anything else — a
 * missing login, another parameter, a second request — fails the test with what differed.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

export type RecordedBody =
  | { type: 'form'; fields: Record<string, string> }
  | { type: 'json'; value: unknown }
  | { type: 'multipart'; fields: Record<string, string[]>; files: { field: string; filename: string; size: number; sha1: string }[] }
  | { type: 'text'; text: string };

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  credentials: 'include' | 'omit' | 'same-origin';
  headers: Record<string, string>;
  body?: RecordedBody;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** The request got no answer (a refused connection, a certificate error): what fetch threw. */
  error?: { message: string; code?: string };
}

export interface Scenario {
  /** What was done, in words. */
  description: string;
  exchanges: Exchange[];
  /** What the library made of it when recorded (for people reading the file; tests check facts). */
  outcome: unknown;
}

export interface Recording {
  client: string;
  /** The daemon's version, as its binary prints it. */
  version: string;
  recordedAt: string;
  /** How the daemon was set up and what the harness made (hashes, names, paths) — not answers. */
  facts: Record<string, unknown>;
  scenarios: Record<string, Scenario>;
}

/** Request headers that carry meaning for a client; others (user agent…) are not recorded. */
const REQUEST_HEADERS = ['authorization', 'x-transmission-session-id', 'origin', 'referer'];
const RESPONSE_HEADERS = ['content-type', 'set-cookie', 'x-transmission-session-id', 'www-authenticate', 'location'];

async function recordBody(body: BodyInit | null | undefined, contentType: string | null): Promise<RecordedBody | undefined> {
  if (body === undefined || body === null) return undefined;
  if (body instanceof URLSearchParams) return { type: 'form', fields: Object.fromEntries(body) };
  if (body instanceof FormData) {
    const fields: Record<string, string[]> = {};
    const files: { field: string; filename: string; size: number; sha1: string }[] = [];
    for (const [field, value] of body) {
      if (typeof value === 'string') (fields[field] ??= []).push(value);
      else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        files.push({ field, filename: value.name, size: bytes.length, sha1: createHash('sha1').update(bytes).digest('hex') });
      }
    }
    return { type: 'multipart', fields, files };
  }
  if (typeof body === 'string') {
    if (contentType?.includes('json')) {
      const value = JSON.parse(body) as Record<string, unknown>;
      return { type: 'json', value };
    }
    if (contentType?.includes('x-www-form-urlencoded')) return { type: 'form', fields: Object.fromEntries(new URLSearchParams(body)) };
    return { type: 'text', text: body };
  }
  throw new Error(`cannot record a request body of type ${Object.prototype.toString.call(body)}`);
}

export async function describeRequest(input: RequestInfo | URL, init: RequestInit = {}): Promise<RecordedRequest> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const headers = new Headers(init.headers);
  const recordedHeaders: Record<string, string> = {};
  for (const name of REQUEST_HEADERS) {
    const value = headers.get(name);
    if (value !== null) recordedHeaders[name] = value;
  }
  const request: RecordedRequest = {
    method: init.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    credentials: init.credentials ?? 'same-origin',
    headers: recordedHeaders,
  };
  const body = await recordBody(init.body, headers.get('content-type'));
  if (body) request.body = body;
  return request;
}

async function describeResponse(response: Response): Promise<RecordedResponse> {
  const headers: Record<string, string> = {};
  for (const name of RESPONSE_HEADERS) {
    const value = name === 'set-cookie' ? response.headers.getSetCookie().join('\n') || null : response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: response.status, headers, body: await response.clone().text() };
}

/** Wraps `inner`, appending every exchange (as the client made the request) to `sink`. */
export function recordingFetch(inner: typeof fetch, sink: Exchange[]): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request = await describeRequest(input, init);
    try {
      const response = await inner(input, init);
      sink.push({ request, response: await describeResponse(response) });
      return response;
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      sink.push({ request, error: { message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) } });
      throw error;
    }
  }) as typeof fetch;
}

/** The parts of a JSON-RPC body that must match: everything but the call counter (`tag`, `id`). */
function comparableBody(body: RecordedBody | undefined): unknown {
  if (body?.type !== 'json' || typeof body.value !== 'object' || body.value === null) return body;
  const { tag: _tag, id: _id, ...rest } = body.value as Record<string, unknown>;
  return { type: 'json', value: rest };
}

function mismatch(expected: RecordedRequest, actual: RecordedRequest): string | undefined {
  if (expected.method !== actual.method) return `method ${actual.method}, recorded ${expected.method}`;
  if (expected.path !== actual.path) return `path ${actual.path}, recorded ${expected.path}`;
  if (!isDeepStrictEqual(expected.query, actual.query)) return `query ${JSON.stringify(actual.query)}, recorded ${JSON.stringify(expected.query)}`;
  if (expected.credentials !== actual.credentials) return `credentials ${actual.credentials}, recorded ${expected.credentials}`;
  if (!isDeepStrictEqual(expected.headers, actual.headers)) return `headers ${JSON.stringify(actual.headers)}, recorded ${JSON.stringify(expected.headers)}`;
  if (!isDeepStrictEqual(comparableBody(expected.body), comparableBody(actual.body))) {
    return `body ${JSON.stringify(comparableBody(actual.body)).slice(0, 400)}, recorded ${JSON.stringify(comparableBody(expected.body)).slice(0, 400)}`;
  }
  return undefined;
}

export type ReplayFetch = typeof fetch & {
  /** Recorded exchanges not asked for yet. */
  remaining(): number;
};

/**
 * Serves a scenario's recorded answers to whatever host the client was pointed at; a request that
 * does not match the next recorded one throws (and the test fails with the difference).
 */
export function replayFetch(scenario: Scenario): ReplayFetch {
  let next = 0;
  const replay = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const actual = await describeRequest(input, init);
    const exchange = scenario.exchanges[next];
    if (!exchange) throw new Error(`replay: request ${next + 1} (${actual.method} ${actual.path}) was not recorded; the scenario has ${scenario.exchanges.length}`);
    const difference = mismatch(exchange.request, actual);
    if (difference) throw new Error(`replay: request ${next + 1} differs from the recording: ${difference}`);
    next += 1;
    if (exchange.error) throw new TypeError(exchange.error.message, { cause: exchange.error.code ? Object.assign(new Error(exchange.error.code), { code: exchange.error.code }) : undefined });
    const response = exchange.response!;
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const line of name === 'set-cookie' ? value.split('\n') : [value]) headers.append(name, line);
    }
    const nullBody = response.status === 204 || response.status === 304;
    return new Response(nullBody ? null : response.body, { status: response.status, headers });
  };
  return Object.assign(replay, { remaining: () => scenario.exchanges.length - next }) as ReplayFetch;
}
