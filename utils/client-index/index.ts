/**
 * The index of the user's torrent client (background only): which torrents on which sites the
 * client already holds, and which it can cross-seed from data it holds — answered from memory,
 * with no service request, for a whole list page at once.
 *
 * - ClientIndexes: the one object the background holds. `open(client)` gives the index of that
 *   client (loaded from storage once per background lifetime), or nothing while the user has not
 *   turned the index on; `deleteAll()` is what turning it off does.
 * - ClientIndex: `query(sid, rows)` (the hot path of a list page), `sync(client, lookup)` (reads the
 *   client once, asks the service only for hashes it has not answered yet), `status()`.
 *
 * Indexes are kept per client (type + address), so switching the default client never mixes two
 * clients' torrents; at most MAX_CLIENTS are kept, the least recently used dropped first.
 */
import { browser } from 'wxt/browser';
import { isQuotaError } from '../background/settings-store';
import { clientBaseUrl } from '../clients/http';
import type { ClientKind, ClientTorrent, TorrentClient } from '../clients/types';
import type { Lookup } from '../lookup/lookup';
import type { Settings } from '../settings';
import { BUCKET_COUNT, KEY_PREFIX, bucketKey, bucketOf, decodeBucket, encodeBucket, indexMetaSchema, type IndexMeta, type LastSync } from './codec';
import { IndexModel, type IndexRecord, type IndexedTorrent, type RowKey, type RowMatch } from './model';
import { syncIndex, type SyncOptions, type SyncProgress, type SyncReport, type SyncTarget } from './sync';

export * from './model';
export type { LastSync } from './codec';
export { ClientIndexError, type ClientIndexErrorKind, type SyncOptions, type SyncProgress, type SyncReport } from './sync';

/** 20,000 torrents are about 6 MB in storage.local (bench/client-index-node.ts); Chrome allows 10 MB in all. */
export const MAX_INDEXED_TORRENTS = 20_000;
export const MAX_CLIENTS = 3;

/** Which client an index belongs to: what the user configured it with. */
export interface ClientIdentity {
  type: ClientKind;
  url: string;
}

export interface ClientIndexEnvironment {
  settings(): Promise<Settings>;
  now?: () => number;
  /**
   * Frees storage when storage.local is full (the background gives the answer cache's shrink):
   * the write is tried once more; if it fails again the index stays in memory for this lifetime.
   */
  makeRoom?: () => Promise<unknown>;
  maxTorrents?: number;
  maxClients?: number;
}

/** What the options page shows about an index. */
export interface IndexStatus {
  client: ClientIdentity;
  torrents: number;
  /** Client torrents the service has answered for. */
  answered: number;
  /** Client torrents not asked yet (a sync will). */
  waiting: number;
  /** Torrents on sites the index knows of. */
  places: number;
  inClient: number;
  canCrossSeed: number;
  /** Client torrents held from one site only whose own place is not known yet (what locating would ask about). */
  toPlace: number;
  lastSync?: LastSync;
  /** The sync under way, if any. */
  syncing?: SyncProgress;
  /** 'full': storage.local had no room even after making some; 'failed': it refused otherwise. Either way the index lives in memory until the next start. */
  storage: 'ok' | 'full' | 'failed';
}

function identityKey(identity: ClientIdentity): string {
  let url: string;
  try {
    url = clientBaseUrl(identity.url);
  } catch {
    url = String(identity.url).trim();
  }
  return `${identity.type} ${url.toLowerCase()}`;
}

const META_KEY = KEY_PREFIX;
const bucketKeys = (slot: number) => Array.from({ length: BUCKET_COUNT }, (_, bucket) => bucketKey(slot, bucket));

export class ClientIndexes {
  private current: { key: string; index: Promise<ClientIndex> } | undefined;
  private meta: IndexMeta | undefined;
  /** Nothing stored since the last deleteAll(): open() while off need not look again (one list page after another). */
  private cleared = false;
  readonly now: () => number;

  constructor(readonly env: ClientIndexEnvironment) {
    this.now = env.now ?? Date.now;
  }

  /**
   * The index of this client, loaded from storage once per background lifetime; undefined while
   * the index is off (and then whatever was stored is deleted: off means nothing kept).
   */
  async open(identity: ClientIdentity): Promise<ClientIndex | undefined> {
    if (!(await this.env.settings()).clientIndexEnabled) {
      if (!this.cleared) await this.deleteAll();
      return undefined;
    }
    this.cleared = false;
    const key = identityKey(identity);
    if (this.current?.key !== key) {
      this.current?.index.then((index) => index.close(false)).catch(() => undefined);
      const index = this.load(identity, key);
      this.current = { key, index };
      index.catch(() => {
        if (this.current?.index === index) this.current = undefined;
      });
    }
    return this.current.index;
  }

