/**
 * Who may say what to the background: the tracker page's content script only for its own tab,
 * the extension's own pages for the rest; anything malformed gets no answer at all.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { BackgroundApp } from '../../../entrypoints/background/app';
import { routeMessage } from '../../../entrypoints/background/router';
import { protocol } from '../../../features/protocol';
import type { PageView } from '../../../features/lookup/lookup.messages';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';

const extension = { id: 'reseed-lens-test', origin: 'chrome-extension://abcdefghijklmnop/' };
const HASH = '2237b65bbcd8db99fdb7b6e8380f046b01733d21';

const contentSender = (overrides: Partial<Browser.runtime.MessageSender> = {}): Browser.runtime.MessageSender => ({
  id: extension.id,
  url: 'https://hdsky.me/details.php?id=1',
  frameId: 0,
  tab: { id: 7 } as Browser.tabs.Tab,
  ...overrides,
});
const pageSender: Browser.runtime.MessageSender = { id: extension.id, url: `${extension.origin}popup.html` };

let app: BackgroundApp;
/** What the background told each tab's content script (the page's views come this way, not as answers). */
let toTab: { tabId: number; message: unknown }[];
/** The last view the tab was told. */
const lastViewTo = (tabId: number) => (toTab.filter((entry) => entry.tabId === tabId).at(-1)?.message as { view?: PageView } | undefined)?.view;

beforeEach(async () => {
  fakeBrowser.reset();
  // i18n is not in the fake browser: the background asks for the UI language only.
  (fakeBrowser.i18n as { getUILanguage: () => string }).getUILanguage = () => 'en';
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, token: 'secret-token', baseUrl: 'http://127.0.0.1:9' } });
  toTab = [];
  vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockImplementation(async (tabId: number, message: unknown) => {
    toTab.push({ tabId, message });
    return undefined;
  });
  app = new BackgroundApp({ retryDelaysMs: [] });
});

const reading = { engine: 'nexusphp', kind: 'details', hashes: [{ hash: HASH, source: 'info-row' }] };

