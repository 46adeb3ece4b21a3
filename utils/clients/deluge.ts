/**
 * Deluge 2.x through its web UI's JSON-RPC (`POST <web>/json`, `{ method, params, id }`).
 *
 * - auth.login(password) answers true or false and sets the `_session_id` cookie (credentials:
 *   'include'; the web UI has only a password, so the user name is not used). An expired session
 *   answers error code 1 "Not authenticated": we log in once more and repeat the call.
 * - The web UI relays `core.*` / `daemon.*` calls to a daemon it must be connected to: when
 *   web.connected() is false we connect it to the first host its host list says is online.
 * - core.add_torrent_file(name, base64, options) answers the hash; a torrent it already holds fails
 *   with "AddTorrentError: Torrent already in session (<hash>)", which is a duplicate.
 *   Options: download_location, add_paused, seed_mode (skip the check). Categories and tags need
 *   the optional Label plugin and are not set.
 * - list() asks core.get_session_state (the torrent ids alone: 40 hex each) and then the status of
 *   pages of those ids ({ id: [...] }), so no answer holds the whole client; count() is the length
 *   of that id list. Only the keys below are asked: the status map is keyed by hash already.
 * - Torrent status keys: name, download_location (2.0's name for 1.3's save_path), total_size,
 *   state ("Seeding", "Downloading", "Paused", "Checking", "Queued", "Error", "Moving", "Allocating"),
 *   progress (0..100), message (error text), label (Label plugin, when enabled), files.
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
  type Transport,
} from './http';
import type { AddOptions, AddResult, ClientFile, ClientInfo, ClientSettings, ClientTorrent, ListOptions, LiveTorrentState, RenameStep, TorrentClient, TorrentState } from './client-types';

export const DELUGE_TORRENT_KEYS = ['name', 'download_location', 'total_size', 'state', 'progress', 'message', 'label'] as const;
/** Torrents per list page (a status is a few hundred bytes). */
export const DELUGE_PAGE_SIZE = 1_000;

const envelopeSchema = z.object({
  result: z.unknown(),
  error: z.object({ message: z.string().catch(''), code: z.number().catch(-1) }).nullable().catch(null),
});

const statusSchema = z.object({
  name: z.string().catch(''),
  download_location: z.string().optional().catch(undefined),
  total_size: z.number().catch(0),
  state: z.string().catch(''),
  progress: z.number().catch(0),
  message: z.string().optional().catch(undefined),
  label: z.string().optional().catch(undefined),
});

const filesSchema = z.object({ files: z.array(z.object({ path: z.string(), size: z.number() })) });

/** web.get_hosts(): [id, host, port, user] rows (2.x adds the user; 1.3 had a status too). */
const hostsSchema = z.array(z.array(z.unknown()).min(1));
/** web.get_host_status(id): [id, status, version]. */
const hostStatusSchema = z.array(z.unknown()).min(2);

/** Deluge's state names in the user's words. */
export function delugeState(state: string): TorrentState {
  switch (state) {
    case 'Seeding':
      return 'seeding';
    case 'Downloading':
    case 'Allocating':
      return 'downloading';
    case 'Paused':
      return 'paused';
    case 'Checking':
      return 'checking';
    case 'Queued':
      return 'queued';
    case 'Moving':
      return 'moving';
    case 'Error':
      return 'error';
    default:
      return 'unknown';
  }
}

function torrentFrom(key: string, value: unknown): ClientTorrent | undefined {
  const parsed = statusSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const hash = reportedHash(key);
  if (!hash) return undefined;
  const { name, download_location, total_size, state, progress, message, label } = parsed.data;
  const savePath = download_location ?? '';
  const torrent: ClientTorrent = {
    hash,
    name,
    savePath,
    contentPath: joinPath(savePath, name),
    size: byteCount(total_size),
    state: delugeState(state),
    progress: fraction(progress, true),
  };
  if (label) torrent.category = label;
  if (torrent.state === 'error' && message && message !== 'OK') torrent.error = message.slice(0, 500);
  return torrent;
}

/** The core.add_torrent_file options (pure, so what goes out can be checked without a daemon). */
export function delugeAddOptions(options: AddOptions): Record<string, unknown> {
  return { download_location: options.savePath, add_paused: options.paused, seed_mode: options.skipCheck };
}

