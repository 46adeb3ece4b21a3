/**
 * rTorrent (0.9.x) through its XML-RPC, at the address a web server mounts rTorrent's SCGI port on
 * (the `/RPC2` of ruTorrent setups and seedboxes: nginx `scgi_pass`, lighttpd `mod_scgi`, Apache).
 *
 * - The web server does the authentication (credentials: 'omit', no cookies): HTTP Basic on every
 *   request, or Digest (digest-auth.ts) once a 401 has asked for it: the request is then sent once
 *   more answering the challenge, and later ones answer it with a counted nonce until the server
 *   hands out another. A 401 that remains is a wrong user name or password.
 * - Every answer must be an XML-RPC methodResponse (xmlrpc.ts, no DOMParser in an MV3 worker);
 *   anything else at the address (a web page, a 404) is "not an XML-RPC endpoint". A fault is
 *   rTorrent refusing the call; "Could not find info-hash." (0.9) or "invalid parameters: info-hash not found" (0.16) is a torrent it does not hold.
 * - Torrents are read field by field through system.multicall (one d.* call per field and hash),
 *   in pages of hashes from download_list, so no answer holds the whole client; lookup() is the same
 *   read for the hashes asked. rTorrent reports hashes in upper case.
 * - Save path: rTorrent's d.directory is a multi-file torrent's own folder (X/<name>) and a single
 *   file's parent folder (X). savePath is the folder the content sits in for both shapes: the parent
 *   of d.directory for a multi-file torrent, d.directory itself for a single file. Adding with
 *   d.directory.set = savePath gives exactly that layout for both shapes.
 * - load.raw adds a .torrent (base64) stopped; it answers 0 whatever happens, so the torrent's
 *   presence is checked before (a duplicate) and after, a few times over ~3 s (else refused):
 *   rTorrent sometimes answers before the torrent is in its list. rTorrent verifies data when a
 *   closed torrent starts or on d.check_hash; it has no "skip the check" (`skipCheck` is ignored).
 * - ruTorrent's label is d.custom1, URL-encoded as ruTorrent writes it; several tags are one label
 *   "a, b".
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
  lastElement,
  normaliseHashes,
  pageReader,
  parentOf,
  pageSizeFrom,
  reportedHash,
  send,
  transportFrom,
  utf8Base64,
  type Transport,
} from './http';
import { digestAuthorization, digestChallenge, type DigestChallenge } from './digest-auth';
import { NotXmlRpc, XmlRpcBase64, XmlRpcFault, decodeResponse, encodeCall, faultFrom, type XmlRpcParam } from './xmlrpc';
import type { AddOptions, AddResult, ClientFile, ClientInfo, ClientSettings, ClientTorrent, ListOptions, RenameStep, TorrentClient, TorrentState } from './client-types';

/** Torrents per list page: 13 calls each in one system.multicall (a row is about 2 KB of XML). */
export const RTORRENT_PAGE_SIZE = 500;

/** The d.* fields a torrent row is read from, in this order. */
export const RTORRENT_TORRENT_FIELDS = [
  'd.hash',
  'd.name',
  'd.directory',
  'd.size_bytes',
  'd.completed_bytes',
  'd.state',
  'd.is_active',
  'd.hashing',
  'd.complete',
  'd.message',
  'd.custom1',
  'd.is_multi_file',
] as const;

const flag = z.number().catch(0);
const rowSchema = z.tuple([
  z.string(),
  z.string().catch(''),
  z.string().catch(''),
  z.number().catch(0),
  z.number().catch(0),
  flag,
  flag,
  flag,
  flag,
  z.string().catch(''),
  z.string().catch(''),
  flag,
]);
type Row = z.infer<typeof rowSchema>;

const filesSchema = z.tuple([z.string(), z.number(), z.array(z.tuple([z.string(), z.number()]))]);

