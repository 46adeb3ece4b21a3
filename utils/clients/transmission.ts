/**
 * Transmission's RPC, 3.00 (rpc-version 16) and 4.x (17+), in the classic protocol
 * (`{ method, arguments, tag }`), which 4.1's JSON-RPC 2.0 server still accepts.
 *
 * - Every request carries Basic auth (when a user name or password is set) and the last
 *   X-Transmission-Session-Id; a 409 hands out a new id and the request is sent once more with it.
 *   No cookies are involved (credentials: 'omit').
 * - 401 is a wrong user name or password; 403 is "too many failed logins" (3.00 after 100 tries,
 *   until the daemon restarts) or an address not on its whitelist; 421 a host name not on it.
 * - torrent-get asks for the table format (3.00+): one header row and one row per torrent, much
 *   lighter than objects for thousands of torrents. Torrents are picked by hash (`ids` takes hashes).
 * - list() reads the hashes alone first (torrent-get of `hashString`: about 45 bytes a torrent), then
 *   the fields it uses for pages of those hashes, so no answer holds the whole client. A torrent
 *   removed in between is simply not in its page; one added in between comes with the next list.
 *   Hashes rather than the numeric ids: ids are renumbered when the daemon restarts. count() is
 *   session-stats' torrentCount. 3.00 and 4.1.4 both take a list of hashes in `ids` (checked live).
 * - torrent-add sends the file as base64 `metainfo`. A torrent it already holds comes back as
 *   `torrent-duplicate` with result "success": that is a duplicate, not a failure. Transmission
 *   verifies every new torrent, so `skipCheck` has no effect. Labels: 4.0 takes `labels` in
 *   torrent-add, 3.00 ignores it there, so they are also set with torrent-set (both versions).
 */
import { z } from 'zod';
import { ClientError } from './client-errors';
import {
  MAX_HASHES_PER_CLIENT_REQUEST,
  byteCount,
  chunks,
  clientBaseUrl,
  clientWords,
  fraction,
  hashOf,
  joinPath,
  normaliseHashes,
  pageReader,
  pageSizeFrom,
  parseJson,
  reportedHash,
  send,
  toBase64,
  transportFrom,
  utf8Base64,
  type Transport,
} from './http';
import type { AddOptions, AddResult, ClientFile, ClientInfo, ClientSettings, ClientTorrent, ListOptions, RenameStep, TorrentClient, TorrentState } from './client-types';

/** Torrents per list page (a row is a few hundred bytes: 1,000 is well under a megabyte). */
export const TRANSMISSION_PAGE_SIZE = 1_000;

const SESSION_HEADER = 'X-Transmission-Session-Id';

/** What a torrent row is read from. */
export const TRANSMISSION_TORRENT_FIELDS = ['hashString', 'name', 'downloadDir', 'totalSize', 'status', 'percentDone', 'error', 'errorString', 'isStalled', 'labels'] as const;

const envelopeSchema = z.object({ result: z.string(), arguments: z.record(z.string(), z.unknown()).optional().catch(undefined) });

const torrentRowSchema = z.object({
  hashString: z.string(),
  name: z.string().catch(''),
  downloadDir: z.string().catch(''),
  totalSize: z.number().catch(0),
  status: z.number().catch(-1),
  percentDone: z.number().catch(0),
  error: z.number().catch(0),
  errorString: z.string().catch(''),
  isStalled: z.boolean().catch(false),
  labels: z.array(z.string()).catch([]),
});

const filesRowSchema = z.object({
  hashString: z.string(),
  files: z.array(z.object({ name: z.string(), length: z.number() })),
});

const sessionSchema = z.object({
  version: z.string(),
  'rpc-version': z.number().optional().catch(undefined),
  'rpc-version-semver': z.string().optional().catch(undefined),
});

const statsSchema = z.object({ torrentCount: z.number().int().nonnegative() });

const hashRowSchema = z.object({ hashString: z.string() });

const addedSchema = z.object({ hashString: z.string() });

