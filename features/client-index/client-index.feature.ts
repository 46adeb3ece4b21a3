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
 * - "Cross-seed" on a row: the row from the tab's view, its candidate from the index, the engine of
 *   utils/cross-seed-engine with the environment every cross-seed uses (features/cross-seed/environment.ts).
 */
import { browser } from 'wxt/browser';
import { ClientIndexError, ClientIndexes, type ClientIdentity, type ClientIndex, type RowMatch, type SyncProgress } from '../../utils/client-index/indexes-by-client.ts';
import { clientOrigin } from '../../utils/clients/csrf';
import { ClientError, toClientFailure } from '../../utils/clients/client-errors';
import type { ClientTorrent } from '../../utils/clients/client-types';
import { crossSeed, type CrossSeedResult } from '../../utils/cross-seed-engine';
import type {
  HeldTorrent,
  IndexChanged,
  IndexCrossSeedAnswer,
  IndexJob,
  IndexMarks,
  IndexPageAnswer,
  IndexProblem,
  IndexProgressView,
  IndexRowView,
  IndexRunView,
  IndexStatusView,
  TabView,
} from '../../utils/messages';
import type { ListRow } from '../../utils/pages/page-types';
import { ServiceError, toFailure } from '../../utils/iyuu/service-errors';
import { isPageHost, lookupMode, type Settings } from '../../utils/settings';
import { sidForHost, siteName } from '../lookup/candidates';
import type { Clients, StoredClient } from '../clients/clients.feature';
import { crossSeedEnvironment } from '../cross-seed/environment';
import type { PageHandlers, RepeatedJob, Shared } from '../../entrypoints/background/context';

/** The alarm that keeps the index current. */
export const INDEX_JOB = 'client-index-sync';
export const INDEX_SYNC_EVERY_MINUTES = 6 * 60;
/** The last sync and the last placing of the indexed client, for the options page (deleted with the index). */
export const INDEX_RUNS_KEY = 'clientIndexRuns';

export interface ClientIndexOptions {
  /** The sync's pause between two batches (the library's 2 s when absent; tests and the bench give 0). */
  pauseMs?: number;
}

interface StoredRuns {
  client: string;
  sync?: IndexRunView;
  place?: IndexRunView;
}

interface Running {
  job: IndexJob;
  client: string;
  controller: AbortController;
  progress: IndexProgressView;
  promise: Promise<IndexRunView | undefined>;
}

/** What the index says about one tab's list page, kept until the page's rows or the index change. */
interface ListAnswer {
  /** The page this is for: its URL and rows. */
  key: string;
  answer: IndexPageAnswer;
  /** Row id → mark, for the page itself where the user asked for marks. */
  marks: Record<string, 'i' | 'c'>;
}

/** Everything a list page's answer needs, or why there is none. */
type PageContext =
  | { state: 'off' | 'no-client' | 'not-a-list' }
  | { state: 'unknown-site'; host?: string }
  | { state: 'ready'; settings: Settings; config: StoredClient; sid: number; host: string; view: TabView & { rows: ListRow[] } };

function identityOf(config: Pick<StoredClient, 'type' | 'url'>): ClientIdentity {
  return { type: config.type, url: config.url };
}

function clientKey(config: Pick<StoredClient, 'type' | 'url'> | undefined): string {
  return config ? `${config.type} ${config.url}` : '';
}

/** What a list page is, for knowing when its answer is stale: its URL and its rows (ids and hashes). */
function pageKey(view: TabView): string {
  return `${view.url ?? ''}|${(view.rows ?? []).map((row) => `${row.id}${row.hash ? `:${row.hash}` : ''}`).join(',')}`;
}

function heldTorrent(torrent: HeldTorrent): HeldTorrent {
  const { hash, name, savePath, state, progress, size } = torrent;
  return { hash, name, savePath, state, progress, size };
}

/** A failure of a run in the user's terms: the client's, the service's, or the token's. */
function problemOf(error: unknown): IndexProblem | undefined {
  if (error instanceof ClientIndexError) return error.kind === 'needs-token' ? { kind: 'needs-token' } : undefined;
  if (error instanceof ClientError) return { kind: 'client', problem: toClientFailure(error) };
  if (error instanceof ServiceError) return { kind: 'service', failure: toFailure(error) };
  return { kind: 'service', failure: toFailure(error) };
}