  /** Deletes every stored index and closes the open one (a running sync stops at its next step). */
  async deleteAll(): Promise<void> {
    const open = this.current;
    this.current = undefined;
    if (open) (await open.index.catch(() => undefined))?.close(true);
    this.meta = undefined;
    const stored = await browser.storage.local.get(META_KEY);
    if (stored[META_KEY] !== undefined || open) {
      const all = await browser.storage.local.get(null);
      const keys = Object.keys(all).filter((key) => key === META_KEY || key.startsWith(`${KEY_PREFIX}:`));
      if (keys.length) await browser.storage.local.remove(keys);
    }
    this.cleared = true;
  }

  /**
   * Storage is needed elsewhere (the settings): drops the stored indexes of clients other than
   * the open one. Returns how many clients' indexes went.
   */
  async makeRoom(): Promise<number> {
    const meta = await this.readMeta();
    const openKey = this.current?.key;
    const doomed = meta.clients.filter((client) => identityKey({ type: client.type as ClientKind, url: client.url }) !== openKey);
    if (!doomed.length) return 0;
    meta.clients = meta.clients.filter((client) => !doomed.includes(client));
    await browser.storage.local.remove(doomed.flatMap((client) => bucketKeys(client.slot)));
    await browser.storage.local.set({ [META_KEY]: meta }).catch(() => undefined);
    return doomed.length;
  }

  private async readMeta(): Promise<IndexMeta> {
    if (!this.meta) {
      const parsed = indexMetaSchema.safeParse((await browser.storage.local.get(META_KEY))[META_KEY]);
      this.meta = parsed.success ? parsed.data : { v: 1, nextSlot: 0, clients: [] };
    }
    return this.meta;
  }

  private async load(identity: ClientIdentity, key: string): Promise<ClientIndex> {
    const meta = await this.readMeta();
    const entry = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
    const model = new IndexModel();
    if (entry) {
      const stored = await browser.storage.local.get(bucketKeys(entry.slot));
      for (let bucket = 0; bucket < BUCKET_COUNT; bucket++) {
        const value = stored[bucketKey(entry.slot, bucket)];
        if (value === undefined) continue;
        for (const record of decodeBucket(value, bucket)?.records ?? []) model.restore(record);
      }
    }
    return new ClientIndex(this, identity, key, model, entry?.slot, entry?.lastSync);
  }

  /** The slot this client's buckets are stored under; a new client gets one (the least recently used beyond MAX_CLIENTS go). */
  async claimSlot(identity: ClientIdentity, key: string): Promise<number> {
    const meta = await this.readMeta();
    const existing = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
    if (existing) return existing.slot;
    const slot = meta.nextSlot++;
    meta.clients.push({ slot, type: identity.type, url: identity.url, usedAt: this.now() });
    const max = Math.max(1, this.env.maxClients ?? MAX_CLIENTS);
    const doomed: number[] = [];
    while (meta.clients.length > max) {
      const oldest = meta.clients.reduce((a, b) => (b.usedAt < a.usedAt ? b : a));
      meta.clients = meta.clients.filter((client) => client !== oldest);
      doomed.push(oldest.slot);
    }
    // The meta first: a bucket is never stored without the meta naming its slot.
    await this.writeMeta();
    if (doomed.length) await browser.storage.local.remove(doomed.flatMap(bucketKeys)).catch(() => undefined);
    return slot;
  }

  async recordSync(slot: number | undefined, lastSync: LastSync): Promise<void> {
    if (slot === undefined) return;
    const meta = await this.readMeta();
    const entry = meta.clients.find((client) => client.slot === slot);
    if (!entry) return;
    entry.lastSync = lastSync;
    entry.usedAt = this.now();
    await this.writeMeta().catch(() => undefined);
  }

  private async writeMeta(): Promise<void> {
    await writeWithRoom({ [META_KEY]: this.meta }, this.env.makeRoom);
  }
}

/** Writes; on a full storage.local makes room once and tries again. */
async function writeWithRoom(items: Record<string, unknown>, makeRoom?: () => Promise<unknown>): Promise<void> {
  try {
    await browser.storage.local.set(items);
  } catch (error) {
    if (!isQuotaError(error) || !makeRoom) throw error;
    await makeRoom().catch(() => undefined);
    await browser.storage.local.set(items);
  }
}

interface RunningSync {
  promise: Promise<SyncReport>;
  listeners: Set<(progress: SyncProgress) => void>;
  progress?: SyncProgress;
}

export class ClientIndex {
  private closed = false;
  /** Closed because the index was turned off: nothing of it may stay in storage. */
  private deleted = false;
  private storageProblem: 'full' | 'failed' | undefined;
  private readonly dirty = new Set<number>();
  private running: RunningSync | undefined;