/** Transmission's status numbers (tr_torrent_activity) in the user's words; a local error (3) wins. */
export function transmissionState(status: number, error: number, percentDone: number, isStalled: boolean): TorrentState {
  if (error === 3) return 'error'; // TR_STAT_LOCAL_ERROR; 1 and 2 are tracker warnings/errors
  switch (status) {
    case 0:
      return 'paused';
    case 1:
    case 2:
      return 'checking';
    case 3:
    case 5:
      return 'queued';
    case 4:
      return isStalled && percentDone < 1 ? 'stalled' : 'downloading';
    case 6:
      return 'seeding';
    default:
      return 'unknown';
  }
}

/** Rows from `format: "table"` (a header row of keys, then values) or from the default objects. */
export function transmissionRows(torrents: unknown): unknown[] {
  if (!Array.isArray(torrents)) throw new ClientError({ kind: 'bad-answer', detail: 'torrent-get: no torrent list in the answer' });
  const [first, ...rest] = torrents;
  if (!Array.isArray(first)) return torrents; // objects
  const keys = first.map(String);
  return rest.filter(Array.isArray).map((row: unknown[]) => Object.fromEntries(keys.map((key, index) => [key, row[index]])));
}

function torrentFrom(row: unknown): ClientTorrent | undefined {
  const parsed = torrentRowSchema.safeParse(row);
  if (!parsed.success) return undefined;
  const hash = reportedHash(parsed.data.hashString);
  if (!hash) return undefined;
  const { name, downloadDir, totalSize, status, percentDone, error, errorString, isStalled, labels } = parsed.data;
  const torrent: ClientTorrent = {
    hash,
    name,
    savePath: downloadDir,
    contentPath: joinPath(downloadDir, name),
    size: byteCount(totalSize),
    state: transmissionState(status, error, percentDone, isStalled),
    progress: fraction(percentDone),
  };
  if (labels.length > 0) torrent.tags = labels;
  if (error !== 0 && errorString) torrent.error = errorString.slice(0, 500);
  return torrent;
}

/** The torrent-add arguments (pure, so what goes out can be checked without a daemon). */
export function transmissionAddArguments(torrent: Uint8Array, options: AddOptions): Record<string, unknown> {
  const args: Record<string, unknown> = { metainfo: toBase64(torrent), 'download-dir': options.savePath, paused: options.paused };
  const labels = transmissionLabels(options);
  if (labels.length > 0) args.labels = labels;
  return args;
}

/** Transmission has labels only: the category (when given) is one more label. */
export function transmissionLabels(options: AddOptions): string[] {
  // Transmission refuses labels containing commas.
  const labels = [options.category ?? '', ...(options.tags ?? [])].map((label) => label.trim().replaceAll(',', ' ')).filter(Boolean);
  return [...new Set(labels)];
}

export class TransmissionClient implements TorrentClient {
  readonly kind = 'transmission' as const;
  private readonly url: string;
  private readonly transport: Transport;
  private sessionId?: string;
  private tag = 0;
  private readonly pageSize: number;

  constructor(private readonly settings: ClientSettings) {
    const base = clientBaseUrl(settings.url);
    // The web UI's address (…/transmission/web/) or the bare host both lead to the RPC endpoint.
    this.url = /\/rpc$/.test(base) ? base : `${base.replace(/\/transmission(\/web)?$/, '')}/transmission/rpc`;
    this.transport = transportFrom(settings);
    this.pageSize = pageSizeFrom(settings, TRANSMISSION_PAGE_SIZE);
  }

  async test(): Promise<ClientInfo> {
    const session = sessionSchema.safeParse(await this.rpc('session-get', { fields: ['version', 'rpc-version', 'rpc-version-semver'] }));
    if (!session.success) throw new ClientError({ kind: 'bad-answer', detail: 'session-get: no version in the answer' });
    const torrentCount = await this.count();
    const rpcVersion = session.data['rpc-version-semver'] ?? (session.data['rpc-version'] === undefined ? undefined : String(session.data['rpc-version']));
    const info: ClientInfo = { client: 'transmission', version: session.data.version, torrentCount, auth: 'password' };
    if (rpcVersion !== undefined) info.apiVersion = rpcVersion;
    return info;
  }