describe('routeMessage', () => {
  it('ignores messages from other extensions', () => {
    expect(routeMessage(app, { type: 'settings:get' }, { ...pageSender, id: 'someone-else' }, extension)).toBeUndefined();
  });

  it('gives the extension pages the settings, token included', async () => {
    const view = (await routeMessage(app, { type: 'settings:get' }, pageSender, extension)) as { settings: { token: string } };
    expect(view.settings.token).toBe('secret-token');
  });

  it('never answers a content script asking for settings, the profile, or anything of the pages', () => {
    for (const type of ['settings:get', 'settings:export', 'profile:get', 'sites:list', 'view:get', 'recommended:get', 'connection:test']) {
      expect(routeMessage(app, { type, includeCredentials: true, tabId: 7 }, contentSender(), extension), type).toBeUndefined();
    }
    expect(routeMessage(app, { type: 'settings:save', update: { token: 'x' } }, contentSender(), extension)).toBeUndefined();
  });

  it('takes the tab and the URL of a page reading from the browser, not from the message', async () => {
    await routeMessage(app, { type: 'page:reading', url: 'https://evil.example/', tabId: 99, reading }, contentSender(), extension);
    const view = lastViewTo(7)!;
    expect(lastViewTo(99)).toBeUndefined();
    expect(view.url).toBe('https://hdsky.me/details.php?id=1');
    expect(view.hashes.map((found) => found.hash)).toEqual([HASH]);
    expect(JSON.stringify(view)).not.toContain('secret-token');
    // Filed under the sender's tab, not the one the message named.
    expect((await app.tabs.get(7))?.hashes.map((found) => found.hash)).toEqual([HASH]);
    expect(await app.tabs.get(99)).toBeUndefined();
  });

  it("files an in-page navigation under the page's own URL, but never under another origin", async () => {
    // After history.pushState the browser still reports the URL the document loaded with.
    const filed = await routeMessage(app, { type: 'page:reading', url: 'https://hdsky.me/details.php?id=2', reading }, contentSender(), extension);
    expect(filed).toEqual({ filedUnder: 'https://hdsky.me/details.php?id=2' });
    const moved = lastViewTo(7)!;
    expect(moved.url).toBe('https://hdsky.me/details.php?id=2');
    await routeMessage(app, { type: 'page:reading', url: 'https://hdsky.me.evil.example/details.php?id=2', reading }, contentSender(), extension);
    const lying = lastViewTo(7)!;
    expect(lying.url).toBe('https://hdsky.me/details.php?id=1');
    expect((await app.tabs.get(7))?.host).toBe('hdsky.me');
  });

  it('refuses readings from sub-frames and malformed readings', () => {
    expect(routeMessage(app, { type: 'page:reading', url: 'x', reading }, contentSender({ frameId: 3 }), extension)).toBeUndefined();
    const bad = [
      { ...reading, hashes: [{ hash: 'NOT-A-HASH', source: 'info-row' }] },
      { ...reading, hashes: [{ hash: HASH.toUpperCase(), source: 'info-row' }] },
      { ...reading, hashes: [{ hash: HASH, source: 'made-up' }] },
      { ...reading, hashes: Array.from({ length: 1001 }, () => ({ hash: HASH, source: 'info-row' })) },
      { ...reading, kind: 'anything' },
      'a string',
    ];
    for (const candidate of bad) {
      expect(routeMessage(app, { type: 'page:reading', url: 'x', reading: candidate }, contentSender(), extension)).toBeUndefined();
    }
  });

  it('refuses a content script that claims to be an extension page only by its message', () => {
    expect(routeMessage(app, { type: 'settings:get', url: `${extension.origin}options.html` }, contentSender(), extension)).toBeUndefined();
  });

  it('refuses malformed messages from the extension pages too', () => {
    expect(routeMessage(app, { type: 'view:get', tabId: -1 }, pageSender, extension)).toBeUndefined();
    expect(routeMessage(app, { type: 'settings:save' }, pageSender, extension)).toBeUndefined();
    expect(routeMessage(app, { type: 'account:bind', sid: 1, site: 'x', userId: 'abc', passkey: 'p' }, pageSender, extension)).toBeUndefined();
    expect(routeMessage(app, null, pageSender, extension)).toBeUndefined();
  });

  it('keeps the token out of what a content script is answered', async () => {
    await routeMessage(app, { type: 'page:reading', url: 'https://hdsky.me/details.php?id=1', reading }, contentSender(), extension);
    toTab = [];
    const answer = await routeMessage(app, { type: 'page:refresh' }, contentSender(), extension);
    // Its view is announced to the tab, not answered: neither carries the token.
    const view = lastViewTo(7);
    expect(view).toBeDefined();
    expect(JSON.stringify([answer, view])).not.toContain('secret-token');
  });
});

describe('the one protocol', () => {
  it('has exactly one handler for every declared message, and no handler for anything undeclared', () => {
    expect(Object.keys(app.handlers).sort()).toEqual(Object.keys(protocol).sort());
    for (const [type, handler] of Object.entries(app.handlers)) expect(typeof handler, type).toBe('function');
  });

  it('lets each sender send only what is declared for it', () => {
    for (const [type, declaration] of Object.entries(protocol)) {
      const other = declaration.from === 'page' ? pageSender : contentSender();
      // Sent by the wrong kind of sender, a message gets no answer at all, even a well-formed one.
      expect(routeMessage(app, { type, tabId: 7, url: 'https://hdsky.me/details.php?id=1', reading: null }, other, extension), type).toBeUndefined();
    }
    expect(routeMessage(app, { type: 'toString' }, pageSender, extension)).toBeUndefined();
    expect(routeMessage(app, { type: '__proto__' }, pageSender, extension)).toBeUndefined();
  });
});
