/**
 * Feature: the index of the user's default torrent client (issue #10), wired into the extension.
 *
 * - Opt-in (`clientIndexEnabled`, off by default: a sync sends the hash of every torrent in the
 *   client to the lookup service). Turned on: a first sync starts; turned off: the index is deleted.
 * - A sync reads the default client once and asks the service, through the one Lookup, only for
 *   hashes it has not answered yet (utils/client-index/sync.ts): "Sync now", the alarm every six
 *   hours, and the default client changing all sync the default client's index.
 * - Placing: the service never names a queried torrent's own page, so a torrent the client holds
 *   from one site only is "in the client" on that site's list only once one of its copies' hashes
 *   has been asked about too. That costs lookups beyond the sync's (about one per 200 such
 *   torrents, once), so it is a separate, later run: the alarm job places after its sync when any
 *   torrent waits to be placed, and "Find them now" does it on the user's word. A sync alone never
 *   places: its cost is exactly the client's new hashes (≤ 50 requests for 10,000 torrents, one
 *   for ten new ones, none when nothing is new), and placing is counted and shown on its own.
 * - List pages: a tab's list rows are answered from the index in memory, with no service request,
 *   for the popup (`index:page`, the badge's can-cross-seed count) and, only on hosts where the user
 *   turned row marks on, for the page itself (`index:marks` to its content script). A page on any
 *   other host gets nothing at all about the index: no message, no change in what it is sent.
 * - "Cross-seed" on a row: the row from the tab's view, its candidate from the index, run by the
 *   cross-seed feature's one way in (CrossSeeds.run: its de-duplication, pace and site fetch).
 *
 * The parts, one job each: sync-runs.ts (runs, their record, the alarm's job, the options page's
 * status), list-pages.ts (the popup's list-page answers, the badge, the row cross-seed),
 * marks-to-pages.ts (marks sent to content scripts, the per-host switch). This class assembles
 * them, answers the messages and reacts to the user's settings and clients.
 */
import { ClientIndexes, MAX_INDEXED_CLIENTS, type ClientIndex } from '../../utils/client-index/indexes-by-client.ts';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { IndexJob, IndexPageAnswer, IndexRunView, IndexStatusView } from './client-index.messages';
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
import { SyncRuns, type SyncRunOptions } from './sync-runs';
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
    this.runs = new SyncRuns(shared, clients, this.indexes, { pauseMs: options.pauseMs, batchSize: options.batchSize, pieces: options.pieces, afterRun: async () => {
        await this.lists.refreshTabs();
        for (const listener of this.afterSync) await listener().catch(() => undefined);
      } });
    this.repeatedJob = this.runs.repeatedJob;
    // Every cross-seed that lands (a page's, a list row's, the job's): the index holds it at its place from now on.
    crossSeeds.landed.add(async ({ candidate, hash, clientId }) => {
      const open = await this.defaultIndex();
      if (!open || open.id !== clientId) return;
      const held = (await open.client.lookup([hash]).catch(() => undefined))?.get(hash);
      if (held) await open.index.noteAdded(held, { sid: candidate.sid, torrentId: candidate.torrentId });
    });
    shared.tabs.badgeSource = (view) => this.lists.badge(view);
    shared.tabs.onChange((view) => this.lists.viewChanged(view));
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

  /** A sync or placing of the default client's index (sync-runs.ts); a run under way is joined. */
  run(job: IndexJob): Promise<IndexRunView | undefined> {
    return this.runs.run(job);
  }

  /**
   * The places sites asked by pieces hash named for these torrents of the client (a details page's
   * hash in the client): for the popup's candidates only. Nothing while the index is off.
   */
  async piecesPlaces(hashes: readonly string[]): Promise<PiecesPlace[]> {
    const index = (await this.defaultIndex())?.index;
    if (!index) return [];
    return hashes.flatMap((hash) => index.piecesPlaces(hash).map((place) => ({ forHash: hash, ...place })));
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

  /** The default client's index, with the client (nothing while the index is off or no client is set up). */
  private async defaultIndex(): Promise<{ index: ClientIndex; client: TorrentClient; id: string } | undefined> {
    const [chosen] = await this.clients.handles();
    const index = chosen && (await this.indexes.open(clientIdentity(chosen.config)).catch(() => undefined));
    return index && { index, client: chosen.client, id: chosen.config.id };
  }

  /** The options page's view of the index. */
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
        const index = (await this.defaultIndex())?.index;
        for (const sid of dropped) await index?.forgetFound(sid);
      }
      if (piecesNow.some((sid) => !piecesBefore.includes(sid))) void this.run('sync');
    }
    const marksChanged = next.indexMarkHosts.join() !== previous.indexMarkHosts.join();
    if (next.clientIndexEnabled !== previous.clientIndexEnabled || marksChanged || (next.clientIndexEnabled && piecesChanged)) {
      await this.lists.refreshTabs(previous);
      this.runs.announce();
    }
  }

  private async clientsChanged(next: StoredClient[], previous: StoredClient[]): Promise<void> {
    const before = clientKey(previous[0]);
    const after = clientKey(next[0]);
    if (before === after) return;
    // The run under way is for the old client: it stops, and the next one is the new client's.
    await this.runs.stop();
    await this.lists.refreshTabs();
    this.runs.announce();
    if (after && (await this.shared.settings.get()).clientIndexEnabled) void this.run('sync');
  }
}
