/**
 * The index of the user's torrent client (background only): which torrents on which sites the
 * client already holds, and which it can cross-seed from data it holds — answered from memory,
 * with no service request, for a whole list page at once.
 *
 * - ClientIndexes: the one object the background holds. `open(client)` gives the index of that
 *   client (loaded from storage once per background lifetime), or nothing while the user has not
 *   turned the index on; several clients' indexes are open at once (every client takes part:
 *   issue 33); `deleteAll()` is what turning it off does.
 * - ClientIndex: `query(sid, rows)` (the hot path of a list page), `sync(client, lookup)` (reads the
 *   client once, asks the service only for hashes it has not answered yet), `status()`.
 *
 * Indexes are kept per client (type + address), so two clients' torrents never mix; at most
 * MAX_INDEXED_CLIENTS are kept, the least recently used dropped first.
 */
import { clientBaseUrl } from '../clients/http';
import type { ClientKind, ClientTorrent, TorrentClient } from '../clients/client-types';
import type { Lookup } from '../lookup/lookup';
import type { Settings } from '../settings';
import { BUCKET_COUNT, decodeBucket, decodeRecord, encodeRecord, indexMetaSchema, packHash, placeKey, storedBytes, type IndexMeta, type LastSync, type StoredRecord } from './codec';
import { IndexModel, type IndexBound, type IndexRecord, type IndexedTorrent, type Located, type Opportunity, type RowKey, type RowMatch, type ServiceAnswer } from './model';
import { ANSWERS_PART, IndexStore, isRoomError, PACK_RECORDS, TORRENT_PART, type RecordWrite } from './store';
import { legacyBucketId, legacyIndexBuckets, legacyIndexMetaItem } from './legacy-storage';
import { syncIndex, type SyncOptions, type SyncProgress, type SyncReport, type SyncTarget } from './sync';
import { nextTurn } from '../next-turn';

/** A record written whole: what the client says of it and what was answered of it. */
const BOTH_PARTS = TORRENT_PART | ANSWERS_PART;

export * from './model';
export type { LastSync } from './codec';
export { IndexStore, isRoomError } from './store';
export { ClientIndexError, type ClientIndexErrorKind, type SyncOptions, type SyncProgress, type SyncReport } from './sync';

/**
 * The index's bound in bytes of IndexedDB (codec.ts's storedBytes): 100,000 torrents with names of
 * 200 characters take about 60 MB (bench/client-index-node.ts), so twice that leaves room; the
 * index lives in memory too, and a bound in bytes keeps that memory bounded whatever the names.
 */
export const MAX_INDEX_BYTES = 128 * 1024 * 1024;
/** A torrent not answered yet is counted with room for a typical answer (three copies and their places). */
const ANSWER_ALLOWANCE = 256;
/** Indexes kept at once: more than the clients users run (several seeders run three or four; the saved list holds 20). */
export const MAX_INDEXED_CLIENTS = 8;
/** The whole index's load gives the worker back after this long (ms): a list page's answer waits no longer. */
const LOAD_SLICE_MS = 8;
/** A pack of the index is written once its writes have settled for this long (ms): not after every batch of a sync. */
export const PACK_AFTER_MS = 5_000;
/**
 * After a sync or placing run ends, or a load that had to read the records: the writes are done,
 * so the pack is written soon. A worker stopped within PACK_AFTER_MS of a run's end (the browser
 * closed, or DevTools stopping it) left no pack, and every later load read 100,000 records one
 * by one: 1.2 s instead of 0.5 s in Chromium. A run that follows at once (placing after a sync)
 * starts within this and puts the pack off again (writePack waits while a run goes on).
 */
export const PACK_SOON_MS = 1_000;
/**
 * Records from which the index is packed: below it, the records themselves load in well under a
 * tenth of a second (1,000: 51 ms in Chromium), and a pack would only take the disk twice.
 */
export const PACK_MIN_RECORDS = 5_000;
/**
 * Records below which the index has the browser compact its storage after a run (IndexStore
 * compactAfterWrites). Chromium's LevelDB writes its log out itself once 4 MB of writes gathered,
 * so what stays uncompacted is at most that: most of a small index's footprint (3.4 KB a torrent at
 * 1,000), little of a large one's. Measured in Chromium at 10,000: 782 B a torrent without, 860 B
 * with (the forced table holds the log's undo entries until LevelDB merges it).
 */
export const COMPACT_BELOW_RECORDS = 5_000;

