/**
 * qBittorrent's WebUI API v2, from Debian's 4.5.2 (Web API 2.8.19) through 5.x.
 *
 * Differences handled (from qBittorrent's source and WebAPI_Changelog.md):
 * - login: 4.x/5.0/5.1 answer 200 "Ok." / 200 "Fails."; 5.2 (API 2.14) answers 204 / 401. A 403 is
 *   "IP banned". The session cookie is `SID`, from 5.2 `QBT_SID_<port>`: we never read it — the
 *   browser's cookie jar (or the Node tests' jar) keeps whatever the client sets.
 * - API key (5.2, API 2.14.1): a password of the documented form `qbt_` + 28 letters or digits is
 *   taken as a key and sent as `Authorization: Bearer …` with no login and no cookie. Such a request
 *   is exempt from the CSRF check; a wrong key answers 403.
 * - CSRF: with protection on (the default) a request whose Origin (else Referer) is not the client's
 *   own host:port answers 401 on every endpoint. Extensions send their own origin, so the background
 *   needs csrf.ts's declarativeNetRequest rule (or an API key). In 5.2 a wrong password also answers
 *   401 on login, so a 401 there is told apart by asking app/version without a session: 401 again
 *   means CSRF, 403 means the password.
 * - add: `paused` became `stopped` in 5.0 (API 2.11.0) and `skip_checking` became `seedMode` in
 *   API 2.16.0. Each version reads only its own name and ignores the other, so both are sent and the
 *   add needs no version look-up. The answer is "Ok."/"Fails." up to 5.1, JSON (success_count…) or
 *   409 when nothing was added from 5.2; 415 for a file it cannot read.
 * - list() reads torrents/info in pages: `sort=hash&limit=…&offset=…` (sort, limit and offset are
 *   honoured alike by 4.5.2, 5.1.0 and 5.3.0, checked live). Every page costs the client a walk over
 *   all its torrents (it serialises them all, sorts, then cuts), so pages are large (5,000 entries,
 *   about 12 MB at 2.5 KB an entry: far under MAX_CLIENT_ANSWER_BYTES) and may take long
 *   (LIST_PAGE_TIMEOUT_MS). Measured on 5.3.0 holding 100,000 torrents with 200-character
 *   names: 21 pages of at most 11.5 MB, 175 s in all on a busy 2-core machine; torrents/count
 *   2 ms. There is no field selection: only what ClientTorrent holds is kept. A negative offset
 *   counts from the end; an offset past the end answers the FIRST entries again on 4.5.2 and
 *   5.1.0, nothing on 5.3.0.
 * - torrents/count exists from API 2.10.0 (5.0); 4.5 answers 404, and count() then finds the end of
 *   the sorted list with one-entry probes instead of reading every torrent (see countByProbing).
 * - states: pausedUP/pausedDL became stoppedUP/stoppedDL in 5.0.
 * - piece hashes: `torrents/export` (the raw .torrent) from 4.5.0, about half the bytes of
 *   `torrents/pieceHashes` (40 hex per piece, in every Web API v2). Without metadata, export answers
 *   409 and pieceHashes an empty list. Chosen by app/version, read once; a 404 to export falls back.
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
  normaliseHashes,
  pageReader,
  pageSizeFrom,
  parseJson,
  reportedHash,
  send,
  transportFrom,
  type HttpAnswer,
  type Transport,
} from './http';
import { piecesHashFromHexList, piecesHashFromTorrent, type PiecesHashResult } from '../torrent/pieces-hash';
import type {
  AddOptions,
  AddResult,
  ClientFile,
  ClientInfo,
  ClientPiecesHash,
  ClientSettings,
  ClientTorrent,
  ListOptions,
  LiveTorrentState,
  PieceHashSource,
  RenameStep,
  TorrentClient,
  TorrentState,
} from './client-types';

/** qBittorrent's documented API key form (wiki "API Key Authentication (≥v5.2.0)"). */
const API_KEY = /^qbt_[A-Za-z0-9]{28}$/;

export function isQbittorrentApiKey(password: string): boolean {
  return API_KEY.test(password);
}