class DelugeCallError extends Error {
  constructor(
    readonly code: number,
    readonly clientMessage: string,
  ) {
    super(clientMessage);
  }
}

export class DelugeClient implements TorrentClient {
  readonly kind = 'deluge' as const;
  private readonly url: string;
  private readonly transport: Transport;
  private loggedIn = false;
  private connected = false;
  private login?: Promise<void>;
  private id = 0;
  private readonly pageSize: number;

  constructor(private readonly settings: ClientSettings) {
    this.url = `${clientBaseUrl(settings.url).replace(/\/json$/, '')}/json`;
    this.transport = transportFrom(settings);
    this.pageSize = pageSizeFrom(settings, DELUGE_PAGE_SIZE);
  }

  async test(): Promise<ClientInfo> {
    // Deluge checks the password on every auth.login, session or not.
    this.loggedIn = false;
    this.connected = false;
    const version = z.string().safeParse(await this.call('daemon.get_version', []));
    if (!version.success) throw new ClientError({ kind: 'bad-answer', detail: 'daemon.get_version: no version in the answer' });
    const torrentCount = await this.count();
    const libtorrent = z.string().safeParse(await this.call('core.get_libtorrent_version', []));
    const info: ClientInfo = { client: 'deluge', version: version.data, torrentCount, auth: 'password' };
    if (libtorrent.success) info.apiVersion = `libtorrent ${libtorrent.data}`;
    return info;
  }

  async lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>> {
    const asked = normaliseHashes(hashes);
    const found = new Map<string, ClientTorrent>();
    for (const batch of chunks(asked, MAX_HASHES_PER_CLIENT_REQUEST)) {
      const wanted = new Set(batch);
      for (const torrent of await this.torrents({ id: batch })) if (wanted.has(torrent.hash)) found.set(torrent.hash, torrent);
    }
    return found;
  }

  async count(): Promise<number> {
    return (await this.torrentIds()).length;
  }

  async list(options?: ListOptions): Promise<ClientTorrent[]> {
    const read = pageReader(options);
    const ids = (await read(() => this.torrentIds())).map(reportedHash).filter((hash): hash is string => hash !== undefined);
    const found = new Map<string, ClientTorrent>();
    // A torrent removed in between is simply not in its page; one added in between comes with the next list.
    for (const page of chunks([...new Set(ids)], this.pageSize)) {
      for (const torrent of await read(() => this.torrents({ id: page }))) found.set(torrent.hash, torrent);
    }
    return [...found.values()];
  }

  /** The ids (hashes) of every torrent the daemon holds. */
  private async torrentIds(): Promise<string[]> {
    const ids = z.array(z.string()).safeParse(await this.call('core.get_session_state', []));
    if (!ids.success) throw new ClientError({ kind: 'bad-answer', detail: 'core.get_session_state: not a list of torrents' });
    return ids.data;
  }

  async files(hash: string): Promise<ClientFile[]> {
    const [asked] = normaliseHashes([hash]);
    const status = await this.call('core.get_torrent_status', [asked, ['files']]);
    // An unknown torrent answers an empty status.
    const files = filesSchema.safeParse(status);
    if (!files.success) throw new ClientError({ kind: 'not-found', detail: `files: the client does not hold ${asked}` });
    return files.data.files.map((file) => ({ path: file.path.replaceAll('\\', '/'), size: byteCount(file.size) }));
  }

  async add(torrent: Uint8Array, options: AddOptions): Promise<AddResult> {
    const hash = await hashOf(torrent);
    let result: unknown;
    try {
      result = await this.call('core.add_torrent_file', [`${hash}.torrent`, toBase64(torrent), delugeAddOptions(options)], true);
    } catch (error) {
      if (error instanceof DelugeCallError) {
        if (/already (in session|being added)/i.test(error.clientMessage)) return { status: 'duplicate', hash };
        throw new ClientError({ kind: 'refused', detail: 'add: Deluge refused the torrent', clientMessage: error.clientMessage });
      }
      throw error;
    }
    if (result === null) return { status: 'added', hash };
    const taken = reportedHash(result);
    if (!taken) throw new ClientError({ kind: 'bad-answer', detail: `add: Deluge reports hash ${String(result).slice(0, 40)}` });
    // Another hash than the file's is the caller's to see (the cross-seed removes such a stray).
    return { status: 'added', hash: taken };
  }

