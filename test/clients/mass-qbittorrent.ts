/**
 * A loopback HTTP server answering as qBittorrent's WebUI with as many torrents as a heavy seeder
 * holds (1,000 to 100,000 and more), a size no real daemon reaches in a test.
 *
 * Every entry is a REAL recorded one: the `torrents/info` entries that test/clients/record.ts took
 * from the tests' daemons (test/fixtures/clients/qbittorrent-4.5.2.json or -5.3.0.json, scenario
 * `list`), copied with what must differ per torrent made distinct and deterministic: hash, a
 * 200-character name (Chinese and Latin), save path, content path (and root path in 5.x), magnet
 * link, dates and state. Every other field is the recorded one, so an entry is as long as a real
 * one (about 2.5 KB). Entries are built per request from a template string split at the copy's
 * values, never stored: 100,000 torrents take a few MB of memory.
 *
 * It answers as that version does (qBittorrent's src/webui/api/torrentscontroller.cpp):
 * - auth/login: 4.5 answers 200 "Ok." (cookie `SID`) or 200 "Fails."; 5.3 answers 204 (cookie
 *   `QBT_SID_<port>`) or 401. Any other call without the session cookie answers 403.
 * - CSRF protection on (its default): an Origin (else Referer) that is not this server's own
 *   host:port answers 401 everywhere. The extension gets through with csrf.ts's session rule.
 * - torrents/info: `hashes` (|-separated), `filter`, `sort` (a key the entry lacks: 400), `reverse`,
 *   `limit`, `offset` (negative: from the end), applied after sorting as qBittorrent does. An offset
 *   past the end wraps to the first page up to 5.1 and gives an empty list from 5.2 (commit
 *   "WebAPI: Do not wrap result if offset is invalid", first in release-5.2.0).
 * - torrents/count: 5.x only; 4.5.2 (Web API 2.8.19) answers 404 there.
 * - torrents/files, torrents/properties: for a torrent it holds, else 404. Unknown endpoints: 404.
 *
 * It counts every request and how many times each torrent was served (the tests' "which entries
 * were read, how many times"), and torrents can be added or removed while it runs.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  copyActivity,
  copyHash,
  copyName,
  copySavePath,
  fillTemplate,
  jsonTemplate,
  listenOnLoopback,
  marker,
  readBody,
  readRecording,
  streamAnswer,
  textAnswer,
  type JsonTemplate,
  type MassClient,
  type MassRequest as SharedMassRequest,
} from './mass-shared';

export { NAME_LENGTH } from './mass-shared';

export type MassShape = '4.5.2' | '5.3.0';
export const MASS_SHAPES: readonly MassShape[] = ['4.5.2', '5.3.0'];

export interface MassQbittorrentOptions {
  /** Which recorded daemon the answers and entries come from. */
  shape: MassShape;
  /** Torrents held at the start. */
  torrents: number;
  /** Makes the hashes (and everything else) differ from another server's (default 'mass'). */
  seed?: string;
  username?: string;
  password?: string;
}

/** One request as the server saw it: `params` are the query and form fields together (qBittorrent reads both the same way). */
export interface MassRequest extends SharedMassRequest {
  params: Record<string, string>;
}

export interface MassQbittorrent extends MassClient {
  readonly shape: MassShape;
  /** The address a user would type: http://127.0.0.1:<port>. */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** The version app/version answers (`v4.5.2`, `v5.3.0`). */
  readonly version: string;
  /** What the extension's client form and createClient() take. */
  readonly config: { type: 'qbittorrent'; url: string; username: string; password: string };
  /** Torrents held now. */
  count(): number;
  /** Hashes held now, in the order they were added. */
  hashes(): string[];
  /** The copy made for `index` (0-based, the order of creation), whether held or not. */
  hashOf(index: number): string;
  /** The torrent's name (200 characters), as torrents/info gives it. */
  nameOf(hash: string): string | undefined;
  /** One entry exactly as torrents/info serves it. */
  entryJson(hash: string): string | undefined;
  /** Adds `count` new torrents (the next copies); their hashes. */
  add(count: number): string[];
  /** Removes these torrents (unknown hashes are ignored); how many went. */
  remove(hashes: Iterable<string>): number;
  /** Every request, in order of arrival. */
  readonly requests: MassRequest[];
  /** torrents/info requests that read the list (no `hashes`): the sync's list pages. */
  listReads(): MassRequest[];
  /** How many times torrents/info served this torrent's entry (list pages and look-ups). */
  servedCount(hash: string): number;
  /** Forgets the requests and counts so far (not the torrents). */
  resetCounts(): void;
  close(): Promise<void>;
}

