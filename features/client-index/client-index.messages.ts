/** The index of every client the user saved (one per client), and what they say about list pages (rows in a client, rows to cross-seed, marks). */
import { z } from 'zod';
import { event, message } from '../../utils/messaging/protocol';
import type { CrossSeedResult } from '../../utils/cross-seed-engine/cross-seed';
import type { CopyDestination } from '../clients/placement';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';
import type { ClientProblem, ClientSummary, HeldTorrent } from '../clients/clients.messages';
import { tabId } from '../../utils/messaging/fields';

/** Why the index could not be synced, for the options page to say in words. */
export type IndexProblem =
  | { kind: 'no-client' }
  /** App ID lookups ask one hash per request: indexing a client needs a token. */
  | { kind: 'needs-token' }
  | { kind: 'client'; problem: ClientProblem }
  | { kind: 'service'; failure: ServiceFailure };

/** One run of the index: a sync (the client's own hashes) or placing (finding the pages of torrents held from one site only). */
export type IndexJob = 'sync' | 'place';

/** A run under way. */
export interface IndexProgressView {
  job: IndexJob;
  /** reading-pieces: the client's torrents' pieces hashes read; asking-sites: a site asked by pieces hash (`sid`). */
  phase: 'reading-client' | 'asking' | 'locating' | 'reading-pieces' | 'asking-sites' | 'done';
  /** Hashes done of `total` in this phase. */
  done: number;
  total: number;
  /** Requests to the lookup service so far in this run (asking-sites: to that site). */
  requests: number;
  sid?: number;
  /** asking-sites: the site's name as the user knows it. */
  siteName?: string;
  /** The phase's time left at its pace so far, in seconds (the paced phases, once it can be said). */
  secondsLeft?: number;
  /** Going on with a run that a stop of the worker or the browser cut short. */
  resumed?: boolean;
}

/** How asking one site by pieces hash ended in a run, in kinds only (never the site's words: its error pages echo the passkey). */
export interface PiecesSiteRunView {
  sid: number;
  siteName: string;
  outcome: 'done' | 'cancelled' | 'wrong-passkey' | 'no-api' | 'rate-limited' | 'refused' | 'site-error' | 'unreachable' | 'needs-passkey' | 'bad-passkey' | 'no-permission' | 'bad-path';
  /** Pieces hashes sent, requests made, and the site's torrents found. */
  asked: number;
  requests: number;
  found: number;
  retryAfterSeconds?: number;
  status?: number;
}

/** What the sites asked by pieces hash did in the last run, and whether the client can give pieces hashes at all. */
export interface PiecesRunView {
  /** Torrents whose pieces hash was read in that run, and those without metadata (read next time). */
  read: number;
  skipped: number;
  sites: PiecesSiteRunView[];
}

/** A finished run. */
export interface IndexRunView {
  job: IndexJob;
  at: number;
  outcome: 'done' | 'cancelled' | 'failed';
  /** Torrents in the client (as many as the index keeps). */
  torrents: number;
  /** Hashes sent to the lookup service. */
  asked: number;
  requests: number;
  /** Torrents of the client beyond what the index keeps. */
  leftOut?: number;
  /** Placing: the client's torrents whose own page was found. */
  located?: number;
  problem?: IndexProblem;
  /** A failed run: the phase it stopped in, and how far that phase had come. */
  phase?: IndexProgressView['phase'];
  progress?: { done: number; total: number };
  /** The sites asked by pieces hash (when any is switched on). */
  pieces?: PiecesRunView;
}

export interface IndexCounts {
  /** Torrents of the client in the index. */
  torrents: number;
  /** Of which the lookup service has answered. */
  answered: number;
  /** Places (a torrent on a site) the index knows. */
  places: number;
  /** Places whose torrent is in the client. */
  inClient: number;
  /** Places the client can cross-seed (it holds their data, complete, under another torrent). */
  canCrossSeed: number;
  /** The client's torrents held from one site only whose own page is not known yet (placing finds it). */
  toPlace: number;
}

/** One client's index as the options page shows it (issue 33: every saved client has its own). */
export interface IndexClientView {
  /** The client, by its Name. */
  client: ClientSummary;
  /** Why no run of this client's index can go now (no token and no pieces-hash source it can use). */
  problem?: IndexProblem;
  counts?: IndexCounts;
  /** Whether its index could be stored in IndexedDB (no room on the disk or in the quota, or refused: it lives in memory until the browser restarts; the settings are elsewhere). */
  storage?: 'ok' | 'full' | 'failed';
  /** Every write of its index done: records, pack, compaction (tests and the bench wait for it). */
  settled?: boolean;
  running?: IndexProgressView;
  lastSync?: IndexRunView;
  lastPlacing?: IndexRunView;
  /** Whether it gives pieces hashes (qBittorrent does; Transmission and Deluge give none over their APIs), when a site is switched on to be asked by them. */
  pieces?: 'supported' | 'unsupported';
}