export class ClientIndexFeature {
  readonly indexes: ClientIndexes;
  private current: Running | undefined;
  /** Per tab: the index's answer for its list page. */
  private readonly pages = new Map<number, ListAnswer>();
  /** Per tab: the host, page and marks last sent to its content script (only ever on hosts with marks on). */
  private readonly marksSent = new Map<number, { host: string; sent: string }>();
  /** Tab answers are worked out one at a time, in the order the views changed. */
  private queue: Promise<unknown> = Promise.resolve();
  private announcing: Promise<void> | undefined;
  private announceAgain = false;
  /** Raised by every announced change (announce() is called on each). */
  private stateRevision = 0;

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly options: ClientIndexOptions = {},
  ) {
    // The index lives in IndexedDB: its writes never take room from the settings in storage.local.
    this.indexes = new ClientIndexes({ settings: () => shared.settings.get(), now: shared.now });
    shared.tabs.badgeSource = (view) => this.badge(view);
    shared.tabs.onChange((view) => {
      this.queue = this.queue.then(() => this.tabChanged(view)).catch(() => undefined);
    });
    shared.settings.onChange((next, previous) => this.settingsChanged(next, previous));
    clients.onChange((next, previous) => this.clientsChanged(next, previous));
  }

  readonly pageHandlers: Pick<PageHandlers, 'index:status' | 'index:sync' | 'index:place' | 'index:cancel' | 'index:page' | 'index:cross-seed' | 'index:row-marks'> = {
    'index:status': () => this.status(),
    'index:sync': async () => {
      void this.run('sync');
      return this.status();
    },
    'index:place': async () => {
      void this.run('place');
      return this.status();
    },
    'index:cancel': async () => {
      this.current?.controller.abort();
      await this.current?.promise.catch(() => undefined);
      return this.status();
    },
    'index:page': (message) => this.page(message.tabId),
    'index:cross-seed': (message) => this.crossSeedRow(message.tabId, message.rowId),
    'index:row-marks': (message) => this.setRowMarks(message.tabId, message.on),
  };

  /** The alarm's job: a sync, then placing when a torrent waits to be placed. */
  readonly repeatedJob: RepeatedJob = {
    periodInMinutes: INDEX_SYNC_EVERY_MINUTES,
    run: async () => {
      if (!(await this.shared.settings.get()).clientIndexEnabled) return;
      const synced = await this.run('sync');
      if (synced?.outcome !== 'done') return;
      const status = await this.status();
      if (status.counts?.toPlace) await this.run('place');
    },
  };

  // ----------------------------------------------------------------------------------------------
  // Syncing and placing

  /**
   * Runs a sync (the client's hashes the service has not answered) or placing (the pages of the
   * client's torrents held from one site only) of the default client's index. A run under way is
   * joined. Resolves with the run as the options page shows it; undefined when nothing ran (off).
   */
  run(job: IndexJob): Promise<IndexRunView | undefined> {
    if (this.current) return this.current.promise;
    const running: Running = {
      job,
      client: '',
      controller: new AbortController(),
      progress: { job, phase: 'reading-client', done: 0, total: 0, requests: 0 },
      promise: Promise.resolve(undefined),
    };
    this.current = running;
    running.promise = this.runNow(running).finally(() => {
      if (this.current === running) this.current = undefined;
      this.announce();
    });
    this.announce();
    return running.promise;
  }

  private async runNow(running: Running): Promise<IndexRunView | undefined> {
    if (!(await this.shared.settings.get()).clientIndexEnabled) return undefined;
    const found = await this.clients.defaultClient();
    if (!found) return undefined;
    running.client = clientKey(found.config);
    const at = this.shared.now();
    const failed = (problem: IndexProblem | undefined, torrents = 0): IndexRunView => ({
      job: running.job,
      at,
      outcome: problem ? 'failed' : 'cancelled',
      torrents,
      asked: 0,
      requests: 0,
      ...(problem && { problem }),
    });
    let view: IndexRunView;
    let index: ClientIndex | undefined;
    if (!(await this.clients.reachable(found.config))) {
      view = failed({ kind: 'client', problem: { kind: 'no-permission', detail: 'the browser has not granted this address', origin: clientOrigin(found.config.url) ?? found.config.url } });
    } else {
      index = await this.indexes.open(identityOf(found.config));
      if (!index) return undefined;
      /** Requests spent before placing began (a placing run asks any new hash first). */
      let beforePlacing: number | undefined;
      try {
        const report = await index.sync(found.client, this.shared.lookup, {
          signal: running.controller.signal,
          locate: running.job === 'place',
          ...(this.options.pauseMs !== undefined && { pauseMs: this.options.pauseMs }),
          onProgress: (progress: SyncProgress) => {
            if (progress.phase === 'locating' && beforePlacing === undefined) beforePlacing = progress.requests;
            running.progress = { job: running.job, ...progress };
            this.announce();
          },
        });
        const common = { at, outcome: report.outcome, torrents: report.torrents, ...(report.leftOut && { leftOut: report.leftOut }) };
        if (running.job === 'place') {
          const syncRequests = beforePlacing ?? report.requests;
          // New torrents met on the way were asked about first: that part is a sync, and counted as one.
          if (report.asked) await this.recordRun(running.client, { ...common, job: 'sync', asked: report.asked, requests: syncRequests });
          view = { ...common, job: 'place', asked: report.locateAsked, requests: report.requests - syncRequests, located: report.located };
        } else view = { ...common, job: 'sync', asked: report.asked, requests: report.requests };
      } catch (error) {
        // Turned off meanwhile: the index is gone, and nothing is recorded.
        if (error instanceof ClientIndexError && error.kind === 'disabled') return undefined;
        view = failed(problemOf(error), index.status().torrents);
      }
    }
    if (!(await this.shared.settings.get()).clientIndexEnabled || this.current !== running) return view;
    await this.recordRun(running.client, view);
    await this.refreshTabs();
    return view;
  }

  private async runs(client: string): Promise<StoredRuns | undefined> {
    const stored = (await browser.storage.local.get(INDEX_RUNS_KEY))[INDEX_RUNS_KEY] as StoredRuns | undefined;
    return stored && typeof stored === 'object' && stored.client === client ? stored : undefined;
  }

  private async recordRun(client: string, run: IndexRunView): Promise<void> {
    const stored = (await this.runs(client)) ?? { client };
    await browser.storage.local.set({ [INDEX_RUNS_KEY]: { ...stored, [run.job]: run } }).catch(() => undefined);
  }

  /** The options page's view of the index. */
  /**
   * How the index is now, numbered by the state it started from: every change is announced, and
   * each announcement raises the number before its status is read, so an answer begun before a run
   * ended carries a lower number than the announcement of its end, and a page that keeps the
   * highest number drops it however late it arrives.
   */
  async status(): Promise<IndexStatusView> {
    const revision = this.stateRevision;
    return { ...(await this.statusNow()), revision };
  }

  private async statusNow(): Promise<IndexStatusView> {
    const settings = await this.shared.settings.get();
    const base: IndexStatusView = { enabled: settings.clientIndexEnabled, markHosts: settings.indexMarkHosts };
    if (!settings.clientIndexEnabled) return base;
    const found = await this.clients.defaultClient();
    if (!found) return { ...base, problem: { kind: 'no-client' } };
    const key = clientKey(found.config);
    const view: IndexStatusView = { ...base, client: { id: found.config.id, type: found.config.type, url: found.config.url } };
    if (lookupMode(settings) !== 'token') view.problem = { kind: 'needs-token' };
    const index = await this.indexes.open(identityOf(found.config)).catch(() => undefined);
    if (index) {
      const status = index.status();
      view.counts = {
        torrents: status.torrents,
        answered: status.answered,
        places: status.places,
        inClient: status.inClient,
        canCrossSeed: status.canCrossSeed,
        toPlace: status.toPlace,
      };
      view.storage = status.storage;
    }
    // A run that has not read the default client yet is this one's.
    if (this.current && (this.current.client === '' || this.current.client === key)) view.running = this.current.progress;
    const runs = await this.runs(key);
    if (runs?.sync) view.lastSync = runs.sync;
    if (runs?.place) view.lastPlacing = runs.place;
    return view;
  }

  /** Tells the extension's open pages (the options page) how the index is now; one at a time, the last state always sent. */
  private announce(): void {
    this.stateRevision++;
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = (async () => {
      do {
        this.announceAgain = false;
        const message: IndexChanged = { type: 'index:changed', status: await this.status() };
        await (async () => browser.runtime.sendMessage(message))().catch(() => undefined);
      } while (this.announceAgain);
    })()
      .catch(() => undefined)
      .finally(() => (this.announcing = undefined));
  }

  // ----------------------------------------------------------------------------------------------
  // Reacting to the user's settings and clients

  private async settingsChanged(next: Settings, previous: Settings): Promise<void> {
    if (next.clientIndexEnabled !== previous.clientIndexEnabled) {
      if (!next.clientIndexEnabled) {
        // Off means nothing kept: the run stops before its next batch, the index and its record go.
        this.current?.controller.abort();
        await this.indexes.deleteAll();
        await browser.storage.local.remove(INDEX_RUNS_KEY).catch(() => undefined);
      } else void this.run('sync');
    }
    const marksChanged = next.indexMarkHosts.join() !== previous.indexMarkHosts.join();
    if (next.clientIndexEnabled !== previous.clientIndexEnabled || marksChanged) {
      await this.refreshTabs(previous);
      this.announce();
    }
  }

  private async clientsChanged(next: StoredClient[], previous: StoredClient[]): Promise<void> {
    const before = clientKey(previous.find((client) => client.isDefault));
    const after = clientKey(next.find((client) => client.isDefault));
    if (before === after) return;
    // The run under way is for the old client: it stops, and the next one is the new client's.
    const stopped = this.current;
    stopped?.controller.abort();
    await stopped?.promise.catch(() => undefined);
    await this.refreshTabs();
    this.announce();
    if (after && (await this.shared.settings.get()).clientIndexEnabled) void this.run('sync');
  }

  // ----------------------------------------------------------------------------------------------
  // List pages: the popup, the badge, and the marks where the user asked for them

  /** What a tab's list page needs to be answered, or why it cannot be. No service request. */
  private async context(view: TabView | undefined): Promise<PageContext> {
    if (!view || view.kind !== 'list' || !view.rows?.length) return { state: 'not-a-list' };
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled) return { state: 'off' };
    const found = await this.clients.defaultClient();
    if (!found) return { state: 'no-client' };
    // The id the service's list as stored gives the host's site (never fetched here): the catalog's
    // sid may be an old one (the service renumbers), and a site only the service lists needs it.
    const sid = sidForHost(view.host, view.host ? await this.shared.directory.sites.peek(settings.baseUrl) : undefined);
    if (sid === undefined || !view.host) return { state: 'unknown-site', host: view.host };
    return { state: 'ready', settings, config: found.config, sid, host: view.host, view: view as TabView & { rows: ListRow[] } };
  }

  /** Answers a tab's list page from the index. */
  private async answer(view: TabView | undefined): Promise<ListAnswer> {
    const key = view ? pageKey(view) : '';
    const context = await this.context(view);
    if (context.state !== 'ready') return { key, answer: context.state === 'unknown-site' ? { state: 'unknown-site', host: context.host } : { state: context.state }, marks: {} };
    // After a restart this reads only the page's rows from IndexedDB: it does not wait for the whole index.
    const rows = await this.indexes.rows(identityOf(context.config), context.sid, context.view.rows);
    if (!rows) return { key, answer: { state: 'off' }, marks: {} };
    const { matches } = rows;
    const inClient: IndexRowView[] = [];
    const canCrossSeed: IndexRowView[] = [];
    const marks: Record<string, 'i' | 'c'> = {};
    for (const row of context.view.rows) {
      const match: RowMatch | undefined = matches.get(row.id);
      if (!match) continue;
      const entry: IndexRowView = { id: row.id, ...(row.title && { title: row.title }), clientTorrent: heldTorrent(match.clientTorrent) };
      if (match.kind === 'in-client') inClient.push(entry);
      else canCrossSeed.push(entry);
      marks[row.id] = match.kind === 'in-client' ? 'i' : 'c';
    }
    const empty = !rows.answered;
    return {
      key,
      marks,
      answer: {
        state: 'answered',
        host: context.host,
        siteName: context.view.siteName ?? siteName(context.sid, undefined).name,
        rows: context.view.rows.length,
        inClient,
        canCrossSeed,
        marks: context.settings.indexMarkHosts.includes(context.host),
        empty,
      },
    };
  }

  /** The badge on a list page while the index is on: how many of its rows can be cross-seeded. */
  private badge(view: TabView): { text: string; color: string } | undefined {
    if (view.kind !== 'list') return undefined;
    const known = this.pages.get(view.tabId);
    // Nothing answered yet (a first sync under way): the page's own badge stands.
    if (!known || known.key !== pageKey(view) || known.answer.state !== 'answered' || known.answer.empty) return undefined;
    const count = known.answer.canCrossSeed.length;
    return { text: count > 999 ? '999+' : String(count), color: count ? '#1a7f37' : '#6e7781' };
  }

  /** Resolves once every tab change so far has been answered (tests and benches wait on it). */
  async idle(): Promise<void> {
    let seen: Promise<unknown>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  /** A tab's view changed: a new list page (or new rows) is answered, its badge painted, its marks sent where wanted. */
  private async tabChanged(view: TabView): Promise<void> {
    const known = this.pages.get(view.tabId);
    if (view.kind !== 'list') {
      if (known) this.pages.delete(view.tabId);
      // The page moved on in place (a single-page site): the marks it was given go.
      await this.clearMarks(view);
      return;
    }
    if (known?.key === pageKey(view)) return;
    await this.refreshTab(view);
  }

  /**
   * Answers one tab's list page again, paints its badge, and sends its marks if its host has them
   * on; a page that had marks and should have none now (marks or the index turned off) is told so.
   */
  private async refreshTab(view: TabView, hadMarks = false): Promise<ListAnswer> {
    const answered = await this.answer(view);
    const current = await this.shared.tabs.get(view.tabId);
    // The tab moved on meanwhile: its own change answers it.
    if (!current || pageKey(current) !== answered.key) return answered;
    this.pages.set(view.tabId, answered);
    await this.shared.tabs.repaintBadge(view.tabId);
    if (answered.answer.state === 'answered' && answered.answer.marks) await this.sendMarks(current, answered.marks);
    else await this.clearMarks(current, hadMarks);
    return answered;
  }

  /**
   * Every open list page answered again (the index, the client or the settings changed). Marks go
   * from pages whose host no longer has them on (or the index went off); `previous` settings say
   * which hosts had them.
   */
  private async refreshTabs(previous?: Settings): Promise<void> {
    const open = new Set<number>();
    for (const view of this.shared.tabs.all()) {
      open.add(view.tabId);
      if (view.kind !== 'list') continue;
      await this.refreshTab(view, !!previous?.clientIndexEnabled && previous.indexMarkHosts.includes(view.host ?? ''));
    }
    for (const tabId of [...this.pages.keys()]) if (!open.has(tabId)) this.pages.delete(tabId);
    for (const tabId of [...this.marksSent.keys()]) if (!open.has(tabId)) this.marksSent.delete(tabId);
  }

  /**
   * Sends a tab's content script its marks. Called only for a page on a host the user turned marks
   * on for (its answer says so); never the same marks twice.
   */
  private async sendMarks(view: TabView, marks: Record<string, 'i' | 'c'>): Promise<void> {
    if (!view.url || !view.host) return;
    const sent = `${pageKey(view)}#${JSON.stringify(marks)}`;
    if (this.marksSent.get(view.tabId)?.sent === sent) return;
    this.marksSent.set(view.tabId, { host: view.host, sent });
    await this.post(view, marks);
  }

  /**
   * Takes the marks away from a page that was given some: one this background sent marks to on
   * the same host, or (`hadMarks`, after a restart) one on a host that had them on until now.
   * A page on any other host hears nothing.
   */
  private async clearMarks(view: TabView, hadMarks = false): Promise<void> {
    const sent = this.marksSent.get(view.tabId);
    if (!view.host || !((sent && sent.host === view.host) || hadMarks)) return;
    this.marksSent.delete(view.tabId);
    await this.post(view, {});
  }

  private async post(view: TabView, marks: Record<string, 'i' | 'c'>): Promise<void> {
    if (!view.url) return;
    const message: IndexMarks = { type: 'index:marks', url: view.url, marks };
    await (async () => browser.tabs.sendMessage(view.tabId, message, { frameId: 0 }))().catch(() => undefined);
  }

  /** The popup's answer for a tab, fresh from the index (it also keeps the badge true). */
  async page(tabId: number): Promise<IndexPageAnswer> {
    const view = await this.shared.tabs.get(tabId);
    if (!view || view.kind !== 'list') return { state: 'not-a-list' };
    return (await this.refreshTab(view)).answer;
  }

  /** "Show marks in this site's pages", from the popup: the host is the tab's, as the browser gives it. */
  async setRowMarks(tabId: number, on: boolean): Promise<IndexPageAnswer> {
    const view = await this.shared.tabs.get(tabId);
    const host = view?.host;
    const settings = await this.shared.settings.get();
    // Only while the index is on: the popup offers the switch only with an answer.
    if (host && isPageHost(host) && settings.clientIndexEnabled) {
      const hosts = settings.indexMarkHosts.filter((known) => known !== host);
      if (on) hosts.push(host);
      if (hosts.join() !== settings.indexMarkHosts.join()) await this.shared.settings.save({ ...settings, indexMarkHosts: hosts });
    }
    return this.page(tabId);
  }

  /**
   * "Cross-seed" on a list row: the row must be on the tab's page and the index must know it as
   * one the client can cross-seed; the candidate (site, torrent id, info-hash) comes from the index.
   */
  async crossSeedRow(tabId: number, rowId: string): Promise<IndexCrossSeedAnswer> {
    const view = await this.shared.tabs.get(tabId);
    const context = await this.context(view);
    const answerWith = async (result: CrossSeedResult, name = view?.siteName ?? view?.host ?? ''): Promise<IndexCrossSeedAnswer> => ({ result, siteName: name, page: await this.page(tabId) });
    if (context.state === 'no-client') return answerWith({ kind: 'no-client' });
    if (context.state !== 'ready') return answerWith({ kind: 'bad-request', detail: `no index answer for this page (${context.state})` });
    const row = context.view.rows.find((candidate) => candidate.id === rowId);
    if (!row) return answerWith({ kind: 'bad-request', detail: 'no such row on this page' });
    const name = context.view.siteName ?? siteName(context.sid, undefined).name;
    const index = await this.indexes.open(identityOf(context.config));
    if (!index) return answerWith({ kind: 'bad-request', detail: 'no index answer for this page (off)' }, name);
    const match = index.query(context.sid, [row]).get(row.id);
    if (match?.kind === 'in-client') return answerWith({ kind: 'already-in-client', hash: match.candidateHash, savePath: match.clientTorrent.savePath }, name);
    if (!match) return answerWith({ kind: 'bad-request', detail: 'the index knows no cross-seed for this row' }, name);
    const environment = await crossSeedEnvironment(this.shared, this.clients);
    const result = await crossSeed(match.clientTorrent.hash, { sid: context.sid, torrentId: Number(row.id), infoHash: match.candidateHash }, environment);
    if ((result.kind === 'added' || result.kind === 'already-in-client') && environment.target) {
      // The index holds it from now on (the next sync asks the service about it, as about any new torrent).
      const held: ClientTorrent | undefined = await environment.target.client
        .lookup([result.hash])
        .then((found) => found.get(result.hash))
        .catch(() => undefined);
      if (held) await index.noteAdded(held);
      this.pages.delete(tabId);
    }
    return answerWith(result, name);
  }
}

