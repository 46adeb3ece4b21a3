/**
 * What the background does, apart from wiring: reads of tracker pages come in, lookups go out,
 * and each tab's view is kept current. Kept free of listener registration so tests can drive it.
 */
import { browser } from 'wxt/browser';
import type { CandidateView, RecommendedSiteView, SettingsView, TabView } from '../messages';
import type { FoundHash, PageReading } from '../pages/types';
import { Lookup, type LookupOutcome } from '../lookup/lookup';
import { bindAccount, getProfile, getRecommendedSites, type ServiceConfig } from '../service/client';
import { ServiceError, toFailure, type ServiceFailure } from '../service/errors';
import {
  applySettingsUpdate,
  exportSettings,
  lookupMode,
  normaliseBaseUrl,
  settingsFields,
  type Settings,
  type SettingsField,
} from '../settings';
import { catalog, siteForHost } from '../sites';
import type { ProfileView, SiteChoice } from '../messages';
import type { Profile } from '../service/schemas';
import { buildCandidateViews, prefersChinese, recommendedViews, siteName } from './candidates';
import { siteForSid } from '../sites';
import { SettingsStore } from './settings-store';
import { SiteDirectory } from './site-list';
import { TabViews } from './tab-views';
import { infoHashFromTorrent } from '../torrent';
import { grantedHosts, originPatterns, readTabOnce, syncCustomSites } from './custom-sites';

export interface ControllerOptions {
  version?: string;
  fetch?: typeof fetch;
  now?: () => number;
  minIntervalMs?: number;
  maxCallsPerMinute?: number;
  batchWindowMs?: number;
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

const SEEN_KEY = 'seenSites';

function profileView(profile: Profile): ProfileView {
  const state = profile.state;
  const expiry = typeof profile.overdue_time === 'number' && profile.overdue_time > 0 ? profile.overdue_time * 1000 : undefined;
  const lifetime = profile.is_ever_level;
  return {
    activated: state === true || state === 1 || state === '1',
    expiresAt: expiry,
    lifetime: lifetime === true || lifetime === 1 || lifetime === '1',
  };
}

function panelWanted(settings: Settings, host: string | undefined): boolean {
  return settings.panelEnabled && !(host && settings.panelDisabledHosts.includes(host));
}

function accessFor(settings: Settings, host: string | undefined): TabView['access'] {
  if (!host) return undefined;
  if (siteForHost(host)) return 'catalog';
  return settings.customHosts.some((known) => host === known || host.endsWith(`.${known}`)) ? 'custom' : 'once';
}

export class Controller {
  readonly settings = new SettingsStore();
  readonly tabs = new TabViews();
  readonly directory: SiteDirectory;
  readonly lookup: Lookup;
  private readonly now: () => number;

  constructor(options: ControllerOptions) {
    this.now = options.now ?? Date.now;
    this.directory = new SiteDirectory(this.now);
    this.lookup = new Lookup({
      settings: () => this.settings.get(),
      sitesToReport: (config) => this.sitesToReport(config),
      version: options.version,
      fetch: options.fetch,
      now: options.now,
      minIntervalMs: options.minIntervalMs,
      maxCallsPerMinute: options.maxCallsPerMinute,
      batchWindowMs: options.batchWindowMs,
      retryDelaysMs: options.retryDelaysMs,
      timeoutMs: options.timeoutMs,
    });
    this.settings.onChange(async (next, previous) => {
      if (next.baseUrl !== previous.baseUrl || next.token !== previous.token) {
        await this.lookup.forgetServiceState();
        if (next.baseUrl !== previous.baseUrl) await this.directory.forget();
      }
      if (next.heldSites?.join() !== previous.heldSites?.join()) {
        await this.lookup.forgetServiceState();
        // Open tabs fold the sites the user is not on at once, from the answers already held.
        await this.redrawTabs();
      }
    });
  }

  /** Rebuilds every tab's view from the cache (after the user's sites changed). */
  private async redrawTabs(): Promise<void> {
    for (const view of this.tabs.all()) {
      if (view.status === 'done' && view.hashes.length) await this.resolve(view, false).catch(() => undefined);
    }
  }

  /** A content script read its page. The tab id and URL come from the browser, not the message. */
  async onPageReading(tabId: number, url: string, reading: PageReading | null): Promise<TabView> {
    const host = hostOf(url);
    void this.rememberSeen(host);
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
    };
    return this.resolve(base, false);
  }