/** The index as the options page shows it: every client's, in the user's order, and the whole. */
export interface IndexStatusView {
  enabled: boolean;
  /** Every indexed client, in the user's order (the first MAX_INDEXED_CLIENTS). */
  clients?: IndexClientView[];
  /** Why no sync can run now (no client set up; no token while no client can be indexed without one), when known without trying. */
  problem?: IndexProblem;
  /**
   * The whole index, over every client: torrents, answered and toPlace add up; a place counts once,
   * in a client when any client holds it, else to cross-seed when a client can (whichever client's index knows it).
   */
  counts?: IndexCounts;
  /** Every client's index settled (tests and the bench wait for it). */
  settled?: boolean;
  /** A run under way: the first client's in the user's order that has one (each client's is in `clients`). */
  running?: IndexProgressView;
  /**
   * Every client's last sync together: 'done' only when each client's last sync is done; else the
   * first client's (in the user's order) that is not; the torrents, hashes and requests added up.
   */
  lastSync?: IndexRunView;
  /** Likewise the last placing runs. */
  lastPlacing?: IndexRunView;
  /** Hosts with row marks on. */
  markHosts: string[];
  /** The second source: sites switched on to be asked by pieces hash (each client says whether it gives pieces hashes). */
  pieces?: { sites: number[] };
  /** Increases with every status the background gives: the higher one is the newer. */
  revision?: number;
}

/** A list row the indexes know, with the client torrent it is about. */
export interface IndexRowView {
  /** The site's torrent id of the row. */
  id: string;
  /** The row's title, where the page shows one. */
  title?: string;
  /** in-client: the row's torrent itself (in the first client holding it); can-cross-seed: the complete client torrent holding its data. */
  clientTorrent: HeldTorrent;
  /** Who named this place: the lookup service, a site asked by pieces hash, or both (absent: the row shows its own hash). */
  foundBy?: 'iyuu' | 'pieces' | 'both';
  /** in-client: the clients holding it, by Name, in the user's order. */
  heldBy?: string[];
  /** can-cross-seed (and a refused row): the client holding its data complete, by Name. */
  from?: string;
  /** can-cross-seed: where its copy would go (placement.ts's whereCopyGoes): the client by Name, the save path there, whether through a folder pair. */
  into?: { name: string; savePath: string; viaPair: boolean };
  /** A row whose data a client holds but whose copy could go nowhere (a client that only reads, no folder pair, its target gone): why. */
  refused?: Extract<CopyDestination, { ok: false }>['result'];
}

/**
 * What the index says about a list page, for the popup only:
 * - `not-a-list`: the tab shows no list page;
 * - `off`: the user has not turned the index on;
 * - `no-client`: no client set up;
 * - `unknown-site`: the page's site has no IYUU site id to ask the index with;
 * - `answered`: the page's rows the client holds, and those it can cross-seed.
 */
export type IndexPageAnswer =
  | { state: 'not-a-list' }
  | { state: 'off' }
  | { state: 'no-client' }
  | { state: 'unknown-site'; host?: string }
  | {
      state: 'answered';
      host: string;
      siteName?: string;
      /** How many rows the page has (what was asked). */
      rows: number;
      inClient: IndexRowView[];
      /** Rows a client can cross-seed whose copy has somewhere to go (the badge counts them). */
      canCrossSeed: IndexRowView[];
      /** Rows whose data a client holds but whose copy could go nowhere (each says why); not counted. */
      refused?: IndexRowView[];
      /** Row marks are on for this site. */
      marks: boolean;
      /** The index holds no answer from the service yet: a first sync is needed (or under way). */
      empty: boolean;
    };

export interface IndexCrossSeedAnswer {
  result: CrossSeedResult;
  /** The row's site, for the result's words. */
  siteName: string;
  /** The page as the index sees it afterwards (the row among those in the client once added). */
  page: IndexPageAnswer;
}

/** Background → extension pages: the index changed (a run's progress or end, turned on or off). */
export interface IndexChanged {
  type: 'index:changed';
  status: IndexStatusView;
}

/**
 * Background → a tracker page's content script, ONLY on a site where the user turned row marks on,
 * and only while the index is on: which rows to mark, by torrent id. Any other page gets nothing.
 */
export interface IndexMarks {
  type: 'index:marks';
  /** The page the marks are for (another page ignores them). */
  url: string;
  /** Row id → 'i' (in your client) or 'c' (can cross-seed); empty: every mark goes. */
  marks: Record<string, 'i' | 'c'>;
}

export const clientIndexMessages = {
  /** Options page: every client's index, its counts, last sync and any sync under way. */
  'index:status': message<IndexStatusView>()('extension', z.object({})),
  /**
   * "Sync now": starts a sync of every client's index (joining any under way). A command: its answer says
   * nothing; the run's state is delivered once, as `index:changed` (so is every command's below).
   */
  'index:sync': message<void>()('extension', z.object({})),
  /** "Find them now": finds the pages of the clients' torrents held from one site only (lookups of their copies' hashes), for every client. */
  'index:place': message<void>()('extension', z.object({})),
  /** Stops every run under way before its next batch (what was answered is kept); answered once they stopped. */
  'index:cancel': message<void>()('extension', z.object({})),
  /** Popup on a list page: its rows the client holds and those it can cross-seed, from the index alone (no service request). */
  'index:page': message<IndexPageAnswer>()('extension', z.object({ tabId })),
  /**
   * Popup "Cross-seed" on a list row: the row is named by its id only; the row is taken from the
   * tab's view and its candidate from the index (never from the message).
   */
  'index:cross-seed': message<IndexCrossSeedAnswer>()('extension', z.object({ tabId, rowId: z.string().regex(/^\d{1,12}$/) })),
  /** Popup: row marks on or off for the tab's site (the host comes from the tab, not the message). */
  'index:row-marks': message<IndexPageAnswer>()('extension', z.object({ tabId, on: z.boolean() })),
};

export const clientIndexEvents = {
  /** The index changed (a run's progress or end, turned on or off). */
  'index:changed': event<IndexChanged>()('extension'),
};
export const clientIndexTabEvents = {
  /** Only on a site where the user turned row marks on, and only while the index is on. */
  'index:marks': event<IndexMarks>()('tab'),
};
