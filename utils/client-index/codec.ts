/**
 * How the index is stored: compact, read back strictly. IndexedDB holds one record per torrent
 * (encodeRecord); an older version kept buckets in storage.local, read once to move them
 * (legacy-storage.ts declares those keys):
 *   clientIndex                → IndexMeta (the clients indexed, their slots, the last sync of each)
 *   clientIndex:<slot>:<b>     → one bucket: the records whose hash starts with bucket b's 6 bits
 *                                (b = 0..63), so a batch of answers for hashes in hash order
 *                                rewrites one or two buckets, not the whole index.
 *
 * A bucket is `{v: 1, p: [save paths], t: [rows]}` with one row per client torrent:
 *   [hash, name, save path index, state index, progress in thousandths (floored), size,
 *    answer:  0 | [minute, times, sid, torrentId, hash, sid, torrentId, hash, …],
 *    located: 0 | [minute, sid, torrentId, sid, torrentId, …]]
 * Hashes are 27 characters of base64url instead of 40 of hex; times are minutes since the epoch;
 * save paths are shared within the bucket. What does not read back exactly is dropped: a bad row
 * alone (its torrent is asked again), a bad bucket whole.
 */
import { z } from 'zod';
import { TORRENT_STATES, type TorrentState } from '../clients/client-types';
import { progressInThousandths, type FoundBySite, type IndexRecord, type Member, type Place } from './model';

export const BUCKET_COUNT = 64;
const MINUTE_MS = 60_000;

export function bucketOf(hash: string): number {
  return parseInt(hash.slice(0, 2), 16) >> 2;
}

// --------------------------------------------------------------------------------------------
// 40 hex ⇄ 27 base64url

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;
const HEX = '0123456789abcdef';
const HEX_CODES = Array.from(HEX, (digit) => digit.charCodeAt(0));
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE[HEX.charCodeAt(i)] = i;

// Both build their result from character codes in one step: a string grown character by
// character is a chain of small pieces in V8, ~1 KB a hash, and the index holds tens of thousands.
const packed27 = new Array<number>(27);
const hex40 = new Array<number>(40);

/** 40 lowercase hex → 27 base64url characters; undefined for anything else. */
export function packHash(hex: string): string | undefined {
  if (hex.length !== 40) return undefined;
  let at = 0;
  // Six groups of 24 bits (6 hex → 4 characters), then the last 16 bits (4 hex → 3 characters).
  for (let i = 0; i < 40; i += 6) {
    const digits = Math.min(6, 40 - i);
    let bits = 0;
    for (let j = 0; j < digits; j++) {
      const nibble = NIBBLE[hex.charCodeAt(i + j)] ?? -1;
      if (nibble < 0) return undefined;
      bits = bits * 16 + nibble;
    }
    if (digits === 6) {
      packed27[at++] = ALPHABET.charCodeAt(bits >> 18);
      packed27[at++] = ALPHABET.charCodeAt((bits >> 12) & 63);
      packed27[at++] = ALPHABET.charCodeAt((bits >> 6) & 63);
      packed27[at++] = ALPHABET.charCodeAt(bits & 63);
    } else {
      packed27[at++] = ALPHABET.charCodeAt(bits >> 10);
      packed27[at++] = ALPHABET.charCodeAt((bits >> 4) & 63);
      packed27[at++] = ALPHABET.charCodeAt((bits << 2) & 63);
    }
  }
  return String.fromCharCode.apply(null, packed27);
}

/** 27 base64url characters → 40 lowercase hex; undefined for anything that packHash would not have made. */
export function unpackHash(packed: unknown): string | undefined {
  if (typeof packed !== 'string' || packed.length !== 27) return undefined;
  let at = 0;
  for (let i = 0; i < 27; i += 4) {
    const chars = Math.min(4, 27 - i);
    let bits = 0;
    for (let j = 0; j < chars; j++) {
      const sextet = SEXTET[packed.charCodeAt(i + j)] ?? -1;
      if (sextet < 0) return undefined;
      bits = bits * 64 + sextet;
    }
    if (chars === 4) {
      for (let shift = 20; shift >= 0; shift -= 4) hex40[at++] = HEX_CODES[(bits >> shift) & 15]!;
    } else {
      // 18 bits carry 16: the last 2 must be zero, or this is not a hash we wrote.
      if (bits & 3) return undefined;
      for (let shift = 14; shift >= 2; shift -= 4) hex40[at++] = HEX_CODES[(bits >> shift) & 15]!;
    }
  }
  return String.fromCharCode.apply(null, hex40);
}

