/**
 * Issue #8: what the background tells a tracker page's content script is the same whichever sites
 * the user holds — in the answer to its reading, to its refresh, to its .torrent file, and in every
 * announcement to its tab (also when the user changes their sites) — while the popup still gets
 * the whole view with `held`. The background runs against the reference service over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { pageView } from '../../../../features/lookup/panel-view';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { CandidateView, PageView, TabView } from '../../../../features/lookup/lookup.messages';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../../service/server';
import { installI18n } from '../../support/i18n';
import { grantOrigin } from '../../support/permissions';

const extension = { id: 'reseed-lens-test', origin: 'chrome-extension://abcdefghijklmnop/' };
const TAB = 7;
const PAGE_URL = 'https://hdsky.me/details.php?id=1';
const contentSender = { id: extension.id, url: PAGE_URL, frameId: 0, tab: { id: TAB } as Browser.tabs.Tab } as Browser.runtime.MessageSender;
const popupSender: Browser.runtime.MessageSender = { id: extension.id, url: `${extension.origin}popup.html` };

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

/** A torrent on HDSky with candidates on at least four other sites, and those sites. */
function torrentWithFourOthers() {
  const group = service.data.torrents.find((entry) => entry.members[0]!.site === 'hdsky' && new Set(entry.members.map((member) => member.site)).size >= 5)!;
  const hash = group.members[0]!.info_hash;
  const sids = [...new Set(group.members.slice(1).map((member) => service.data.sites.find((site) => site.site === member.site)!.id))];
  return { hash, sids };
}

function candidate(sid: number, torrentId: number, extra: Partial<CandidateView> = {}): CandidateView {
  return { sid, torrentId, infoHash: String(torrentId).padStart(40, '0'), forHash: 'a'.repeat(40), siteName: `Site${sid}`, isCurrentSite: false, ...extra };
}

describe('pageView', () => {
  const full: TabView = {
    tabId: TAB,
    url: PAGE_URL,
    host: 'hdsky.me',
    siteName: 'HDSky',
    status: 'done',
    engine: 'nexusphp',
    hashes: [{ hash: 'a'.repeat(40), source: 'info-row' }],
    candidates: [candidate(9, 3, { siteName: 'OurBits', held: true }), candidate(6, 2, { siteName: 'PTerClub', held: false }), candidate(6, 1, { siteName: 'PTerClub', held: false })],
    fetchedAt: 1_700_000_000_000,
    fromCache: true,
    retryAt: 5,
    clockSkewSeconds: 3,
    access: 'catalog',
    panel: true,
  };

  it('keeps only what the panel shows: no `held`, none of the popup\'s fields', () => {
    const view = pageView(full);
    expect(Object.keys(view).sort()).toEqual(['candidates', 'error', 'fetchedAt', 'hashes', 'panel', 'problem', 'status', 'torrentFileProblem', 'torrentFileUrl', 'url']);
    expect(JSON.stringify(view)).not.toMatch(/held|fromCache|tabId|access|engine|clockSkew|retryAt/);
    for (const entry of view.candidates) expect(Object.keys(entry).sort()).toEqual(['detailsUrl', 'forHash', 'infoHash', 'isCurrentSite', 'sid', 'siteKey', 'siteName', 'torrentId']);
  });

  it('puts the candidates in an order of their own (site name, site, torrent), whatever order they came in', () => {
    const order = (candidates: CandidateView[]) => pageView({ ...full, candidates }).candidates.map((entry) => `${entry.siteName}#${entry.torrentId}`);
    expect(order(full.candidates)).toEqual(['OurBits#3', 'PTerClub#1', 'PTerClub#2']);
    expect(order([...full.candidates].reverse())).toEqual(['OurBits#3', 'PTerClub#1', 'PTerClub#2']);
    const heldOtherwise = full.candidates.map((entry) => ({ ...entry, held: !entry.held })).reverse();
    expect(pageView({ ...full, candidates: heldOtherwise })).toEqual(pageView(full));
  });
});

