/**
 * What the client-index tests share: the reference service with groups made for the client's
 * hashes, a Lookup on it as the background builds one, and counting what reached the service.
 */
import { createHash } from 'node:crypto';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ClientIndexes, IndexStore, type ClientIdentity, type ClientIndexEnvironment } from '../../../utils/client-index/indexes-by-client.ts';
import { unpackHash } from '../../../utils/client-index/codec';
import { DATABASE_NAME } from '../../../utils/client-index/store';
import { Lookup } from '../../../utils/lookup/lookup';
import { DEFAULT_SETTINGS, type Settings } from '../../../utils/settings';
import { DEMO_TOKEN, loadReferenceData, startReferenceService, type ReferenceOptions, type ReferenceService } from '../../service/server';
import { grantOrigin } from '../support/permissions';

/** Site short names and ids in test/service/sites.json. */
export const SITES = { keepfrds: 1, pthome: 2, 'm-team': 3, hdsky: 4, tjupt: 5, pterclub: 6, hdhome: 7, btschool: 8 } as const;
export type SiteName = keyof typeof SITES;

/** A deterministic info-hash for a label. */
export const hashOf = (label: string) => createHash('sha1').update(label).digest('hex');

export interface GroupMember {
  site: SiteName;
  torrent_id: number;
  info_hash: string;
}

/** The reference service answering for exactly these groups (same content on several sites). */
export function startServiceWith(groups: GroupMember[][], options: ReferenceOptions = {}): Promise<ReferenceService> {
  const data = { ...loadReferenceData(), torrents: groups.map((members, index) => ({ title: `group ${index}`, members })) };
  return startReferenceService({ ...options, data });
}

export interface World {
  settings: Settings;
  lookup: Lookup;
  indexes: ClientIndexes;
}

/** A background's parts as app.ts wires them: settings, the Lookup, the client indexes. */
export function makeWorld(service: ReferenceService, environment: Partial<ClientIndexEnvironment> = {}, settings: Partial<Settings> = {}): World {
  // The user saved this (loopback) address in the options page, which granted its origin.
  grantOrigin(service.url);
  const world = {
    settings: { ...DEFAULT_SETTINGS, baseUrl: service.url, token: DEMO_TOKEN, clientIndexEnabled: true, ...settings },
  } as World;
  world.lookup = new Lookup({
    settings: async () => world.settings,
    sitesToReport: async () => Object.values(SITES),
    retryDelaysMs: [10, 20],
  });
  world.indexes = new ClientIndexes({ settings: async () => world.settings, ...environment });
  return world;
}

/** The same storage, a new background lifetime (the service worker restarted). */
export function restart(world: World, environment: Partial<ClientIndexEnvironment> = {}): World {
  const next = { settings: world.settings } as World;
  next.lookup = new Lookup({ settings: async () => next.settings, sitesToReport: async () => Object.values(SITES), retryDelaysMs: [10, 20] });
  next.indexes = new ClientIndexes({ settings: async () => next.settings, ...environment });
  return next;
}

/** The hashes each list lookup the service received carried, in order. */
export function lookupsSeen(service: ReferenceService, since = 0): string[][] {
  return service.requests
    .slice(since)
    .filter((request) => request.path === '/reseed/index/index')
    .map((request) => JSON.parse(new URLSearchParams(request.body).get('hash') ?? '[]') as string[]);
}

/**
 * Keys stored under a prefix in storage.local; for the index ('clientIndex'), also what it keeps in
 * IndexedDB, named alike: 'clientIndex' for its meta, 'clientIndex:<slot>:<hash>' for a torrent.
 */
export async function storedKeys(prefix = 'clientIndex'): Promise<string[]> {
  const local = Object.keys(await fakeBrowser.storage.local.get(null)).filter((key) => key === prefix || key.startsWith(`${prefix}:`));
  if (prefix !== 'clientIndex') return local;
  const store = new IndexStore();
  const indexed = (await store.readMeta()) === undefined ? [] : ['clientIndex'];
  for (const [slot, packed] of await store.keys()) indexed.push(`clientIndex:${slot}:${unpackHash(packed)}`);
  return [...local, ...indexed];
}

/** The hash a stored key names ('clientIndex:<slot>:<hash>'). */
export const hashOfKey = (key: string) => key.split(':')[2]!;

/** The object stores that hold the index's records: a record's torrent part and its answers part (utils/client-index/store.ts). */
export const INDEX_RECORD_STORES = ['torrents', 'answers'];