// --------------------------------------------------------------------------------------------
// Buckets

type StoredAnswer = 0 | (number | string)[];
type StoredLocated = 0 | number[];
type StoredRow = [string, string, number, number, number, number, StoredAnswer, StoredLocated];

export interface StoredBucket {
  v: 1;
  p: string[];
  t: StoredRow[];
}

/** The envelope of a bucket; rows are read one by one (a bad one dropped alone). */
export const bucketSchema = z.object({ v: z.literal(1), p: z.array(z.string().max(4096)).max(100_000), t: z.array(z.unknown()) });

const minutes = (ms: number) => Math.floor(ms / MINUTE_MS);
const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export function encodeBucket(records: Iterable<IndexRecord>): StoredBucket {
  const paths: string[] = [];
  const pathIndex = new Map<string, number>();
  const rows: StoredRow[] = [];
  for (const { torrent, answer, located } of records) {
    const hash = packHash(torrent.hash);
    if (!hash) continue;
    let path = pathIndex.get(torrent.savePath);
    if (path === undefined) {
      path = paths.push(torrent.savePath) - 1;
      pathIndex.set(torrent.savePath, path);
    }
    let storedAnswer: StoredAnswer = 0;
    if (answer) {
      storedAnswer = [minutes(answer.at), answer.times];
      for (const member of answer.members) {
        const memberHash = packHash(member.hash);
        if (memberHash) storedAnswer.push(member.sid, member.torrentId, memberHash);
      }
    }
    let storedLocated: StoredLocated = 0;
    if (located) {
      storedLocated = [minutes(located.at)];
      for (const place of located.places) storedLocated.push(place.sid, place.torrentId);
    }
    rows.push([
      hash,
      torrent.name,
      path,
      TORRENT_STATES.indexOf(torrent.state),
      progressInThousandths(torrent.progress),
      torrent.size,
      storedAnswer,
      storedLocated,
    ]);
  }
  return { v: 1, p: paths, t: rows };
}

function decodeAnswer(value: unknown): IndexRecord['answer'] | false {
  if (value === 0) return undefined;
  if (!Array.isArray(value) || value.length < 2 || (value.length - 2) % 3 !== 0) return false;
  const [at, times] = value;
  if (!isId(at) || !isId(times) || times < 1) return false;
  const members: Member[] = [];
  for (let i = 2; i < value.length; i += 3) {
    const sid: unknown = value[i];
    const torrentId: unknown = value[i + 1];
    const hash = unpackHash(value[i + 2]);
    if (!isId(sid) || !isId(torrentId) || !hash) return false;
    members.push({ sid, torrentId, hash });
  }
  return { at: at * MINUTE_MS, times, members };
}

function decodeLocated(value: unknown): IndexRecord['located'] | false {
  if (value === 0) return undefined;
  if (!Array.isArray(value) || value.length < 1 || (value.length - 1) % 2 !== 0) return false;
  const [at] = value;
  if (!isId(at)) return false;
  const places: Place[] = [];
  for (let i = 1; i < value.length; i += 2) {
    const sid: unknown = value[i];
    const torrentId: unknown = value[i + 1];
    if (!isId(sid) || !isId(torrentId)) return false;
    places.push({ sid, torrentId });
  }
  return { at: at * MINUTE_MS, places };
}

/**
 * The records of a stored bucket, each checked exactly: a row that does not read back (a foreign
 * value, a hash in the wrong bucket) is left out alone; a value that is not a bucket gives nothing.
 */
export function decodeBucket(value: unknown, bucket: number): { records: IndexRecord[]; dropped: number } | undefined {
  const parsed = bucketSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { p: paths, t: rows } = parsed.data;
  const records: IndexRecord[] = [];
  let dropped = 0;
  for (const row of rows) {
    const record = decodeRow(row, paths, bucket);
    if (record) records.push(record);
    else dropped++;
  }
  return { records, dropped };
}

