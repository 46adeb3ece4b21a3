/**
 * The one small interface every torrent client (qBittorrent, Transmission, Deluge) is used through.
 * The background holds the only instances; answers are validated with zod inside each client file,
 * so what leaves a client through this interface is already checked: hashes are 40 lowercase hex,
 * progress is 0..1, sizes are non-negative integers.
 */

export const CLIENT_KINDS = ['qbittorrent', 'transmission', 'deluge', 'rtorrent', 'flood'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];
/** Product names: the same in every language. */
export const CLIENT_NAMES: Record<ClientKind, string> = { qbittorrent: 'qBittorrent', transmission: 'Transmission', deluge: 'Deluge', rtorrent: 'rTorrent', flood: 'Flood' };

/** What the client said when tested: enough for "qBittorrent v4.5.2 (Web API 2.8.19), 1,234 torrents". */
export interface ClientInfo {
  client: ClientKind;
  /** The client's own version text, as it gives it (e.g. "v4.5.2", "3.00 (bb6b5a062e)", "2.0.3"). */
  version: string;
  /** qBittorrent's Web API version, Transmission's rpc-version, Deluge's libtorrent version. */
  apiVersion?: string;
  torrentCount: number;
  /** How we got in: a password (qBittorrent cookie login, Transmission Basic auth, Deluge web login) or a qBittorrent API key. */
  auth: 'password' | 'api-key';
}

/**
 * A torrent's state in the user's words, the same for every client:
 * - seeding: complete and shared (including "stalled" uploads: complete, no peer asking);
 * - downloading: incomplete and running (including metadata and allocation);
 * - stalled: incomplete and running, but no peer to get data from;
 * - paused: stopped by the user (complete or not: see progress);
 * - checking: verifying local data (or waiting to);
 * - queued: waiting for a slot in the client's queue;
 * - moving: its files are being moved;
 * - missing: the client cannot find its files;
 * - error: the client reports an error for it (see `error`);
 * - unknown: anything else a client reports.
 */
export const TORRENT_STATES = ['seeding', 'downloading', 'stalled', 'paused', 'checking', 'queued', 'moving', 'missing', 'error', 'unknown'] as const;
export type TorrentState = (typeof TORRENT_STATES)[number];

export interface ClientTorrent {
  /** v1 info-hash, 40 lowercase hex. */
  hash: string;
  name: string;
  /** The folder the torrent's content sits in (its "save path" / "download dir" / "download location"). */
  savePath: string;
  /** Where the content itself is: the file of a single-file torrent, the root folder of a multi-file one. */
  contentPath?: string;
  /** Total size of all the torrent's files, in bytes. */
  size: number;
  state: TorrentState;
  /** 0..1 */
  progress: number;
  category?: string;
  tags?: string[];
  /** The client's own words about an error state, when it gave any. */
  error?: string;
  /** The tracker the client is announcing to, when it says (qBittorrent's `tracker`: empty until one works). */
  tracker?: string;
}

export interface ClientFile {
  /** Relative to the save path, `/`-separated; a multi-file torrent's root folder is included. */
  path: string;
  size: number;
}

export interface AddOptions {
  /** The folder that holds (or will hold) the content: for a cross-seed, the existing torrent's save path. */
  savePath: string;
  /** Add it stopped. */
  paused: boolean;
  /**
   * Skip the hash check and take the data as complete. qBittorrent (skip_checking / seedMode) and
   * Deluge (seed_mode) honour it; Transmission always verifies a new torrent.
   */
  skipCheck: boolean;
  /** qBittorrent category. Transmission has none: it becomes a label. Deluge: not set (its Label plugin is optional). */
  category?: string;
  /** qBittorrent tags; Transmission labels. Deluge: not set. */
  tags?: string[];
  /**
   * Keep the torrent's own layout (its root folder as in the .torrent), whatever the client's default.
   * Default true: a cross-seed must land exactly where the existing files are. qBittorrent only.
   */
  contentLayoutOriginal?: boolean;
}

export interface AddResult {
  /** `duplicate`: the client already had this torrent (not an error: it is there). */
  status: 'added' | 'duplicate';
  /**
   * The torrent's v1 info-hash as the client took it: the hash the client reports where it reports
   * one (Transmission, Deluge), else the hash of the file's info dictionary. Transmission 3.00
   * re-encodes a non-canonical info dictionary and so adds another torrent than the file's: the
   * caller compares this with the hash it checked.
   */
  hash: string;
}

/**
 * One rename of a torrent's files, relative to its save path (utils/cross-seed-engine/renamed-copy.ts
 * decides them, each adapter carries them out): a folder step renames the root folder (every file
 * under it follows), a file step gives one file (by its index in the torrent) another path.
 */
export type RenameReach = 'any-path' | 'last-element' | 'root-folder';

export type RenameStep = { kind: 'folder'; from: string; to: string } | { kind: 'file'; index: number; from: string; to: string };

