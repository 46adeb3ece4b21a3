/**
 * Flood (4.x) through its own API at its address, whatever client Flood drives (rTorrent,
 * qBittorrent, Transmission…): Flood speaks to that client; we speak only to Flood.
 *
 * - POST /api/auth/authenticate {username, password} sets Flood's `jwt` cookie (HttpOnly,
 *   SameSite=Strict): the browser keeps it (credentials: 'include'), as it keeps Deluge's session.
 *   A 401 on any other call is a session that ended: we authenticate once more and repeat the call.
 *   Flood limits its auth routes to 200 calls in 5 minutes (then 429).
 * - Flood answers its whole torrent list at once (GET /api/torrents, keyed by upper-case hash; it
 *   has no page and no per-torrent read), so list(), lookup() and count() each read that one answer.
 * - A torrent's `directory` over rTorrent is its d.directory: a multi-file torrent's own folder, a
 *   single file's parent (over qBittorrent or Transmission, the save path for both). Flood does not
 *   say which shape a torrent has: a torrent whose directory ends in its own name is taken as sitting
 *   in its own folder (what every add at a save path lays out), any other as sitting in `directory`.
 * - POST /api/torrents/add-files answers 202 [] on rTorrent whether or not it took the file (no
 *   hashes): the torrent's presence is checked before (a duplicate) and after (else refused).
 * - Tags are Flood's tags (on rTorrent the comma-separated d.custom1); a category is one of them.
 * - Flood reads piece hashes from no client, and cannot rename a torrent's files (its move can only
 *   give a multi-file torrent's folder another name, and its list could then not tell the shape).
 * - "Flood not connected to its client": GET /api/client/connection-test answers 500 with the
 *   connection's error (ECONNREFUSED…).
 */
import { z } from 'zod';
import { ClientError } from './client-errors';
import {
  byteCount,
  clientBaseUrl,
  clientWords,
  fraction,
  hashOf,
  joinPath,
  lastElement,
  normaliseHashes,
  pageReader,
  parentOf,
  parseJson,
  reportedHash,
  send,
  toBase64,
  transportFrom,
  type Transport,
} from './http';
import { LOAD_WAIT_MS, appearsAfterLoad, isTrackerMessage } from './rtorrent';
import type { AddOptions, AddResult, ClientFile, ClientInfo, ClientSettings, ClientTorrent, ListOptions, TorrentClient, TorrentState } from './client-types';

const torrentSchema = z.object({
  hash: z.string(),
  name: z.string().catch(''),
  directory: z.string().catch(''),
  sizeBytes: z.number().catch(0),
  percentComplete: z.number().catch(0),
  status: z.array(z.string()).catch([]),
  message: z.string().catch(''),
  tags: z.array(z.string()).catch([]),
  trackerURIs: z.array(z.string()).catch([]),
});
type FloodTorrent = z.infer<typeof torrentSchema>;

const listSchema = z.object({ torrents: z.record(z.string(), z.unknown()) });
const contentsSchema = z.array(z.object({ path: z.string(), sizeBytes: z.number() }));
/** Flood's failures: `{ code?, message }`. */
const failureSchema = z.object({ code: z.string().optional().catch(undefined), message: z.string().catch('') });

/** Flood's status words (several at once: "stopped", "complete", "error", "inactive"…) in the user's words. */
export function floodState(status: readonly string[], message: string): TorrentState {
  const has = (word: string) => status.includes(word);
  if (has('checking')) return 'checking';
  if (has('moving')) return 'moving';
  // Flood adds "error" for any message, announces that fail included: those are not the torrent's error.
  if (has('error') && message && !isTrackerMessage(message)) return 'error';
  if (has('stopped')) return 'paused';
  if (has('seeding') || has('complete')) return 'seeding';
  if (has('downloading')) return 'downloading';
  return 'unknown';
}

/** Whether a torrent sits in a folder of its own name: a multi-file torrent (see the header). */
function isOwnFolder(torrent: Pick<FloodTorrent, 'directory' | 'name'>): boolean {
  return torrent.name !== '' && lastElement(torrent.directory) === torrent.name;
}