interface Shape {
  version: string;
  apiVersion: string;
  templates: Record<string, unknown>[];
  /** Recorded torrents/files answer of the multi-file torrent (names start with its folder). */
  files: { name: string; [key: string]: unknown }[];
  folderName: string;
}

function readShape(shape: MassShape): Shape {
  const recording = readRecording(`qbittorrent-${shape}`);
  const answer = (scenario: string, endpoint: string) => {
    const exchange = recording.scenarios[scenario]?.exchanges.find((candidate) => candidate.request.path === `/api/v2/${endpoint}` && candidate.response?.status === 200);
    if (!exchange?.response) throw new Error(`qbittorrent-${shape}.json has no ${endpoint} answer in "${scenario}"`);
    return exchange.response.body;
  };
  const templates = JSON.parse(answer('list', 'torrents/info')) as Record<string, unknown>[];
  if (templates.length === 0) throw new Error(`qbittorrent-${shape}.json: the recorded list is empty`);
  const facts = recording.facts as { content: { folderName: string } };
  return {
    version: answer('test', 'app/version').trim(),
    apiVersion: answer('test', 'app/webapiVersion').trim(),
    templates,
    files: JSON.parse(answer('files', 'torrents/files')) as Shape['files'],
    folderName: facts.content.folderName,
  };
}

/** The fields a copy changes; every other field stays as recorded. */
const VARIED = ['hash', 'infohash_v1', 'name', 'save_path', 'content_path', 'root_path', 'magnet_uri', 'added_on', 'completion_on', 'last_activity', 'state', 'progress', 'amount_left', 'completed'] as const;
type Varied = (typeof VARIED)[number];

/**
 * A recorded entry as a template: its JSON cut at the varied fields' values, so a copy is one
 * string join (no JSON.stringify of 60 keys per torrent).
 */
interface Template extends JsonTemplate<Varied> {
  source: Record<string, unknown>;
  /** A folder torrent (its content path is its folder, root_path set) or a single file. */
  folder: boolean;
  tracker: string;
}

function templateOf(source: Record<string, unknown>, folderName: string): Template {
  const marked: Record<string, unknown> = { ...source };
  const present = VARIED.filter((key) => key in source);
  for (const key of present) marked[key] = marker(key);
  const magnet = String(source.magnet_uri ?? '');
  return {
    source,
    ...jsonTemplate<Varied>(JSON.stringify(marked)),
    folder: source.name === folderName,
    tracker: magnet.includes('&tr=') ? magnet.slice(magnet.indexOf('&tr=')) : '',
  };
}