  async lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>> {
    const asked = normaliseHashes(hashes);
    const found = new Map<string, ClientTorrent>();
    for (const batch of chunks(asked, MAX_HASHES_PER_CLIENT_REQUEST)) {
      const wanted = new Set(batch);
      for (const torrent of await this.torrents(batch)) if (wanted.has(torrent.hash)) found.set(torrent.hash, torrent);
    }
    return found;
  }

  async count(): Promise<number> {
    const stats = statsSchema.safeParse(await this.rpc('session-stats', {}));
    if (!stats.success) throw new ClientError({ kind: 'bad-answer', detail: 'session-stats: no torrent count in the answer' });
    return stats.data.torrentCount;
  }

  async list(options?: ListOptions): Promise<ClientTorrent[]> {
    const read = pageReader(options);
    const answer = await read(() => this.rpc('torrent-get', { fields: ['hashString'], format: 'table' }));
    const hashes = new Set<string>();
    for (const row of transmissionRows(answer.torrents)) {
      const parsed = hashRowSchema.safeParse(row);
      const hash = parsed.success ? reportedHash(parsed.data.hashString) : undefined;
      if (hash) hashes.add(hash);
    }
    const found = new Map<string, ClientTorrent>();
    for (const page of chunks([...hashes], this.pageSize)) {
      for (const torrent of await read(() => this.torrents(page))) found.set(torrent.hash, torrent);
    }
    return [...found.values()];
  }

  async files(hash: string): Promise<ClientFile[]> {
    const [asked] = normaliseHashes([hash]);
    const answer = await this.rpc('torrent-get', { ids: [asked], fields: ['hashString', 'files'] });
    const row = transmissionRows(answer.torrents)
      .map((entry) => filesRowSchema.safeParse(entry))
      .find((entry) => entry.success && reportedHash(entry.data.hashString) === asked);
    if (!row?.success) throw new ClientError({ kind: 'not-found', detail: `files: the client does not hold ${asked}` });
    return row.data.files.map((file) => ({ path: file.name.replaceAll('\\', '/'), size: byteCount(file.length) }));
  }

  async add(torrent: Uint8Array, options: AddOptions): Promise<AddResult> {
    const hash = await hashOf(torrent);
    const answer = await this.rpc('torrent-add', transmissionAddArguments(torrent, options), 'refused');
    const duplicate = addedSchema.safeParse(answer['torrent-duplicate']);
    const added = addedSchema.safeParse(answer['torrent-added']);
    const reported = added.success ? added.data.hashString : duplicate.success ? duplicate.data.hashString : undefined;
    if (reported === undefined) throw new ClientError({ kind: 'bad-answer', detail: 'torrent-add: neither torrent-added nor torrent-duplicate in the answer' });
    const taken = reportedHash(reported);
    if (!taken) throw new ClientError({ kind: 'bad-answer', detail: `torrent-add: the client reports hash ${reported.slice(0, 40)}` });
    // Another hash than the file's (3.00 re-encodes a non-canonical info dictionary): the caller
    // sees it in the result and decides (the cross-seed removes such a stray again).
    const labels = transmissionLabels(options);
    if (added.success && labels.length > 0) await this.rpc('torrent-set', { ids: [taken], labels });
    return { status: added.success ? 'added' : 'duplicate', hash: taken };
  }

  async start(hash: string): Promise<void> {
    await this.rpc('torrent-start', { ids: normaliseHashes([hash]) });
  }

  async stop(hash: string): Promise<void> {
    await this.rpc('torrent-stop', { ids: normaliseHashes([hash]) });
  }

  async recheck(hash: string): Promise<void> {
    await this.rpc('torrent-verify', { ids: normaliseHashes([hash]) });
  }

  async remove(hash: string): Promise<void> {
    await this.rpc('torrent-remove', { ids: normaliseHashes([hash]), 'delete-local-data': false });
  }

  /** torrent-set replaces the labels: the torrent's own are read first and kept. */
  readonly renames = 'last-element' as const;

  /** torrent-rename-path: a path of the torrent takes a new last element (RPC 15, Transmission 2.80). */
  async rename(hash: string, steps: readonly RenameStep[]): Promise<void> {
    const ids = normaliseHashes([hash]);
    for (const step of steps) {
      const name = step.to.slice(step.to.lastIndexOf('/') + 1);
      await this.rpc('torrent-rename-path', { ids, path: step.from, name }, 'refused');
    }
  }