/** rTorrent's flags in the user's words (it has no separate error state: a closed torrent with a message that is not the tracker's is one). */
export function rtorrentState(row: { state: number; active: number; hashing: number; complete: number; message: string }): TorrentState {
  if (row.hashing !== 0) return 'checking';
  if (row.state === 0) return row.message && !isTrackerMessage(row.message) ? 'error' : 'paused';
  if (row.active === 0) return 'paused'; // d.pause: started but not active
  return row.complete ? 'seeding' : 'downloading';
}

/** Tracker trouble rTorrent puts in d.message (announces failing is not the torrent's error). */
export function isTrackerMessage(message: string): boolean {
  return /^Tracker:|tracker|Couldn't (connect|resolve)|Timeout was reached/i.test(message);
}


/** d.custom1 as ruTorrent writes it (rawurlencode) → the tags in it. */
export function labelTags(custom1: string): string[] {
  let label = custom1;
  try {
    label = decodeURIComponent(custom1);
  } catch {
    // written by something else, as plain text
  }
  return [...new Set(label.split(',').map((tag) => tag.trim()).filter(Boolean))];
}

/** Tags → d.custom1, URL-encoded as ruTorrent reads it. */
export function labelOf(tags: readonly string[]): string {
  const unique = [...new Set(tags.map((tag) => tag.replaceAll(',', ' ').trim()).filter(Boolean))];
  return encodeURIComponent(unique.join(', ')).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function torrentFrom(values: unknown[]): ClientTorrent | undefined {
  const parsed = rowSchema.safeParse(values);
  if (!parsed.success) return undefined;
  const [hashText, name, directory, size, completed, state, active, hashing, complete, message, custom1, multiFile]: Row = parsed.data;
  const hash = reportedHash(hashText);
  if (!hash) return undefined;
  const savePath = multiFile ? parentOf(directory) : directory;
  const torrent: ClientTorrent = {
    hash,
    name,
    savePath,
    contentPath: multiFile ? directory : joinPath(directory, name),
    size: byteCount(size),
    state: rtorrentState({ state, active, hashing, complete, message }),
    progress: complete ? 1 : size > 0 ? fraction(completed / size) : 0,
  };
  const tags = labelTags(custom1);
  if (tags.length) torrent.tags = tags;
  if (torrent.state === 'error') torrent.error = message.slice(0, 500);
  return torrent;
}

const NO_SUCH_TORRENT = /could not find info-hash|info-hash not found/i;

/**
 * The pauses before asking again whether an added torrent is in rTorrent's list (it usually is at
 * once; about 1 load in 60 was not): 2.8 s in all.
 */
export const LOAD_PAUSES_MS = [25, 50, 100, 200, 400, 800, 1200] as const;
export const LOAD_WAIT_MS = LOAD_PAUSES_MS.reduce((sum, pause) => sum + pause, 0);

/**
 * Whether a torrent just loaded shows up (`holds`), asked at once and after each of LOAD_PAUSES_MS
 * (a fixed number of asks): rTorrent, and Flood over it, can answer a load before the torrent is listed.
 */
export async function appearsAfterLoad(holds: () => Promise<boolean>): Promise<boolean> {
  if (await holds()) return true;
  for (const pause of LOAD_PAUSES_MS) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (await holds()) return true;
  }
  return false;
}

/** download_list's answer as hashes (40 characters each, upper case). */
function hashesFrom(answer: unknown): string[] {
  const list = z.array(z.string()).safeParse(answer);
  if (!list.success) throw new ClientError({ kind: 'bad-answer', detail: 'download_list: not a list of hashes' });
  return [...new Set(list.data.map(reportedHash).filter((hash): hash is string => hash !== undefined))];
}

export class RtorrentClient implements TorrentClient {
  readonly kind = 'rtorrent' as const;
  private readonly url: string;
  private readonly transport: Transport;
  private readonly pageSize: number;
  /** The web server's Digest challenge once it asked for Digest, and how many requests answered it. */
  private digest?: { challenge: DigestChallenge; count: number };

  constructor(private readonly settings: ClientSettings) {
    const base = clientBaseUrl(settings.url);
    // A bare host means the usual mount; any other path is taken as given (seedboxes vary).
    this.url = new URL(base).pathname === '/' || new URL(base).pathname === '' ? `${base}/RPC2` : base;
    this.transport = transportFrom(settings);
    this.pageSize = pageSizeFrom(settings, RTORRENT_PAGE_SIZE);
  }

