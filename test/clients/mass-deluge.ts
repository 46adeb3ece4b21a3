/**
 * A loopback HTTP server answering as Deluge's web UI (deluge-web 2.0.3 or 2.2.0, JSON-RPC at
 * /json) with as many torrents as a heavy seeder holds, a size no real daemon reaches in a test.
 *
 * Every torrent is a REAL recorded one: the statuses of `core.get_torrents_status` that
 * test/clients/record.ts took from the tests' daemons (test/fixtures/clients/deluge-2.0.3.json or
 * -2.2.0.json, scenario `list`), copied with only what must differ per torrent made distinct and
 * deterministic (mass-shared.ts): the key (hash), name, download_location, state and progress.
 * Every other key, and the keys' order, are the recorded ones; answers are written as Python's
 * json.dumps writes them (", " and ": ", non-ASCII escaped), as deluge-web does.
 *
 * It answers as deluge-web does (deluge/ui/web/json_api.py, auth.py):
 * - auth.login(password): true with a `_session_id` cookie (the recorded cookie's path), or false.
 *   Any other method without a session: error code 1 "Not authenticated" (as recorded).
 * - web.connected: false until web.connect (the recorded host list, status and answer).
 * - daemon.get_version, core.get_libtorrent_version: as recorded.
 * - core.get_session_state: every torrent's id (hash); core.get_torrents_status({id: [...]}, keys)
 *   (or {} for all): a map of hash → the asked keys the recording has; core.get_torrent_status(id,
 *   keys): the same for one ({} for a torrent it does not hold).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  copyActivity,
  copyHash,
  copyName,
  copySavePath,
  listenOnLoopback,
  pythonJson,
  loggedRequest,
  readRecording,
  recordedExchange,
  requestJson,
  streamAnswer,
  type MassClient,
  type MassRequest,
} from './mass-shared';

export type MassDelugeShape = '2.0.3' | '2.2.0';

export interface MassDelugeOptions {
  shape: MassDelugeShape;
  torrents: number;
  /** Makes the hashes differ from another server's (default 'mass'). */
  seed?: string;
  password?: string;
}

export interface MassDeluge extends MassClient {
  readonly shape: MassDelugeShape;
  readonly config: { type: 'deluge'; url: string; username: string; password: string };
}

type RecordedAnswer = { result: unknown; error: unknown; id: unknown };

function readShape(shape: MassDelugeShape) {
  const file = `deluge-${shape}`;
  const recording = readRecording(file);
  const call = (scenario: string, name: string) => {
    const exchange = recordedExchange(recording, file, scenario, (candidate) => requestJson(candidate)?.method === name);
    return { answer: JSON.parse(exchange.response.body) as RecordedAnswer, headers: exchange.response.headers };
  };
  const login = call('test', 'auth.login');
  const statuses = call('list', 'core.get_torrents_status').answer.result as Record<string, Record<string, unknown>>;
  const templates = Object.values(statuses);
  if (templates.length === 0) throw new Error(`${file}.json: the recorded list is empty`);
  const cookie = login.headers['set-cookie'] ?? '';
  const notAuthenticated = (
    recordedExchange(recording, file, 'session-expired', (candidate) => /Not authenticated/.test(candidate.response?.body ?? '')).response.body
  );
  return {
    templates,
    /** What follows the session id in the recorded cookie (its expiry, made an hour from the answer as deluge-web makes it, and its path). */
    cookieTail: () => cookie.slice(cookie.indexOf(';')).replace(/Expires=[^;]*/, `Expires=${new Date(Date.now() + 3_600_000).toUTCString()}`),
    hosts: call('test', 'web.get_hosts').answer.result,
    hostStatus: call('test', 'web.get_host_status').answer.result,
    connect: call('test', 'web.connect').answer.result,
    version: call('test', 'daemon.get_version').answer.result as string,
    libtorrent: call('test', 'core.get_libtorrent_version').answer.result,
    notAuthenticated: (JSON.parse(notAuthenticated) as RecordedAnswer).error,
  };
}

/** The copy's activity in Deluge's state names; progress in per cent, as Deluge gives it. */
function stateOf(index: number): { state: string; progress: number } {
  const { activity, progress } = copyActivity(index);
  return { state: activity === 'stopped' ? 'Paused' : activity === 'downloading' ? 'Downloading' : 'Seeding', progress: progress * 100 };
}