/** What a torrent takes stored: with its answer when it has one, else with the allowance for one. */
export function bytesOfTorrent(torrent: IndexedTorrent, record: IndexRecord | undefined): number {
  const stored = encodeRecord(0, record ? { ...record, torrent } : { torrent });
  return (stored ? storedBytes(stored) : 0) + (record?.answer ? 0 : ANSWER_ALLOWANCE);
}

/** Which client an index belongs to: what the user configured it with. */
export interface ClientIdentity {
  type: ClientKind;
  url: string;
}

export interface ClientIndexEnvironment {
  settings(): Promise<Settings>;
  now?: () => number;
  /** Bytes the index may take in IndexedDB (MAX_INDEX_BYTES when absent). */
  maxBytes?: number;
  maxClients?: number;
  /** Where the index is kept (IndexedDB; tests give one whose writes fail). */
  store?: IndexStore;
  /** How long the writes must have settled before a pack of the index is written (PACK_AFTER_MS when absent). */
  packAfterMs?: number;
  /** Records from which a pack is written (PACK_MIN_RECORDS when absent). */
  packMinRecords?: number;
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
  /**
   * 'full': IndexedDB refused the write for want of room (the disk or the browser's quota) even
   * after other clients' indexes went; 'failed': it refused otherwise (or there is none). Either
   * way the index lives in memory until the next start, and the settings (in storage.local) are not
   * touched.
   */
  storage: 'ok' | 'full' | 'failed';
}

/** A list page's rows as the index knows them, and whether it knows anything yet. */
export interface RowsAnswer {
  matches: Map<string, RowMatch>;
  /** Whether the service has answered for any of the client's torrents (else the page is not judged yet). */
  answered: boolean;
}

/**
 * One client's answer for a list page (ClientIndexes.rowsOfEach), and which torrents it holds
 * among those the page's answers name: a place another client's index offers to cross-seed may be
 * this client's own torrent (held here, though this index does not know its place).
 */
export interface ClientRows extends RowsAnswer {
  holds(hash: string): IndexedTorrent | undefined;
}

const NOTHING_YET: ClientRows = { matches: new Map(), answered: false, holds: () => undefined };

function identityKey(identity: ClientIdentity): string {
  let url: string;
  try {
    url = clientBaseUrl(identity.url);
  } catch {
    url = String(identity.url).trim();
  }
  return `${identity.type} ${url.toLowerCase()}`;
}

const legacyBucketIds = (slot: number) => Array.from({ length: BUCKET_COUNT }, (_, bucket) => legacyBucketId(slot, bucket));

interface Current {
  key: string;
  index: Promise<ClientIndex>;
  /** The index once loaded: list pages are answered from memory from then on. */
  ready?: ClientIndex;
}

export class ClientIndexes {
  /** The open indexes, by client (identityKey). */
  private readonly open_ = new Map<string, Current>();
  private meta: IndexMeta | undefined;
  /** Nothing stored since the last deleteAll(): open() while off need not look again (one list page after another). */
  private cleared = false;
  readonly now: () => number;
  readonly store: IndexStore;
  /**
   * Counts every change of what an index answers (a sync's batch, a write, a close, a deletion):
   * an answer worked out at one count is still true while the count stays (list-pages.ts keeps a
   * tab's answer for its popup on it).
   */
  changes = 0;

  constructor(readonly env: ClientIndexEnvironment) {
    this.now = env.now ?? Date.now;
    this.store = env.store ?? new IndexStore();
  }

  /** Whether the index is on; while off, whatever was stored is deleted (off means nothing kept). */
  private async enabled(): Promise<boolean> {
    if (!(await this.env.settings()).clientIndexEnabled) {
      if (!this.cleared) await this.deleteAll();
      return false;
    }
    this.cleared = false;
    return true;
  }

  /**
   * The index of this client, loaded from storage once per background lifetime; undefined while
   * the index is off.
   */
  async open(identity: ClientIdentity): Promise<ClientIndex | undefined> {
    if (!(await this.enabled())) return undefined;
    return this.start(identity).index;
  }

  private start(identity: ClientIdentity): Current {
    const key = identityKey(identity);
    const known = this.open_.get(key);
    if (known) return known;
    const index = this.load(identity, key);
    const current: Current = { key, index };
    this.open_.set(key, current);
    index.then(
      (loaded) => {
        if (this.open_.get(key) === current) current.ready = loaded;
      },
      () => {
        if (this.open_.get(key) === current) this.open_.delete(key);
      },
    );
    return current;
  }

  /**
   * Closes the indexes of clients no longer saved (`keep`: the identities of those that are): they
   * answer nothing more and free their memory; what they stored stays until their slot is reused.
   */
  keepOnly(keep: readonly ClientIdentity[]): void {
    const kept = new Set(keep.map(identityKey));
    for (const [key, current] of this.open_) {
      if (!kept.has(key)) this.closeOpen(key, current);
    }
  }