  /** One request: the versions and the hash list together. */
  async test(): Promise<ClientInfo> {
    const [version, library, list] = await this.multicall([
      ['system.client_version', []],
      ['system.library_version', []],
      ['download_list', []],
    ]);
    if (typeof version !== 'string') throw new ClientError({ kind: 'bad-answer', detail: 'system.client_version: no version in the answer' });
    const info: ClientInfo = { client: 'rtorrent', version, torrentCount: hashesFrom(list).length, auth: 'password' };
    if (typeof library === 'string') info.apiVersion = `libtorrent ${library}`;
    return info;
  }

  async count(): Promise<number> {
    return (await this.hashes()).length;
  }

  async lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>> {
    const asked = normaliseHashes(hashes);
    const found = new Map<string, ClientTorrent>();
    for (const batch of chunks(asked, MAX_HASHES_PER_CLIENT_REQUEST)) {
      for (const torrent of await this.torrents(batch)) found.set(torrent.hash, torrent);
    }
    return found;
  }

  async list(options?: ListOptions): Promise<ClientTorrent[]> {
    const read = pageReader(options);
    const hashes = await read(() => this.hashes());
    const found = new Map<string, ClientTorrent>();
    // A torrent removed in between is simply not in its page; one added in between comes with the next list.
    for (const page of chunks(hashes, this.pageSize)) {
      for (const torrent of await read(() => this.torrents(page))) found.set(torrent.hash, torrent);
    }
    return [...found.values()];
  }

  async files(hash: string): Promise<ClientFile[]> {
    const [asked] = normaliseHashes([hash]);
    const id = asked!.toUpperCase();
    const results = await this.multicall([
      ['d.directory', [id]],
      ['d.is_multi_file', [id]],
      ['f.multicall', [id, '', 'f.path=', 'f.size_bytes=']],
    ]);
    const fault = results.find((result) => result instanceof XmlRpcFault);
    if (fault) throw this.torrentFailure('files', asked!, fault as XmlRpcFault);
    const parsed = filesSchema.safeParse(results);
    if (!parsed.success) throw new ClientError({ kind: 'bad-answer', detail: 'files: f.multicall did not answer paths and sizes' });
    const [directory, multiFile, files] = parsed.data;
    // f.path is relative to the torrent's own folder, which a multi-file torrent's paths start with:
    // the folder it has on disk (d.directory's last element), not always its name (rename()).
    return files.map(([path, size]) => ({ path: multiFile ? `${lastElement(directory)}/${path}` : path, size: byteCount(size) }));
  }

  /**
   * rTorrent renames no file (f.path cannot be set): it can only give a multi-file torrent's own
   * folder another name, through d.directory_base on a torrent that is not open (one added stopped).
   * So a renamed copy whose only difference is its root folder is added; any other is refused
   * before anything reaches rTorrent (renamed-copy.ts stepsExpressible).
   */
  readonly renames = 'root-folder' as const;

  async rename(hash: string, steps: readonly RenameStep[]): Promise<void> {
    const [asked] = normaliseHashes([hash]);
    for (const step of steps) {
      if (step.kind !== 'folder' || step.from.includes('/') || step.to.includes('/')) {
        throw new ClientError({ kind: 'refused', detail: 'rename: rTorrent can only give a torrent its own folder another name' });
      }
      const directory = z.string().parse(await this.onTorrent('rename', hash, 'd.directory'));
      if (lastElement(directory) !== step.from) {
        throw new ClientError({ kind: 'refused', detail: `rename: the torrent's folder is ${directory}, not ${step.from}` });
      }
      await this.onTorrent('rename', hash, 'd.directory_base.set', [asked!.toUpperCase(), joinPath(parentOf(directory), step.to)]);
    }
  }