const torrentEntrySchema = z.object({
  hash: z.string(),
  name: z.string().catch(''),
  save_path: z.string().catch(''),
  content_path: z.string().optional().catch(undefined),
  tracker: z.string().max(2048).optional().catch(undefined),
  size: z.number().catch(0),
  total_size: z.number().optional().catch(undefined),
  state: z.string().catch('unknown'),
  progress: z.number().catch(0),
  category: z.string().optional().catch(undefined),
  tags: z.string().optional().catch(undefined),
});
const torrentListSchema = z.array(z.unknown());

const fileEntrySchema = z.object({ name: z.string(), size: z.number() });

/** 5.2+ add answer. */
const addAnswerSchema = z.object({
  success_count: z.number().catch(0),
  failure_count: z.number().catch(0),
  pending_count: z.number().catch(0),
  added_torrent_ids: z.array(z.string()).catch([]),
});

/** qBittorrent's state names (4.5 and 5.x) in the user's words. */
export function qbittorrentState(state: string): TorrentState {
  switch (state) {
    case 'uploading':
    case 'stalledUP':
    case 'forcedUP':
      return 'seeding';
    case 'downloading':
    case 'forcedDL':
    case 'metaDL':
    case 'forcedMetaDL':
    case 'allocating':
      return 'downloading';
    case 'stalledDL':
      return 'stalled';
    case 'pausedUP':
    case 'pausedDL':
    case 'stoppedUP':
    case 'stoppedDL':
      return 'paused';
    case 'checkingUP':
    case 'checkingDL':
    case 'checkingResumeData':
      return 'checking';
    case 'queuedUP':
    case 'queuedDL':
      return 'queued';
    case 'moving':
      return 'moving';
    case 'missingFiles':
      return 'missing';
    case 'error':
      return 'error';
    default:
      return 'unknown';
  }
}