export async function startMassDeluge(options: MassDelugeOptions): Promise<MassDeluge> {
  const { shape, torrents } = options;
  const seed = options.seed ?? 'mass';
  const password = options.password ?? 'Lens-密码-2024';
  const recorded = readShape(shape);
  const hashes = Array.from({ length: torrents }, (_, index) => copyHash('deluge', seed, index));
  const byHash = new Map(hashes.map((hash, index) => [hash, index]));
  const sessions = new Set<string>();
  let connected = false;
  const requests: MassRequest[] = [];

  /** The copy's status with the asked keys the recording has, in the recorded order. */
  const statusOf = (index: number, keys: ReadonlySet<string> | undefined): Record<string, unknown> => {
    const template = recorded.templates[index % recorded.templates.length]!;
    const { state, progress } = stateOf(index);
    const values: Record<string, unknown> = { ...template, name: copyName(index, seed), download_location: copySavePath(String(template.download_location ?? ''), index), state, progress };
    if (!keys) return values;
    return Object.fromEntries(Object.entries(values).filter(([key]) => keys.has(key)));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { body, log, answer } = await loggedRequest(requests, req, res);
    if (new URL(req.url ?? '/', 'http://mass').pathname !== '/json') return answer(404, 'Not Found');
    let call: { method?: string; params?: unknown[]; id?: unknown };
    try {
      call = JSON.parse(body) as typeof call;
    } catch {
      return answer(400, 'Bad Request');
    }
    const method = String(call.method ?? '');
    const params = Array.isArray(call.params) ? call.params : [];
    log.endpoint = method;
    log.params = { params };
    const session = /(?:^|;\s*)_session_id=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const known = session !== undefined && sessions.has(session);
    const cookie: Record<string, string> = known ? { 'set-cookie': `_session_id=${session}${recorded.cookieTail()}` } : {};
    const reply = (result: unknown, error: unknown = null, headers = cookie) =>
      answer(200, pythonJson({ result, error, id: call.id ?? null }), { 'content-type': 'application/json', ...headers });

    if (method === 'auth.login') {
      if (params[0] !== password) return reply(false);
      const sid = randomBytes(34).toString('hex');
      sessions.add(sid);
      return reply(true, null, { 'set-cookie': `_session_id=${sid}${recorded.cookieTail()}` });
    }
    if (!known) return reply(null, recorded.notAuthenticated, {});
    switch (method) {
      case 'web.connected':
        return reply(connected);
      case 'web.get_hosts':
        return reply(recorded.hosts);
      case 'web.get_host_status':
        return reply(recorded.hostStatus);
      case 'web.connect':
        connected = true;
        return reply(recorded.connect);
      case 'daemon.get_version':
        return reply(recorded.version);
      case 'core.get_libtorrent_version':
        return reply(recorded.libtorrent);
      case 'core.get_session_state':
        log.entries = hashes.length;
        log.status = 200;
        log.bytes = await streamAnswer(res, 'application/json', '{"result": [', hashes.map((hash) => `"${hash}"`), `], "error": null, "id": ${pythonJson(call.id ?? null)}}`, ', ');
        return;
      case 'core.get_torrents_status': {
        const filter = (params[0] ?? {}) as { id?: unknown };
        const keys = Array.isArray(params[1]) && params[1].length ? new Set(params[1].map(String)) : undefined;
        const wanted = filter.id === undefined ? hashes.map((_, index) => index) : (Array.isArray(filter.id) ? filter.id : [filter.id]).map((id) => byHash.get(String(id))).filter((index): index is number => index !== undefined);
        log.entries = wanted.length;
        log.status = 200;
        const entries = wanted.map((index) => `"${hashes[index]}": ${pythonJson(statusOf(index, keys))}`);
        log.bytes = await streamAnswer(res, 'application/json', '{"result": {', entries, `}, "error": null, "id": ${pythonJson(call.id ?? null)}}`, ', ');
        return;
      }
      case 'core.get_torrent_status': {
        const index = byHash.get(String(params[0]));
        const keys = Array.isArray(params[1]) && params[1].length ? new Set(params[1].map(String)) : undefined;
        return reply(index === undefined ? {} : statusOf(index, keys));
      }
      default:
        return reply(null, { message: `Unknown method`, code: 2 });
    }
  };

  const server = await listenOnLoopback(handle);
  return {
    shape,
    url: server.url,
    version: recorded.version,
    config: { type: 'deluge', url: server.url, username: '', password },
    count: () => torrents,
    hashOf: (index) => hashes[index] ?? copyHash('deluge', seed, index),
    requests,
    listReads: () => requests.filter((request) => request.endpoint === 'core.get_torrents_status' || request.endpoint === 'core.get_session_state'),
    close: () => server.close(),
  };
}