function decodeRow(row: unknown, paths: readonly string[], bucket: number): IndexRecord | undefined {
  if (!Array.isArray(row) || row.length !== 8) return undefined;
  const [packed, name, path, state, progress, size, storedAnswer, storedLocated] = row as unknown[];
  const hash = unpackHash(packed);
  if (!hash || bucketOf(hash) !== bucket) return undefined;
  if (typeof name !== 'string' || !isId(path) || path >= paths.length) return undefined;
  if (!isId(state) || state >= TORRENT_STATES.length || !isId(progress) || progress > 1000 || !isId(size)) return undefined;
  const answer = decodeAnswer(storedAnswer);
  const located = decodeLocated(storedLocated);
  if (answer === false || located === false) return undefined;
  const record: IndexRecord = {
    torrent: { hash, name, savePath: paths[path]!, state: TORRENT_STATES[state] as TorrentState, progress: progress / 1000, size },
  };
  if (answer) record.answer = answer;
  if (located) record.located = located;
  return record;
}

// --------------------------------------------------------------------------------------------
// The meta key

const lastSyncSchema = z.object({
  at: z.number(),
  /** done: every hash asked; cancelled; failed (with the error's kind). */
  outcome: z.enum(['done', 'cancelled', 'failed']),
  torrents: z.number().int().nonnegative(),
  asked: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  /** Torrents of the client left out: it holds more than the index's bound. */
  leftOut: z.number().int().nonnegative().optional(),
  error: z.string().max(100).optional(),
});
export type LastSync = z.infer<typeof lastSyncSchema>;

const clientEntrySchema = z.object({
  slot: z.number().int().nonnegative().max(1_000_000),
  type: z.string().max(40),
  url: z.string().max(2000),
  usedAt: z.number(),
  lastSync: lastSyncSchema.optional(),
});
export type IndexedClient = z.infer<typeof clientEntrySchema>;

export const indexMetaSchema = z.object({
  v: z.literal(1),
  nextSlot: z.number().int().nonnegative().max(1_000_000),
  clients: z
    .array(z.unknown())
    .transform((entries) => entries.flatMap((entry) => {
      const parsed = clientEntrySchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    })),
});
export type IndexMeta = z.infer<typeof indexMetaSchema>;

// --------------------------------------------------------------------------------------------
// One record in IndexedDB (utils/client-index/store.ts)

/**
 * A client torrent as IndexedDB keeps it, one object per torrent under the key [slot, hash]:
 *   s: the client's slot; h: the hash, 27 characters of base64url;
 *   r: [name, save path, state index, progress in thousandths, size, answer, located(, pieces, found)]
 *      (answer and located as in a bucket's row; the last two only once the torrent's pieces hash
 *      was read: pieces `[pieces hash packed, sid of its tracker's site?]`, found `0 | [sid, minute,
 *      torrent id (0: none), …]`, what the sites asked by pieces hash answered);
 *   k: the places the record names, `slot:sid:torrentId` (its answer's members and its own located
 *      places): a multi-entry index on it finds, for one list row, exactly the records that say
 *      something about it, so a list page is answered without reading the whole index;
 *   a: the slot again, only once the service has answered (an index on it tells "nothing answered
 *      yet" with one key read).
 */
type StoredPieces = 0 | [string] | [string, number];
type StoredFound = 0 | number[];

export interface StoredRecord {
  s: number;
  h: string;
  r: [string, string, number, number, number, StoredAnswer, StoredLocated] | [string, string, number, number, number, StoredAnswer, StoredLocated, StoredPieces, StoredFound];
  k?: string[];
  a?: number;
}

export const placeKey = (slot: number, sid: number, torrentId: number | string) => `${slot}:${sid}:${torrentId}`;

export function encodeRecord(slot: number, { torrent, answer, located, pieces, found }: IndexRecord): StoredRecord | undefined {
  const hash = packHash(torrent.hash);
  if (!hash) return undefined;
  const places = new Set<string>();
  let storedAnswer: StoredAnswer = 0;
  if (answer) {
    storedAnswer = [minutes(answer.at), answer.times];
    for (const member of answer.members) {
      const memberHash = packHash(member.hash);
      if (!memberHash) continue;
      storedAnswer.push(member.sid, member.torrentId, memberHash);
      places.add(placeKey(slot, member.sid, member.torrentId));
    }
  }
  let storedLocated: StoredLocated = 0;
  if (located) {
    storedLocated = [minutes(located.at)];
    for (const place of located.places) {
      storedLocated.push(place.sid, place.torrentId);
      places.add(placeKey(slot, place.sid, place.torrentId));
    }
  }
  const stored: StoredRecord = {
    s: slot,
    h: hash,
    r: [torrent.name, torrent.savePath, TORRENT_STATES.indexOf(torrent.state), progressInThousandths(torrent.progress), torrent.size, storedAnswer, storedLocated],
  };
  const packedPieces = pieces && packHash(pieces.hash);
  if (packedPieces) {
    let storedFound: StoredFound = 0;
    if (found?.length) {
      storedFound = [];
      for (const entry of found) {
        storedFound.push(entry.sid, minutes(entry.at), entry.torrentId);
        if (entry.torrentId) places.add(placeKey(slot, entry.sid, entry.torrentId));
      }
    }
    stored.r.push(pieces.fromSid === undefined ? [packedPieces] : [packedPieces, pieces.fromSid], storedFound);
  }
  if (places.size) stored.k = [...places];
  if (answer || found?.length) stored.a = slot;
  return stored;
}

