/**
 * The index of the user's client, in memory: every torrent the client holds and what the lookup
 * service answered for it, turned into "which torrent on which site is this content".
 *
 * What the service gives (spec 4.1): for a queried hash h, the torrents carrying the same content
 * on the OTHER sites, `[{sid, torrent_id, info_hash}]` — the group of h without h's own entry. So
 * from the answers to the client's own hashes:
 * - a member whose info_hash the client holds is a torrent in the client, at (sid, torrent id);
 * - any other member can be cross-seeded from h (and from every other client hash of that group),
 *   provided that client torrent is complete;
 * - h's own place (its site and torrent id) is named only in the answer for ANOTHER member of its
 *   group. When the client holds two members of a group each answer names the other; when it holds
 *   one, the sync asks the service for one of its candidates' hashes to learn it ("locate").
 *
 * Everything here is plain data and Maps: no browser, no storage, no service.
 */
import type { ClientTorrent, TorrentState } from '../clients/client-types';
import type { Candidate } from '../iyuu/answer-schemas';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * When an answer is asked again, by how many times it has been asked without changing: copies of
 * new content appear on other sites within days of its release, old content gains few. So a new
 * torrent is asked again after a day, then a week, then every four weeks; an answer that changed
 * starts over.
 */
export const RECHECK_AFTER_MS = [1 * DAY_MS, 7 * DAY_MS, 28 * DAY_MS] as const;
/** A client torrent whose place the service did not name when asked is asked about again after this. */
export const LOCATE_AGAIN_AFTER_MS = 28 * DAY_MS;

/** A client torrent as the index keeps it: what the popup lists and the cross-seed starts from. */
export interface IndexedTorrent {
  /** v1 info-hash, 40 lowercase hex. */
  hash: string;
  name: string;
  savePath: string;
  state: TorrentState;
  /** 0..1 */
  progress: number;
  size: number;
}

/** A torrent on a site. */
export interface Place {
  sid: number;
  torrentId: number;
}

/** One candidate of an answer: a torrent on a site, with its info-hash there. */
export interface Member extends Place {
  hash: string;
}

/** What the service answered for one client hash. */
export interface ServiceAnswer {
  /** When (epoch ms). */
  at: number;
  /** How many times in a row it was asked and answered the same (1 after a change). */
  times: number;
  members: Member[];
}

/** Where the client torrent itself sits, as learned by asking for one of its candidates. */
export interface Located {
  /** When it was last asked (epoch ms). */
  at: number;
  places: Place[];
}

/**
 * The torrent's pieces hash (SHA-1 of its raw `info.pieces`), read once from the client (qBittorrent
 * only: the others give no piece hashes over their APIs), and the site its tracker belongs to, when
 * the catalog knows the tracker's host: that site is never asked about it (the torrent is its own).
 */
export interface PiecesOf {
  /** 40 lowercase hex. */
  hash: string;
  fromSid?: number;
}

/** What a site asked by pieces hash answered about this content: when, and its torrent id there (0: none). */
export interface FoundBySite {
  sid: number;
  at: number;
  torrentId: number;
}

export interface IndexRecord {
  torrent: IndexedTorrent;
  answer?: ServiceAnswer;
  located?: Located;
  pieces?: PiecesOf;
  /** The answers of the sites asked by pieces hash (one per site), for this torrent's pieces hash. */
  found?: FoundBySite[];
}

/** Where a place was found: by the lookup service (IYUU), by a site's pieces-hash API, or both. */
export type FoundBy = 'iyuu' | 'pieces' | 'both';

/** A site's pieces-hash answer counts for this long; then it is asked again. */
export const PIECES_ANSWER_MAX_AGE_MS = 7 * DAY_MS;

export type RowKind = 'in-client' | 'can-cross-seed';

export interface RowMatch {
  /** in-client: this very torrent is in the client; can-cross-seed: the client holds its content from another site. */
  kind: RowKind;
  /** in-client: the torrent itself; can-cross-seed: the complete client torrent to cross-seed from. */
  clientTorrent: IndexedTorrent;
  /**
   * The info-hash of the row's torrent on this site (what its .torrent must hash to); '' when only a
   * site's pieces-hash API named the place (its info-hash is learnt from its .torrent, which must
   * then have `candidatePieces`).
   */
  candidateHash: string;
  /** The pieces hash its .torrent must have, when the place was found by pieces hash. */
  candidatePieces?: string;
  /** Who named the place (absent: the row shows its own hash, which the client holds). */
  foundBy?: FoundBy;
}