  constructor(
    private readonly owner: ClientIndexes,
    readonly identity: ClientIdentity,
    private readonly key: string,
    private readonly model: IndexModel,
    private slot: number | undefined,
    private lastSync: LastSync | undefined,
  ) {}

  /** The rows of site `sid`'s list page the index knows (keyed by the row's torrent id). No I/O. */
  query(sid: number, rows: readonly RowKey[]): Map<string, RowMatch> {
    if (this.closed) return new Map();
    return this.model.query(sid, rows);
  }

  torrent(hash: string): IndexedTorrent | undefined {
    return this.closed ? undefined : this.model.torrent(hash.toLowerCase());
  }

  /**
   * A torrent just added to the client (a cross-seed): the index knows it holds it from now on,
   * without asking the service; the next sync asks about it as about any new torrent.
   */
  async noteAdded(torrent: ClientTorrent): Promise<void> {
    if (this.closed || !this.model.hold(torrent)) return;
    this.dirty.add(bucketOf(torrent.hash.toLowerCase()));
    await this.flush();
  }

  status(): IndexStatus {
    const counts = this.model.counts();
    let toPlace = 0;
    for (const placing of this.model.toLocate(this.owner.now()).values()) toPlace += placing.length;
    return {
      client: this.identity,
      ...counts,
      toPlace,
      ...(this.lastSync && { lastSync: this.lastSync }),
      ...(this.running?.progress && { syncing: this.running.progress }),
      storage: this.storageProblem ?? 'ok',
    };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Deleted (the index was turned off) or replaced by another client's: answers nothing, writes nothing more. */
  close(deleted: boolean): void {
    this.closed = true;
    this.deleted ||= deleted;
  }

  /**
   * Reads the client once, drops torrents gone from it, asks the service (through `lookup`, which
   * holds the rate limit, the site report and the credential gate) for the hashes it has not
   * answered yet, in batches of up to 200, and stores each batch's answers as they come, so a sync
   * cut short (a restart, a cancel, a rate limit) goes on from there next time. A second call while
   * one runs joins it.
   */
  sync(client: TorrentClient, lookup: Lookup, options: SyncOptions = {}): Promise<SyncReport> {
    if (this.running) {
      if (options.onProgress) this.running.listeners.add(options.onProgress);
      return this.running.promise;
    }
    const listeners = new Set<(progress: SyncProgress) => void>();
    if (options.onProgress) listeners.add(options.onProgress);
    const running: RunningSync = { listeners, promise: Promise.resolve(undefined as never) };
    const target: SyncTarget = {
      model: this.model,
      now: this.owner.now,
      settings: () => this.owner.env.settings(),
      maxTorrents: this.owner.env.maxTorrents ?? MAX_INDEXED_TORRENTS,
      isOpen: () => !this.closed,
      changed: (hashes) => {
        for (const hash of hashes) this.dirty.add(bucketOf(hash));
      },
      flush: () => this.flush(),
      progress: (progress) => {
        running.progress = progress;
        for (const listener of listeners) {
          try {
            listener(progress);
          } catch {
            // A listener's failure is its own.
          }
        }
      },
      finished: async (lastSync) => {
        this.lastSync = lastSync;
        if (!this.closed) await this.owner.recordSync(this.slot, lastSync);
      },
    };
    running.promise = syncIndex(target, client, lookup, options).finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running.promise;
  }

  /** Writes the buckets that changed since the last write; never throws (a failing store leaves the index in memory). */
  private async flush(): Promise<void> {
    if (this.closed || this.storageProblem || !this.dirty.size) return;
    try {
      this.slot ??= await this.owner.claimSlot(this.identity, this.key);
    } catch (error) {
      this.storageProblem = isQuotaError(error) ? 'full' : 'failed';
      return;
    }
    const buckets = [...this.dirty];
    this.dirty.clear();
    const byBucket = new Map<number, IndexRecord[]>(buckets.map((bucket) => [bucket, []]));
    for (const [hash, record] of this.model.records) byBucket.get(bucketOf(hash))?.push(record);
    const items: Record<string, unknown> = {};
    const empty: string[] = [];
    for (const [bucket, records] of byBucket) {
      if (records.length) items[bucketKey(this.slot, bucket)] = encodeBucket(records);
      else empty.push(bucketKey(this.slot, bucket));
    }
    try {
      if (empty.length) await browser.storage.local.remove(empty);
      if (Object.keys(items).length) await writeWithRoom(items, this.owner.env.makeRoom);
      // Turned off while writing: what was just written must not outlive the deletion.
      if (this.deleted) await browser.storage.local.remove([META_KEY, ...Object.keys(items)]);
    } catch (error) {
      // Kept in memory for this lifetime; the next start reads what was stored and asks for the rest.
      this.storageProblem = isQuotaError(error) ? 'full' : 'failed';
      for (const bucket of buckets) this.dirty.add(bucket);
    }
  }
}