function torrentFrom(floodTorrent: FloodTorrent & { hash: string }): ClientTorrent {
  const { hash, name, directory, sizeBytes, percentComplete, status, message, tags, trackerURIs } = floodTorrent;
  const multiFile = isOwnFolder(floodTorrent);
  const torrent: ClientTorrent = {
    hash,
    name,
    savePath: multiFile ? parentOf(directory) : directory,
    contentPath: multiFile ? directory : joinPath(directory, name),
    size: byteCount(sizeBytes),
    state: floodState(status, message),
    progress: fraction(percentComplete, true),
  };
  if (tags.length) torrent.tags = [...new Set(tags)];
  // Flood keeps a tracker's registrable domain only ("example.org" of tracker.example.org; none for
  // an IP address or a name under no public suffix).
  if (trackerURIs[0]) torrent.tracker = trackerURIs[0];
  if (torrent.state === 'error') torrent.error = message.slice(0, 500);
  return torrent;
}

const NO_SUCH_TORRENT = /could not find info-hash|not found/i;

interface FloodAnswer {
  status: number;
  text: string;
}

export class FloodClient implements TorrentClient {
  readonly kind = 'flood' as const;
  private readonly base: string;
  private readonly transport: Transport;
  private loggedIn = false;
  private login?: Promise<void>;

  constructor(private readonly settings: ClientSettings) {
    this.base = clientBaseUrl(settings.url);
    this.transport = transportFrom(settings);
  }

  /** Logs in afresh (the password is checked every time), then asks Flood about its client, its torrents and its version. */
  async test(): Promise<ClientInfo> {
    this.loggedIn = false;
    await this.ready();
    const connection = await this.request('GET', '/api/client/connection-test', 'connection-test');
    if (connection.status !== 200) {
      throw new ClientError({
        kind: 'not-connected',
        detail: `Flood is not connected to its torrent client (${connection.status})`,
        clientMessage: floodWords(connection.text),
        httpStatus: connection.status,
      });
    }
    const torrentCount = (await this.torrents()).length;
    // Flood says its own version only in its API description.
    const description = z.object({ info: z.object({ version: z.string() }) }).safeParse(parseJson((await this.call('GET', '/api/openapi.json', 'version')).text, 'version'));
    if (!description.success) throw new ClientError({ kind: 'bad-answer', detail: "version: Flood's API description names no version" });
    return { client: 'flood', version: description.data.info.version, torrentCount, auth: 'password' };
  }

  async count(): Promise<number> {
    return (await this.torrents()).length;
  }

  async lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>> {
    const asked = normaliseHashes(hashes);
    const found = new Map<string, ClientTorrent>();
    if (!asked.length) return found;
    const wanted = new Set(asked);
    for (const torrent of await this.torrents()) if (wanted.has(torrent.hash)) found.set(torrent.hash, torrent);
    return found;
  }

  /** One read: Flood has no pages (pageSize does not apply). */
  async list(options?: ListOptions): Promise<ClientTorrent[]> {
    return pageReader(options)(() => this.torrents());
  }

  /** Flood's contents are relative to the torrent's own folder, which a multi-file torrent's paths start with (as it is on disk). */
  async files(hash: string): Promise<ClientFile[]> {
    const [asked] = normaliseHashes([hash]);
    const torrent = await this.held('files', asked!);
    const answer = await this.onTorrent('GET', `/api/torrents/${asked!.toUpperCase()}/contents`, 'files', asked!);
    const contents = contentsSchema.safeParse(parseJson(answer.text, 'files'));
    if (!contents.success) throw new ClientError({ kind: 'bad-answer', detail: 'files: Flood did not answer paths and sizes' });
    const folder = isOwnFolder(torrent) ? torrent.name : '';
    return contents.data.map((file) => ({ path: folder ? `${folder}/${file.path}` : file.path, size: byteCount(file.sizeBytes) }));
  }