function torrentFrom(entry: unknown): ClientTorrent | undefined {
  const parsed = torrentEntrySchema.safeParse(entry);
  if (!parsed.success) return undefined;
  const hash = reportedHash(parsed.data.hash);
  if (!hash) return undefined; // strict on hashes: an entry without a v1 hash is skipped alone
  const { name, save_path, content_path, tracker, size, total_size, state, progress, category, tags } = parsed.data;
  const torrent: ClientTorrent = {
    hash,
    name,
    savePath: save_path,
    size: byteCount(total_size ?? size),
    state: qbittorrentState(state),
    progress: fraction(progress),
  };
  if (content_path) torrent.contentPath = content_path;
  if (tracker) torrent.tracker = tracker;
  if (category) torrent.category = category;
  const tagList = (tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  if (tagList.length > 0) torrent.tags = tagList;
  return torrent;
}

function entriesFrom(text: string, operation: string): unknown[] {
  const list = torrentListSchema.safeParse(parseJson(text, operation));
  if (!list.success) throw new ClientError({ kind: 'bad-answer', detail: `${operation}: the answer is not a list of torrents` });
  return list.data;
}

function torrentsFrom(text: string, operation: string): ClientTorrent[] {
  return entriesFrom(text, operation)
    .map(torrentFrom)
    .filter((torrent): torrent is ClientTorrent => torrent !== undefined);
}

/** A page of the list sorted by hash: each entry's sort key (its `hash` as given) and the torrent, when it reads. */
interface PageEntry {
  key: string;
  torrent?: ClientTorrent;
}

/** Torrents per list page (see the header: each page costs the client a walk over all its torrents). */
export const QBITTORRENT_PAGE_SIZE = 5_000;
/**
 * How long a list page may take. The client serialises and sorts all its torrents for every page:
 * at 100,000 (200-character names) 5.3.0 took 5-14 s a page on a busy 2-core machine, a NAS takes
 * longer, and the 15 s meant for a quick answer would cut the sync of the clients this is for.
 */
const LIST_PAGE_TIMEOUT_MS = 120_000;
/** count() on 4.5: the last probe reads up to this many entries to land on the exact number. */
const COUNT_WINDOW = 1_000;
/** count() on 4.5: no client holds this many torrents (2^27, about 134 million); an offset past it means the list changed under the probes. */
const MAX_PROBED_OFFSET = 2 ** 27;
/** Steps back a list takes when torrents before its place were removed, before it gives up. */
const MAX_STEPS_BACK = 40;

/**
 * The torrents/add form. Both spellings of "paused" and "skip check" go out (see the header);
 * autoTMM=false so the save path given is the one used, whatever the category says.
 */
export function qbittorrentAddForm(torrent: Uint8Array, hash: string, options: AddOptions): FormData {
  const form = new FormData();
  form.append('torrents', new Blob([torrent as Uint8Array<ArrayBuffer>], { type: 'application/x-bittorrent' }), `${hash}.torrent`);
  form.append('savepath', options.savePath);
  form.append('autoTMM', 'false');
  form.append('paused', String(options.paused));
  form.append('stopped', String(options.paused));
  form.append('skip_checking', String(options.skipCheck));
  form.append('seedMode', String(options.skipCheck));
  if (options.contentLayoutOriginal !== false) form.append('contentLayout', 'Original');
  if (options.category) form.append('category', options.category);
  const tags = (options.tags ?? []).map((tag) => tag.trim()).filter(Boolean);
  if (tags.length > 0) form.append('tags', tags.join(','));
  return form;
}

interface Call {
  method: 'GET' | 'POST';
  query?: Record<string, string>;
  body?: URLSearchParams | FormData;
  /** Statuses the caller reads itself instead of failing. */
  accept?: number[];
  /** Keep the answer's bytes (torrents/export). */
  binary?: boolean;
  /** Wait this long at least for the answer (a list page: the client walks all its torrents for it). */
  slowMs?: number;
}

export class QbittorrentClient implements TorrentClient {
  readonly kind = 'qbittorrent' as const;
  private readonly base: string;
  private readonly transport: Transport;
  private readonly apiKey?: string;
  private loggedIn = false;
  private readonly pageSize: number;
  /** torrents/count answered 404 (before 5.0): count by probing from then on. */
  private countMissing = false;
  /** The saved password was checked by a cookie-less login (once per configuration). */
  private passwordChecked = false;
  private login?: Promise<void>;

  constructor(private readonly settings: ClientSettings) {
    this.base = clientBaseUrl(settings.url);
    this.transport = transportFrom(settings);
    this.pageSize = Math.max(2, pageSizeFrom(settings, QBITTORRENT_PAGE_SIZE)); // pages overlap by one: a page of one would never move on
    if (isQbittorrentApiKey(settings.password)) this.apiKey = settings.password;
  }

  async test(): Promise<ClientInfo> {
    // A cookie-less login checks the password for real: with a session cookie, qBittorrent answers
    // "Ok." to any password. It also leaves the session (maybe the user's own web UI tab's) alone.
    if (!this.apiKey) {
      await this.logIn('check');
      this.passwordChecked = true;
    }
    const version = (await this.call('version', 'app/version', { method: 'GET' })).text.trim();
    const apiVersion = (await this.call('API version', 'app/webapiVersion', { method: 'GET' })).text.trim();
    if (!/^v?\d+(\.\d+)*/.test(version) || !/^\d+(\.\d+)*$/.test(apiVersion)) {
      throw new ClientError({ kind: 'bad-answer', detail: `this does not look like qBittorrent (version "${version.slice(0, 40)}")` });
    }
    const torrentCount = await this.count();
    return { client: 'qbittorrent', version, apiVersion, torrentCount, auth: this.apiKey ? 'api-key' : 'password' };
  }

  async count(): Promise<number> {
    if (!this.countMissing) {
      const count = await this.call('torrent count', 'torrents/count', { method: 'GET', accept: [404] });
      if (count.status !== 404) {
        const number = Number(count.text.trim());
        if (!Number.isSafeInteger(number) || number < 0) throw new ClientError({ kind: 'bad-answer', detail: `torrent count: not a number (${count.text.slice(0, 40)})` });
        return number;
      }
      this.countMissing = true; // before Web API 2.10.0 (qBittorrent 5.0)
    }
    return this.countByProbing();
  }

  /**
   * The count without torrents/count (4.5): where the list sorted by hash ends, found with probes of
   * one entry (each answer tiny, though each costs the client a walk over its torrents): offsets
   * COUNT_WINDOW, 2×, 4×… until one is past the end, then halving the gap down to COUNT_WINDOW, and
   * one read of that last window gives the exact number: about 2·log2(n / COUNT_WINDOW) + 2
   * requests (16 at 100,000), the largest answer COUNT_WINDOW entries. Past the end 4.5.2 (and
   * 5.1.0) answer the first entry again, so "past the end" is an empty answer or an entry that does
   * not sort after the head read first: a torrent that sorts first, added between the probes, is
   * what such a wrapped answer then shows, and comparing it for equality with the head probed on
   * for ever (offsets doubling past 10^19). Should the head itself go meanwhile, a wrapped answer
   * sorts after it: the probes stop at MAX_PROBED_OFFSET and the count is said to have failed.
   */
  private async countByProbing(): Promise<number> {
    const [head] = await this.listPage(0, 1);
    if (!head) return 0;
    const holds = async (offset: number) => {
      const [entry] = await this.listPage(offset, 1);
      return entry !== undefined && entry.key > head.key;
    };
    let held = 0; // an offset known to hold an entry
    let past = COUNT_WINDOW; // an offset known to be past the end, once found
    while (await holds(past)) {
      held = past;
      past *= 2;
      if (past > MAX_PROBED_OFFSET) throw new ClientError({ kind: 'bad-answer', detail: 'torrent count: the list changed while it was counted; try again' });
    }
    while (past - held > COUNT_WINDOW) {
      const middle = held + Math.floor((past - held) / 2);
      if (await holds(middle)) held = middle;
      else past = middle;
    }
    return held + (await this.listPage(held, past - held)).length;
  }

  async lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>> {
    const asked = normaliseHashes(hashes);
    const found = new Map<string, ClientTorrent>();
    for (const batch of chunks(asked, MAX_HASHES_PER_CLIENT_REQUEST)) {
      const answer = await this.call('lookup', 'torrents/info', { method: 'GET', query: { hashes: batch.join('|') } });
      const wanted = new Set(batch);
      for (const torrent of torrentsFrom(answer.text, 'lookup')) if (wanted.has(torrent.hash)) found.set(torrent.hash, torrent);
    }
    return found;
  }

  /**
   * Every torrent, in pages of the list sorted by hash (a total order: hashes are unique), each page
   * starting one entry before where the last one ended. Torrents added or removed between two pages
   * shift the entries after them, so each page is checked against the last hash read so far:
   * - it starts at or before that hash: it joins on with no gap (an addition before it only brings
   *   an entry already read, or a new one: both are kept once, by hash);
   * - it starts after it (or is empty): entries before this place were removed and some not read
   *   yet slid back before the offset; the read steps back (1, 2, 4… entries, at most
   *   MAX_STEPS_BACK times) until it starts at or before that hash again. At offset 0 nothing can
   *   be missing. A full page that brings nothing past that hash is stepped back from too: it is
   *   4.5.2's or 5.1.0's answer to an offset past the end (the first entries again) after
   *   removals, or a client that ignores the offset (the steps run out and the list fails).
   * So a torrent held all along is never lost nor listed twice; one added meanwhile may be missing
   * until the next list, and one removed meanwhile may still be in this one.
   */
  async list(options?: ListOptions): Promise<ClientTorrent[]> {
    const read = pageReader(options);
    const found = new Map<string, ClientTorrent>();
    let offset = 0;
    let last: string | undefined;
    let stepBack = 1;
    let stepsBack = 0;
    for (;;) {
      const page = await read(() => this.listPage(offset, this.pageSize));
      if (last !== undefined && offset > 0 && (page.length === 0 || page[0]!.key > last || (page.length === this.pageSize && page[page.length - 1]!.key <= last))) {
        if (++stepsBack > MAX_STEPS_BACK) throw new ClientError({ kind: 'bad-answer', detail: 'list: the torrent list kept changing under the read; try again' });
        offset = Math.max(0, offset - stepBack);
        stepBack *= 2;
        continue;
      }
      for (const entry of page) if (entry.torrent) found.set(entry.torrent.hash, entry.torrent);
      if (page.length < this.pageSize) return [...found.values()];
      const end = page[page.length - 1]!.key;
      if (last === undefined || end > last) last = end;
      stepBack = 1;
      offset += page.length - 1;
    }
  }

  /** One page of torrents/info sorted by hash; fails when the client did not sort it (paging would then skip torrents). */
  private async listPage(offset: number, limit: number): Promise<PageEntry[]> {
    const query = { sort: 'hash', limit: String(limit), offset: String(offset) };
    const entries = entriesFrom((await this.call('list', 'torrents/info', { method: 'GET', query, slowMs: LIST_PAGE_TIMEOUT_MS })).text, 'list');
    const page = entries.map((entry): PageEntry => {
      const key = typeof (entry as { hash?: unknown } | null)?.hash === 'string' ? ((entry as { hash: string }).hash) : '';
      return { key, torrent: torrentFrom(entry) };
    });
    if (page.length > limit) throw new ClientError({ kind: 'bad-answer', detail: `list: asked for ${limit} torrents, the client gave ${page.length}` });
    for (let index = 1; index < page.length; index++) {
      if (!(page[index - 1]!.key < page[index]!.key)) throw new ClientError({ kind: 'bad-answer', detail: 'list: the client did not sort its list by hash' });
    }
    return page;
  }

  async files(hash: string): Promise<ClientFile[]> {
    const [asked] = normaliseHashes([hash]);
    // 4.5 answers 404 for a hash it does not hold; some versions answer 200 with an empty body.
    const answer = await this.call('files', 'torrents/files', { method: 'GET', query: { hash: asked! } });
    if (answer.text.trim() === '') throw new ClientError({ kind: 'not-found', detail: `files: the client does not hold ${asked}` });
    const entries = z.array(z.unknown()).safeParse(parseJson(answer.text, 'files'));
    if (!entries.success) throw new ClientError({ kind: 'bad-answer', detail: 'files: the answer is not a list' });
    return entries.data.map((entry) => {
      const file = fileEntrySchema.safeParse(entry);
      // A file list with a hole would make the cross-seed file comparison wrong: fail whole.
      if (!file.success) throw new ClientError({ kind: 'bad-answer', detail: 'files: an entry without name or size' });
      return { path: file.data.name.replaceAll('\\', '/'), size: byteCount(file.data.size) };
    });
  }

  async add(torrent: Uint8Array, options: AddOptions): Promise<AddResult> {
    const hash = await hashOf(torrent);
    const answer = await this.call('add', 'torrents/add', { method: 'POST', body: qbittorrentAddForm(torrent, hash, options), accept: [400, 409, 415] });
    const text = answer.text.trim();
    if (answer.status === 415 || answer.status === 400) {
      throw new ClientError({ kind: 'refused', detail: 'add: qBittorrent refused the torrent', clientMessage: clientWords(text), httpStatus: answer.status });
    }
    if (answer.status === 200 && text === 'Ok.') return { status: 'added', hash };
    if ((answer.status === 200 || answer.status === 202) && text.startsWith('{')) {
      const result = addAnswerSchema.safeParse(parseJson(text, 'add'));
      if (result.success && (result.data.success_count > 0 || result.data.pending_count > 0)) return { status: 'added', hash };
    }
    if (text === 'Fails.' || answer.status === 409 || text.startsWith('{')) {
      // Nothing added: a torrent it already holds is the usual reason, and it is then no failure.
      if ((await this.lookup([hash])).has(hash)) return { status: 'duplicate', hash };
      throw new ClientError({ kind: 'refused', detail: 'add: qBittorrent did not add the torrent', clientMessage: clientWords(text), httpStatus: answer.status });
    }
    throw new ClientError({ kind: 'bad-answer', detail: `add: unexpected answer ${answer.status} (${clientWords(text).slice(0, 80)})`, httpStatus: answer.status });
  }

  /**
   * torrents/info's state and progress are as of qBittorrent's last refresh (every 1.5 s by
   * default); two readings are live: its status filter (paused/stopped: whether the torrent is
   * stopped, which a recheck of a stopped torrent undoes until the check ends and stops it again)
   * and the files' progress (a file reads 1 once its every piece is verified). Read in that order,
   * so a torrent seen stopped after a recheck had ended its check before its files were read.
   */
  async liveState(hash: string): Promise<LiveTorrentState | undefined> {
    const asked = this.oneHash(hash);
    const filter = (await this.hasStartStop()) ? 'stopped' : 'paused';
    const listed = entriesFrom((await this.call('live state', 'torrents/info', { method: 'GET', query: { hashes: asked, filter } })).text, 'live state');
    const answer = await this.call('live state', 'torrents/files', { method: 'GET', query: { hash: asked }, accept: [404] });
    if (answer.status === 404 || answer.text.trim() === '') return undefined;
    const files = z.array(z.object({ progress: z.number() })).safeParse(parseJson(answer.text, 'live state'));
    if (!files.success) throw new ClientError({ kind: 'bad-answer', detail: 'live state: the files have no progress' });
    return { stopped: listed.length > 0, complete: files.data.length > 0 && files.data.every((file) => file.progress === 1) };
  }

  private startStopChecked?: Promise<boolean>;

  /** Web API 2.11 (qBittorrent 5.0) and later name start/stop and the `stopped` filter so (read once per client). */
  private hasStartStop(): Promise<boolean> {
    this.startStopChecked ??= this.call('API version', 'app/webapiVersion', { method: 'GET' }).then((answer) => {
      const [major = 0, minor = 0] = answer.text.trim().split('.').map(Number);
      return major > 2 || (major === 2 && minor >= 11);
    });
    return this.startStopChecked;
  }

  /** 5.0 (Web API 2.11) renamed resume/pause to start/stop; older versions answer 404 to the new names. */
  async start(hash: string): Promise<void> {
    await this.renamedCall('start', 'torrents/start', 'torrents/resume', hash);
  }

  async stop(hash: string): Promise<void> {
    await this.renamedCall('stop', 'torrents/stop', 'torrents/pause', hash);
  }

  async recheck(hash: string): Promise<void> {
    await this.call('recheck', 'torrents/recheck', { method: 'POST', body: new URLSearchParams({ hashes: this.oneHash(hash) }) });
  }

  /**
   * qBittorrent 4.5 and later (app/version, read once per client) check a torrent added stopped
   * when asked as soon as torrents/info lists it, during its resume-data read: forceRecheck() starts
   * a stopped torrent with the stop condition FilesChecked (4.5.0's, the same to 5.3); libtorrent
   * drops its own force_recheck() while it reads resume data, but then checks the files of the
   * torrent now running (a fresh add has no resume data: any file on disk means a whole check).
   * At that check's end qBittorrent's torrent extension pauses it in libtorrent's thread before it
   * can announce, and the stop condition stops it: the same as a recheck asked once the add has
   * settled, ~1.5 s sooner. Seen on 4.5.2, 5.1.0 and 5.3.0 with complete and damaged copies
   * (test/unit/cross-seed-engine/qbittorrent-check-at-once-live.test.ts; a copy with none of its
   * files on disk has a race of its own there, the same at once or not). Before 4.5 a recheck ran
   * on libtorrent's stop_when_ready, not tried here: false, the add is let settle.
   * A version that cannot be read is no answer either (false, and asked again next time).
   */
  async rechecksAtOnce(): Promise<boolean> {
    return this.atLeast45().catch(() => false);
  }

  async remove(hash: string): Promise<void> {
    await this.call('remove', 'torrents/delete', { method: 'POST', body: new URLSearchParams({ hashes: this.oneHash(hash), deleteFiles: 'false' }) });
  }

  readonly renames = 'any-path' as const;

  /** torrents/renameFolder and torrents/renameFile (Web API 2.7, qBittorrent 4.3.3): old and new paths. */
  async rename(hash: string, steps: readonly RenameStep[]): Promise<void> {
    const asked = this.oneHash(hash);
    for (const step of steps) {
      const endpoint = step.kind === 'folder' ? 'torrents/renameFolder' : 'torrents/renameFile';
      await this.call('rename', endpoint, { method: 'POST', body: new URLSearchParams({ hash: asked, oldPath: step.from, newPath: step.to }) });
    }
  }

  async addTags(hash: string, tags: readonly string[]): Promise<boolean> {
    const list = tags.map((tag) => tag.trim()).filter(Boolean);
    if (list.length > 0) await this.call('tags', 'torrents/addTags', { method: 'POST', body: new URLSearchParams({ hashes: this.oneHash(hash), tags: list.join(',') }) });
    return true;
  }

  /**
   * The torrent's pieces hash: from the exported .torrent where this qBittorrent has torrents/export
   * (4.5.0 and later), else from torrents/pieceHashes; `via` forces one. A torrent without metadata,
   * one the client does not hold, or an answer that does not read is skipped, that torrent alone.
   */
  async piecesHash(hash: string, via?: PieceHashSource): Promise<ClientPiecesHash> {
    const asked = this.oneHash(hash);
    const source = via ?? (await this.pieceHashSource());
    if (source === 'export') {
      const answer = await this.call('export', 'torrents/export', { method: 'GET', query: { hash: asked }, accept: [404, 409], binary: true });
      if (answer.status === 404 && !via && !(await this.holds(asked))) return { skipped: 'not-found', via: source };
      if (answer.status === 404 && !via) {
        this.exportMissing = true; // a build without export: the hex list from now on
        return this.piecesHash(asked, 'pieceHashes');
      }
      if (answer.status === 404) return { skipped: 'not-found', via: source };
      if (answer.status === 409) return { skipped: 'no-metadata', via: source };
      return piecesOf(await piecesHashFromTorrent(answer.bytes ?? new Uint8Array()), source);
    }
    const answer = await this.call('piece hashes', 'torrents/pieceHashes', { method: 'GET', query: { hash: asked }, accept: [404, 409] });
    if (answer.status === 404) return { skipped: 'not-found', via: source };
    if (answer.status === 409) return { skipped: 'no-metadata', via: source };
    let list: unknown;
    try {
      list = JSON.parse(answer.text);
    } catch {
      return { skipped: 'unreadable', via: source };
    }
    return piecesOf(await piecesHashFromHexList(list), source);
  }

  private exportMissing = false;
  private from45?: Promise<boolean>;

  /** Export from qBittorrent 4.5.0. */
  private async pieceHashSource(): Promise<PieceHashSource> {
    if (this.exportMissing) return 'pieceHashes';
    return (await this.atLeast45()) ? 'export' : 'pieceHashes';
  }

  /** Whether this is qBittorrent 4.5 or later (app/version, read once per client; a failed read is asked again). */
  private atLeast45(): Promise<boolean> {
    this.from45 ??= this.call('version', 'app/version', { method: 'GET' }).then(
      (answer) => {
        const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(answer.text) ?? []).slice(1).map(Number);
        return major > 4 || (major === 4 && minor >= 5);
      },
      (error: unknown) => {
        this.from45 = undefined;
        throw error;
      },
    );
    return this.from45;
  }

  private async holds(hash: string): Promise<boolean> {
    return (await this.lookup([hash])).has(hash);
  }

  /** Whether this qBittorrent answered 404 to start/stop (before 5.0): then resume/pause. */
  private oldActionNames = false;

  private async renamedCall(operation: string, path: string, oldPath: string, hash: string): Promise<void> {
    const body = () => new URLSearchParams({ hashes: this.oneHash(hash) });
    if (!this.oldActionNames) {
      const answer = await this.call(operation, path, { method: 'POST', body: body(), accept: [404] });
      if (answer.status !== 404) return;
      this.oldActionNames = true;
    }
    await this.call(operation, oldPath, { method: 'POST', body: body() });
  }

  private oneHash(hash: string): string {
    const [asked] = normaliseHashes([hash]);
    if (!asked) throw new ClientError({ kind: 'bad-input', detail: 'not a 40-hex info-hash' });
    return asked;
  }

  // -------------------------------------------------------------------------------------------

  private url(path: string, query?: Record<string, string>): string {
    const search = query ? `?${new URLSearchParams(query).toString()}` : '';
    return `${this.base}/api/v2/${path}${search}`;
  }

  private headers(): Record<string, string> | undefined {
    return this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : undefined;
  }

  /** One API call with the session (logging in first, and once more on a 403: the session expired). */
  private async call(operation: string, path: string, call: Call): Promise<HttpAnswer> {
    if (!this.apiKey && !this.loggedIn) await this.logIn('session');
    let answer = await this.sendCall(operation, path, call);
    if (answer.status === 403 && !this.apiKey) {
      this.loggedIn = false;
      await this.logIn('session');
      answer = await this.sendCall(operation, path, call);
      if (answer.status === 403) {
        // Logged in, yet not recognised: the session cookie did not come back (blocked cookies).
        throw new ClientError({ kind: 'auth', detail: `${operation}: logged in, but qBittorrent does not recognise the session (are its cookies blocked?)`, httpStatus: 403 });
      }
    }
    if (call.accept?.includes(answer.status)) return answer;
    if (answer.status === 200 || answer.status === 204) return answer;
    throw statusError(operation, answer, this.apiKey !== undefined);
  }

  private sendCall(operation: string, path: string, call: Call): Promise<HttpAnswer> {
    const transport = call.slowMs && call.slowMs > this.transport.timeoutMs ? { ...this.transport, timeoutMs: call.slowMs } : this.transport;
    return send(
      transport,
      { method: call.method, url: this.url(path, call.query), headers: this.headers(), body: call.body, credentials: this.apiKey ? 'omit' : 'include', binary: call.binary },
      operation,
    );
  }

  /**
   * `session` logs in for the calls that follow (the cookie lands in the jar); `check` logs in
   * without cookies, so the password is checked even when a session exists. Concurrent callers
   * share one session login.
   */
  private logIn(mode: 'session' | 'check'): Promise<void> {
    if (mode === 'session') {
      // The first session login of this configuration is checked without cookies first: while the
      // browser holds a live session (the user's own web UI tab, or one from before the password
      // changed), qBittorrent answers "Ok." to any password, and a wrong one would go unsaid.
      const checked = this.passwordChecked ? Promise.resolve() : this.postLogin('omit').then(() => void (this.passwordChecked = true));
      this.login ??= checked
        .then(() => this.postLogin('include'))
        .then(() => {
          this.loggedIn = true;
        })
        .finally(() => {
          this.login = undefined;
        });
      return this.login;
    }
    return this.postLogin('omit');
  }

  private async postLogin(credentials: 'include' | 'omit'): Promise<void> {
    const form = new URLSearchParams({ username: this.settings.username, password: this.settings.password });
    const answer = await send(this.transport, { method: 'POST', url: this.url('auth/login'), body: form, credentials }, 'login');
    const text = answer.text.trim();
    if ((answer.status === 200 && text === 'Ok.') || answer.status === 204) return;
    if (answer.status === 200 && text === 'Fails.') throw new ClientError({ kind: 'auth', detail: 'login: wrong user name or password', httpStatus: 200 });
    if (answer.status === 403) {
      throw new ClientError({ kind: 'banned', detail: 'login: qBittorrent has banned this address after failed logins', clientMessage: clientWords(text), httpStatus: 403 });
    }
    if (answer.status === 401) throw await this.explain401();
    throw statusError('login', answer, false);
  }

  /** 4.x answers 401 only for CSRF/Host-header refusals; 5.2 also for a wrong password. Ask once more, without a session. */
  private async explain401(): Promise<ClientError> {
    const probe = await send(this.transport, { method: 'GET', url: this.url('app/version'), credentials: 'omit' }, 'login');
    if (probe.status === 401) {
      return new ClientError({
        kind: 'csrf',
        detail: "login: refused by qBittorrent's CSRF protection (the request's Origin is not the client's own address)",
        clientMessage: clientWords(probe.text),
        httpStatus: 401,
      });
    }
    return new ClientError({ kind: 'auth', detail: 'login: wrong user name or password', httpStatus: 401 });
  }
}