  async add(torrent: Uint8Array, options: AddOptions): Promise<AddResult> {
    const hash = await hashOf(torrent);
    const id = hash.toUpperCase();
    if (await this.holds(hash)) return { status: 'duplicate', hash };
    try {
      await this.call('load.raw', ['', new XmlRpcBase64(torrent)], true);
    } catch (error) {
      if (error instanceof XmlRpcFault) throw new ClientError({ kind: 'refused', detail: 'add: rTorrent refused the torrent', clientMessage: error.faultString });
      throw error;
    }
    // load.raw says 0 whether or not rTorrent took it (a broken file is only in its log), and now
    // and then answers before the torrent is in its list: it is looked for a few times.
    if (!(await appearsAfterLoad(() => this.holds(hash)))) {
      throw new ClientError({ kind: 'refused', detail: `add: rTorrent did not take the torrent (nothing in its list ${LOAD_WAIT_MS / 1000} s after load.raw)` });
    }
    await this.onTorrent('add', hash, 'd.directory.set', [id, options.savePath]);
    const label = labelOf([options.category ?? '', ...(options.tags ?? [])]);
    if (label) await this.onTorrent('add', hash, 'd.custom1.set', [id, label]);
    if (!options.paused) await this.start(hash);
    return { status: 'added', hash };
  }

  async start(hash: string): Promise<void> {
    await this.onTorrent('start', hash, 'd.start');
  }

  /** d.stop keeps the files open (ruTorrent's "pause"); d.close too releases them, as ruTorrent's "stop" does. */
  async stop(hash: string): Promise<void> {
    await this.onTorrent('stop', hash, 'd.stop');
    await this.onTorrent('stop', hash, 'd.close');
  }

  async recheck(hash: string): Promise<void> {
    await this.onTorrent('recheck', hash, 'd.check_hash');
  }

  /** d.erase removes the torrent from the session; its data stays (rTorrent deletes files only through a user's own hook). */
  async remove(hash: string): Promise<void> {
    await this.onTorrent('remove', hash, 'd.erase');
  }

  async addTags(hash: string, tags: readonly string[]): Promise<boolean> {
    const current = z.string().catch('').parse(await this.onTorrent('labels', hash, 'd.custom1'));
    await this.onTorrent('labels', hash, 'd.custom1.set', [normaliseHashes([hash])[0]!.toUpperCase(), labelOf([...labelTags(current), ...tags])]);
    return true;
  }

  // -------------------------------------------------------------------------------------------

  /** Every torrent's hash (download_list: 40 characters each). */
  private async hashes(): Promise<string[]> {
    return hashesFrom(await this.call('download_list', []));
  }

  private async holds(hash: string): Promise<boolean> {
    return (await this.torrents([hash])).length > 0;
  }

  /** The rows of these hashes; a hash rTorrent does not hold (every field a fault) is left out. */
  private async torrents(hashes: readonly string[]): Promise<ClientTorrent[]> {
    const calls = hashes.flatMap((hash) => RTORRENT_TORRENT_FIELDS.map((field): [string, XmlRpcParam[]] => [field, [hash.toUpperCase()]]));
    const results = await this.multicall(calls);
    const torrents: ClientTorrent[] = [];
    for (const row of chunks(results, RTORRENT_TORRENT_FIELDS.length)) {
      if (row.some((value) => value instanceof XmlRpcFault)) continue;
      const torrent = torrentFrom(row);
      if (torrent) torrents.push(torrent);
    }
    return torrents;
  }

  /** system.multicall: each call's value, or its fault as an XmlRpcFault in its place. */
  private async multicall(calls: readonly [string, XmlRpcParam[]][]): Promise<unknown[]> {
    if (!calls.length) return [];
    const answer = await this.call('system.multicall', [calls.map(([methodName, params]) => ({ methodName, params }))]);
    if (!Array.isArray(answer) || answer.length !== calls.length) throw new ClientError({ kind: 'bad-answer', detail: 'system.multicall: not one result per call' });
    return answer.map((result) => {
      if (Array.isArray(result) && result.length === 1) return result[0];
      try {
        return faultFrom(result);
      } catch {
        throw new ClientError({ kind: 'bad-answer', detail: 'system.multicall: a result that is neither a value nor a fault' });
      }
    });
  }

