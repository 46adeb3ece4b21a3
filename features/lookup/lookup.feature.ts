/**
 * Feature: what each tab shows. A tracker page's reading comes in, its hashes are looked up, and
 * the tab's view (badge, popup, panel) is kept current. Also the page-side actions: refresh, the
 * .torrent fallback, reading a page once on a toolbar click, hiding the panel on a site.
 */
import { browser } from 'wxt/browser';
import type { CandidateView, TabView } from './lookup.messages';
import type { FoundHash, PageReading } from '../../utils/pages/page-types';
import type { LookupOutcome } from '../../utils/lookup/lookup';
import type { ServiceSite } from '../../utils/iyuu/answer-schemas';
import { toFailure, type ServiceFailure } from '../../utils/iyuu/service-errors';
import { lookupMode, type Settings } from '../../utils/settings';
import { siteForHost } from '../../utils/sites';
import { infoHashFromTorrent } from '../../utils/torrent/info-hash';
import { buildCandidateViews, mergePiecesCandidates, type PiecesPlace } from './candidates';
import { readTabOnce } from '../sites/sites.feature';
import { rememberSeen } from '../sites/seen-sites';
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { lookupMessages } from './lookup.messages';

import { hostOf } from '../../utils/url';
import { announceToTab } from '../announce';
/** Lookups a page may cause by changing itself (re-reads), per tab and minute; the user's click is not counted. */
export const PAGE_LOOKUPS_PER_MINUTE = 10;

/** The budget ran out: the view waits for the user. */
class BudgetSpent extends Error {}

/**
 * Each tab's budget of lookups caused by its page changing its own hashes. A page controls what
 * the extension reads and is re-read on every change, so without this a page swapping in hashes
 * could spend the user's quota with the service.
 */
export class PageBudget {
  private readonly spent = new Map<number, number[]>();

  constructor(private readonly perMinute = PAGE_LOOKUPS_PER_MINUTE) {}

  take(tabId: number, now = Date.now()): boolean {
    const recent = (this.spent.get(tabId) ?? []).filter((at) => now - at < 60_000);
    if (recent.length >= this.perMinute) {
      this.spent.set(tabId, recent);
      return false;
    }
    this.spent.set(tabId, [...recent, now]);
    return true;
  }

  /** The user asked (or the tab closed): the page starts afresh. */
  reset(tabId: number): void {
    this.spent.delete(tabId);
  }
}

/**
 * The in-page panel: on torrent pages where the user has not turned it off. Never on a list page
 * (issue 15): there the popup answers, and the page gains nothing at all unless the user turns the
 * site's row marks on — a panel (even folded) would tell the tracker the extension is installed.
 */
function panelWanted(settings: Settings, view: Pick<TabView, 'host' | 'kind'>): boolean {
  return view.kind !== 'list' && settings.panelEnabled && !(view.host && settings.panelDisabledHosts.includes(view.host));
}

function accessFor(settings: Settings, host: string | undefined): TabView['access'] {
  if (!host) return undefined;
  if (siteForHost(host)) return 'catalog';
  return settings.customHosts.some((known) => host === known || host.endsWith(`.${known}`)) ? 'custom' : 'once';
}

export class PageViews {
  readonly budget = new PageBudget();
  /**
   * The places sites asked by pieces hash named for these hashes (the client index, which holds
   * their pieces hashes): merged into the popup's candidates, never into what a page is sent.
   */
  piecesPlaces: ((hashes: readonly string[]) => Promise<PiecesPlace[]>) | undefined;

  constructor(private readonly shared: Shared) {
    shared.settings.onChange(async (next, previous) => {
      // Open tabs fold the sites the user is not on at once, from the answers already held.
      if (next.heldSites?.join() !== previous.heldSites?.join()) await this.redrawTabs();
    });
  }

  readonly handlers: Handlers<typeof lookupMessages> = {
    'view:get': (message) => this.view(message.tabId),
    // Commands from the popup: the new view reaches it once, as `view:changed` (TabViews announces every change).
    'view:refresh': async (message) => {
      await this.refresh(message.tabId);
    },
    'view:hash-from-torrent': async (message) => {
      // The tab's content script downloads its own .torrent link with the user's session.
      await announceToTab(message.tabId, { type: 'content:hash-from-torrent' });
    },
    'view:read-once': async (message) => {
      await this.readOnce(message.tabId);
    },
    // A tracker page's own messages. Their view reaches the page once, as the page's `view:changed`
    // (panel-view.ts: never the full view), not as their answer.
    'page:reading': async (message, from) => ({ filedUnder: (await this.onPageReading(from.tabId, from.url, message.reading)).url ?? from.url }),
    'page:refresh': async (_message, from) => {
      await this.refresh(from.tabId);
    },
    'panel:hide-on-site': (_message, from) => this.hidePanelOn(from.url),
    'page:torrent-file': async (message, from) => {
      const { hash } = await this.hashFromTorrentFile(from.tabId, message.data, message.problem);
      return { hash };
    },
  };