  async view(tabId: number): Promise<TabView> {
    const known = await this.tabs.get(tabId);
    if (known) return known;
    let url: string | undefined;
    try {
      url = (await browser.tabs.get(tabId)).url;
    } catch {
      // The tab is gone or its URL is not ours to see: the view says so.
    }
    return { tabId, url, host: hostOf(url), siteName: siteForHost(hostOf(url) ?? '')?.nickname, status: 'not-a-tracker', hashes: [], candidates: [] };
  }

  async refresh(tabId: number): Promise<TabView> {
    const view = await this.view(tabId);
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

  private async resolve(view: TabView, force: boolean): Promise<TabView> {
    const { tabId } = view;
    const settings = await this.settings.get();
    const base: TabView = {
      ...view,
      panel: panelWanted(settings, view.host),
      access: accessFor(settings, view.host),
      torrentFileProblem: undefined,
    };
    if (!base.hashes.length) return this.tabs.set({ ...base, status: 'no-hash', error: undefined });
    if (lookupMode(settings) === 'none') return this.tabs.set({ ...base, status: 'no-credentials', candidates: [], error: undefined });

    const hashes = base.hashes.map((found) => found.hash);
    const sitesPromise = this.directory.sites.get(settings.baseUrl, (operation) => this.lookup.call(operation, settings));
    let outcome: LookupOutcome;
    try {
      outcome = await this.lookup.answers(hashes, {
        force,
        // Only show "looking up" when the service is asked, so a revisit answered by the cache does not flicker.
        beforeService: () => this.tabs.set({ ...base, status: 'looking-up', error: undefined, retryAt: undefined }),
      });
    } catch (error) {
      return this.tabs.set(await this.failedView(base, settings, toFailure(error), await sitesPromise));
    }
    const sites = await sitesPromise;
    const candidates = buildCandidateViews(base.hashes, outcome.answers, {
      sites: sites.value,
      host: base.host,
      heldSites: settings.heldSites,
      overrides: settings.siteOverrides,
    });
    const fetchedAt = Math.min(...[...outcome.answers.values()].map((answer) => answer.fetchedAt));
    const current = await this.tabs.get(tabId);
    // The tab moved on to another page while we waited: do not paint an old answer over it.
    if (current && current.url !== base.url) return current;
    return this.tabs.set({
      ...base,
      status: 'done',
      candidates,
      error: undefined,
      retryAt: undefined,
      fetchedAt: Number.isFinite(fetchedAt) ? fetchedAt : this.now(),
      fromCache: outcome.fromCache,
      clockSkewSeconds: outcome.clockSkewSeconds,
    });
  }

  /** At every start: the user's own sites get their content script again; old answers are pruned. */
  async start(): Promise<void> {
    const settings = await this.settings.get();
    await syncCustomSites(settings.customHosts).catch(() => undefined);
    await this.lookup.cache.prune().catch(() => undefined);
  }

  async enableSite(rawHost: string): Promise<{ customHosts: string[] }> {
    const host = rawHost.trim().toLowerCase();
    const settings = await this.settings.get();
    // The popup asked for the permission within the user's click; without it nothing is registered.
    if (!/^[a-z0-9.-]+$/.test(host) || !(await grantedHosts([host])).length) return { customHosts: settings.customHosts };
    const customHosts = settings.customHosts.includes(host) ? settings.customHosts : [...settings.customHosts, host];
    await this.settings.save({ ...settings, customHosts });
    await syncCustomSites(customHosts);
    return { customHosts };
  }

  async disableSite(rawHost: string): Promise<{ customHosts: string[] }> {
    const host = rawHost.trim().toLowerCase();
    const settings = await this.settings.get();
    const customHosts = settings.customHosts.filter((known) => known !== host);
    // Unregister and give the permission back first: the settings change is what the options page
    // shows, so by then the site must really be off.
    await syncCustomSites(customHosts);
    await browser.permissions.remove({ origins: originPatterns(host) }).catch(() => false);
    await this.settings.save({ ...settings, customHosts });
    return { customHosts };
  }

  /** The toolbar click granted activeTab: run the reader in this tab once, then show its view. */
  async readOnce(tabId: number): Promise<TabView> {
    const known = await this.tabs.get(tabId);
    if (known && known.status !== 'not-a-tracker') return known;
    await this.tabs.set({ ...(await this.view(tabId)), status: 'reading' });
    if (!(await readTabOnce(tabId))) return this.tabs.set({ ...(await this.view(tabId)), status: 'not-a-tracker' });
    return this.view(tabId);
  }

  /** "Hide on this site", from the panel: the host comes from the browser, not the page. */
  async hidePanelOn(url: string): Promise<{ hidden: boolean }> {
    const host = hostOf(url);
    if (!host) return { hidden: false };
    const settings = await this.settings.get();
    if (!settings.panelDisabledHosts.includes(host)) {
      await this.settings.save({ ...settings, panelDisabledHosts: [...settings.panelDisabledHosts, host] });
    }
    for (const view of this.tabs.all()) if (view.host === host) await this.tabs.set({ ...view, panel: false });
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
    return { view: await this.tabs.set({ ...(await this.view(tabId)), torrentFileProblem: problem }) };
  }

  /** An error view still shows whatever older answer the cache holds: nothing is lost. */
  private async failedView(
    base: TabView,
    settings: Settings,
    error: ServiceFailure,
    sites: { value?: import('../service/schemas').ServiceSite[] },
  ): Promise<TabView> {
    const hashes = base.hashes.map((found) => found.hash);
    const older = await this.lookup.cache.get(hashes);
    let candidates: CandidateView[] = [];
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
    return { ...base, status: 'error', error, candidates, fetchedAt, retryAt: error.retryAt };
  }

  /** The sids reported for sid_sha1: the user's own sites once picked, else every listed site. */
  private async sitesToReport(config: ServiceConfig): Promise<number[]> {
    const settings = await this.settings.get();
    if (settings.heldSites?.length) return settings.heldSites;
    const { value, error } = await this.directory.sites.get(config.baseUrl, (operation) => this.lookup.call(operation, settings));
    if (!value?.length) {
      throw new ServiceError(error ?? { kind: 'bad-answer', detail: 'the service listed no sites to report' });
    }
    return value.map((site) => site.id);
  }

  async recommended(refresh: boolean): Promise<{ sites: RecommendedSiteView[]; count: number; fetchedAt?: number; error?: ServiceFailure }> {
    const settings = await this.settings.get();
    if (!settings.token) return { sites: [], count: 0, error: { kind: 'no-credentials', detail: 'no token configured' } };
    const call = <T>(operation: (config: ServiceConfig) => Promise<T>) => this.lookup.call(operation, settings);
    const [recommended, sites] = await Promise.all([
      this.directory.recommended.get(settings.baseUrl, call, { refresh }),
      this.directory.sites.get(settings.baseUrl, call),
    ]);
    return {
      sites: recommendedViews(recommended.value?.list ?? [], sites.value),
      count: recommended.value?.count ?? 0,
      fetchedAt: recommended.at,
      error: recommended.error,
    };
  }

  /** Calls the recommended-site list with the given values (unsaved form values) or the saved ones. */
  async testConnection(values: { baseUrl?: string; token?: string }): Promise<{ ok: boolean; siteCount?: number; error?: ServiceFailure }> {
    const saved = await this.settings.get();
    const baseUrl = values.baseUrl === undefined ? saved.baseUrl : normaliseBaseUrl(values.baseUrl);
    const token = (values.token ?? saved.token).trim();
    if (!baseUrl) return { ok: false, error: { kind: 'bad-request', detail: 'the API base URL is not an http(s) address' } };
    if (!token) return { ok: false, error: { kind: 'no-credentials', detail: 'no token entered' } };
    try {
      const answer = await this.lookup.call((config) => getRecommendedSites(config), { ...saved, baseUrl, token });
      return { ok: true, siteCount: answer.count };
    } catch (error) {
      return { ok: false, error: toFailure(error) };
    }
  }

  /** The catalogued sites the user has visited: offered first when we ask which sites they hold. */
  private async rememberSeen(host: string | undefined): Promise<void> {
    const sid = host ? siteForHost(host)?.sid : undefined;
    if (sid === undefined) return;
    const stored = (await browser.storage.local.get(SEEN_KEY))[SEEN_KEY];
    const seen = Array.isArray(stored) ? stored.filter((value): value is number => Number.isSafeInteger(value)) : [];
    if (seen.includes(sid)) return;
    await browser.storage.local.set({ [SEEN_KEY]: [...seen, sid].slice(-200) });
  }

  /** Every site the user may pick as theirs: the service's list when it can be had, else the catalog. */
  async siteChoices(refresh: boolean): Promise<{ sites: SiteChoice[]; seen: number[]; fromService: boolean; error?: ServiceFailure }> {
    const settings = await this.settings.get();
    const stored = (await browser.storage.local.get(SEEN_KEY))[SEEN_KEY];
    const seen = Array.isArray(stored) ? stored.filter((value): value is number => Number.isSafeInteger(value)) : [];
    let listed: { value?: import('../service/schemas').ServiceSite[]; error?: ServiceFailure } = {};
    if (settings.token) {
      listed = await this.directory.sites.get(settings.baseUrl, (operation) => this.lookup.call(operation, settings), { refresh });
    }
    const chinese = prefersChinese();
    const sites: SiteChoice[] = listed.value?.length
      ? listed.value.map((site) => ({
          sid: site.id,
          site: site.site,
          nickname: siteName(site.id, listed.value, chinese).name,
          host: siteForSid(site.id)?.hosts[0] ?? site.base_url,
        }))
      : catalog.flatMap((entry) =>
          entry.sid === undefined
            ? []
            : [{ sid: entry.sid, site: entry.site, nickname: chinese ? (entry.nameZh ?? entry.nickname) : entry.nickname, host: entry.hosts[0] }],
        );
    sites.sort((a, b) => a.nickname.localeCompare(b.nickname, chinese ? 'zh-CN' : 'en'));
    return { sites, seen, fromService: !!listed.value?.length, error: listed.error };
  }

  async profile(): Promise<{ profile?: ProfileView; error?: ServiceFailure }> {
    const settings = await this.settings.get();
    if (!settings.token) return { error: { kind: 'no-credentials', detail: 'no token configured' } };
    try {
      return { profile: profileView(await this.lookup.call((config) => getProfile(config), settings)) };
    } catch (error) {
      return { error: toFailure(error) };
    }
  }

  /** Binds the token to an account on a recommended site. The client sends only the passkey's SHA-1. */
  async bind(account: { sid: number; site: string; userId: string; passkey: string }): Promise<{
    ok: boolean;
    message?: string;
    profile?: ProfileView;
    error?: ServiceFailure;
  }> {
    const settings = await this.settings.get();
    if (!settings.token) return { ok: false, error: { kind: 'no-credentials', detail: 'no token configured' } };
    try {
      const message = await this.lookup.call((config) => bindAccount(config, account), settings);
      // A freshly bound token gets a new site report on the next lookup.
      await this.lookup.forgetServiceState();
      const { profile } = await this.profile();
      return { ok: true, message, profile };
    } catch (error) {
      return { ok: false, error: toFailure(error) };
    }
  }

  async exportSettings(includeCredentials: boolean): Promise<{ json: string }> {
    const settings = await this.settings.get();
    return { json: JSON.stringify({ ...exportSettings(settings, includeCredentials), exportedAt: new Date(this.now()).toISOString() }, null, 2) };
  }

  /**
   * Applies an exported document field by field: what is valid is taken, what is not is named,
   * and credentials missing from the document (an export without them) are kept as they are.
   */
  async importSettings(data: unknown): Promise<{ view?: SettingsView; imported: string[]; skipped: string[]; error?: 'not-ours' | 'unreadable' }> {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return { imported: [], skipped: [], error: 'unreadable' };
    const document = data as Record<string, unknown>;
    if (document.app !== 'reseed-lens') return { imported: [], skipped: [], error: 'not-ours' };
    const current = await this.settings.get();
    const next: Record<string, unknown> = { ...current };
    const imported: string[] = [];
    const skipped: string[] = [];
    for (const [field, schema] of Object.entries(settingsFields) as [SettingsField, import('zod').ZodType][]) {
      if (document[field] === undefined) continue;
      const parsed = schema.safeParse(document[field]);
      if (parsed.success) {
        next[field] = parsed.data;
        imported.push(field);
      } else skipped.push(field);
    }
    await this.settings.save(next as Settings);
    await syncCustomSites((next as Settings).customHosts).catch(() => undefined);
    return { view: await this.settingsView(), imported, skipped };
  }

  async settingsView(): Promise<SettingsView> {
    const { settings, resetFields, unreadable } = await this.settings.load();
    return { settings, resetFields, unreadable, serviceOriginGranted: await this.originGranted(settings.baseUrl) };
  }

  async saveSettings(update: unknown): Promise<SettingsView | { refused: string }> {
    const current = await this.settings.get();
    let next: Settings;
    try {
      next = applySettingsUpdate(current, update);
    } catch (error) {
      const issue = (error as { issues?: { path?: PropertyKey[] }[] }).issues?.[0];
      return { refused: String(issue?.path?.[0] ?? 'settings') };
    }
    await this.settings.save(next);
    return this.settingsView();
  }

  private async originGranted(baseUrl: string): Promise<boolean> {
    try {
      return await browser.permissions.contains({ origins: [`${new URL(baseUrl).origin}/*`] });
    } catch {
      return false;
    }
  }
}
