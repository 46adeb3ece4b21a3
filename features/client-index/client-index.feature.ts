/**
 * Feature: the index of every torrent client the user saved (issue #10; issue 33: each client its
 * own index), wired into the extension.
 *
 * - Opt-in (`clientIndexEnabled`, off by default: a sync sends the hash of every torrent in the
 *   clients to the lookup service). Turned on: a first sync of every client starts; turned off:
 *   every index is deleted.
 * - A sync reads a client once and asks the service, through the one Lookup, only for hashes its
 *   index has not answered yet (utils/client-index/sync.ts): "Sync now", the alarm every six hours
 *   and the index turned on sync every client, side by side (sync-runs.ts: one lane to the
 *   service for all of them, paced and batched together; a hash another client's index answered is
 *   not asked again); a client added, or whose kind or address changed (another index), syncs its
 *   own. A client removed: its index is closed (its records go when its slot is taken again).
 * - Placing: the service never names a queried torrent's own page, so a torrent the client holds
 *   from one site only is "in the client" on that site's list only once one of its copies' hashes
 *   has been asked about too. That costs lookups beyond the sync's (about one per 200 such
 *   torrents, once), so it is a separate, later run: the alarm job places after its sync when any
 *   torrent waits to be placed, and "Find them now" does it on the user's word. A sync alone never
 *   places: its cost is exactly the client's new hashes (≤ 50 requests for 10,000 torrents, one
 *   for ten new ones, none when nothing is new), and placing is counted and shown on its own.
 * - List pages: a tab's list rows are answered from every client's index together (merge-rows.ts),
 *   with no service request, for the popup (`index:page`: which client holds a row, or holds its
 *   data and where its copy would go; the badge counts the rows any client can cross-seed) and,
 *   only on hosts where the user turned row marks on, for the page itself (`index:marks` to its
 *   content script). A page on any other host gets nothing at all about the index: no message, no
 *   change in what it is sent, nothing that depends on the user's clients.
 * - "Cross-seed" on a row: the row from the tab's view, its candidate from the indexes, run by the
 *   cross-seed feature's one way in (CrossSeeds.run: its de-duplication, pace and site fetch; its
 *   placement decides where the copy goes). Every cross-seed that lands is noted in the index of
 *   the client it landed in, and a client that cannot be asked is taken at its index's word
 *   (Clients.lastKnownHeld).
 *
 * The parts, one job each: sync-runs.ts (runs, their record, the alarm's job, the options page's
 * status), list-pages.ts (the popup's list-page answers, the badge, the row cross-seed),
 * marks-to-pages.ts (marks sent to content scripts, the per-host switch). This class assembles
 * them, answers the messages and reacts to the user's settings and clients.
 */
import { ClientIndexes, MAX_INDEXED_CLIENTS, type ClientIndex } from '../../utils/client-index/indexes-by-client.ts';
import type { IndexJob, IndexPageAnswer, IndexStatusView } from './client-index.messages';
import type { clientIndexMessages } from './client-index.messages';
import type { Handlers } from '../../utils/messaging/protocol';
import type { Settings } from '../../utils/settings';
import type { ClientHandle, Clients, StoredClient } from '../clients/clients.feature';
import { clientIdentity, clientKey } from '../clients/client-identity';
import { PiecesHash } from '../pieces-hash/pieces-hash.feature';
import type { PiecesPlace } from '../lookup/candidates';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import { ListPages } from './list-pages';
import { MarksToPages } from './marks-to-pages';
import { SyncRuns, type ClientRun, type SyncRunOptions } from './sync-runs';
import type { RepeatedJob, Shared } from '../context';

export { INDEX_JOB, INDEX_RUNS_KEY, INDEX_SYNC_EVERY_MINUTES } from './sync-runs';

/** One saved client and its index. */
export interface IndexedClient {
  handle: ClientHandle;
  index: ClientIndex;
}

export interface ClientIndexOptions {
  /** The sync's pause between two batches (the library's 2 s when absent; tests and the bench give 0). */
  pauseMs?: number;
  /** Hashes per lookup (the service's 200 when absent). */
  batchSize?: number;
  /** The second source: sites asked by pieces hash during each sync. */
  pieces?: SyncRunOptions['pieces'];
}

