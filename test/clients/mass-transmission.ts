/**
 * A loopback HTTP server answering as Transmission's RPC (3.00 or 4.1.4) with as many torrents as a
 * heavy seeder holds, a size no real daemon reaches in a test.
 *
 * Every torrent is a REAL recorded one: the rows of `torrent-get` that test/clients/record.ts took
 * from the tests' daemons (test/fixtures/clients/transmission-3.00.json or -4.1.4.json, scenario
 * `list`), copied with only what must differ per torrent made distinct and deterministic
 * (mass-shared.ts): hashString, name, downloadDir, status and percentDone. Every other field is the
 * recorded one.
 *
 * It answers as that version does (libtransmission/rpc-server.c, rpcimpl.c):
 * - Basic auth on every request (a wrong one: the recorded 401 page).
 * - X-Transmission-Session-Id: a request without the current id answers 409 with the id in a header
 *   and the recorded page; the client sends it again with the id.
 * - session-get (the recorded version and rpc-version), session-stats (torrentCount and the others
 *   counted), torrent-get with `ids` (hashes) or none (every torrent), `fields` (those the
 *   recording has; another is left out, as an unknown one is), `format: "table"` (a header row, then
 *   one row a torrent) or objects. Non-ASCII is escaped as the recorded version escapes it (3.00
 *   does, 4.1.4 does not).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  asciiOnly,
  copyActivity,
  copyHash,
  copyName,
  copySavePath,
  escapesNonAscii,
  listenOnLoopback,
  loggedRequest,
  readRecording,
  recordedExchange,
  requestJson,
  streamAnswer,
  type MassClient,
  type MassRequest,
} from './mass-shared';

export type MassTransmissionShape = '3.00' | '4.1.4';

export interface MassTransmissionOptions {
  shape: MassTransmissionShape;
  torrents: number;
  /** Makes the hashes differ from another server's (default 'mass'). */
  seed?: string;
  username?: string;
  password?: string;
}

export interface MassTransmission extends MassClient {
  readonly shape: MassTransmissionShape;
  readonly config: { type: 'transmission'; url: string; username: string; password: string };
}

const RPC_PATH = '/transmission/rpc';

function readShape(shape: MassTransmissionShape) {
  const file = `transmission-${shape}`;
  const recording = readRecording(file);
  const method = (name: string) => (exchange: Parameters<Parameters<typeof recordedExchange>[3]>[0]) => requestJson(exchange)?.method === name && exchange.response?.status === 200;
  const body = (exchange: { response: { body: string } }) => JSON.parse(exchange.response.body) as { arguments: Record<string, unknown> };
  const session = body(recordedExchange(recording, file, 'test', method('session-get'))).arguments;
  const stats = body(recordedExchange(recording, file, 'test', method('session-stats'))).arguments;
  const rowsExchange = recordedExchange(recording, file, 'list', (exchange) => {
    const args = requestJson(exchange)?.arguments as { fields?: string[] } | undefined;
    return exchange.response?.status === 200 && !!args?.fields?.includes('name');
  });
  const [header, ...rows] = (body(rowsExchange).arguments.torrents as unknown[][]);
  const templates = rows.map((row) => Object.fromEntries(header!.map((key, at) => [String(key), row[at]])));
  if (templates.length === 0) throw new Error(`${file}.json: the recorded list is empty`);
  const conflict = recordedExchange(recording, file, 'test', (exchange) => exchange.response?.status === 409).response;
  const unauthorized = recordedExchange(recording, file, 'test-wrong-password', (exchange) => exchange.response?.status === 401).response;
  // The recorded answers end with a newline (3.00) or not (4.1.4).
  const trailer = rowsExchange.response.body.endsWith('\n') ? '\n' : '';
  return { recording, session, stats, templates, conflict, unauthorized, trailer, ascii: escapesNonAscii(recording) };
}

/** The copy's activity in Transmission's status numbers (tr_torrent_activity: 0 stopped, 4 downloading, 6 seeding). */
function statusOf(index: number): { status: number; percentDone: number } {
  const { activity, progress } = copyActivity(index);
  return { status: activity === 'stopped' ? 0 : activity === 'downloading' ? 4 : 6, percentDone: progress };
}