  /**
   * Added at the save path (destination; Flood creates it if need be), stopped unless asked
   * otherwise, tags and category as Flood's tags. Flood has no "skip the check" we can trust on
   * every client it drives: `skipCheck` is not used.
   */
  async add(torrent: Uint8Array, options: AddOptions): Promise<AddResult> {
    const hash = await hashOf(torrent);
    if ((await this.lookup([hash])).has(hash)) return { status: 'duplicate', hash };
    const tags = [...new Set([options.category ?? '', ...(options.tags ?? [])].map((tag) => tag.trim()).filter(Boolean))];
    const body = { files: [toBase64(torrent)], destination: options.savePath, isBasePath: false, start: !options.paused, tags };
    // 403: a destination outside Flood's --allowedpath; 500: its client refused the file.
    const answer = await this.call('POST', '/api/torrents/add-files', 'add', body, [200, 202, 207, 403, 500]);
    if (answer.status >= 400) throw new ClientError({ kind: 'refused', detail: 'add: Flood refused the torrent', clientMessage: floodWords(answer.text), httpStatus: answer.status });
    // Flood answers before its client has the torrent (202, no hashes): it is looked for a few times.
    if (!(await appearsAfterLoad(async () => (await this.lookup([hash])).has(hash)))) {
      throw new ClientError({ kind: 'refused', detail: `add: Flood's client did not take the torrent (nothing in its list ${LOAD_WAIT_MS / 1000} s after the add)` });
    }
    return { status: 'added', hash };
  }

  async start(hash: string): Promise<void> {
    await this.onHashes('start', '/api/torrents/start', hash);
  }

  async stop(hash: string): Promise<void> {
    await this.onHashes('stop', '/api/torrents/stop', hash);
  }

  async recheck(hash: string): Promise<void> {
    await this.onHashes('recheck', '/api/torrents/check-hash', hash);
  }

  async remove(hash: string): Promise<void> {
    await this.onHashes('remove', '/api/torrents/delete', hash, { deleteData: false });
  }

  /** Flood sets a torrent's whole tag list: the ones it has are read first and kept. */
  async addTags(hash: string, tags: readonly string[]): Promise<boolean> {
    const [asked] = normaliseHashes([hash]);
    const torrent = await this.held('tags', asked!);
    const all = [...new Set([...torrent.tags, ...tags.map((tag) => tag.trim()).filter(Boolean)])];
    await this.call('PATCH', '/api/torrents/tags', 'tags', { hashes: [asked!.toUpperCase()], tags: all });
    return true;
  }

  // -------------------------------------------------------------------------------------------

  private async torrents(): Promise<ClientTorrent[]> {
    return (await this.floodTorrents()).map(torrentFrom);
  }

  /** Flood's list as it says it, hashes lowercase; an entry that does not read is left out. */
  private async floodTorrents(): Promise<(FloodTorrent & { hash: string })[]> {
    const list = listSchema.safeParse(parseJson((await this.call('GET', '/api/torrents', 'torrents')).text, 'torrents'));
    if (!list.success) throw new ClientError({ kind: 'bad-answer', detail: 'torrents: not a torrent list (is this the address of Flood itself?)' });
    const torrents: (FloodTorrent & { hash: string })[] = [];
    for (const value of Object.values(list.data.torrents)) {
      const parsed = torrentSchema.safeParse(value);
      const hash = parsed.success ? reportedHash(parsed.data.hash) : undefined;
      if (parsed.success && hash) torrents.push({ ...parsed.data, hash });
    }
    return torrents;
  }

  /** The torrent `hash` as Flood lists it, or not-found. */
  private async held(operation: string, hash: string): Promise<FloodTorrent> {
    const torrent = (await this.floodTorrents()).find((one) => one.hash === hash);
    if (!torrent) throw new ClientError({ kind: 'not-found', detail: `${operation}: the client does not hold ${hash}` });
    return torrent;
  }

  /** One of Flood's `{ hashes }` actions on one torrent. */
  private async onHashes(operation: string, path: string, hash: string, extra: Record<string, unknown> = {}): Promise<void> {
    const [asked] = normaliseHashes([hash]);
    await this.onTorrent('POST', path, operation, asked!, { hashes: [asked!.toUpperCase()], ...extra });
  }