describe('what a tracker page is told', () => {
  let toTab: unknown[];
  let toPages: unknown[];

  /** A fresh background whose user holds `heldSites`, with the tab and runtime messages recorded. */
  async function background(heldSites: number[] | null): Promise<BackgroundApp> {
    fakeBrowser.reset();
    installI18n('en');
    toTab = [];
    toPages = [];
    vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockImplementation(async (tabId: number, message: unknown) => {
      if (tabId === TAB) toTab.push(message);
      return undefined;
    });
    vi.spyOn(fakeBrowser.runtime, 'sendMessage').mockImplementation(async (message: unknown) => {
      toPages.push(message);
      return undefined;
    });
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN, heldSites, askedForSites: true } });
    grantOrigin(service.url);
    return new BackgroundApp({ retryDelaysMs: [] });
  }

  const fromPage = (app: BackgroundApp, message: unknown) => routeMessage(app, message, contentSender, extension) as Promise<unknown>;
  const fromPopup = (app: BackgroundApp, message: unknown) => routeMessage(app, message, popupSender, extension) as Promise<TabView>;

  /** Everything one user's page hears: its reading's answer, a refresh, a failed .torrent download, and every announcement. */
  async function pageHears(heldSites: number[], hash: string, { torrentFile = true } = {}) {
    const app = await background(heldSites);
    // The page's messages answer no view: each one's view is the last the page was announced.
    const lastToTab = () => (toTab.at(-1) as { view: PageView }).view;
    const filed = (await fromPage(app, {
      type: 'page:reading',
      url: PAGE_URL,
      reading: { engine: 'nexusphp', kind: 'details', hashes: [{ hash, source: 'info-row' }] },
    })) as { filedUnder: string };
    expect(filed).toEqual({ filedUnder: PAGE_URL });
    const reading = lastToTab();
    expect(await fromPage(app, { type: 'page:refresh' })).toBeUndefined();
    const refreshed = lastToTab();
    const fromTorrentFile = torrentFile
      ? { ...((await fromPage(app, { type: 'page:torrent-file', problem: 'download-failed' })) as { hash?: string }), view: lastToTab() }
      : undefined;
    const popup = await fromPopup(app, { type: 'view:get', tabId: TAB });
    return { app, heard: { reading, refreshed, torrentFile: fromTorrentFile }, announced: [...toTab], popup };
  }

  /** When the service answered differs between two runs; nothing else may. */
  const timeless = (value: unknown) => JSON.parse(JSON.stringify(value, (key, entry: unknown) => (key === 'fetchedAt' ? 'at' : entry))) as unknown;

  it('is the same for a user holding 1 of the candidate sites and one holding 3 others; the popup is told the difference', async () => {
    const { hash, sids } = torrentWithFourOthers();
    const one = await pageHears([sids[0]!], hash);
    const three = await pageHears(sids.slice(1, 4), hash);

    expect(one.heard.reading.status).toBe('done');
    expect(one.heard.reading.candidates.length).toBeGreaterThanOrEqual(4);
    expect(one.heard.refreshed.fetchedAt).toBeGreaterThan(0);
    expect(one.heard.torrentFile?.view.torrentFileProblem).toBe('download-failed');
    expect(one.announced.length).toBeGreaterThan(2);
    expect(timeless(three.heard)).toEqual(timeless(one.heard));
    expect(timeless(three.announced)).toEqual(timeless(one.announced));
    expect(JSON.stringify([one.heard, one.announced])).not.toContain('held');

    // The popup still learns which candidates are on the user's sites.
    const heldIn = (view: TabView) => view.candidates.filter((entry) => entry.held).map((entry) => entry.sid);
    expect(heldIn(one.popup)).toEqual([sids[0]]);
    expect(heldIn(three.popup).sort()).toEqual(sids.slice(1, 4).sort());
    expect((toPages as { view: TabView }[]).some((message) => message.view.candidates.some((entry) => entry.held === true))).toBe(true);
  });

  it('tells the page nothing new when the user changes their sites, while the popup sees the new split', async () => {
    const { hash, sids } = torrentWithFourOthers();
    // (A redraw clears a .torrent download's problem, whatever changed: not asked for here.)
    const { app } = await pageHears([sids[0]!], hash, { torrentFile: false });
    const before = toTab.at(-1) as { view: PageView };
    toTab.length = 0;
    toPages.length = 0;

    await app.preferences.saveSettings({ heldSites: sids.slice(1, 4) });
    // The tab was redrawn from the cache and announced again, to the popup with the new split …
    const redrawn = (toPages.at(-1) as { view: TabView }).view;
    expect(redrawn.candidates.filter((entry) => entry.held).map((entry) => entry.sid).sort()).toEqual(sids.slice(1, 4).sort());
    // … and to the page with exactly what it had.
    expect(toTab.length).toBeGreaterThan(0);
    for (const message of toTab) expect(message).toEqual(before);
  });
});