  /** One open index closed (at once when loaded): it answers nothing more. */
  private closeOpen(key: string, current: Current): void {
    this.open_.delete(key);
    this.changes++;
    if (current.ready) current.ready.close(false);
    else current.index.then((index) => index.close(false)).catch(() => undefined);
  }

  /**
   * A list page's rows, without waiting for the whole index: from memory once it is loaded; before
   * that (a restarted service worker) from IndexedDB, reading only the records that name these rows'
   * places and those of their groups' other torrents. A page does not start the whole index's load:
   * at 100,000 torrents that load (a second of parsing, and the collections it leaves for V8) held
   * the popup's answer for the same page up to 290 ms; what needs the whole index opens it.
   */
  async rows(identity: ClientIdentity, sid: number, rows: readonly RowKey[]): Promise<RowsAnswer | undefined> {
    const [answer] = (await this.rowsOfEach([identity], sid, rows)) ?? [];
    return answer && { matches: answer.matches, answered: answer.answered };
  }

  /**
   * rows() for several clients at once (in the order given): each client's own answer, from memory
   * where its index is loaded; the others' from IndexedDB in ONE read over all their slots (a list
   * page after a restart costs one transaction however many clients are indexed), which also reads,
   * in every slot, the torrents the page's answers name, so each answer says which of them its
   * client holds.
   */
  async rowsOfEach(identities: readonly ClientIdentity[], sid: number, rows: readonly RowKey[]): Promise<ClientRows[] | undefined> {
    if (!(await this.enabled())) return undefined;
    const answers: (ClientRows | undefined)[] = identities.map((identity) => {
      const ready = this.open_.get(identityKey(identity))?.ready;
      return ready && { ...ready.rows(sid, rows), holds: (hash: string) => ready.torrent(hash) };
    });
    const unread = identities.flatMap((identity, at) => (answers[at] ? [] : [{ identity, at }]));
    if (!unread.length) return answers as ClientRows[];
    try {
      const meta = await this.readMeta();
      const slots = new Map<number, number>();
      for (const { identity, at } of unread) {
        const key = identityKey(identity);
        const entry = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
        // Nothing stored for this client yet: its first sync has not answered anything.
        if (entry) slots.set(entry.slot, at);
        else answers[at] = NOTHING_YET;
      }
      if (slots.size) {
        // The loaded indexes' cross-seeds: whether an index not loaded holds one is read with the rest.
        const offered: string[] = [];
        for (const answer of answers) for (const match of answer?.matches.values() ?? []) if (match.kind === 'can-cross-seed' && match.candidateHash) offered.push(match.candidateHash);
        const read = await this.asPageRead(() => this.rowsFromStore([...slots.keys()], sid, rows, offered));
        for (const [slot, at] of slots) answers[at] = read.get(slot)!;
      }
    } catch {
      // IndexedDB failing: the indexes in memory answer (loaded without it).
      for (const { identity, at } of unread) {
        if (answers[at]) continue;
        const index = await this.start(identity).index;
        answers[at] = { ...index.rows(sid, rows), holds: (hash: string) => index.torrent(hash) };
      }
    }
    return answers as ClientRows[];
  }

  private async rowsFromStore(slots: readonly number[], sid: number, rows: readonly RowKey[], offered: readonly string[]): Promise<Map<number, ClientRows>> {
    const places: string[] = [];
    const rowHashes: string[] = [];
    for (const row of rows) {
      const id = typeof row === 'object' ? row.id : row;
      for (const slot of slots) places.push(placeKey(slot, sid, id));
      const packed = typeof row === 'object' && row.hash ? packHash(row.hash.toLowerCase()) : undefined;
      if (packed) rowHashes.push(packed);
    }
    for (const hash of offered) {
      const packed = packHash(hash);
      if (packed) rowHashes.push(packed);
    }
    const rowIds = new Set(rows.map((row) => String(typeof row === 'object' ? row.id : row)));
    const read = await this.store.readPlacesOfSlots(slots, places, (found) => {
      // The torrents the groups found have at these rows' places, in any slot (some client may hold
      // them: the row is then in that client), and the rows' own hashes. A group's members on other
      // sites, or at places not on this page, say nothing of these rows (IndexModel.query), so they
      // are not read: a row's group has a member on each site that carries it.
      const hashes: string[] = [];
      for (const values of found.values()) {
        for (const value of values) {
          const answer = (value as Partial<StoredRecord>).r?.[5];
          if (!Array.isArray(answer)) continue;
          for (let i = 4; i < answer.length; i += 3) {
            if (typeof answer[i] === 'string' && answer[i - 2] === sid && rowIds.has(String(answer[i - 1]))) hashes.push(answer[i] as string);
          }
        }
      }
      return hashes;
    }, true, rowHashes);
    // A model of just these records answers these rows as the whole one would: every record that
    // names a row's place is here, and so is every torrent at these places that the client holds.
    const answers = new Map<number, ClientRows>();
    for (const slot of slots) {
      const model = new IndexModel();
      for (const value of read.values.get(slot) ?? []) {
        const record = decodeRecord(value, slot);
        if (record) model.restore(record);
      }
      const matches = model.query(sid, rows);
      answers.set(slot, { matches, answered: matches.size > 0 || model.anyAnswered() || read.answered.has(slot), holds: (hash) => model.torrent(hash.toLowerCase()) });
    }
    return answers;
  }