  /**
   * core.get_torrents_status answers from a cache up to 1.5 s old, and a torrent's `state` is
   * Deluge's as of its last alert; core.get_torrent_status of one torrent reads libtorrent first,
   * and its `paused` and `progress` are libtorrent's own (a recheck of a paused torrent resumes it,
   * and Deluge pauses it again once the check has ended).
   */
  async liveState(hash: string): Promise<LiveTorrentState | undefined> {
    const [asked] = normaliseHashes([hash]);
    const status = z.object({ paused: z.boolean(), progress: z.number() }).safeParse(await this.call('core.get_torrent_status', [asked, ['paused', 'progress']]));
    // An unknown torrent answers an empty status.
    if (!status.success) return undefined;
    return { stopped: status.data.paused, complete: status.data.progress === 100 };
  }

  /** 2.0 takes one id as a string (a list is its deprecated 1.3 form). */
  async start(hash: string): Promise<void> {
    await this.call('core.resume_torrent', [normaliseHashes([hash])[0]]);
  }

  async stop(hash: string): Promise<void> {
    await this.call('core.pause_torrent', [normaliseHashes([hash])[0]]);
  }

  async recheck(hash: string): Promise<void> {
    await this.call('core.force_recheck', [normaliseHashes([hash])]);
  }

  async remove(hash: string): Promise<void> {
    await this.call('core.remove_torrent', [normaliseHashes([hash])[0], false]);
  }

  /** Tags need Deluge's optional Label plugin (one label per torrent, not tags): none are set. */
  readonly renames = 'any-path' as const;

  /** core.rename_folder (the folder with its trailing slash, as Deluge matches it) and core.rename_files ([index, new path]). */
  async rename(hash: string, steps: readonly RenameStep[]): Promise<void> {
    const [id] = normaliseHashes([hash]);
    for (const step of steps) {
      if (step.kind === 'folder') await this.call('core.rename_folder', [id, `${step.from}/`, `${step.to}/`]);
      else await this.call('core.rename_files', [id, [[step.index, step.to]]]);
    }
  }

  async addTags(hash: string): Promise<boolean> {
    normaliseHashes([hash]);
    return false;
  }

  // -------------------------------------------------------------------------------------------

  private async torrents(filter: Record<string, unknown>): Promise<ClientTorrent[]> {
    const result = await this.call('core.get_torrents_status', [filter, [...DELUGE_TORRENT_KEYS]]);
    const statuses = z.record(z.string(), z.unknown()).safeParse(result);
    if (!statuses.success) throw new ClientError({ kind: 'bad-answer', detail: 'core.get_torrents_status: not a map of torrents' });
    return Object.entries(statuses.data)
      .map(([key, value]) => torrentFrom(key, value))
      .filter((torrent): torrent is ClientTorrent => torrent !== undefined);
  }

  /**
   * Calls a method through the web UI, logged in and connected to a daemon. With `keepErrors`,
   * the method's own failure comes back as a DelugeCallError for the caller to read.
   */
  private async call(method: string, params: unknown[], keepErrors = false): Promise<unknown> {
    await this.ready();
    try {
      return await this.rpc(method, params);
    } catch (error) {
      if (error instanceof DelugeCallError && error.code === 1) {
        // The session expired: log in once more.
        this.loggedIn = false;
        this.connected = false;
        await this.ready();
        return this.rpcOrFail(method, params, keepErrors);
      }
      if (error instanceof DelugeCallError && !keepErrors) throw failure(method, error);
      throw error;
    }
  }

  private async rpcOrFail(method: string, params: unknown[], keepErrors: boolean): Promise<unknown> {
    try {
      return await this.rpc(method, params);
    } catch (error) {
      if (error instanceof DelugeCallError && (!keepErrors || error.code === 1)) throw failure(method, error);
      throw error;
    }
  }