// --------------------------------------------------------------------------------------------
// A record in two parts (IndexedDB version 3)

/**
 * IndexedDB keeps a record that names no place in two parts under the same key [slot, hash], in two
 * stores (one that names places stays whole: list pages read it by the `place` index, store.ts):
 *   torrents: `{s, h, t: [name, save path, state index, progress in thousandths, size]}`, what the
 *             client says: written when a sync first lists the torrent, and again only when the
 *             client says something else of it;
 *   answers:  `{s, h, r: [answer, located(, pieces, found)], a?}`, what the service and the sites
 *             answered; there only once something was answered.
 * Why: an answer batch rewrote the whole record, 200-character name and save path included, so
 * each torrent's name was written two or three times in a first sync (the listing, its answer, its
 * placing), and Chromium's LevelDB keeps every one of those writes in its log until 4 MB gathered:
 * 3.4 KB a torrent on disk at 1,000 torrents. An answer that names no place now writes only its
 * small part. The pack and the decoder keep the joined shape (StoredRecord).
 */
export interface StoredTorrentPart {
  s: number;
  h: string;
  t: [string, string, number, number, number];
}

export interface StoredAnswersPart {
  s: number;
  h: string;
  r: [StoredAnswer, StoredLocated] | [StoredAnswer, StoredLocated, StoredPieces, StoredFound];
  a?: number;
}

/** The two parts of a record that names no place (one that names places is kept whole); `answers` undefined while nothing is answered of it. */
export function splitRecord(stored: StoredRecord): { torrent: StoredTorrentPart; answers?: StoredAnswersPart } {
  const [name, savePath, state, progress, size, answer, located, ...pieces] = stored.r;
  const torrent: StoredTorrentPart = { s: stored.s, h: stored.h, t: [name, savePath, state, progress, size] };
  if (answer === 0 && located === 0 && !pieces.length) return { torrent };
  const answers: StoredAnswersPart = { s: stored.s, h: stored.h, r: pieces.length === 2 ? [answer, located, pieces[0]!, pieces[1]!] : [answer, located] };
  if (stored.a !== undefined) answers.a = stored.a;
  return { torrent, answers };
}

/**
 * The joined record of two stored parts (as decodeRecord reads it), or undefined when the torrent
 * part is not one: what the answers part holds is checked by decodeRecord, as before the split.
 * A value of version 2 (the whole record in the torrents store) is given back as it is.
 */
export function joinParts(torrent: unknown, answers: unknown): unknown {
  if (!torrent || typeof torrent !== 'object') return undefined;
  const { s, h, t, r } = torrent as Partial<StoredTorrentPart> & { r?: unknown };
  if (r !== undefined) return torrent;
  if (!Array.isArray(t) || t.length !== 5) return undefined;
  const part = (answers && typeof answers === 'object' ? answers : {}) as Partial<StoredAnswersPart>;
  if (answers !== undefined && (part.s !== s || part.h !== h || !Array.isArray(part.r))) return undefined;
  const joined: Record<string, unknown> = { s, h, r: [...t, ...(part.r ?? [0, 0])] };
  if (part.a !== undefined) joined.a = part.a;
  return joined;
}

// --------------------------------------------------------------------------------------------
// Names and save paths in IndexedDB

const UTF8 = new TextEncoder();
const FROM_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A character beyond Latin-1: such a string is two bytes a character in the browsers' stores. */
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * A torrent's name or save path as IndexedDB keeps it: a string of Latin-1 characters as it is
 * (both engines store those one byte a character), any other as its UTF-8 bytes. Why: both engines
 * keep a string with one character beyond Latin-1 (a Chinese title) two bytes a character, and
 * Firefox's SQLite gets no compression out of that (snappy finds no repeats in UTF-16): a
 * 200-character name of Chinese and Latin took 400 bytes of a torrent's 540, where its UTF-8 takes
 * about 260. Only the records are stored so (the pack stays JSON text); what reads them takes both.
 */