  /**
   * Which of these hashes a client held at its index's last sync (what placement.ts takes for a
   * client that cannot be asked now): from memory once its index is loaded, else from IndexedDB
   * (those keys only, without loading the whole index). Empty while the index is off or has nothing of it.
   */
  async held(identity: ClientIdentity, hashes: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    if (!(await this.enabled())) return held;
    const key = identityKey(identity);
    const ready = this.open_.get(key)?.ready;
    if (ready) {
      for (const hash of hashes) if (ready.torrent(hash)) held.add(hash);
      return held;
    }
    try {
      const meta = await this.readMeta();
      const entry = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
      if (!entry) return held;
      const packed = new Map<string, string>();
      for (const hash of hashes) {
        const pack = packHash(hash.toLowerCase());
        if (pack) packed.set(pack, hash);
      }
      for (const pack of await this.store.holds(entry.slot, [...packed.keys()])) held.add(packed.get(pack)!);
    } catch {
      const index = await this.start(identity).index.catch(() => undefined);
      for (const hash of hashes) if (index?.torrent(hash)) held.add(hash);
    }
    return held;
  }

  /**
   * What the other clients' loaded indexes know of a torrent with the same info-hash as one of
   * `self`'s: their fresh answer, and where it sits (a sync takes them rather than asking again).
   */
  elsewhere(self: ClientIndex): { answer(hash: string): ServiceAnswer | undefined; located(hash: string): Located | undefined } {
    const others = () => [...this.open_.values()].flatMap((current) => (current.ready && current.ready !== self && !current.ready.isClosed ? [current.ready] : []));
    return {
      answer: (hash) => {
        let best: ServiceAnswer | undefined;
        const now = this.now();
        for (const index of others()) {
          const answer = index.answerOf(hash);
          if (IndexModel.answerFresh(answer, now) && (!best || answer.at > best.at)) best = answer;
        }
        return best;
      },
      located: (hash) => {
        for (const index of others()) {
          const located = index.locatedOf(hash);
          if (IndexModel.locatedFresh(located, this.now())) return located;
        }
        return undefined;
      },
    };
  }

  /**
   * The whole index's counts over several clients' indexes: torrents, answered and toPlace add up;
   * a place counts once, in a client when any of them holds its torrent (one client's answers may
   * name a torrent another client holds), else to cross-seed when any of them can.
   */
  static countsOver(indexes: readonly ClientIndex[]): Omit<IndexStatus, 'client' | 'storage' | 'lastSync' | 'syncing'> {
    const statuses = indexes.map((index) => index.status());
    const total = { torrents: 0, answered: 0, waiting: 0, places: 0, inClient: 0, canCrossSeed: 0, toPlace: 0 };
    for (const status of statuses) {
      total.torrents += status.torrents;
      total.answered += status.answered;
      total.waiting += status.waiting;
      total.toPlace += status.toPlace;
    }
    if (indexes.length === 1) return { ...total, places: statuses[0]!.places, inClient: statuses[0]!.inClient, canCrossSeed: statuses[0]!.canCrossSeed };
    /** sid → torrent id → 2 in a client, 1 to cross-seed, 0 known only. */
    const places = new Map<number, Map<number, number>>();
    for (const index of indexes) {
      index.forEachPlace((sid, torrentId, hash, canCrossSeed) => {
        const state = hash && indexes.some((other) => other.holds(hash)) ? 2 : canCrossSeed ? 1 : 0;
        let site = places.get(sid);
        if (!site) places.set(sid, (site = new Map()));
        const known = site.get(torrentId);
        if (known === undefined || state > known) site.set(torrentId, state);
      });
    }
    for (const site of places.values()) {
      for (const state of site.values()) {
        total.places++;
        if (state === 2) total.inClient++;
        else if (state === 1) total.canCrossSeed++;
      }
    }
    return total;
  }

