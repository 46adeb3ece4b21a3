/**
 * List pages answered from the clients' indexes (every client's, merged: merge-rows.ts): a tab's
 * list rows, with no service request, for the popup (`index:page`: each row says which client holds
 * it, or which client holds its data and where its copy would go), the badge (the rows any client
 * can cross-seed) and, only on hosts where the user turned row marks on, the page itself
 * (marks-to-pages.ts). And "Cross-seed" on a row: the row from the tab's view, its candidate from
 * the indexes, run by the cross-seed feature's one way in (CrossSeeds.run: its de-duplication,
 * pace and site fetch; its placement decides the client the copy goes to).
 */
import { MAX_INDEXED_CLIENTS, type ClientIndexes } from '../../utils/client-index/indexes-by-client.ts';
import type { CrossSeedResult } from '../../utils/cross-seed-engine';
import type { HeldTorrent } from '../clients/clients.messages';
import type { IndexCrossSeedAnswer, IndexPageAnswer, IndexRowView } from './client-index.messages';
import type { TabView } from '../lookup/lookup.messages';
import type { ListRow } from '../../utils/pages/page-types';
import type { Settings } from '../../utils/settings';
import { sidForHost, siteName } from '../lookup/candidates';
import type { Clients, StoredClient } from '../clients/clients.feature';
import { mergeRows, type MergedRow } from './merge-rows';
import { clientIdentity } from '../clients/client-identity';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import type { MarksToPages, RowMarks } from './marks-to-pages';
import type { Shared } from '../context';

function sameSource(a: NonNullable<ListAnswer['from']>, b: NonNullable<ListAnswer['from']>): boolean {
  return a.settings === b.settings && a.clients === b.clients && a.sid === b.sid && a.changes === b.changes;
}

/** What of the saved clients a list page's answer depends on (their order, Names, "Only read", "Copies go to", pairs), as one string. */
function clientsKey(clients: readonly StoredClient[]): string {
  return JSON.stringify(clients.map(({ id, type, url, name, readOnly, copiesTo, folderPairs }) => [id, type, url, name, readOnly, copiesTo ?? '', folderPairs]));
}

/** What the index says about one tab's list page, kept until the page's rows or the index change. */
interface ListAnswer {
  /** The page this is for: its URL and rows. */
  key: string;
  answer: IndexPageAnswer;
  /** Row id → mark, for the page itself where the user asked for marks. */
  marks: RowMarks;
  /** What it was worked out from: while all of it is the same, so is the answer (answer()). */
  from?: { settings: Settings; clients: string; sid: number; changes: number };
}

/** Everything a list page's answer needs, or why there is none. */
type PageContext =
  | { state: 'off' | 'no-client' | 'not-a-list' }
  | { state: 'unknown-site'; host?: string }
  | {
      state: 'ready';
      settings: Settings;
      /** Every saved client, in the user's order; the first MAX_INDEXED_CLIENTS are indexed. */
      clients: StoredClient[];
      sid: number;
      host: string;
      view: TabView & { rows: ListRow[] };
    };

/** What a list page is, for knowing when its answer is stale: its URL and its rows (ids and hashes). */
function pageKey(view: TabView): string {
  return `${view.url ?? ''}|${(view.rows ?? []).map((row) => `${row.id}${row.hash ? `:${row.hash}` : ''}`).join(',')}`;
}

function heldTorrent(torrent: HeldTorrent): HeldTorrent {
  const { hash, name, savePath, state, progress, size } = torrent;
  return { hash, name, savePath, state, progress, size };
}

export class ListPages {
  /** Per tab: the index's answer for its list page. */
  private readonly pages = new Map<number, ListAnswer>();
  /** Tab answers are worked out one at a time, in the order the views changed. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly indexes: ClientIndexes,
    private readonly marks: MarksToPages,
    private readonly crossSeeds: Pick<CrossSeeds, 'run'>,
  ) {}

  /**
   * Per tab: the answer for a list page whose reading just arrived, worked out while the page's own
   * lookup reads the answer cache (after a worker stop that read and this one's IndexedDB read
   * would otherwise follow one another). Taken by the tab's next answer for the same page.
   */
  private readonly early = new Map<number, { key: string; answer: Promise<ListAnswer> }>();