  /**
   * A content script read its page. The tab id and URL come from the browser, not the message.
   * The first reading of a document is the navigation's; later ones are the page changing itself,
   * and what they ask of the service comes out of the page's budget.
   */
  async onPageReading(tabId: number, url: string, reading: PageReading | null): Promise<TabView> {
    const host = hostOf(url);
    void rememberSeen(host);
    const base: TabView = {
      tabId,
      url,
      host,
      siteName: host ? siteForHost(host)?.nickname : undefined,
      status: 'no-hash',
      engine: reading?.engine,
      problem: reading?.problem,
      torrentFileUrl: reading?.torrentFileUrl,
      hashes: reading?.hashes ?? [],
      candidates: [],
      kind: reading?.kind,
      rows: reading?.rows,
    };
    // Before anything is read: a list page's answer from the client index starts at once.
    this.shared.tabs.reading(base);
    const known = await this.shared.tabs.get(tabId);
    const reread = !!known && known.status !== 'not-a-tracker' && known.status !== 'reading';
    return this.resolve(base, false, reread);
  }

  async view(tabId: number): Promise<TabView> {
    const known = await this.shared.tabs.get(tabId);
    if (known) return known;
    let url: string | undefined;
    try {
      url = (await browser.tabs.get(tabId)).url;
    } catch {
      // The tab is gone or its URL is not ours to see: the view says so.
    }
    return { tabId, url, host: hostOf(url), siteName: siteForHost(hostOf(url) ?? '')?.nickname, status: 'not-a-tracker', hashes: [], candidates: [] };
  }

  /** "Refresh" / "Look up again": the user's own request, which also gives the page a new budget. */
  async refresh(tabId: number): Promise<TabView> {
    const view = await this.view(tabId);
    this.budget.reset(tabId);
    if (!view.hashes.length) return view;
    return this.resolve(view, true);
  }

  /** Adds hashes read from elsewhere (the .torrent file) to a tab's view and looks them up. */
  async addHashes(tabId: number, hashes: FoundHash[]): Promise<TabView> {
    const view = await this.view(tabId);
    const known = new Set(view.hashes.map((found) => found.hash));
    const added = hashes.filter((found) => !known.has(found.hash));
    return this.resolve({ ...view, hashes: [...view.hashes, ...added], problem: undefined }, false);
  }

  /** The toolbar click granted activeTab: run the reader in this tab once, then show its view. */
  async readOnce(tabId: number): Promise<TabView> {
    const { tabs } = this.shared;
    const known = await tabs.get(tabId);
    if (known && known.status !== 'not-a-tracker') return known;
    await tabs.set({ ...(await this.view(tabId)), status: 'reading' });
    if (!(await readTabOnce(tabId))) return tabs.set({ ...(await this.view(tabId)), status: 'not-a-tracker' });
    return this.view(tabId);
  }

  /** "Hide on this site", from the panel: the host comes from the browser, not the page. */
  async hidePanelOn(url: string): Promise<{ hidden: boolean }> {
    const host = hostOf(url);
    if (!host) return { hidden: false };
    const { settings: store, tabs } = this.shared;
    const settings = await store.get();
    if (!settings.panelDisabledHosts.includes(host)) {
      await store.save({ ...settings, panelDisabledHosts: [...settings.panelDisabledHosts, host] });
    }
    for (const view of tabs.all()) if (view.host === host) await tabs.set({ ...view, panel: false });
    return { hidden: true };
  }