  /** Deletes every stored index and closes the open one (a running sync stops at its next step). */
  async deleteAll(): Promise<void> {
    this.changes++;
    const open = [...this.open_.values()];
    this.open_.clear();
    for (const current of open) (await current.index.catch(() => undefined))?.close(true);
    this.meta = undefined;
    await this.store.clear().catch(() => undefined);
    await this.makeRoom();
    this.cleared = true;
  }

  /**
   * storage.local is needed for the settings: removes what an older version kept of the index
   * there (the index itself lives in IndexedDB and takes nothing of storage.local). Returns how
   * many keys went.
   */
  async makeRoom(): Promise<number> {
    if (!(await legacyIndexMetaItem.has().catch(() => false))) return 0;
    const buckets = await legacyIndexBuckets.removeAll();
    await legacyIndexMetaItem.remove();
    return buckets + 1;
  }

  /**
   * At a worker's start: the database opened and the meta read (a few ms) while nothing waits, so a
   * list page's first answer reads its rows at once. Nothing while the index is off; never fails.
   */
  async warm(): Promise<void> {
    try {
      if (await this.enabled()) await this.readMeta();
    } catch {
      // Opened when first asked.
    }
  }

  private async readMeta(): Promise<IndexMeta> {
    if (!this.meta) {
      const parsed = indexMetaSchema.safeParse(await this.store.readMeta());
      this.meta = parsed.success ? parsed.data : { v: 1, nextSlot: 0, clients: [] };
    }
    return this.meta;
  }

  private async load(identity: ClientIdentity, key: string): Promise<ClientIndex> {
    let model = new IndexModel();
    let entry: IndexMeta['clients'][number] | undefined;
    let problem: 'failed' | undefined;
    let packed = false;
    try {
      const meta = await this.readMeta();
      entry = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
      if (entry) {
        const slot = entry.slot;
        const restore = (value: unknown) => {
          const record = decodeRecord(value, slot);
          if (record) model.restore(record);
        };
        const between = () => this.pagesFirst();
        packed = await this.store.readPack(slot, restore, between).catch(() => false);
        if (!packed) {
          model = new IndexModel();
          await this.store.readSlot(slot, restore, between);
        }
      }
    } catch {
      // No IndexedDB (or it fails): the index works in memory for this lifetime, and says so.
      problem = 'failed';
      entry = undefined;
      model = new IndexModel();
    }
    const index = new ClientIndex(this, identity, key, model, entry?.slot, entry?.lastSync, problem);
    if (!entry && !problem) await this.moveLegacy(key, index);
    // Read from the records (an older version's index, or a pack not written yet): the next load reads a pack.
    if (entry && !packed && !problem) index.packSoon(true);
    return index;
  }

  /** List pages' reads under way (rows()): the whole index's load lets them go first. */
  private pageReads = 0;
  private pageReadsDone: (() => void)[] = [];
  private sliceStart = 0;

  /**
   * Awaited between two pieces of the whole index's load: it gives the worker back every few
   * milliseconds (a list page's answer waits for one piece at most, not for the whole load), and
   * waits while a list page's own few records are being read.
   */
  private async pagesFirst(): Promise<void> {
    const now = performance.now();
    if (now - this.sliceStart >= LOAD_SLICE_MS || this.pageReads > 0) {
      await nextTurn();
      while (this.pageReads > 0) await new Promise<void>((resolve) => this.pageReadsDone.push(resolve));
      this.sliceStart = performance.now();
    }
  }

  private async asPageRead<T>(read: () => Promise<T>): Promise<T> {
    this.pageReads++;
    try {
      return await read();
    } finally {
      if (--this.pageReads === 0) for (const resume of this.pageReadsDone.splice(0)) resume();
    }
  }

  /** An older version's index of this client in storage.local: taken into IndexedDB (no hash asked again), then removed from there. */
  private async moveLegacy(key: string, index: ClientIndex): Promise<void> {
    try {
      const meta = await legacyIndexMetaItem.get();
      if (!meta) return;
      const entry = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
      if (entry) {
        const stored = await legacyIndexBuckets.getMany(legacyBucketIds(entry.slot));
        const records: IndexRecord[] = [];
        for (let bucket = 0; bucket < BUCKET_COUNT; bucket++) {
          const value = stored.get(legacyBucketId(entry.slot, bucket));
          if (value !== undefined) records.push(...(decodeBucket(value, bucket)?.records ?? []));
        }
        await index.adopt(records, entry.lastSync);
      }
      await this.makeRoom();
    } catch {
      // What cannot be moved is asked again by the next sync.
    }
  }