  /**
   * A tab's reading arrived (TabViews.reading): a list page's answer starts now, before its view is
   * set, and is shown once it is there (badge and marks) if the tab has read nothing newer since.
   * The view's own change then finds the page answered.
   */
  readingArrived(view: TabView): void {
    if (view.kind !== 'list' || !view.rows?.length) {
      this.early.delete(view.tabId);
      return;
    }
    const key = pageKey(view);
    const answer = this.answer(view, false);
    this.early.set(view.tabId, { key, answer });
    void answer
      .then(async (answered) => {
        // The tab read another page since (or navigated away), or the view's own change answered it.
        const latest = this.shared.tabs.latest(view.tabId);
        if (!latest || pageKey(latest) !== key || this.pages.get(view.tabId)?.key === key) return;
        this.pages.set(view.tabId, answered);
        await this.shared.tabs.paintBadgeOf(view);
        if (answered.answer.state === 'answered' && answered.answer.marks) await this.marks.send(view, key, answered.marks);
      })
      .catch(() => undefined);
  }

  /** The early answer for this page, if one was started and still holds (the same settings, clients, site and indexes). */
  private async earlyAnswer(view: TabView, key: string, from: NonNullable<ListAnswer['from']>): Promise<ListAnswer | undefined> {
    const early = this.early.get(view.tabId);
    if (!early) return undefined;
    this.early.delete(view.tabId);
    if (early.key !== key) return undefined;
    const answered = await early.answer.catch(() => undefined);
    return answered?.from && sameSource(answered.from, from) ? answered : undefined;
  }

  /** A tab's view changed: queued behind the changes before it. */
  viewChanged(view: TabView): void {
    this.queue = this.queue.then(() => this.tabChanged(view)).catch(() => undefined);
  }

  /** Resolves once every tab change so far has been answered (tests and benches wait on it). */
  async idle(): Promise<void> {
    let seen: Promise<unknown>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  /** What a tab's list page needs to be answered, or why it cannot be. No service request. */
  private async context(view: TabView | undefined): Promise<PageContext> {
    if (!view || view.kind !== 'list' || !view.rows?.length) return { state: 'not-a-list' };
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled) return { state: 'off' };
    // The id the service's list as stored gives the host's site (never fetched here): the catalog's
    // sid may be an old one (the service renumbers), and a site only the service lists needs it.
    // Read beside the clients (after a worker stop, each is a read of storage).
    const [clients, sites] = await Promise.all([this.clients.configs(), view.host ? this.shared.directory.sites.peek(settings.baseUrl) : undefined]);
    if (!clients.length) return { state: 'no-client' };
    const sid = sidForHost(view.host, sites);
    if (sid === undefined || !view.host) return { state: 'unknown-site', host: view.host };
    return { state: 'ready', settings, clients, sid, host: view.host, view: view as TabView & { rows: ListRow[] } };
  }

  /** The rows as every indexed client's index answers them together; undefined while the index is off. */
  private async merged(context: Extract<PageContext, { state: 'ready' }>, rows: readonly ListRow[]): Promise<{ merged: Map<string, MergedRow>; answered: boolean } | undefined> {
    const indexed = context.clients.slice(0, MAX_INDEXED_CLIENTS);
    // After a restart this reads only the page's rows from IndexedDB, for every client in one read: it does not wait for the whole indexes.
    const answers = await this.indexes.rowsOfEach(indexed.map(clientIdentity), context.sid, rows);
    if (!answers) return undefined;
    const merged = mergeRows(
      answers.map((answer, at) => ({ config: indexed[at]!, rows: answer })),
      context.clients,
      rows.map((row) => row.id),
    );
    return { merged, answered: answers.some((answer) => answer.answered) };
  }