/** A torrent on a site the client can cross-seed (IndexModel.opportunities). */
export interface Opportunity {
  torrentId: number;
  /** Its info-hash there; '' when only a pieces-hash answer named it. */
  hash: string;
  /** With hash '': the pieces hash its .torrent must carry. */
  piecesHash?: string;
  source: IndexedTorrent;
  foundBy: FoundBy;
}

/** A list row as the engines give it (ListRow: id digits, hash when the row shows one), or just its id. */
export type RowKey = string | number | { id: string | number; hash?: string };

interface SiteEntry {
  /** The info-hash of the torrent at this place; '' while only a pieces-hash answer named it. */
  hash: string;
  /** The pieces hash a site's pieces-hash API answered this place for. */
  pieces?: string;
  /** Bit 1: the service named it; bit 2: a pieces-hash answer did. */
  by: number;
  /** The client hashes holding its content (shared with other entries until one needs its own). */
  sources?: string[];
  ownSources?: boolean;
}

/** States in which the data may not be where the client says, or not whole: never a cross-seed source. */
const UNUSABLE_STATES: ReadonlySet<TorrentState> = new Set(['missing', 'error', 'moving', 'checking']);

/** Whether a client torrent can give its data to a cross-seed: complete and in a state that vouches for its files. */
export function usableSource(torrent: IndexedTorrent): boolean {
  return torrent.progress >= 1 && !UNUSABLE_STATES.has(torrent.state);
}

/**
 * Progress kept in thousandths, as storage keeps it, so what a restart reads back is what memory
 * held, and a download's every byte does not count as a change; only a complete torrent is 1.
 */
export function progressInThousandths(progress: number): number {
  if (!(progress > 0)) return 0;
  if (progress >= 1) return 1000;
  return Math.min(999, Math.floor(progress * 1000 + 1e-9));
}

/** What the index keeps of a client's torrent (its hash lowercased, progress to a thousandth). */
function indexedTorrent(source: ClientTorrent): IndexedTorrent {
  return {
    hash: source.hash.toLowerCase(),
    name: source.name,
    savePath: source.savePath,
    state: source.state,
    progress: progressInThousandths(source.progress) / 1000,
    size: source.size,
  };
}

function sameTorrent(a: IndexedTorrent, b: IndexedTorrent): boolean {
  return a.name === b.name && a.savePath === b.savePath && a.state === b.state && a.progress === b.progress && a.size === b.size;
}

function sameMembers(a: readonly Member[], b: readonly Member[]): boolean {
  if (a.length !== b.length) return false;
  const key = (m: Member) => `${m.sid}:${m.torrentId}:${m.hash}`;
  const seen = new Set(a.map(key));
  return b.every((m) => seen.has(key(m)));
}