  /** A call about one torrent: Flood's "Could not find info-hash." (a 500 from its client) is not-found. */
  private async onTorrent(method: 'GET' | 'POST', path: string, operation: string, hash: string, body?: unknown): Promise<FloodAnswer> {
    const answer = await this.call(method, path, operation, body, [200, 500]);
    if (answer.status === 200) return answer;
    const words = floodWords(answer.text);
    if (NO_SUCH_TORRENT.test(words)) throw new ClientError({ kind: 'not-found', detail: `${operation}: the client does not hold ${hash}`, clientMessage: words, httpStatus: answer.status });
    throw serverFailure(operation, answer);
  }

  /**
   * One API call, logged in: a 401 logs in once more and repeats it. An answer whose status is not
   * in `expected` is a failure here; the expected ones are the caller's to read.
   */
  private async call(method: 'GET' | 'POST' | 'PATCH', path: string, operation: string, body?: unknown, expected: readonly number[] = [200]): Promise<FloodAnswer> {
    await this.ready();
    let answer = await this.request(method, path, operation, body);
    if (answer.status === 401) {
      this.loggedIn = false;
      await this.ready();
      answer = await this.request(method, path, operation, body);
    }
    if (expected.includes(answer.status)) return answer;
    if (answer.status === 401) throw new ClientError({ kind: 'auth', detail: `${operation}: Flood does not accept our login`, clientMessage: floodWords(answer.text), httpStatus: 401 });
    if (answer.status >= 500) throw serverFailure(operation, answer);
    throw notFlood(operation, answer);
  }

  private ready(): Promise<void> {
    if (this.loggedIn) return Promise.resolve();
    this.login ??= this.authenticate().finally(() => {
      this.login = undefined;
    });
    return this.login;
  }

  private async authenticate(): Promise<void> {
    const { username, password } = this.settings;
    const answer = await this.request('POST', '/api/auth/authenticate', 'login', { username, password });
    const words = floodWords(answer.text);
    if (answer.status === 401 || answer.status === 400) throw new ClientError({ kind: 'auth', detail: 'login: wrong user name or password', clientMessage: words, httpStatus: answer.status });
    if (answer.status === 429) throw new ClientError({ kind: 'banned', detail: 'login: Flood refuses more logins for now (200 in 5 minutes)', clientMessage: words, httpStatus: 429 });
    if (answer.status >= 500) throw serverFailure('login', answer);
    const accepted = answer.status === 200 && z.object({ success: z.literal(true) }).safeParse(safeJson(answer.text)).success;
    if (!accepted) throw notFlood('login', answer);
    this.loggedIn = true;
  }

  private async request(method: 'GET' | 'POST' | 'PATCH', path: string, operation: string, body?: unknown): Promise<FloodAnswer> {
    const answer = await send(
      this.transport,
      {
        method,
        url: `${this.base}${path}`,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'include',
      },
      operation,
    );
    return { status: answer.status, text: answer.text };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Flood's own words: its `message` (with its `code`), else the answer's text. */
export function floodWords(text: string): string {
  const failure = failureSchema.safeParse(safeJson(text));
  if (failure.success && failure.data.message) return `${failure.data.code ? `${failure.data.code}: ` : ''}${failure.data.message}`.slice(0, 500);
  return clientWords(text);
}

function serverFailure(operation: string, answer: FloodAnswer): ClientError {
  return new ClientError({ kind: 'server', detail: `${operation}: Flood failed (${answer.status}: is its torrent client running?)`, clientMessage: floodWords(answer.text), httpStatus: answer.status });
}

function notFlood(operation: string, answer: FloodAnswer): ClientError {
  return new ClientError({
    kind: 'bad-answer',
    detail: `${operation}: unexpected answer ${answer.status}; give the address Flood's web UI opens at`,
    clientMessage: clientWords(answer.text),
    httpStatus: answer.status,
  });
}

export function createFlood(settings: ClientSettings): TorrentClient {
  return new FloodClient(settings);
}