  async addTags(hash: string, tags: readonly string[]): Promise<boolean> {
    const [asked] = normaliseHashes([hash]);
    const current = (await this.lookup([asked!])).get(asked!);
    if (!current) throw new ClientError({ kind: 'not-found', detail: `labels: the client does not hold ${asked}` });
    const labels = transmissionLabels({ savePath: '', paused: true, skipCheck: false, tags: [...(current.tags ?? []), ...tags] });
    await this.rpc('torrent-set', { ids: [asked], labels });
    return true;
  }

  // -------------------------------------------------------------------------------------------

  private async torrents(ids: string[]): Promise<ClientTorrent[]> {
    const answer = await this.rpc('torrent-get', { ids, fields: [...TRANSMISSION_TORRENT_FIELDS], format: 'table' });
    return transmissionRows(answer.torrents)
      .map(torrentFrom)
      .filter((torrent): torrent is ClientTorrent => torrent !== undefined);
  }

  /**
   * One RPC call; returns its `arguments`. A result other than "success" fails with `failKind`
   * ('refused' for an add, keeping Transmission's words; a bad answer otherwise).
   */
  private async rpc(method: string, args: Record<string, unknown>, failKind: 'refused' | 'bad-answer' = 'bad-answer'): Promise<Record<string, unknown>> {
    const body = JSON.stringify({ method, arguments: args, tag: ++this.tag });
    let answer = await this.post(method, body);
    if (answer.status === 409) {
      const sessionId = answer.headers.get(SESSION_HEADER);
      if (!sessionId) throw new ClientError({ kind: 'bad-answer', detail: `${method}: 409 without a session id`, httpStatus: 409 });
      this.sessionId = sessionId;
      answer = await this.post(method, body);
    }
    const words = clientWords(answer.text);
    switch (answer.status) {
      case 200:
        break;
      case 401:
        throw new ClientError({ kind: 'auth', detail: `${method}: wrong user name or password`, clientMessage: words, httpStatus: 401 });
      case 403:
        throw /too many/i.test(answer.text)
          ? new ClientError({ kind: 'banned', detail: `${method}: Transmission locked out logins after too many failures (restart it to unlock)`, clientMessage: words, httpStatus: 403 })
          : new ClientError({ kind: 'not-allowed', detail: `${method}: this address is not on Transmission's RPC whitelist`, clientMessage: words, httpStatus: 403 });
      case 421:
        throw new ClientError({ kind: 'not-allowed', detail: `${method}: this host name is not on Transmission's host whitelist`, clientMessage: words, httpStatus: 421 });
      case 409:
        throw new ClientError({ kind: 'bad-answer', detail: `${method}: the session id was refused twice`, httpStatus: 409 });
      default:
        if (answer.status >= 500) throw new ClientError({ kind: 'server', detail: `${method}: Transmission failed (${answer.status})`, clientMessage: words, httpStatus: answer.status });
        throw new ClientError({ kind: 'bad-answer', detail: `${method}: unexpected answer ${answer.status} (is this Transmission's address?)`, clientMessage: words, httpStatus: answer.status });
    }
    const envelope = envelopeSchema.safeParse(parseJson(answer.text, method));
    if (!envelope.success) throw new ClientError({ kind: 'bad-answer', detail: `${method}: the answer has no result` });
    if (envelope.data.result !== 'success') {
      throw new ClientError({ kind: failKind, detail: `${method}: Transmission answered "${envelope.data.result.slice(0, 100)}"`, clientMessage: envelope.data.result });
    }
    return envelope.data.arguments ?? {};
  }

  private post(method: string, body: string) {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.settings.username || this.settings.password) headers.Authorization = `Basic ${utf8Base64(`${this.settings.username}:${this.settings.password}`)}`;
    if (this.sessionId) headers[SESSION_HEADER] = this.sessionId;
    return send(this.transport, { method: 'POST', url: this.url, headers, body, credentials: 'omit' }, method);
  }
}

export function createTransmission(settings: ClientSettings): TorrentClient {
  return new TransmissionClient(settings);
}