/** Puts a value as it is into one of the index's stores (a value no version of the extension writes). */
export async function putRawValue(storeName: string, value: unknown): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(DATABASE_NAME);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(storeName, 'readwrite');
      tx.objectStore(storeName).put(value);
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * IndexedDB with no room (a full disk, or the browser's quota spent): every write to the index's
 * torrents is refused as Chromium refuses it, with a QuotaExceededError. Returns the undo.
 */
export function refuseIndexWrites(): () => void {
  const prototype = IDBObjectStore.prototype;
  const put = prototype.put;
  prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    if (INDEX_RECORD_STORES.includes(this.name)) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    return put.apply(this, args);
  };
  return () => {
    prototype.put = put;
  };
}

/** Every record written to (or deleted from) the index's IndexedDB from now on, by hash, and by store (`torrents` or `answers`: which part). Returns them and the undo. */
export function recordIndexWrites(): { written: string[]; byStore: Map<string, string[]>; undo: () => void } {
  const written: string[] = [];
  const byStore = new Map<string, string[]>(INDEX_RECORD_STORES.map((name) => [name, []]));
  const note = (store: string, hash: string) => {
    written.push(hash);
    byStore.get(store)!.push(hash);
  };
  const prototype = IDBObjectStore.prototype;
  const { put, delete: remove } = prototype;
  prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    if (INDEX_RECORD_STORES.includes(this.name)) note(this.name, unpackHash((args[0] as { h: string }).h)!);
    return put.apply(this, args);
  };
  prototype.delete = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['delete']>) {
    const key = args[0];
    if (INDEX_RECORD_STORES.includes(this.name) && Array.isArray(key)) note(this.name, unpackHash(key[1])!);
    return remove.apply(this, args);
  };
  return {
    written,
    byStore,
    undo: () => {
      prototype.put = put;
      prototype.delete = remove;
    },
  };
}

export const QBITTORRENT: ClientIdentity = { type: 'qbittorrent', url: 'http://127.0.0.1:8080' };
export const TRANSMISSION: ClientIdentity = { type: 'transmission', url: 'http://127.0.0.1:9091/transmission/rpc' };

/** storage.local with Chromium's behaviour when full: the write is refused whole, with its quota message. */
export function limitStorage(quotaBytes: number): () => void {
  const local = fakeBrowser.storage.local;
  const original = local.set;
  const set = original.bind(local);
  local.set = async (items: Record<string, unknown>) => {
    const after = { ...(await local.get(null)), ...items };
    if (JSON.stringify(after).length > quotaBytes) throw new Error('Resource::kQuotaBytes quota exceeded');
    await set(items);
  };
  return () => {
    local.set = original;
  };
}

/**
 * Removes torrents from a real daemon (keeping their files), through its own API: the library has
 * no remove, and the index must see torrents go as a user's client does.
 */
export async function removeFromDaemon(daemon: { kind: string; url: string; username: string; password: string }, fetch: typeof globalThis.fetch, hashes: string[]): Promise<void> {
  if (daemon.kind === 'qbittorrent') {
    // The session the library's client logged in with (same cookie jar and Origin).
    const response = await fetch(`${daemon.url}/api/v2/torrents/delete`, {
      method: 'POST',
      body: new URLSearchParams({ hashes: hashes.join('|'), deleteFiles: 'false' }),
    });
    if (!response.ok) throw new Error(`qBittorrent delete: HTTP ${response.status}`);
    return;
  }
  if (daemon.kind === 'transmission') {
    const url = `${daemon.url}/transmission/rpc`;
    const headers: Record<string, string> = {
      Authorization: `Basic ${Buffer.from(`${daemon.username}:${daemon.password}`).toString('base64')}`,
      'Content-Type': 'application/json',
    };
    const body = JSON.stringify({ method: 'torrent-remove', arguments: { ids: hashes, 'delete-local-data': false } });
    let response = await globalThis.fetch(url, { method: 'POST', headers, body });
    if (response.status === 409) {
      headers['X-Transmission-Session-Id'] = response.headers.get('X-Transmission-Session-Id') ?? '';
      response = await globalThis.fetch(url, { method: 'POST', headers, body });
    }
    const answer = (await response.json()) as { result?: string };
    if (answer.result !== 'success') throw new Error(`Transmission torrent-remove: ${answer.result}`);
    return;
  }
  throw new Error(`no remove for ${daemon.kind}`);
}