export interface TorrentClient {
  readonly kind: ClientKind;
  /**
   * How the client renames a torrent's files: to any relative path (qBittorrent, Deluge), only a
   * path's last element, in its own folder (Transmission's torrent-rename-path), or only a
   * multi-file torrent's own folder (rTorrent's d.directory_base: no file is renamed).
   */
  readonly renames?: RenameReach;
  /** Renames a torrent's files, step by step in order (a cross-seed's renamed copy, added stopped). Absent: the client renames nothing. */
  rename?(hash: string, steps: readonly RenameStep[]): Promise<void>;
  /** Checks the address and credentials for real and says what the client is. */
  test(): Promise<ClientInfo>;
  /** The torrents among `hashes` that the client holds, keyed by lowercase hash; absent hashes are not in the map. */
  lookup(hashes: readonly string[]): Promise<Map<string, ClientTorrent>>;
  /**
   * Every torrent the client holds, each once (for the background's index of the client), read in
   * bounded pages: no single answer has to hold the whole client. `eachRead` wraps every page read
   * (steady.ts asks a page that failed transiently again, not the whole list).
   */
  list(options?: ListOptions): Promise<ClientTorrent[]>;
  /** How many torrents the client holds, without reading them all. */
  count(): Promise<number>;
  /** The files of one torrent; fails with kind `not-found` when the client does not hold it. */
  files(hash: string): Promise<ClientFile[]>;
  /** Adds a .torrent; a torrent the client already holds is a `duplicate`, not a failure. */
  add(torrent: Uint8Array, options: AddOptions): Promise<AddResult>;
  /**
   * Where the client's torrent list lags (qBittorrent refreshes a torrent's state and progress
   * there only every 1.5 s), what it knows of the torrent right now. Absent: lookup() is as fresh
   * as the client gets. `undefined` when the client does not hold it.
   */
  liveState?(hash: string): Promise<LiveTorrentState | undefined>;
  /** Starts (resumes) a stopped torrent. */
  start(hash: string): Promise<void>;
  /** Stops (pauses) a torrent. */
  stop(hash: string): Promise<void>;
  /** Asks the client to verify the torrent's data on disk again (its hash check). */
  recheck(hash: string): Promise<void>;
  /**
   * Whether a recheck of a torrent added stopped is carried out when asked as soon as the client
   * lists the add, while it still settles it (qBittorrent reads an add's resume data and lists it as
   * checking until its next refresh, 1.5 s later), stopped again at the check's end whatever it
   * found. Then the cross-seed engine asks for the check at once; absent or false, it waits for the
   * add to settle first.
   */
  rechecksAtOnce?(): Promise<boolean>;
  /** Removes a torrent from the client, leaving its data on disk untouched. */
  remove(hash: string): Promise<void>;
  /**
   * Adds tags to a torrent, keeping the ones it has (qBittorrent tags, Transmission labels).
   * False when the client has no tags (Deluge without its optional Label plugin): nothing was set.
   */
  addTags(hash: string, tags: readonly string[]): Promise<boolean>;
  /**
   * The torrent's pieces hash (SHA-1 of its raw `info.pieces`, what NexusPHP's pieces-hash API
   * takes). Only qBittorrent has it: Transmission and Deluge give no piece hashes over their APIs.
   */
  piecesHash?(hash: string, via?: PieceHashSource): Promise<ClientPiecesHash>;
}

/** What a client knows of a torrent right now (TorrentClient.liveState). */
export interface LiveTorrentState {
  /** Stopped by the client or the user (a check of a stopped torrent runs it, and stops it again at the check's end). */
  stopped: boolean;
  /** Every piece of every file is verified on disk. */
  complete: boolean;
}

export interface ListOptions {
  eachRead?: <T>(read: () => Promise<T>) => Promise<T>;
}

/** How qBittorrent gives a torrent's pieces: the raw .torrent (`torrents/export`, 4.5.0 and later) or the hex list (`torrents/pieceHashes`). */
export type PieceHashSource = 'export' | 'pieceHashes';

export type ClientPiecesHash =
  /** `announce`: the tracker address of the exported .torrent (export only: it tells which site the torrent is from). */
  | { piecesHash: string; pieces: number; via: PieceHashSource; announce?: string }
  /** Skipped, this torrent alone: no metadata yet (a magnet still looking), not held by the client, or an answer that does not read. */
  | { skipped: 'no-metadata' | 'not-found' | 'unreadable'; via: PieceHashSource };

/** How each client file is configured; index.ts validates it (zod) and builds the client. */
export interface ClientSettings {
  /** The address the user opens the client's web UI at, e.g. http://127.0.0.1:8080 (a path prefix is kept). */
  url: string;
  username: string;
  /** A password, or for qBittorrent 5.2+ an API key (qbt_…). */
  password: string;
  /** Default 15000 ms per request; when it runs out the call fails with kind `timeout`. */
  timeoutMs?: number;
  /**
   * The fetch to use: the browser's in the background (the cookie jar is then the browser's own),
   * one with a small cookie jar in Node tests.
   */
  fetch?: typeof fetch;
  /** Torrents asked per list() page; each client has its default (tests set a small one). */
  pageSize?: number;
}