export function textForStorage(text: string): string | Uint8Array {
  return BEYOND_LATIN1.test(text) ? UTF8.encode(text) : text;
}

/** A name or save path as stored (textForStorage), or undefined for anything else (bytes that are no UTF-8 included). */
export function textFromStorage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!(value instanceof Uint8Array)) return undefined;
  try {
    return FROM_UTF8.decode(value);
  } catch {
    return undefined;
  }
}

/** The record (or torrent part) as IndexedDB keeps it: its name and save path by textForStorage. */
export function forStorage<T extends { r: unknown[] } | { t: unknown[] }>(value: T): T {
  const fields = 'r' in value ? value.r : value.t;
  const [name, savePath, ...rest] = fields as [string, string, ...unknown[]];
  const stored = [textForStorage(name), textForStorage(savePath), ...rest];
  return ('r' in value ? { ...value, r: stored } : { ...value, t: stored }) as T;
}

/** A stored record read back exactly, or undefined (a foreign value, another slot's, a bad field: its torrent is asked again). */
export function decodeRecord(value: unknown, slot: number): IndexRecord | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { s, h, r } = value as Partial<StoredRecord>;
  if (s !== slot || !Array.isArray(r) || (r.length !== 7 && r.length !== 9)) return undefined;
  const hash = unpackHash(h);
  const [storedName, storedSavePath, state, progress, size, storedAnswer, storedLocated, storedPieces, storedFound] = r as unknown[];
  const name = textFromStorage(storedName);
  const savePath = textFromStorage(storedSavePath);
  if (!hash || name === undefined || savePath === undefined || savePath.length > 4096) return undefined;
  if (!isId(state) || state >= TORRENT_STATES.length || !isId(progress) || progress > 1000 || !isId(size)) return undefined;
  const answer = decodeAnswer(storedAnswer);
  const located = decodeLocated(storedLocated);
  if (answer === false || located === false) return undefined;
  const record: IndexRecord = { torrent: { hash, name, savePath, state: TORRENT_STATES[state] as TorrentState, progress: progress / 1000, size } };
  if (answer) record.answer = answer;
  if (located) record.located = located;
  if (r.length === 9) {
    const pieces = decodePieces(storedPieces);
    const found = decodeFound(storedFound);
    if (!pieces || found === false) return undefined;
    record.pieces = pieces;
    if (found) record.found = found;
  }
  return record;
}

function decodePieces(value: unknown): IndexRecord['pieces'] | undefined {
  if (!Array.isArray(value) || value.length < 1 || value.length > 2) return undefined;
  const hash = unpackHash(value[0]);
  if (!hash) return undefined;
  if (value.length === 1) return { hash };
  return isId(value[1]) ? { hash, fromSid: value[1] } : undefined;
}

function decodeFound(value: unknown): IndexRecord['found'] | false {
  if (value === 0) return undefined;
  if (!Array.isArray(value) || !value.length || value.length % 3 !== 0) return false;
  const found: FoundBySite[] = [];
  for (let i = 0; i < value.length; i += 3) {
    const [sid, at, torrentId] = [value[i], value[i + 1], value[i + 2]];
    if (!isId(sid) || !isId(at) || !isId(torrentId) || found.some((entry) => entry.sid === sid)) return false;
    found.push({ sid, at: at * MINUTE_MS, torrentId });
  }
  return found;
}

/** UTF-8 bytes of a string, without allocating its encoding. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) i++; // a surrogate pair: 4 bytes for 2 units
    else bytes += 2;
  }
  return bytes;
}

/**
 * What a stored record costs, in bytes: its JSON in UTF-8 plus its key and the index entries made
 * for it (what the bound of the index counts; the browser's own overhead per record is about the same
 * for every record, so the bound grows with the index linearly).
 */
export function storedBytes(stored: StoredRecord): number {
  const json = utf8Length(JSON.stringify(stored));
  const key = 8 + stored.h.length;
  const places = (stored.k ?? []).reduce((sum, place) => sum + place.length + key, 0);
  return json + key + places + (stored.a === undefined ? 0 : key + 8);
}