  /** One d.* call on one torrent (its hash first); a torrent rTorrent does not hold is not-found. */
  private async onTorrent(operation: string, hash: string, method: string, params?: XmlRpcParam[]): Promise<unknown> {
    const [asked] = normaliseHashes([hash]);
    try {
      return await this.call(method, params ?? [asked!.toUpperCase()], true);
    } catch (error) {
      if (error instanceof XmlRpcFault) throw this.torrentFailure(operation, asked!, error);
      throw error;
    }
  }

  private torrentFailure(operation: string, hash: string, fault: XmlRpcFault): ClientError {
    if (NO_SUCH_TORRENT.test(fault.faultString)) return new ClientError({ kind: 'not-found', detail: `${operation}: the client does not hold ${hash}`, clientMessage: fault.faultString });
    return new ClientError({ kind: operation === 'add' ? 'refused' : 'bad-answer', detail: `${operation}: rTorrent refused the call`, clientMessage: fault.faultString });
  }

  /**
   * One XML-RPC call; returns its value. A fault is a bad answer, or with `keepFaults` an
   * XmlRpcFault for the caller to read; everything else that is not an answer is a ClientError.
   */
  private async call(method: string, params: XmlRpcParam[], keepFaults = false): Promise<unknown> {
    const body = encodeCall(method, params);
    let answer = await this.post(method, body);
    if (answer.status === 401 && (this.settings.username || this.settings.password)) {
      const challenge = digestChallenge(answer.headers.get('WWW-Authenticate'));
      // A first challenge, or a new nonce for an expired one: answer it once. The same nonce refused is the password.
      if (challenge && (challenge.stale || challenge.nonce !== this.digest?.challenge.nonce)) {
        this.digest = { challenge, count: 0 };
        answer = await this.post(method, body);
      }
    }
    const words = clientWords(answer.text);
    const httpStatus = answer.status;
    if (httpStatus === 401) throw new ClientError({ kind: 'auth', detail: `${method}: wrong user name or password`, clientMessage: words, httpStatus });
    if (httpStatus === 403) throw new ClientError({ kind: 'not-allowed', detail: `${method}: the web server forbids this address`, clientMessage: words, httpStatus });
    if (httpStatus >= 500) {
      throw new ClientError({ kind: 'server', detail: `${method}: the web server failed (${httpStatus}: is rTorrent running behind it?)`, clientMessage: words, httpStatus });
    }
    if (httpStatus !== 200) throw notXmlRpc(method, `answer ${httpStatus}`, words, httpStatus);
    try {
      return decodeResponse(answer.text);
    } catch (error) {
      if (error instanceof NotXmlRpc) throw notXmlRpc(method, error.message, words, httpStatus);
      if (error instanceof XmlRpcFault && !keepFaults) {
        throw new ClientError({ kind: 'bad-answer', detail: `${method}: rTorrent refused the call (fault ${error.code})`, clientMessage: error.faultString });
      }
      throw error;
    }
  }

  private async post(method: string, body: string) {
    const headers: Record<string, string> = { 'Content-Type': 'text/xml' };
    const { username, password } = this.settings;
    if (this.digest) {
      const cnonce = [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
      headers.Authorization = await digestAuthorization(this.digest.challenge, { method: 'POST', uri: new URL(this.url).pathname, username, password, count: ++this.digest.count, cnonce });
    } else if (username || password) {
      headers.Authorization = `Basic ${utf8Base64(`${username}:${password}`)}`;
    }
    return send(this.transport, { method: 'POST', url: this.url, headers, body, credentials: 'omit' }, method);
  }
}

function notXmlRpc(method: string, why: string, words: string, httpStatus: number): ClientError {
  return new ClientError({
    kind: 'bad-answer',
    detail: `${method}: not an XML-RPC endpoint (${why}); give the address the web server mounts rTorrent's SCGI on, usually …/RPC2`,
    clientMessage: words,
    httpStatus,
  });
}

export function createRtorrent(settings: ClientSettings): TorrentClient {
  return new RtorrentClient(settings);
}