  /** Answers a tab's list page from the index. */
  private async answer(view: TabView | undefined, takeEarly = true): Promise<ListAnswer> {
    const key = view ? pageKey(view) : '';
    const context = await this.context(view);
    if (context.state !== 'ready') return { key, answer: context.state === 'unknown-site' ? { state: 'unknown-site', host: context.host } : { state: context.state }, marks: {} };
    // The tab's answer from the same settings, clients, site and indexes is still the answer: the
    // popup opened on a page whose badge was just worked out gets it without reading again.
    const from = { settings: context.settings, clients: clientsKey(context.clients), sid: context.sid, changes: this.indexes.changes };
    const known = view && this.pages.get(view.tabId);
    if (known?.key === key && known.from && sameSource(known.from, from)) return known;
    const early = takeEarly && view && (await this.earlyAnswer(view, key, from));
    if (early) return early;
    const found = await this.merged(context, context.view.rows);
    if (!found) return { key, answer: { state: 'off' }, marks: {} };
    const inClient: IndexRowView[] = [];
    const canCrossSeed: IndexRowView[] = [];
    const refused: IndexRowView[] = [];
    const marks: RowMarks = {};
    for (const row of context.view.rows) {
      const merged = found.merged.get(row.id);
      if (!merged) continue;
      const { match } = merged;
      const common = { id: row.id, ...(row.title && { title: row.title }), ...(match.foundBy && { foundBy: match.foundBy }) };
      if (merged.kind === 'in-client') {
        inClient.push({ ...common, clientTorrent: heldTorrent(merged.holders[0]!.torrent), heldBy: merged.holders.map((holder) => holder.config.name) });
        marks[row.id] = 'i';
      } else if (merged.kind === 'can-cross-seed') {
        const { destination } = merged;
        canCrossSeed.push({ ...common, clientTorrent: heldTorrent(merged.source.torrent), from: merged.source.config.name, into: { name: destination.target.name, savePath: destination.savePath, viaPair: destination.viaPair } });
        marks[row.id] = 'c';
      } else refused.push({ ...common, clientTorrent: heldTorrent(merged.source.torrent), from: merged.source.config.name, refused: merged.result });
    }
    return {
      key,
      marks,
      from,
      answer: {
        state: 'answered',
        host: context.host,
        siteName: context.view.siteName ?? siteName(context.sid, undefined).name,
        rows: context.view.rows.length,
        inClient,
        canCrossSeed,
        ...(refused.length && { refused }),
        marks: context.settings.indexMarkHosts.includes(context.host),
        empty: !found.answered,
      },
    };
  }

  /** The badge on a list page while the index is on: how many of its rows can be cross-seeded. */
  badge(view: TabView): { text: string; color: string } | undefined {
    if (view.kind !== 'list') return undefined;
    const known = this.pages.get(view.tabId);
    // Nothing answered yet (a first sync under way): the page's own badge stands.
    if (!known || known.key !== pageKey(view) || known.answer.state !== 'answered' || known.answer.empty) return undefined;
    const count = known.answer.canCrossSeed.length;
    return { text: count > 999 ? '999+' : String(count), color: count ? '#1a7f37' : '#6e7781' };
  }