export async function startMassTransmission(options: MassTransmissionOptions): Promise<MassTransmission> {
  const { shape, torrents } = options;
  const seed = options.seed ?? 'mass';
  const username = options.username ?? 'reseed';
  const password = options.password ?? 'Lens-密码-2024';
  const recorded = readShape(shape);
  const hashes = Array.from({ length: torrents }, (_, index) => copyHash('transmission', seed, index));
  const byHash = new Map(hashes.map((hash, index) => [hash, index]));
  const sessionId = randomBytes(24).toString('base64url');
  const authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  const requests: MassRequest[] = [];
  const json = (value: unknown) => (recorded.ascii ? asciiOnly(JSON.stringify(value)) : JSON.stringify(value));

  /** The copy's row as the recording has it, its own values in place. */
  const fieldsOf = (index: number): Record<string, unknown> => {
    const template = recorded.templates[index % recorded.templates.length]!;
    const size = Number(template.totalSize ?? 0);
    const { status, percentDone } = statusOf(index);
    return {
      ...template,
      hashString: hashes[index],
      name: copyName(index, seed),
      downloadDir: copySavePath(String(template.downloadDir ?? ''), index),
      status,
      percentDone,
      ...('leftUntilDone' in template ? { leftUntilDone: Math.round(size * (1 - percentDone)) } : {}),
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { body, log, answer } = await loggedRequest(requests, req, res);
    if (new URL(req.url ?? '/', 'http://mass').pathname !== RPC_PATH) return answer(404, '<h1>404: Not Found</h1>');
    if (req.headers.authorization !== authorization) return answer(401, recorded.unauthorized.body, recorded.unauthorized.headers);
    if (req.headers['x-transmission-session-id'] !== sessionId) {
      const old = recorded.conflict.headers['x-transmission-session-id'] ?? '';
      return answer(409, recorded.conflict.body.replaceAll(old, sessionId), { ...recorded.conflict.headers, 'x-transmission-session-id': sessionId });
    }
    let call: { method?: string; arguments?: Record<string, unknown>; tag?: unknown };
    try {
      call = JSON.parse(body) as typeof call;
    } catch {
      return answer(400, '<h1>400: Bad Request</h1>');
    }
    const method = String(call.method ?? '');
    const args = call.arguments ?? {};
    log.endpoint = method;
    log.params = args;
    const reply = (result: string, value: Record<string, unknown> = {}) =>
      answer(200, `${json({ arguments: value, result, ...(call.tag === undefined ? {} : { tag: call.tag }) })}${recorded.trailer}`, { 'content-type': 'application/json; charset=UTF-8' });
    switch (method) {
      case 'session-get':
        return reply('success', recorded.session);
      case 'session-stats': {
        const paused = hashes.filter((_, index) => statusOf(index).status === 0).length;
        return reply('success', { ...recorded.stats, torrentCount: torrents, pausedTorrentCount: paused, activeTorrentCount: torrents - paused });
      }
      case 'torrent-get': {
        const known = new Set(Object.keys(recorded.templates[0]!));
        const fields = (Array.isArray(args.fields) ? args.fields.map(String) : []).filter((field) => known.has(field));
        const ids = Array.isArray(args.ids) ? args.ids.map((id) => byHash.get(String(id).toLowerCase())).filter((index): index is number => index !== undefined) : hashes.map((_, index) => index);
        const table = args.format === 'table';
        log.entries = ids.length;
        log.status = 200;
        const rows = (function* () {
          for (const index of ids) {
            const values = fieldsOf(index);
            yield table ? json(fields.map((field) => values[field])) : json(Object.fromEntries(fields.map((field) => [field, values[field]])));
          }
        })();
        const tail = `]},"result":"success"${call.tag === undefined ? '' : `,"tag":${JSON.stringify(call.tag)}`}}${recorded.trailer}`;
        const head = `{"arguments":{"torrents":[${table ? json(fields) + (ids.length ? ',' : '') : ''}`;
        log.bytes = await streamAnswer(res, 'application/json; charset=UTF-8', head, rows, tail);
        return;
      }
      default:
        return reply('method name not recognized');
    }
  };

  const server = await listenOnLoopback(handle);
  return {
    shape,
    url: server.url,
    version: String(recorded.session.version ?? shape),
    config: { type: 'transmission', url: server.url, username, password },
    count: () => torrents,
    hashOf: (index) => hashes[index] ?? copyHash('transmission', seed, index),
    requests,
    listReads: () => requests.filter((request) => request.endpoint === 'torrent-get'),
    close: () => server.close(),
  };
}