/** Candidates as members: one per place (the service may repeat one). */
export function membersOf(candidates: readonly Candidate[]): Member[] {
  const seen = new Set<string>();
  const members: Member[] = [];
  for (const candidate of candidates) {
    const key = `${candidate.sid}:${candidate.torrent_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    members.push({ sid: candidate.sid, torrentId: candidate.torrent_id, hash: candidate.info_hash.toLowerCase() });
  }
  return members;
}

export interface ListChange {
  added: string[];
  removed: string[];
  /** Hashes whose record changed (added, or name, path, state, progress or size). */
  changed: string[];
  /** Torrents of the client left out of the index because it holds more than the bound. */
  leftOut: number;
}

/**
 * The index's bound, in bytes of storage: what a torrent would take stored (`bytesOf`, given its
 * record when it has one, with its answer) summed, at most `maxBytes`. Bytes, not a count: a client
 * of short names holds more torrents in the same room than one of long names.
 */
export interface IndexBound {
  maxBytes: number;
  bytesOf(torrent: IndexedTorrent, record: IndexRecord | undefined): number;
}

/** No bound (tests of the model alone). */
export const UNBOUNDED: IndexBound = { maxBytes: Infinity, bytesOf: () => 0 };

export class IndexModel {
  readonly records = new Map<string, IndexRecord>();
  /** (sid → torrent id → entry), derived from the records; rebuilt when a record's answer or presence changed. */
  private sites: Map<number, Map<number, SiteEntry>> | undefined;
  /** Client hashes whose own place is known (derived with `sites`). */
  private placed = new Set<string>();
  /** Counts the times `sites` was dropped: a build in chunks (prepare) that saw it change starts over. */
  private generation = 0;

  /** The records' answers or presence changed: the derived map is rebuilt on the next query. */
  private invalidate(): void {
    this.sites = undefined;
    this.generation++;
  }

  get size(): number {
    return this.records.size;
  }

  torrent(hash: string): IndexedTorrent | undefined {
    return this.records.get(hash)?.torrent;
  }

  /** Puts a stored record back (loading); the derived map is rebuilt on the next query. */
  restore(record: IndexRecord): void {
    this.records.set(record.torrent.hash, record);
    this.invalidate();
  }

  /**
   * Makes the records the client's list: new torrents added (not answered yet), gone ones removed
   * with their answers, the rest updated. Past the bound (bytes) the complete ones are kept first
   * (they are what a cross-seed starts from), then by hash, so the same ones are kept every time;
   * the first that does not fit ends the list.
   */
  applyClientList(list: readonly ClientTorrent[], bound: IndexBound): ListChange {
    const unique = new Map<string, ClientTorrent>();
    for (const torrent of list) unique.set(torrent.hash.toLowerCase(), torrent);
    const candidates = [...unique.values()].map(indexedTorrent);
    let kept = candidates;
    let bytes = 0;
    for (const torrent of candidates) bytes += bound.bytesOf(torrent, this.records.get(torrent.hash));
    let leftOut = 0;
    if (bytes > bound.maxBytes) {
      const rank = (torrent: IndexedTorrent) => (torrent.progress >= 1 ? 0 : 1);
      kept = [...candidates].sort((a, b) => rank(a) - rank(b) || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
      let room = bound.maxBytes;
      let fits = 0;
      for (; fits < kept.length; fits++) {
        room -= bound.bytesOf(kept[fits]!, this.records.get(kept[fits]!.hash));
        if (room < 0) break;
      }
      leftOut = kept.length - fits;
      kept = kept.slice(0, fits);
    }
    const change: ListChange = { added: [], removed: [], changed: [], leftOut };
    const present = new Set<string>();
    for (const torrent of kept) {
      const hash = torrent.hash;
      present.add(hash);
      const record = this.records.get(hash);
      if (!record) {
        this.records.set(hash, { torrent });
        change.added.push(hash);
        change.changed.push(hash);
      } else if (!sameTorrent(record.torrent, torrent)) {
        record.torrent = torrent;
        change.changed.push(hash);
      }
    }
    for (const hash of this.records.keys()) {
      if (!present.has(hash)) change.removed.push(hash);
    }
    for (const hash of change.removed) this.records.delete(hash);
    if (change.added.length || change.removed.length) this.invalidate();
    return change;
  }

  /**
   * One torrent the client now holds (a cross-seed just added): recorded as not answered yet, so a
   * list row whose torrent has this hash reads "in the client" at once, with no request; the next
   * sync asks the service about it as about any new torrent. `place`: where it is on its site (the
   * candidate it was added as), noted as its own place, so a place a pieces-hash answer named (whose
   * info-hash was not known) reads "in the client" too. False when nothing changed.
   */
  hold(source: ClientTorrent, place?: Place, at = 0): boolean {
    const hash = source.hash.toLowerCase();
    let record = this.records.get(hash);
    let changed = false;
    if (!record) {
      this.records.set(hash, (record = { torrent: indexedTorrent(source) }));
      changed = true;
    }
    if (place && !record.located?.places.some((known) => known.sid === place.sid && known.torrentId === place.torrentId)) {
      record.located = { at: record.located?.at ?? at, places: [...(record.located?.places ?? []), { sid: place.sid, torrentId: place.torrentId }] };
      changed = true;
    }
    if (changed) this.invalidate();
    return changed;
  }

  /**
   * Which client hashes to ask the service: those never answered (in hash order, so one batch
   * touches few storage buckets), then answers due again (oldest first, at most `maxRecheck`).
   */
  toAsk(now: number, maxRecheck: number): { fresh: string[]; due: string[] } {
    const fresh: string[] = [];
    const due: [string, number][] = [];
    for (const [hash, record] of this.records) {
      const answer = record.answer;
      if (!answer) fresh.push(hash);
      else {
        const wait = RECHECK_AFTER_MS[Math.min(Math.max(answer.times, 1), RECHECK_AFTER_MS.length) - 1]!;
        // An answer dated in the future (the clock was changed) is due too.
        if (now - answer.at >= wait || answer.at > now + DAY_MS) due.push([hash, answer.at]);
      }
    }
    fresh.sort();
    due.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    return { fresh, due: due.slice(0, Math.max(0, maxRecheck)).map(([hash]) => hash) };
  }

  /**
   * Whether an answer still counts (toAsk's rule): asked again only once its wait is over, or when
   * it is dated in the future (the clock was changed).
   */
  static answerFresh(answer: ServiceAnswer | undefined, now: number): answer is ServiceAnswer {
    if (!answer) return false;
    const wait = RECHECK_AFTER_MS[Math.min(Math.max(answer.times, 1), RECHECK_AFTER_MS.length) - 1]!;
    return now - answer.at < wait && answer.at <= now + DAY_MS;
  }

  /** Whether a torrent's own place was asked about recently enough not to ask again (toLocate's rule). */
  static locatedFresh(located: Located | undefined, now: number): located is Located {
    return !!located && now - located.at < LOCATE_AGAIN_AFTER_MS && located.at <= now + DAY_MS;
  }

  /**
   * Another client's index answered for the same torrent (many users hold one torrent in two
   * clients): its answer is taken as it is, with its date and count, so it is asked again when it
   * would have been. False when the torrent is not held here or nothing changed.
   */
  adoptAnswer(hash: string, answer: ServiceAnswer): boolean {
    const record = this.records.get(hash);
    if (!record) return false;
    const previous = record.answer;
    if (previous && previous.at === answer.at && previous.times === answer.times && sameMembers(previous.members, answer.members)) return false;
    const same = previous !== undefined && sameMembers(previous.members, answer.members);
    record.answer = { at: answer.at, times: answer.times, members: answer.members.map((member) => ({ ...member })) };
    if (!same) this.invalidate();
    return true;
  }

  /** Another client's index learnt where this torrent sits (placing): taken as it is. False when nothing changed. */
  adoptLocated(hash: string, located: Located): boolean {
    const record = this.records.get(hash);
    if (!record) return false;
    const known = record.located;
    const places = [...(known?.places ?? [])];
    for (const place of located.places) if (!places.some((other) => other.sid === place.sid && other.torrentId === place.torrentId)) places.push({ sid: place.sid, torrentId: place.torrentId });
    if (known && known.at >= located.at && places.length === known.places.length) return false;
    record.located = { at: Math.max(known?.at ?? 0, located.at), places };
    if (places.length !== (known?.places.length ?? 0)) this.invalidate();
    return true;
  }

  /** Records the service's answers for client hashes; returns the hashes whose record changed. */
  applyAnswers(answers: ReadonlyMap<string, readonly Candidate[]>, at: number): string[] {
    const changed: string[] = [];
    for (const [hash, candidates] of answers) {
      const record = this.records.get(hash);
      if (!record) continue;
      const members = membersOf(candidates);
      const previous = record.answer;
      const same = previous !== undefined && sameMembers(previous.members, members);
      record.answer = { at, times: same ? Math.min(previous.times + 1, 99) : 1, members };
      changed.push(hash);
      if (!same) this.invalidate();
    }
    return changed;
  }

  /**
   * Client torrents whose own place is unknown though their content is on other sites: for each,
   * one candidate's hash to ask the service (its answer names every other member, this one too).
   * Keyed by the hash to ask; the values are the client hashes it should place.
   */
  toLocate(now: number): Map<string, string[]> {
    this.siteMap();
    const asks = new Map<string, string[]>();
    for (const [hash, record] of this.records) {
      const members = record.answer?.members;
      if (!members?.length || this.placed.has(hash)) continue;
      if (record.located && now - record.located.at < LOCATE_AGAIN_AFTER_MS && record.located.at <= now + DAY_MS) continue;
      const ask = members.find((member) => !this.records.has(member.hash));
      if (!ask) continue;
      const placing = asks.get(ask.hash);
      if (placing) placing.push(hash);
      else asks.set(ask.hash, [hash]);
    }
    return asks;
  }

  /**
   * Records what the answers for candidates' hashes said about the client's torrents: every member
   * the client holds gets its place; every client hash asked about is marked asked (placed or not).
   */
  applyLocated(asked: ReadonlyMap<string, readonly string[]>, answers: ReadonlyMap<string, readonly Candidate[]>, at: number): string[] {
    const changed = new Set<string>();
    for (const [candidateHash, candidates] of answers) {
      for (const member of membersOf(candidates)) {
        const record = this.records.get(member.hash);
        if (!record) continue;
        const located = (record.located ??= { at, places: [] });
        if (!located.places.some((place) => place.sid === member.sid && place.torrentId === member.torrentId)) {
          located.places.push({ sid: member.sid, torrentId: member.torrentId });
          this.invalidate();
        }
        changed.add(member.hash);
      }
      for (const hash of asked.get(candidateHash) ?? []) {
        const record = this.records.get(hash);
        if (!record) continue;
        record.located = { at, places: record.located?.places ?? [] };
        changed.add(hash);
      }
    }
    return [...changed];
  }

  /**
   * The rows of one site's list page that the index knows: in the client, or cross-seedable from
   * a complete client torrent. O(rows); no I/O. A row that shows its own hash is judged by that
   * hash (the page is the authority on its own torrent).
   */
  query(sid: number, rows: readonly RowKey[]): Map<string, RowMatch> {
    const site = this.siteMap().get(sid);
    const found = new Map<string, RowMatch>();
    for (const row of rows) {
      const id = typeof row === 'object' ? row.id : row;
      const rowHash = typeof row === 'object' && row.hash ? row.hash.toLowerCase() : undefined;
      let entry = site?.get(typeof id === 'number' ? id : Number(id));
      if (rowHash && entry?.hash && entry.hash !== rowHash) entry = undefined;
      const candidateHash = rowHash ?? entry?.hash ?? '';
      if (!candidateHash && !entry?.pieces) continue;
      const key = String(id);
      const by = entry ? foundByOf(entry.by) : undefined;
      const held = candidateHash ? this.records.get(candidateHash) : undefined;
      if (held) {
        found.set(key, { kind: 'in-client', clientTorrent: held.torrent, candidateHash, ...(by && { foundBy: by }) });
        continue;
      }
      const source = entry?.sources && this.bestSource(entry.sources);
      if (source) {
        found.set(key, {
          kind: 'can-cross-seed',
          clientTorrent: source,
          candidateHash,
          ...(entry?.pieces && !candidateHash && { candidatePieces: entry.pieces }),
          ...(by && { foundBy: by }),
        });
      }
    }
    return found;
  }

  /**
   * Every torrent on site `sid` the client can cross-seed: the client does not hold it, and a
   * complete client torrent holds its content (the same rule as a list row's "can cross-seed").
   * Lazy, so a caller can yield between chunks of a large index. `hash` is '' for a place only a
   * pieces-hash answer named (`piecesHash` then says what its .torrent must carry).
   */
  *opportunities(sid: number): Generator<Opportunity> {
    const site = this.siteMap().get(sid);
    if (!site) return;
    for (const [torrentId, entry] of site) {
      if (entry.hash && this.records.has(entry.hash)) continue;
      const source = entry.sources && this.bestSource(entry.sources);
      if (!source) continue;
      const foundBy = foundByOf(entry.by);
      yield entry.hash ? { torrentId, hash: entry.hash, source, foundBy } : { torrentId, hash: '', piecesHash: entry.pieces, source, foundBy };
    }
  }

  /**
   * The places sites asked by pieces hash named for one client torrent's content, with the client
   * torrent held there when the client has this content from that very site (its tracker's site).
   */
  piecesPlaces(hash: string): { sid: number; torrentId: number; piecesHash: string; heldHash?: string }[] {
    const record = this.records.get(hash);
    const pieces = record?.pieces?.hash;
    if (!record?.found?.length || !pieces) return [];
    const group = this.piecesGroup(pieces);
    const places: { sid: number; torrentId: number; piecesHash: string; heldHash?: string }[] = [];
    for (const found of record.found) {
      if (!found.torrentId) continue;
      const heldHash = group.find((member) => this.records.get(member)?.pieces?.fromSid === found.sid);
      places.push({ sid: found.sid, torrentId: found.torrentId, piecesHash: pieces, ...(heldHash && { heldHash }) });
    }
    return places;
  }

  // --------------------------------------------------------------------------------------------
  // The second source: sites asked by pieces hash

  /** Client torrents whose pieces hash has not been read yet: complete ones first (what a cross-seed starts from), then by hash. */
  piecesToRead(): string[] {
    const unread: IndexedTorrent[] = [];
    for (const record of this.records.values()) if (!record.pieces) unread.push(record.torrent);
    const rank = (torrent: IndexedTorrent) => (usableSource(torrent) ? 0 : 1);
    return unread.sort((a, b) => rank(a) - rank(b) || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)).map((torrent) => torrent.hash);
  }

  /** Records a torrent's pieces hash (read from the client); false when it has gone meanwhile or is unchanged. */
  applyPieces(hash: string, pieces: PiecesOf): boolean {
    const record = this.records.get(hash);
    if (!record || (record.pieces?.hash === pieces.hash && record.pieces.fromSid === pieces.fromSid)) return false;
    record.pieces = pieces.fromSid === undefined ? { hash: pieces.hash } : { hash: pieces.hash, fromSid: pieces.fromSid };
    // Always: a torrent without answers of its own joins a group whose sibling has some (a new
    // source, or the client's own torrent at a place), and dropping the map costs nothing.
    this.invalidate();
    return true;
  }

  /**
   * What to ask site `sid` now, as pieces hashes (each once), in hash order: the content of complete
   * client torrents not from that site, that the site has not answered about within a week. A
   * torrent whose content another client torrent already has a fresh answer for takes that answer
   * (`changed`) without a request.
   */
  piecesDue(sid: number, now: number): { ask: string[]; changed: string[] } {
    const ask: string[] = [];
    const changed: string[] = [];
    const fresh = (found: FoundBySite | undefined) => !!found && now - found.at < PIECES_ANSWER_MAX_AGE_MS && found.at <= now + DAY_MS;
    for (const [pieces, group] of this.piecesGroups()) {
      let worthAsking = false;
      let answer: FoundBySite | undefined;
      for (const hash of group) {
        const record = this.records.get(hash)!;
        if (record.pieces!.fromSid !== sid && usableSource(record.torrent)) worthAsking = true;
        const found = record.found?.find((entry) => entry.sid === sid);
        if (fresh(found) && (!answer || found!.at > answer.at)) answer = found;
      }
      if (!answer) {
        if (worthAsking) ask.push(pieces);
        continue;
      }
      for (const hash of group) {
        const record = this.records.get(hash)!;
        const found = record.found?.find((entry) => entry.sid === sid);
        if (found && fresh(found)) continue;
        setFound(record, { ...answer });
        changed.push(hash);
        this.invalidate();
      }
    }
    return { ask: ask.sort(), changed };
  }

  /** Records site `sid`'s answer for the pieces hashes `asked` (`ids`: those it holds, with their torrent id there). */
  applyFound(sid: number, asked: readonly string[], ids: ReadonlyMap<string, number>, at: number): string[] {
    const changed: string[] = [];
    const groups = this.piecesGroups();
    for (const pieces of asked) {
      const torrentId = ids.get(pieces) ?? 0;
      for (const hash of groups.get(pieces) ?? []) {
        const record = this.records.get(hash)!;
        const before = record.found?.find((entry) => entry.sid === sid)?.torrentId;
        setFound(record, { sid, at, torrentId });
        if (before !== torrentId) this.invalidate();
        changed.push(hash);
      }
    }
    return changed;
  }

  /** Forgets what site `sid` answered by pieces hash (the user switched it off): its places go. */
  forgetFound(sid: number): string[] {
    const changed: string[] = [];
    for (const [hash, record] of this.records) {
      if (!record.found?.some((entry) => entry.sid === sid)) continue;
      record.found = record.found.filter((entry) => entry.sid !== sid);
      if (!record.found.length) delete record.found;
      changed.push(hash);
    }
    if (changed.length) this.invalidate();
    return changed;
  }

  /** Pieces hash → the client hashes with that content. */
  private piecesGroups(): Map<string, string[]> {
    return piecesGroupsOf(this.records);
  }

  private piecesGroup(pieces: string): string[] {
    const group: string[] = [];
    for (const [hash, record] of this.records) if (record.pieces?.hash === pieces) group.push(hash);
    return group;
  }

  /** Whether the service has answered for any torrent yet (a list page before the first answers says nothing). */
  anyAnswered(): boolean {
    for (const record of this.records.values()) if (record.answer || record.found?.length) return true;
    return false;
  }

  /**
   * Every place the index knows, with the info-hash there ('' when only a pieces-hash answer named
   * it) and whether the client can cross-seed it (a complete client torrent holds its content): what
   * the whole index's counts over several clients merge (a place another client holds is in that client).
   */
  forEachPlace(each: (sid: number, torrentId: number, hash: string, canCrossSeed: boolean) => void): void {
    for (const [sid, site] of this.siteMap()) {
      for (const [torrentId, entry] of site) each(sid, torrentId, entry.hash, !!entry.sources && !!this.bestSource(entry.sources));
    }
  }

  /** How much the index knows, for the options page. */
  counts(): { torrents: number; answered: number; waiting: number; places: number; inClient: number; canCrossSeed: number } {
    let answered = 0;
    for (const record of this.records.values()) if (record.answer) answered++;
    let places = 0;
    let inClient = 0;
    let canCrossSeed = 0;
    for (const site of this.siteMap().values()) {
      for (const entry of site.values()) {
        places++;
        if (entry.hash && this.records.has(entry.hash)) inClient++;
        else if (entry.sources && this.bestSource(entry.sources)) canCrossSeed++;
      }
    }
    return { torrents: this.records.size, answered, waiting: this.records.size - answered, places, inClient, canCrossSeed };
  }

  /**
   * A complete client torrent holding this content: a seeding one first, then the lowest hash, so
   * the choice does not depend on the order answers came in (or were read back from storage).
   */
  private bestSource(sources: readonly string[]): IndexedTorrent | undefined {
    let best: IndexedTorrent | undefined;
    for (const hash of sources) {
      const torrent = this.records.get(hash)?.torrent;
      if (!torrent || !usableSource(torrent)) continue;
      if (!best) best = torrent;
      else {
        const seeding = torrent.state === 'seeding';
        const bestSeeding = best.state === 'seeding';
        if ((seeding && !bestSeeding) || (seeding === bestSeeding && torrent.hash < best.hash)) best = torrent;
      }
    }
    return best;
  }

  /**
   * Builds the per-site map (what query, opportunities and counts read), asking `pause()` every
   * `every` records whether to give the event loop a turn (a promise: wait on it), so the first
   * build after a sync or a start, of a 100,000-torrent index, never blocks long. Records changed meanwhile (a sync's answers): it
   * starts over, twice at most, then builds at once.
   */
  async prepare(pause: () => Promise<void> | undefined, every = 256): Promise<void> {
    for (let attempt = 0; attempt < 3 && !this.sites; attempt++) {
      const generation = this.generation;
      const build = new SiteMapBuild(this.records);
      let count = 0;
      for (const [hash, record] of this.records) {
        build.add(hash, record);
        const paused = ++count % every === 0 ? pause() : undefined;
        if (paused) {
          await paused;
          if (this.generation !== generation || this.sites) break;
        }
      }
      if (this.generation === generation && !this.sites) {
        this.sites = build.sites;
        this.placed = build.placed;
      }
    }
    this.siteMap();
  }

  private siteMap(): Map<number, Map<number, SiteEntry>> {
    if (this.sites) return this.sites;
    const build = new SiteMapBuild(this.records);
    for (const [hash, record] of this.records) build.add(hash, record);
    this.sites = build.sites;
    this.placed = build.placed;
    return build.sites;
  }
}

/** (sid → torrent id → entry) and the placed client hashes, from the records one at a time. */
class SiteMapBuild {
  readonly sites = new Map<number, Map<number, SiteEntry>>();
  readonly placed = new Set<string>();
  /** Pieces hash → client hashes with that content (only when some record has a pieces-hash answer). */
  private readonly groups: Map<string, string[]> = new Map();

  constructor(private readonly records: ReadonlyMap<string, IndexRecord>) {
    let anyFound = false;
    for (const record of records.values()) if (record.found?.length) anyFound = true;
    if (anyFound) this.groups = piecesGroupsOf(records);
  }

  private entryAt(sid: number, torrentId: number, hash: string, by: number): SiteEntry {
    let site = this.sites.get(sid);
    if (!site) this.sites.set(sid, (site = new Map()));
    let entry = site.get(torrentId);
    if (!entry) site.set(torrentId, (entry = { hash, by }));
    else {
      entry.by |= by;
      // A place a pieces-hash answer named first: the service (or the client's own torrent there) gives its info-hash.
      if (!entry.hash && hash) entry.hash = hash;
    }
    return entry;
  }

  add(hash: string, record: IndexRecord): void {
    const members = record.answer?.members;
    if (members?.length) {
      // The client hashes of this group: the asked one and any member the client holds.
      const held = [hash];
      for (const member of members) if (this.records.has(member.hash) && !held.includes(member.hash)) held.push(member.hash);
      for (const member of members) {
        const entry = this.entryAt(member.sid, member.torrentId, member.hash, BY_SERVICE);
        // Two answers naming different hashes for one place: the first stands (a cross-seed checks the hash anyway).
        if (entry.hash !== member.hash) continue;
        if (this.records.has(member.hash)) this.placed.add(member.hash);
        else addSources(entry, held);
      }
    }
    // A torrent's own place (placing asked the service, or a cross-seed added it there) says who found nothing.
    for (const place of record.located?.places ?? []) {
      if (this.entryAt(place.sid, place.torrentId, hash, 0).hash === hash) this.placed.add(hash);
    }
    const pieces = record.pieces?.hash;
    if (!pieces || !record.found?.length) return;
    const group = this.groups.get(pieces) ?? [hash];
    for (const found of record.found) {
      if (!found.torrentId) continue;
      // The client holds this content from that very site: the torrent there is that one.
      const own = group.find((member) => this.records.get(member)?.pieces?.fromSid === found.sid);
      const entry = this.entryAt(found.sid, found.torrentId, own ?? '', BY_PIECES);
      entry.pieces ??= pieces;
      if (own) {
        if (entry.hash === own) this.placed.add(own);
        continue;
      }
      if (entry.hash && this.records.has(entry.hash)) continue;
      addSources(entry, group);
    }
  }
}

/** Pieces hash → the client hashes with that content. */
function piecesGroupsOf(records: ReadonlyMap<string, IndexRecord>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [hash, record] of records) {
    const pieces = record.pieces?.hash;
    if (!pieces) continue;
    const group = groups.get(pieces);
    if (group) group.push(hash);
    else groups.set(pieces, [hash]);
  }
  return groups;
}

const BY_SERVICE = 1;
const BY_PIECES = 2;

function foundByOf(by: number): FoundBy {
  return by === (BY_SERVICE | BY_PIECES) ? 'both' : by === BY_PIECES ? 'pieces' : 'iyuu';
}
// (An entry only a torrent's own place made, by 0, reads as the service's: placing is the service's answer.)

/** One answer per site: replaces the site's earlier one. */
function setFound(record: IndexRecord, found: FoundBySite): void {
  const others = record.found?.filter((entry) => entry.sid !== found.sid) ?? [];
  record.found = [...others, found];
}

/** Most entries of a group share the group's one list of sources; an entry copies it only when it must differ. */
function addSources(entry: SiteEntry, held: string[]): void {
  if (!entry.sources) {
    entry.sources = held;
    return;
  }
  if (entry.sources === held) return;
  const missing = held.filter((hash) => !entry.sources!.includes(hash));
  if (!missing.length) return;
  if (!entry.ownSources) {
    entry.sources = [...entry.sources];
    entry.ownSources = true;
  }
  entry.sources.push(...missing);
}