  /** A tab's view changed: a new list page (or new rows) is answered, its badge painted, its marks sent where wanted. */
  private async tabChanged(view: TabView): Promise<void> {
    const known = this.pages.get(view.tabId);
    if (view.kind !== 'list') {
      if (known) this.pages.delete(view.tabId);
      this.early.delete(view.tabId);
      // The page moved on in place (a single-page site): the marks it was given go.
      await this.marks.clear(view);
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
    // The tab's answer as it stands (the popup asking for the page whose badge shows it): painted and
    // marked when it was taken, so nothing goes to the browser again.
    if (this.pages.get(view.tabId) === answered) return answered;
    this.pages.set(view.tabId, answered);
    await this.shared.tabs.repaintBadge(view.tabId);
    if (answered.answer.state === 'answered' && answered.answer.marks) await this.marks.send(current, pageKey(current), answered.marks);
    else await this.marks.clear(current, hadMarks);
    return answered;
  }

  /**
   * Every open list page answered again (the index, the client or the settings changed). Marks go
   * from pages whose host no longer has them on (or the index went off); `previous` settings say
   * which hosts had them.
   */
  async refreshTabs(previous?: Settings): Promise<void> {
    const open = new Set<number>();
    for (const view of this.shared.tabs.all()) {
      open.add(view.tabId);
      if (view.kind !== 'list') continue;
      await this.refreshTab(view, !!previous?.clientIndexEnabled && previous.indexMarkHosts.includes(view.host ?? ''));
    }
    for (const tabId of [...this.pages.keys()]) if (!open.has(tabId)) this.pages.delete(tabId);
    for (const tabId of [...this.early.keys()]) if (!open.has(tabId)) this.early.delete(tabId);
    this.marks.keepOnly(open);
  }

  /** The popup's answer for a tab, fresh from the index (it also keeps the badge true). */
  async page(tabId: number): Promise<IndexPageAnswer> {
    // A page whose reading is here but whose view is not set yet (its own lookup still reading the
    // cache) is answered already: its badge may show its count.
    const view = this.shared.tabs.latest(tabId) ?? (await this.shared.tabs.get(tabId));
    if (!view || view.kind !== 'list') return { state: 'not-a-list' };
    return (await this.refreshTab(view)).answer;
  }

  /**
   * "Cross-seed" on a list row: the row must be on the tab's page and the index must know it as
   * one the client can cross-seed; the candidate (site, torrent id, info-hash) comes from the index.
   */
  async crossSeedRow(tabId: number, rowId: string): Promise<IndexCrossSeedAnswer> {
    const view = this.shared.tabs.latest(tabId) ?? (await this.shared.tabs.get(tabId));
    const context = await this.context(view);
    const answerWith = async (result: CrossSeedResult, name = view?.siteName ?? view?.host ?? ''): Promise<IndexCrossSeedAnswer> => ({ result, siteName: name, page: await this.page(tabId) });
    if (context.state === 'no-client') return answerWith({ kind: 'no-client' });
    if (context.state !== 'ready') return answerWith({ kind: 'bad-request', detail: `no index answer for this page (${context.state})` });
    const row = context.view.rows.find((candidate) => candidate.id === rowId);
    if (!row) return answerWith({ kind: 'bad-request', detail: 'no such row on this page' });
    const name = context.view.siteName ?? siteName(context.sid, undefined).name;
    const found = await this.merged(context, [row]);
    if (!found) return answerWith({ kind: 'bad-request', detail: 'no index answer for this page (off)' }, name);
    const merged = found.merged.get(row.id);
    if (merged?.kind === 'in-client') {
      const [holder] = merged.holders;
      return answerWith({ kind: 'already-in-client', hash: merged.match.candidateHash, savePath: holder!.torrent.savePath, clientName: holder!.config.name, clientId: holder!.config.id }, name);
    }
    // Its data is held, but its copy could go nowhere: said, and nothing is fetched.
    if (merged?.kind === 'refused') return answerWith(merged.result, name);
    if (!merged) return answerWith({ kind: 'bad-request', detail: 'the index knows no cross-seed for this row' }, name);
    const { match } = merged;
    // No tab record: the answer goes to the popup alone (a list page hears nothing of the index).
    // The placement asks every client and decides the source and the client the copy goes to.
    const { result, clientId } = await this.crossSeeds.run({
      sourceHash: match.clientTorrent.hash,
      candidate: { sid: context.sid, torrentId: Number(row.id), infoHash: match.candidateHash, ...(match.candidatePieces && { piecesHash: match.candidatePieces }) },
      siteName: name,
    });
    // The index noted it (ClientIndexFeature hears every cross-seed that lands): the page is answered again.
    if ((result.kind === 'added' || result.kind === 'already-in-client') && clientId) this.pages.delete(tabId);
    return answerWith(result, name);
  }
}