/** 4.5's magnet links percent-encode in lower case, 5.x's in upper case (as recorded). */
function encodeName(name: string, shape: MassShape): string {
  const encoded = encodeURIComponent(name).replace(/[()[\]!'*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return shape === '4.5.2' ? encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()) : encoded;
}

/** The copy's activity (mass-shared.ts) in qBittorrent's words. */
function stateOf(index: number, shape: MassShape): { state: string; progress: number } {
  const { activity, progress } = copyActivity(index);
  const state = { downloading: 'downloading', stopped: shape === '4.5.2' ? 'pausedUP' : 'stoppedUP', 'seeding-active': 'uploading', 'seeding-idle': 'stalledUP' }[activity];
  return { state, progress };
}

interface Copy {
  index: number;
  hash: string;
  template: Template;
}

export async function startMassQbittorrent(options: MassQbittorrentOptions): Promise<MassQbittorrent> {
  const { shape } = options;
  const seed = options.seed ?? 'mass';
  const username = options.username ?? 'reseed';
  const password = options.password ?? 'Lens-密码-2024';
  const recorded = readShape(shape);
  const templates = recorded.templates.map((source) => templateOf(source, recorded.folderName));
  const addedBase = Number(recorded.templates[0]!.added_on ?? 1_700_000_000);

  // Torrents held, by creation index; `held` keeps the insertion order, `sorted` the hash order (made when asked).
  const copies: Copy[] = [];
  const byHash = new Map<string, Copy>();
  let held: Copy[] = [];
  let heldSet = new Set<Copy>();
  let sortedByHash: Copy[] | undefined;
  let served = new Map<string, number>();
  const requests: MassRequest[] = [];
  const sessions = new Set<string>();
  const cookieName = shape === '4.5.2' ? 'SID' : '';

  const makeCopies = (count: number): Copy[] => {
    const made: Copy[] = [];
    for (let n = 0; n < count; n++) {
      const index = copies.length;
      const copy: Copy = { index, hash: copyHash('qbittorrent', seed, index), template: templates[index % templates.length]! };
      copies.push(copy);
      byHash.set(copy.hash, copy);
      made.push(copy);
    }
    return made;
  };

  const valuesOf = (copy: Copy): Record<Varied, unknown> => {
    const { template, index, hash } = copy;
    const name = copyName(index, seed);
    const savePath = copySavePath(String(template.source.save_path), index);
    const contentPath = `${savePath}/${name}`;
    const size = Number(template.source.total_size ?? template.source.size ?? 0);
    const { state, progress } = stateOf(index, shape);
    const added = addedBase - 365 * 86_400 + index * 60;
    return {
      hash,
      infohash_v1: hash,
      name,
      save_path: savePath,
      content_path: contentPath,
      root_path: template.folder ? contentPath : '',
      magnet_uri: `magnet:?xt=urn:btih:${hash}&dn=${encodeName(name, shape)}${shape === '4.5.2' ? '' : `&xl=${size}`}${template.tracker}`,
      added_on: added,
      completion_on: progress === 1 ? added + 600 : -1,
      last_activity: added + 3600,
      state,
      progress,
      amount_left: Math.round(size * (1 - progress)),
      completed: Math.round(size * progress),
    };
  };

  const entryOf = (copy: Copy): string => fillTemplate(copy.template, valuesOf(copy));

  const hashOrder = (): Copy[] => (sortedByHash ??= [...held].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)));

  const matchesFilter = (copy: Copy, filter: string): boolean => {
    const { state, progress } = stateOf(copy.index, shape);
    const paused = state === 'pausedUP' || state === 'stoppedUP';
    switch (filter) {
      case 'downloading':
        return state === 'downloading';
      case 'seeding':
        return state === 'uploading' || state === 'stalledUP';
      case 'completed':
        return progress === 1;
      case 'paused':
      case 'stopped':
        return paused;
      case 'resumed':
      case 'running':
        return !paused;
      case 'active':
        return state === 'uploading' || state === 'downloading';
      case 'inactive':
        return state !== 'uploading' && state !== 'downloading';
      case 'stalled':
      case 'stalled_uploading':
        return state === 'stalledUP';
      case 'stalled_downloading':
      case 'checking':
      case 'moving':
      case 'errored':
        return false;
      default:
        return true; // qBittorrent reads an unknown filter as "all"
    }
  };

  /** torrents/info: filter, sort, offset and limit as qBittorrent's infoAction applies them. */
  const infoList = (params: Record<string, string>): Copy[] | { error: number; text: string } => {
    const wanted = params.hashes ? new Set(params.hashes.toLowerCase().split('|').filter(Boolean)) : undefined;
    const filter = params.filter ?? '';
    let list: Copy[];
    if (wanted) list = [...wanted].map((hash) => byHash.get(hash)).filter((copy): copy is Copy => copy !== undefined && heldSet.has(copy) && matchesFilter(copy, filter));
    else list = filter && filter !== 'all' ? held.filter((copy) => matchesFilter(copy, filter)) : held;
    if (list.length === 0) return [];
    const sort = params.sort ?? '';
    const reverse = params.reverse === 'true' || params.reverse === '1';
    if (sort) {
      if (!(sort in copies[0]!.template.source)) return { error: 400, text: "'sort' parameter is invalid" };
      if (sort === 'hash' || sort === 'infohash_v1') {
        const inOrder = hashOrder();
        const chosen = new Set(list);
        list = list === held ? inOrder : inOrder.filter((copy) => chosen.has(copy));
      } else if ((VARIED as readonly string[]).includes(sort)) {
        const keyed = list.map((copy) => ({ copy, key: valuesOf(copy)[sort as Varied] as string | number }));
        keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        list = keyed.map((entry) => entry.copy);
      } // any other key holds the recorded value in every copy: all equal, the order stays
      if (reverse) list = [...list].reverse();
    }
    const size = list.length;
    let offset = Math.trunc(Number(params.offset ?? 0)) || 0;
    let limit = Math.trunc(Number(params.limit ?? 0)) || 0;
    if (offset < 0) offset = size + offset;
    if (limit <= 0) limit = -1;
    if (shape === '4.5.2') {
      // Up to 5.1 an offset outside the list starts it again from the top.
      if (offset >= size || offset < 0) offset = 0;
      return limit > 0 || offset > 0 ? list.slice(offset, limit > 0 ? offset + limit : undefined) : list;
    }
    if (!(limit > 0 || offset > 0)) return list;
    // Qt 6's QList::mid(offset, limit).
    if (offset > size) return [];
    if (offset < 0) {
      if (limit < 0 || limit + offset >= size) return list;
      if (limit + offset <= 0) return [];
      limit += offset;
      offset = 0;
    }
    return list.slice(offset, limit > 0 ? offset + limit : undefined);
  };

  const filesOf = (copy: Copy): unknown[] => {
    const name = valuesOf(copy).name as string;
    if (!copy.template.folder) {
      const [first] = recorded.files;
      return [{ ...first, name, size: Number(copy.template.source.total_size ?? copy.template.source.size ?? 0), piece_range: [0, Number(copy.template.source.pieces_num ?? 19) - 1] }];
    }
    return recorded.files.map((file) => ({ ...file, name: `${name}${file.name.slice(recorded.folderName.length)}` }));
  };

  const propertiesOf = (copy: Copy): Record<string, unknown> => {
    const values = valuesOf(copy);
    const source = copy.template.source;
    return {
      addition_date: values.added_on,
      comment: source.comment ?? '',
      completion_date: values.completion_on,
      created_by: source.created_by ?? '',
      creation_date: source.creation_date ?? -1,
      hash: copy.hash,
      infohash_v1: copy.hash,
      infohash_v2: '',
      name: values.name,
      save_path: values.save_path,
      total_size: source.total_size ?? source.size ?? 0,
      piece_size: source.piece_size ?? 16384,
      pieces_num: source.pieces_num ?? 19,
      progress: values.progress,
    };
  };

  makeCopies(options.torrents);
  held = [...copies];
  heldSet = new Set(held);

  /** Writes the list in pieces (mass-shared.ts), counting each entry served. */
  const streamList = (res: ServerResponse, list: readonly Copy[]): Promise<number> =>
    streamAnswer(
      res,
      'application/json',
      '[',
      (function* () {
        for (const copy of list) {
          served.set(copy.hash, (served.get(copy.hash) ?? 0) + 1);
          yield entryOf(copy);
        }
      })(),
      ']',
    );

  const sessionOf = (req: IncomingMessage, port: number): string | undefined => {
    const name = cookieName || `QBT_SID_${port}`;
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [key, ...value] = part.trim().split('=');
      if (key === name && sessions.has(value.join('='))) return value.join('=');
    }
    return undefined;
  };

  /** qBittorrent's CSRF check: a request from another origin (Origin, else Referer) is refused. */
  const crossSite = (req: IncomingMessage): boolean => {
    const own = `http://${req.headers.host ?? ''}`;
    const origin = req.headers.origin;
    if (origin) return origin !== own;
    const referer = req.headers.referer;
    if (!referer) return false;
    try {
      return new URL(referer).origin !== own;
    } catch {
      return true;
    }
  };

  let port = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://mass');
    const body = req.method === 'POST' ? await readBody(req) : '';
    const params: Record<string, string> = Object.fromEntries(url.searchParams);
    if (body && (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) Object.assign(params, Object.fromEntries(new URLSearchParams(body)));
    const endpoint = url.pathname.startsWith('/api/v2/') ? url.pathname.slice('/api/v2/'.length) : url.pathname;
    const log: MassRequest = { method: req.method ?? '', endpoint, params, status: 0, entries: 0, bytes: 0, at: Date.now() };
    requests.push(log);
    const answer = (status: number, text: string, headers?: Record<string, string>) => {
      log.status = status;
      log.bytes = textAnswer(res, status, text, headers);
    };
    const json = (value: unknown) => answer(200, JSON.stringify(value), { 'content-type': 'application/json' });

    if (crossSite(req)) return answer(401, 'Unauthorized');
    if (endpoint === 'auth/login') {
      if (req.method !== 'POST') return answer(405, 'Method Not Allowed');
      if (params.username !== username || params.password !== password) return shape === '4.5.2' ? answer(200, 'Fails.') : answer(401, 'Unauthorized');
      const sid = randomBytes(24).toString('base64url').slice(0, 32);
      sessions.add(sid);
      return shape === '4.5.2'
        ? answer(200, 'Ok.', { 'set-cookie': `SID=${sid}; HttpOnly; path=/; SameSite=Strict` })
        : answer(204, '', { 'set-cookie': `QBT_SID_${port}=${sid}; HttpOnly; SameSite=Lax; path=/` });
    }
    const session = sessionOf(req, port);
    if (!session) return answer(403, 'Forbidden');
    const one = () => {
      const copy = byHash.get((params.hash ?? '').toLowerCase());
      return copy && heldSet.has(copy) ? copy : undefined;
    };
    switch (endpoint) {
      case 'auth/logout':
        sessions.delete(session);
        return answer(200, '');
      case 'app/version':
        return answer(200, recorded.version);
      case 'app/webapiVersion':
        return answer(200, recorded.apiVersion);
      case 'torrents/count':
        if (shape === '4.5.2') break; // from Web API 2.10.0 (5.0)
        return answer(200, String(held.length));
      case 'torrents/info': {
        const list = infoList(params);
        if (!Array.isArray(list)) return answer(list.error, list.text);
        log.status = 200;
        log.entries = list.length;
        log.bytes = await streamList(res, list);
        return;
      }
      case 'torrents/files': {
        const copy = one();
        return copy ? json(filesOf(copy)) : answer(404, 'Not Found');
      }
      case 'torrents/properties': {
        const copy = one();
        return copy ? json(propertiesOf(copy)) : answer(404, 'Not Found');
      }
    }
    return answer(404, 'Not Found');
  };

  const server = await listenOnLoopback(handle);
  port = server.port;
  const { url } = server;

  return {
    shape,
    url,
    username,
    password,
    version: recorded.version,
    config: { type: 'qbittorrent', url, username, password },
    count: () => held.length,
    hashes: () => held.map((copy) => copy.hash),
    hashOf: (index) => copies[index]?.hash ?? copyHash('qbittorrent', seed, index),
    nameOf: (hash) => {
      const copy = byHash.get(hash);
      return copy ? copyName(copy.index, seed) : undefined;
    },
    entryJson: (hash) => {
      const copy = byHash.get(hash);
      return copy ? entryOf(copy) : undefined;
    },
    add(count) {
      const made = makeCopies(count);
      held = [...held, ...made];
      for (const copy of made) heldSet.add(copy);
      sortedByHash = undefined;
      return made.map((copy) => copy.hash);
    },
    remove(hashes) {
      const gone = new Set(hashes);
      const before = held.length;
      held = held.filter((copy) => !gone.has(copy.hash));
      heldSet = new Set(held);
      sortedByHash = undefined;
      return before - held.length;
    },
    requests,
    listReads: () => requests.filter((request) => request.endpoint === 'torrents/info' && !request.params.hashes),
    servedCount: (hash) => served.get(hash) ?? 0,
    resetCounts() {
      requests.length = 0;
      served = new Map();
    },
    close: () => server.close(),
  };
}