/** A pieces-hash reading as the client's result: an empty pieces list is a torrent without metadata. */
function piecesOf(result: PiecesHashResult, via: PieceHashSource): ClientPiecesHash {
  if ('piecesHash' in result) return { piecesHash: result.piecesHash, pieces: result.pieces, via, ...(result.announce && { announce: result.announce }) };
  return { skipped: result.error === 'no-pieces' ? 'no-metadata' : 'unreadable', via };
}

function statusError(operation: string, answer: HttpAnswer, usingApiKey: boolean): ClientError {
  const words = clientWords(answer.text);
  const status = answer.status;
  if (status === 401) {
    return new ClientError({ kind: 'csrf', detail: `${operation}: refused by qBittorrent's CSRF or Host-header check`, clientMessage: words, httpStatus: status });
  }
  if (status === 403) {
    return new ClientError({ kind: 'auth', detail: usingApiKey ? `${operation}: the API key was refused` : `${operation}: not logged in`, clientMessage: words, httpStatus: status });
  }
  if (status === 404) return new ClientError({ kind: 'not-found', detail: `${operation}: not found`, clientMessage: words, httpStatus: status });
  if (status >= 500) return new ClientError({ kind: 'server', detail: `${operation}: qBittorrent failed (${status})`, clientMessage: words, httpStatus: status });
  return new ClientError({ kind: 'bad-answer', detail: `${operation}: unexpected answer ${status}`, clientMessage: words, httpStatus: status });
}

export function createQbittorrent(settings: ClientSettings): TorrentClient {
  return new QbittorrentClient(settings);
}