  /**
   * The bytes of the page's own .torrent (downloaded by the content script on the user's click,
   * with the user's session): its info-hash joins the tab's hashes and is looked up.
   */
  async hashFromTorrentFile(
    tabId: number,
    base64: string | undefined,
    downloadProblem: 'no-link' | 'download-failed' | undefined,
  ): Promise<{ hash?: string; view: TabView }> {
    let problem: TabView['torrentFileProblem'] = downloadProblem ?? 'no-link';
    if (base64 !== undefined && !downloadProblem) {
      const result = await infoHashFromTorrent(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));
      if ('hash' in result) return { hash: result.hash, view: await this.addHashes(tabId, [{ hash: result.hash, source: 'torrent-file' }]) };
      problem = result.error;
    }
    return { view: await this.shared.tabs.set({ ...(await this.view(tabId)), torrentFileProblem: problem }) };
  }

  /**
   * Rebuilds every tab's view from the answers held (after the user's sites changed), asking the
   * service nothing: open tabs fold the sites the user is not on at once. The next visit asks
   * again, as answers fetched under the old site list are no longer fresh.
   */
  private async redrawTabs(): Promise<void> {
    const settings = await this.shared.settings.get();
    for (const view of this.shared.tabs.all()) {
      if (view.status !== 'done' || !view.hashes.length) continue;
      const sites = await this.shared.directory.sites.get(settings.baseUrl, (operation) => this.shared.lookup.call(operation, settings));
      const redrawn = await this.withOlderAnswers(view, settings, sites);
      const current = await this.shared.tabs.get(view.tabId);
      if (current?.url === view.url) await this.shared.tabs.set({ ...redrawn, status: 'done' });
    }
  }

  private async resolve(view: TabView, force: boolean, budgeted = false): Promise<TabView> {
    const { tabs, lookup, directory } = this.shared;
    const { tabId } = view;
    const settings = await this.shared.settings.get();
    const base: TabView = {
      ...view,
      // Each resolve says anew what the page is told: a no-token view's status must not outlive it.
      serviceStatus: undefined,
      panel: panelWanted(settings, view),
      access: accessFor(settings, view.host),
      torrentFileProblem: undefined,
    };
    if (!base.hashes.length) return tabs.set({ ...base, status: 'no-hash', error: undefined });
    if (lookupMode(settings) === 'none') return this.withPieces(await tabs.set({ ...base, status: 'no-credentials', candidates: [], error: undefined }));
    const hashes = base.hashes.map((found) => found.hash);
    const sitesPromise = directory.sites.get(settings.baseUrl, (operation) => lookup.call(operation, settings));
    let outcome: LookupOutcome;
    try {
      outcome = await lookup.answers(hashes, {
        force,
        // Only show "looking up" when the service is asked, so a revisit answered by the cache does not flicker.
        beforeService: () => {
          if (budgeted && !this.budget.take(tabId)) throw new BudgetSpent();
          return tabs.set({ ...base, status: 'looking-up', error: undefined, retryAt: undefined });
        },
      });
    } catch (error) {
      const sites = await sitesPromise;
      if (error instanceof BudgetSpent) return this.withPieces(await tabs.set({ ...(await this.withOlderAnswers(base, settings, sites)), status: 'waiting-for-user', error: undefined }));
      return this.withPieces(await tabs.set(await this.failedView(base, settings, toFailure(error), sites)));
    }
    const sites = await sitesPromise;
    const candidates = buildCandidateViews(base.hashes, outcome.answers, {
      sites: sites.value,
      host: base.host,
      heldSites: settings.heldSites,
      overrides: settings.siteOverrides,
    });
    const fetchedAt = Math.min(...[...outcome.answers.values()].map((answer) => answer.fetchedAt));
    const current = await tabs.get(tabId);
    // The tab moved on to another page while we waited: do not paint an old answer over it.
    if (current && current.url !== base.url) return current;
    return this.withPieces(await tabs.set({
      ...base,
      status: 'done',
      candidates,
      error: undefined,
      retryAt: undefined,
      fetchedAt: Number.isFinite(fetchedAt) ? fetchedAt : this.shared.now(),
      fromCache: outcome.fromCache,
      clockSkewSeconds: outcome.clockSkewSeconds,
    }));
  }

  /** An error view still shows whatever older answer the cache holds: nothing is lost. */
  private async failedView(base: TabView, settings: Settings, error: ServiceFailure, sites: { value?: ServiceSite[] }): Promise<TabView> {
    return { ...(await this.withOlderAnswers(base, settings, sites)), status: 'error', error, retryAt: error.retryAt };
  }

  /** The view with whatever answers the cache holds for its hashes, however old. */
  private async withOlderAnswers(base: TabView, settings: Settings, sites: { value?: ServiceSite[] }): Promise<TabView> {
    const hashes = base.hashes.map((found) => found.hash);
    const older = await this.shared.lookup.cache.get(hashes);
    let candidates: TabView['candidates'] = [];
    let fetchedAt: number | undefined;
    if (older.size) {
      candidates = buildCandidateViews(base.hashes, older, {
        sites: sites.value,
        host: base.host,
        heldSites: settings.heldSites,
        overrides: settings.siteOverrides,
      });
      fetchedAt = Math.min(...[...older.values()].map((answer) => answer.fetchedAt));
    }
    return { ...base, candidates, fetchedAt };
  }

  /**
   * After the view is set and announced as the service alone makes it (what the page is told, at
   * the same moment whatever the client holds): the places sites asked by pieces hash named for the
   * page's hashes, merged into the popup's candidates only. No token, and those sites named some:
   * the popup shows them as an answer ('done'), the page still hears 'no-credentials'.
   */
  private async withPieces(view: TabView): Promise<TabView> {
    if (!this.piecesPlaces || !view.hashes.length) return view;
    const places = await this.piecesPlaces(view.hashes.map((found) => found.hash)).catch(() => []);
    if (!places.length) return view;
    const settings = await this.shared.settings.get();
    const sites = await this.shared.directory.sites.peek(settings.baseUrl);
    const candidates = mergePiecesCandidates(view.candidates, places, { sites, host: view.host, heldSites: settings.heldSites, overrides: settings.siteOverrides });
    const current = await this.shared.tabs.get(view.tabId);
    // The tab moved on meanwhile: its own view stands.
    if (current !== view) return current ?? view;
    const noCredentials = view.status === 'no-credentials';
    return this.shared.tabs.set(
      { ...view, candidates, ...(noCredentials && { status: 'done', serviceStatus: 'no-credentials', fetchedAt: this.shared.now() }) },
      { popupOnly: true },
    );
  }
}