  /** The slot this client's records are stored under; a new client gets one (the least recently used beyond MAX_INDEXED_CLIENTS go). */
  async claimSlot(identity: ClientIdentity, key: string): Promise<number> {
    const meta = await this.readMeta();
    const existing = meta.clients.find((client) => identityKey({ type: client.type as ClientKind, url: client.url }) === key);
    if (existing) return existing.slot;
    const slot = meta.nextSlot++;
    meta.clients.push({ slot, type: identity.type, url: identity.url, usedAt: this.now() });
    const max = Math.max(1, this.env.maxClients ?? MAX_INDEXED_CLIENTS);
    const doomed: number[] = [];
    const open = (client: IndexMeta['clients'][number]) => this.open_.has(identityKey({ type: client.type as ClientKind, url: client.url }));
    while (meta.clients.length > max) {
      // The least recently used of the indexes not open now first; an open one only when all are (it is closed: it answers nothing more).
      const candidates = meta.clients.filter((client) => client.slot !== slot && !open(client));
      const pool = candidates.length ? candidates : meta.clients.filter((client) => client.slot !== slot);
      const oldest = pool.reduce((a, b) => (b.usedAt < a.usedAt ? b : a));
      meta.clients = meta.clients.filter((client) => client !== oldest);
      doomed.push(oldest.slot);
      const oldKey = identityKey({ type: oldest.type as ClientKind, url: oldest.url });
      const closing = this.open_.get(oldKey);
      if (closing) this.closeOpen(oldKey, closing);
    }
    // The meta first: a record is never stored without the meta naming its slot.
    await this.store.writeMeta(meta);
    if (doomed.length) await this.store.deleteSlots(doomed).catch(() => undefined);
    return slot;
  }

  /**
   * IndexedDB has no room: the stored indexes of other clients not open now (clients no longer
   * saved, or not asked for in this lifetime) go; those of the clients in use stay. Returns how many went.
   */
  async dropOthers(slot: number): Promise<number> {
    const meta = await this.readMeta();
    const inUse = new Set(this.open_.keys());
    const doomed = meta.clients.filter((client) => client.slot !== slot && !inUse.has(identityKey({ type: client.type as ClientKind, url: client.url })));
    if (!doomed.length) return 0;
    meta.clients = meta.clients.filter((client) => client.slot === slot);
    await this.store.deleteSlots(doomed.map((client) => client.slot));
    await this.store.writeMeta(meta).catch(() => undefined);
    return doomed.length;
  }