export class ClientIndexFeature {
  readonly indexes: ClientIndexes;
  /** The alarm's job: a sync, then placing when a torrent waits to be placed. */
  readonly repeatedJob: RepeatedJob;
  private readonly runs: SyncRuns;
  private readonly lists: ListPages;
  private readonly marks: MarksToPages;
  /** Called after every run of the index (the periodic sync above all): "Cross-seed your client"'s new finds. */
  readonly afterSync = new Set<() => Promise<void>>();

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    crossSeeds: Pick<CrossSeeds, 'run' | 'landed'>,
    options: ClientIndexOptions = {},
  ) {
    // The index lives in IndexedDB: its writes never take room from the settings in storage.local.
    this.indexes = new ClientIndexes({ settings: () => shared.settings.get(), now: shared.now });
    this.marks = new MarksToPages(shared);
    this.lists = new ListPages(shared, clients, this.indexes, this.marks, crossSeeds);
    this.runs = new SyncRuns(shared, clients, this.indexes, {
      pauseMs: options.pauseMs,
      batchSize: options.batchSize,
      pieces: options.pieces,
      // Each client's run that changed its index: the open list pages are answered again at once.
      afterClientRun: () => this.lists.refreshTabs(),
      afterRun: async () => {
        for (const listener of this.afterSync) await listener().catch(() => undefined);
      },
    });
    this.repeatedJob = this.runs.repeatedJob;
    // Every cross-seed that lands (a page's, a list row's, the job's): the index of the client it
    // landed in holds it at its place from now on.
    crossSeeds.landed.add(async ({ candidate, hash, clientId }) => {
      const handle = await this.clients.handle(clientId);
      const index = handle && (await this.indexes.open(clientIdentity(handle.config)).catch(() => undefined));
      if (!handle || !index) return;
      const held = (await handle.client.lookup([hash]).catch(() => undefined))?.get(hash);
      if (held) await index.noteAdded(held, { sid: candidate.sid, torrentId: candidate.torrentId });
    });
    // A client that cannot be asked now is taken at its index's word: what it held at its last sync
    // (placement.ts never adds a copy of what it holds into another client).
    clients.lastKnownHeld = (config, hashes) => this.indexes.held(clientIdentity(config), hashes);
    shared.tabs.badgeSource = (view) => this.lists.badge(view);
    shared.tabs.onChange((view) => this.lists.viewChanged(view));
    shared.tabs.onReading((view) => this.lists.readingArrived(view));
    shared.settings.onChange((next, previous) => this.settingsChanged(next, previous));
    clients.onChange((next, previous) => this.clientsChanged(next, previous));
  }

  readonly handlers: Handlers<typeof clientIndexMessages> = {
    'index:status': () => this.status(),
    // Commands: the run's state reaches the pages once, as `index:changed` (its start and its end).
    'index:sync': async () => {
      void this.run('sync');
    },
    'index:place': async () => {
      void this.run('place');
    },
    'index:cancel': async () => {
      await this.runs.stop();
    },
    'index:page': (message) => this.lists.page(message.tabId),
    'index:cross-seed': (message) => this.lists.crossSeedRow(message.tabId, message.rowId),
    'index:row-marks': (message) => this.setRowMarks(message.tabId, message.on),
  };

  /** A run of the index that a stop of the worker or the browser cut short goes on (sync-runs.ts). */
  wake(): Promise<void> {
    return this.runs.wake();
  }

  /**
   * At the background's start, while the index is on: what a list page's answer reads first (the
   * indexes' database and meta, the saved clients, the stored site list) read before a page asks,
   * each kept in memory from then on. Never fails.
   */
  async warm(): Promise<void> {
    const settings = await this.shared.settings.get().catch(() => undefined);
    if (!settings?.clientIndexEnabled) return;
    await Promise.all([this.indexes.warm(), this.clients.configs().catch(() => undefined), this.shared.directory.sites.peek(settings.baseUrl).catch(() => undefined)]);
  }

  /**
   * A sync or placing of every client's index, side by side (sync-runs.ts; `clients`: only these,
   * by clientKey); a client's run under way is joined. Resolves once all have ended.
   */
  run(job: IndexJob, options: { clients?: readonly string[] } = {}): Promise<ClientRun[]> {
    return this.runs.run(job, options);
  }

  /**
   * The places sites asked by pieces hash named for these torrents of the clients (a details page's
   * hash in a client), from every client's index: for the popup's candidates only. Nothing while
   * the index is off, or while no site is switched on to be asked by pieces hash (then no index
   * holds any such place, and none is loaded for it: a page after a restart does not wait for that).
   */
  async piecesPlaces(hashes: readonly string[]): Promise<PiecesPlace[]> {
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled || !PiecesHash.switchedOn(settings).length) return [];
    const places: PiecesPlace[] = [];
    const seen = new Set<string>();
    for (const { index } of await this.clientIndexes()) {
      for (const hash of hashes) {
        for (const place of index.piecesPlaces(hash)) {
          const key = `${hash}:${place.sid}:${place.torrentId}`;
          if (seen.has(key)) continue;
          seen.add(key);
          places.push({ forHash: hash, ...place });
        }
      }
    }
    return places;
  }

  /**
   * Every saved client's index, in the user's order (the first MAX_INDEXED_CLIENTS), each with its
   * client; none while the index is off. What the whole-client job and the list pages read.
   */
  async clientIndexes(): Promise<IndexedClient[]> {
    const indexed: IndexedClient[] = [];
    for (const handle of (await this.clients.handles()).slice(0, MAX_INDEXED_CLIENTS)) {
      const index = await this.indexes.open(clientIdentity(handle.config)).catch(() => undefined);
      if (index) indexed.push({ handle, index });
    }
    return indexed;
  }

  /** The options page's view of the indexes. */
  status(): Promise<IndexStatusView> {
    return this.runs.status();
  }

  /** Resolves once every tab change so far has been answered (tests and benches wait on it). */
  idle(): Promise<void> {
    return this.lists.idle();
  }

  /** "Show marks in this site's pages", from the popup; answers with the page as it is then. */
  async setRowMarks(tabId: number, on: boolean): Promise<IndexPageAnswer> {
    await this.marks.switchHost(tabId, on);
    return this.lists.page(tabId);
  }

  // ----------------------------------------------------------------------------------------------
  // Reacting to the user's settings and clients

  private async settingsChanged(next: Settings, previous: Settings): Promise<void> {
    if (next.clientIndexEnabled !== previous.clientIndexEnabled) {
      if (!next.clientIndexEnabled) {
        // Off means nothing kept: the run stops before its next batch, the index and its record go.
        this.runs.abort();
        await this.indexes.deleteAll();
        await this.runs.forgetRecords();
      } else void this.run('sync');
    }
    // A site switched off as a pieces-hash source: its answers go; one switched on: a sync asks it.
    const piecesBefore = PiecesHash.switchedOn(previous);
    const piecesNow = PiecesHash.switchedOn(next);
    const piecesChanged = piecesBefore.join() !== piecesNow.join();
    if (next.clientIndexEnabled && piecesChanged) {
      const dropped = piecesBefore.filter((sid) => !piecesNow.includes(sid));
      if (dropped.length) {
        for (const { index } of await this.clientIndexes()) for (const sid of dropped) await index.forgetFound(sid);
      }
      if (piecesNow.some((sid) => !piecesBefore.includes(sid))) void this.run('sync');
    }
    const marksChanged = next.indexMarkHosts.join() !== previous.indexMarkHosts.join();
    if (next.clientIndexEnabled !== previous.clientIndexEnabled || marksChanged || (next.clientIndexEnabled && piecesChanged)) {
      await this.lists.refreshTabs(previous);
      this.runs.announce();
    }
  }

  /**
   * The saved clients changed. A client removed, or whose kind or address changed (another index):
   * its run stops, its index is closed and its records of runs go (what its index stored goes when
   * its slot is taken again). A client added (or changed): its first sync. Anything else (order,
   * Names, "Only read", "Copies go to"): the list pages are answered again, as the options page is.
   */
  private async clientsChanged(next: StoredClient[], previous: StoredClient[]): Promise<void> {
    const indexedNow = next.slice(0, MAX_INDEXED_CLIENTS);
    const keysNow = indexedNow.map(clientKey);
    const keysBefore = previous.slice(0, MAX_INDEXED_CLIENTS).map(clientKey);
    const gone = keysBefore.filter((key) => !keysNow.includes(key));
    const added = keysNow.filter((key) => !keysBefore.includes(key));
    this.indexes.keepOnly(indexedNow.map(clientIdentity));
    if (gone.length) {
      await this.runs.stop(gone);
      await this.runs.keepRecordsOf(keysNow);
    }
    await this.lists.refreshTabs();
    this.runs.announce();
    if (added.length && (await this.shared.settings.get()).clientIndexEnabled) void this.run('sync', { clients: added });
  }
}