  private ready(): Promise<void> {
    if (this.loggedIn && this.connected) return Promise.resolve();
    this.login ??= this.logInAndConnect().finally(() => {
      this.login = undefined;
    });
    return this.login;
  }

  private async logInAndConnect(): Promise<void> {
    if (!this.loggedIn) {
      const ok = await this.rpcOrFail('auth.login', [this.settings.password], false);
      if (ok !== true) throw new ClientError({ kind: 'auth', detail: 'login: wrong password' });
      this.loggedIn = true;
    }
    if (!this.connected) {
      if ((await this.rpcOrFail('web.connected', [], false)) !== true) await this.connectDaemon();
      this.connected = true;
    }
  }

  /** Connects the web UI to the first daemon of its host list that is online. */
  private async connectDaemon(): Promise<void> {
    const hosts = hostsSchema.safeParse(await this.rpcOrFail('web.get_hosts', [], false));
    if (!hosts.success) throw new ClientError({ kind: 'bad-answer', detail: 'web.get_hosts: not a host list' });
    const seen: string[] = [];
    for (const host of hosts.data) {
      const id = host[0];
      if (typeof id !== 'string') continue;
      const status = hostStatusSchema.safeParse(await this.rpcOrFail('web.get_host_status', [id], false));
      const state = status.success ? String(status.data[1]) : 'unknown';
      seen.push(`${String(host[1])}:${String(host[2])} ${state}`);
      if (state !== 'Online' && state !== 'Connected') continue;
      await this.rpcOrFail('web.connect', [id], false);
      if ((await this.rpcOrFail('web.connected', [], false)) === true) return;
    }
    throw new ClientError({
      kind: 'not-connected',
      detail: `Deluge's web UI is not connected to a daemon and none of its hosts is online (${seen.join(', ') || 'no hosts'})`,
    });
  }

  /** One JSON-RPC request; a method's failure is a DelugeCallError, a transport failure a ClientError. */
  private async rpc(method: string, params: unknown[]): Promise<unknown> {
    const body = JSON.stringify({ method, params, id: ++this.id });
    const answer = await send(this.transport, { method: 'POST', url: this.url, headers: { 'Content-Type': 'application/json' }, body, credentials: 'include' }, method);
    if (answer.status !== 200) {
      const words = clientWords(answer.text);
      if (answer.status >= 500) throw new ClientError({ kind: 'server', detail: `${method}: Deluge failed (${answer.status})`, clientMessage: words, httpStatus: answer.status });
      throw new ClientError({ kind: 'bad-answer', detail: `${method}: unexpected answer ${answer.status} (is this Deluge's web UI address?)`, clientMessage: words, httpStatus: answer.status });
    }
    const envelope = envelopeSchema.safeParse(parseJson(answer.text, method));
    if (!envelope.success) throw new ClientError({ kind: 'bad-answer', detail: `${method}: not a JSON-RPC answer` });
    if (envelope.data.error) throw new DelugeCallError(envelope.data.error.code, delugeWords(envelope.data.error.message));
    return envelope.data.result;
  }
}

/**
 * Deluge wraps a daemon error in Twisted's text ("Failure: [Failure instance: Traceback …:
 * <class 'deluge.error.AddTorrentError'>: Torrent already in session (…).]"): keep "AddTorrentError: …".
 */
export function delugeWords(message: string): string {
  const inner = /<class '(?:[\w]+\.)*(\w+)'>: ([\s\S]*?)\s*\]?\s*$/.exec(message);
  return (inner ? `${inner[1]}: ${inner[2]}` : message).trim().slice(0, 500);
}

function failure(method: string, error: DelugeCallError): ClientError {
  if (error.code === 1) return new ClientError({ kind: 'auth', detail: `${method}: Deluge does not accept our session`, clientMessage: error.clientMessage });
  if (error.code === 2) return new ClientError({ kind: 'bad-answer', detail: `${method}: Deluge does not know this method (not connected to a daemon?)`, clientMessage: error.clientMessage });
  return new ClientError({ kind: 'bad-answer', detail: `${method}: Deluge failed the call`, clientMessage: error.clientMessage });
}

export function createDeluge(settings: ClientSettings): TorrentClient {
  return new DelugeClient(settings);
}