  async recordSync(slot: number | undefined, lastSync: LastSync): Promise<void> {
    if (slot === undefined) return;
    const meta = await this.readMeta();
    const entry = meta.clients.find((client) => client.slot === slot);
    if (!entry) return;
    entry.lastSync = lastSync;
    entry.usedAt = this.now();
    await this.store.writeMeta(meta).catch(() => undefined);
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
  /** Hashes whose record changed (or went) since the last write, with the parts that changed (TORRENT_PART, ANSWERS_PART). */
  private readonly dirty = new Map<string, number>();
  private running: RunningSync | undefined;
  /** Raised by every change of the records (marked dirty or written): a pack made across a change is dropped. */
  private revision = 0;
  private writing = 0;
  private packTimer: ReturnType<typeof setTimeout> | undefined;
  /** What follows the settled writes (the pack, then a compaction) under way. */
  private settling = false;

  constructor(
    private readonly owner: ClientIndexes,
    readonly identity: ClientIdentity,
    private readonly key: string,
    private readonly model: IndexModel,
    private slot: number | undefined,
    private lastSync: LastSync | undefined,
    private storageProblem: 'full' | 'failed' | undefined,
  ) {}

  /** Whether the service has answered for any of its torrents yet (O(1), unlike status()'s counts). */
  anyAnswered(): boolean {
    return !this.closed && this.model.anyAnswered();
  }

  /** A list page's rows from memory. */
  rows(sid: number, rows: readonly RowKey[]): RowsAnswer {
    const matches = this.query(sid, rows);
    return { matches, answered: matches.size > 0 || (!this.closed && this.model.anyAnswered()) };
  }

  /** Bytes the index takes stored (what its bound counts): every record encoded. O(torrents). */
  storedBytes(): number {
    let bytes = 0;
    for (const record of this.model.records.values()) {
      const stored = encodeRecord(this.slot ?? 0, record);
      if (stored) bytes += storedBytes(stored);
    }
    return bytes;
  }

  /** Records an older version kept in storage.local, taken in and written to IndexedDB. */
  async adopt(records: readonly IndexRecord[], lastSync: LastSync | undefined): Promise<void> {
    for (const record of records) {
      this.model.restore(record);
      this.markDirty(record.torrent.hash, BOTH_PARTS);
    }
    await this.flush();
    if (lastSync && !this.storageProblem) {
      this.lastSync = lastSync;
      await this.owner.recordSync(this.slot, lastSync);
    }
  }

  /** The rows of site `sid`'s list page the index knows (keyed by the row's torrent id). No I/O. */
  query(sid: number, rows: readonly RowKey[]): Map<string, RowMatch> {
    if (this.closed) return new Map();
    return this.model.query(sid, rows);
  }

  /** Builds what opportunities() and query() read, in chunks with `pause()` between (IndexModel.prepare): a large index's first build blocks nothing long. */
  async prepare(pause: () => Promise<void> | undefined): Promise<void> {
    if (!this.closed) await this.model.prepare(pause);
  }

  /** What site `sid` offers the client to cross-seed (IndexModel.opportunities); nothing once closed. */
  opportunities(sid: number): Iterable<Opportunity> {
    return this.closed ? [] : this.model.opportunities(sid);
  }

  /** The places sites asked by pieces hash named for this client torrent's content (IndexModel.piecesPlaces). */
  piecesPlaces(hash: string): ReturnType<IndexModel['piecesPlaces']> {
    return this.closed ? [] : this.model.piecesPlaces(hash.toLowerCase());
  }

  /** A site switched off as a pieces-hash source: what it answered goes, stored too. */
  async forgetFound(sid: number): Promise<void> {
    if (this.closed) return;
    for (const hash of this.model.forgetFound(sid)) this.markDirty(hash, ANSWERS_PART);
    await this.flush();
  }

  torrent(hash: string): IndexedTorrent | undefined {
    return this.closed ? undefined : this.model.torrent(hash.toLowerCase());
  }

  /** Every place the index knows (IndexModel.forEachPlace); none once closed. */
  forEachPlace(each: (sid: number, torrentId: number, hash: string, canCrossSeed: boolean) => void): void {
    if (!this.closed) this.model.forEachPlace(each);
  }

  /** Whether the client holds this torrent (by the index). */
  holds(hash: string): boolean {
    return !this.closed && this.model.records.has(hash);
  }

  /** What the service answered for one of the client's torrents (another client's sync may take it). */
  answerOf(hash: string): ServiceAnswer | undefined {
    return this.closed ? undefined : this.model.records.get(hash)?.answer;
  }

  /** Where one of the client's torrents sits, as placing learnt it. */
  locatedOf(hash: string): Located | undefined {
    return this.closed ? undefined : this.model.records.get(hash)?.located;
  }

  /**
   * A torrent just added to the client (a cross-seed), at its place on its site when known: the
   * index knows it holds it from now on, without asking the service; the next sync asks the
   * service about it as about any new torrent.
   */
  async noteAdded(torrent: ClientTorrent, place?: { sid: number; torrentId: number }): Promise<void> {
    if (this.closed || !this.model.hold(torrent, place, this.owner.now())) return;
    this.markDirty(torrent.hash.toLowerCase(), BOTH_PARTS);
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

  /** Every write of the index done: its records, its pack, the storage compacted after them (the options page's status says it; the bench waits for it). */
  get settled(): boolean {
    return this.closed || (!this.dirty.size && !this.writing && !this.running && !this.settling && this.packTimer === undefined);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Deleted (the index was turned off) or replaced by another client's: answers nothing, writes nothing more. */
  close(deleted: boolean): void {
    this.closed = true;
    this.owner.changes++;
    if (this.packTimer !== undefined) clearTimeout(this.packTimer);
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
      bound: { maxBytes: this.owner.env.maxBytes ?? MAX_INDEX_BYTES, bytesOf: bytesOfTorrent } satisfies IndexBound,
      isOpen: () => !this.closed,
      changed: (hashes, what) => {
        for (const hash of hashes) this.markDirty(hash, what === 'client' ? TORRENT_PART : ANSWERS_PART);
        this.revision++;
        this.owner.changes++;
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
      elsewhere: this.owner.elsewhere(this),
    };
    running.promise = syncIndex(target, client, lookup, options).finally(() => {
      if (this.running === running) this.running = undefined;
      if (!this.closed) this.packSoon(true);
    });
    this.running = running;
    return running.promise;
  }

  private markDirty(hash: string, parts: number): void {
    this.dirty.set(hash, (this.dirty.get(hash) ?? 0) | parts);
  }

  /**
   * Writes the records that changed since the last write, and deletes those that went, in one
   * transaction; never throws. With no room, the other clients' indexes go and it is tried once
   * more; still none, and the index stays in memory for this lifetime (the options page says so).
   */
  private async flush(): Promise<void> {
    if (this.dirty.size) this.owner.changes++;
    if (this.closed || this.storageProblem || !this.dirty.size) return;
    const store = this.owner.store;
    try {
      this.slot ??= await this.owner.claimSlot(this.identity, this.key);
    } catch (error) {
      this.storageProblem = isRoomError(error) ? 'full' : 'failed';
      return;
    }
    const slot = this.slot;
    const hashes = [...this.dirty];
    this.dirty.clear();
    this.revision++;
    this.writing++;
    const put: RecordWrite[] = [];
    const remove: string[] = [];
    for (const [hash, parts] of hashes) {
      const record = this.model.records.get(hash);
      const stored = record && encodeRecord(slot, record);
      if (stored) put.push({ record: stored, parts });
      else {
        const packed = packHash(hash);
        if (packed) remove.push(packed);
      }
    }
    try {
      try {
        await store.write(slot, put, remove);
      } catch (error) {
        if (!isRoomError(error) || !(await this.owner.dropOthers(slot).catch(() => 0))) throw error;
        await store.write(slot, put, remove);
      }
      // Turned off while writing: what was just written must not outlive the deletion.
      if (this.deleted) await store.clear();
      else this.packSoon();
    } catch (error) {
      // Kept in memory for this lifetime; the next start reads what was stored and asks for the rest.
      this.storageProblem = isRoomError(error) ? 'full' : 'failed';
      for (const [hash, parts] of hashes) this.markDirty(hash, parts);
    } finally {
      this.writing--;
    }
  }

  /**
   * Once the writes have settled (PACK_AFTER_MS after the last; PACK_SOON_MS when nothing more is
   * coming): a pack of the whole index, then, for an index under COMPACT_BELOW_RECORDS, the storage
   * compacted if much was written since it last was.
   */
  packSoon(soon = false): void {
    if (this.packTimer !== undefined) clearTimeout(this.packTimer);
    this.packTimer = setTimeout(() => {
      this.packTimer = undefined;
      this.settling = true;
      void this.writePack(soon)
        .then(async (written) => {
          if (written !== 'later' && !this.closed && this.model.records.size < COMPACT_BELOW_RECORDS) await this.owner.store.compactAfterWrites();
        })
        .catch(() => undefined)
        .finally(() => (this.settling = false));
    }, this.owner.env.packAfterMs ?? (soon ? PACK_SOON_MS : PACK_AFTER_MS));
  }

  /**
   * Writes the pack: every record encoded, in chunks with the worker given back between them. It
   * is written only if no record changed meanwhile and none waits to be written, so it says
   * exactly what the records say (a change after it deletes it: IndexStore.write). An index of
   * fewer than PACK_MIN_RECORDS has none. 'later': the writes had not settled, it is tried again.
   */
  async writePack(soon = false): Promise<boolean | 'later'> {
    if (this.closed || this.storageProblem || this.slot === undefined) return false;
    if (this.dirty.size || this.writing || this.running) {
      this.packSoon(soon && !this.running);
      return 'later';
    }
    if (this.model.records.size < (this.owner.env.packMinRecords ?? PACK_MIN_RECORDS)) return false;
    const slot = this.slot;
    const revision = this.revision;
    const chunks: string[] = [];
    let chunk: StoredRecord[] = [];
    let count = 0;
    let sliceStart = performance.now();
    for (const record of this.model.records.values()) {
      const stored = encodeRecord(slot, record);
      if (!stored) continue;
      chunk.push(stored);
      count++;
      if (chunk.length === PACK_RECORDS) {
        chunks.push(JSON.stringify(chunk));
        chunk = [];
        if (performance.now() - sliceStart >= LOAD_SLICE_MS) {
          await nextTurn();
          if (this.revision !== revision || this.closed) return false;
          sliceStart = performance.now();
        }
      }
    }
    if (chunk.length) chunks.push(JSON.stringify(chunk));
    if (this.revision !== revision || this.closed || this.dirty.size || this.writing) return false;
    try {
      await this.owner.store.writePack(slot, chunks, count);
      // Turned off while writing: nothing may outlive the deletion.
      if (this.deleted) await this.owner.store.clear();
      return true;
    } catch {
      // No room for it: the next load reads the records, as before packs.
      return false;
    }
  }
}
