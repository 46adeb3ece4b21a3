/**
 * Random and near-valid messages into the background, from every kind of sender: another
 * extension, a tracker page's content script (top frame, sub-frame, no tab) and the extension's own
 * pages. Only what the sender may say is answered; a page never gets the token or settings, never
 * changes the credentials, and never makes the background call anything but the configured service.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { BackgroundApp } from '../../../entrypoints/background/app';
import { CLIENTS_KEY, readClients } from '../../../features/clients/clients.storage';
import { routeMessage } from '../../../entrypoints/background/router';
import type { PageView } from '../../../features/lookup/lookup.messages';
import { readSettings } from '../../../utils/settings';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';
import { reportBadInputs, storeSettings, tried } from './support';

reportBadInputs('message fuzz', 1500);

const extension = { id: 'reseed-lens-fuzz', origin: 'chrome-extension://reseedlensfuzz/' };
const TOKEN = 'fuzz-secret-token-9f8e7d';
const SERVICE = 'https://2025.iyuu.cn';
const CONTENT_TYPES = ['page:reading', 'page:refresh', 'panel:hide-on-site', 'page:torrent-file'];
const PAGE_TYPES = [
  'view:get', 'view:refresh', 'view:hash-from-torrent', 'view:read-once', 'recommended:get', 'connection:test', 'site:enable', 'site:disable',
  'settings:get', 'settings:save', 'settings:export', 'settings:import', 'sites:list', 'profile:get', 'account:bind',
  'clients:list', 'clients:save', 'clients:remove', 'clients:move', 'clients:test', 'client:status',
];

let app: BackgroundApp;
/** Every message the background sent to a tab's content script. */
let toTabs: { tabId: number; message: unknown }[];
/** Every URL the background tried to reach. */
let fetched: string[];
/** Every URL the background tried to reach as a torrent client. */
let clientFetched: string[];

beforeEach(async () => {
  fakeBrowser.reset();
  (fakeBrowser.i18n as { getUILanguage: () => string }).getUILanguage = () => 'en';
  // The fake browser leaves these unimplemented; a real browser answers them.
  Object.assign(fakeBrowser.permissions, { contains: async () => false, remove: async () => true, request: async () => false });
  Object.assign(fakeBrowser.scripting, { registerContentScripts: undefined });
  // What each tab's content script is told (recorded), though nobody listens there.
  toTabs = [];
  Object.assign(fakeBrowser.tabs, {
    sendMessage: async (tabId: number, message: unknown) => {
      toTabs.push({ tabId, message });
      return Promise.reject(new Error('Could not establish connection. Receiving end does not exist.'));
    },
  });
  await storeSettings({ baseUrl: SERVICE, token: TOKEN });
  fetched = [];
  const offline = (async (input: RequestInfo | URL) => {
    fetched.push(String(input));
    throw new TypeError('offline');
  }) as typeof fetch;
  clientFetched = [];
  const clientOffline = (async (input: RequestInfo | URL) => {
    clientFetched.push(String(input));
    throw new TypeError('offline');
  }) as typeof fetch;
  app = new BackgroundApp({ fetch: offline, clientFetch: clientOffline, retryDelaysMs: [], timeoutMs: 200 });
});

// ------------------------------------------------------------------------------------------------
// Messages: mostly near-valid, so the schemas' deep paths run, with hostile values everywhere.

const hex40 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
const hostile = fc.oneof(
  fc.anything({ maxDepth: 2 }),
  fc.constantFrom('', '__proto__', 'constructor', '<img src=x onerror=alert(1)>', 'javascript:alert(1)', 'https://evil.example/', -1, 1.5, 2 ** 53, NaN, null, true, [], {}),
);
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: hostile });
const foundHash = fc.record(
  { hash: mostly(hex40), source: mostly(fc.constantFrom('info-row', 'magnet', 'site-api', 'torrent-file', 'label')), row: mostly(fc.string({ maxLength: 5 })), title: mostly(fc.string({ maxLength: 20 })) },
  { requiredKeys: ['hash', 'source'] },
);
const reading = mostly(
  fc.record(
    {
      engine: mostly(fc.constantFrom('nexusphp', 'unit3d', 'magnet')),
      kind: mostly(fc.constantFrom('details', 'list')),
      hashes: mostly(fc.array(foundHash, { maxLength: 4 })),
      problem: mostly(fc.constantFrom('site-gives-no-hash', 'needs-login', 'not-loaded-yet', 'site-error')),
      torrentFileUrl: mostly(fc.webUrl()),
    },
    { requiredKeys: ['engine', 'kind', 'hashes'] },
  ),
);
const fields = {
  tabId: mostly(fc.nat({ max: 50 })),
  url: mostly(fc.webUrl()),
  reading,
  refresh: mostly(fc.boolean()),
  includeCredentials: mostly(fc.boolean()),
  host: mostly(fc.domain()),
  baseUrl: mostly(fc.webUrl()),
  token: mostly(fc.string({ maxLength: 20 })),
  data: mostly(fc.base64String({ maxLength: 40 })),
  problem: mostly(fc.constantFrom('no-link', 'download-failed')),
  update: mostly(fc.dictionary(fc.constantFrom('token', 'baseUrl', 'panelEnabled', 'heldSites', 'x'), hostile, { maxKeys: 3 })),
  sid: mostly(fc.nat()),
  site: mostly(fc.string({ maxLength: 10 })),
  userId: mostly(fc.stringMatching(/^\d{1,12}$/)),
  passkey: mostly(fc.string({ maxLength: 20 })),
  id: mostly(fc.uuid()),
  client: mostly(
    fc.record(
      {
        type: mostly(fc.constantFrom('qbittorrent', 'transmission', 'deluge')),
        url: mostly(fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1:8080', 'https://localhost:9091/transmission', 'http://192.168.1.5:8080'))),
        username: mostly(fc.string({ maxLength: 10 })),
        password: mostly(fc.string({ maxLength: 10 })),
        skipCheckWhenFilesMatch: mostly(fc.boolean()),
      },
      { requiredKeys: ['type', 'url', 'username', 'password'] },
    ),
  ),
};
const OTHER_TYPES = ['view:changed', 'content:hash-from-torrent', 'settings:reset', 'TOKEN', ''];
/** A message whose type is mostly one of `likely`, with any of the fields, each mostly valid. */
const messageOf = (likely: string[]) =>
  fc.oneof(
    { weight: 1, arbitrary: hostile },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...likely) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES, ...PAGE_TYPES, ...OTHER_TYPES) }),
          fc.record(fields, { requiredKeys: [] }),
        )
        .map(([type, rest]) => ({ ...rest, type })),
    },
  );
const message = messageOf([...CONTENT_TYPES, ...PAGE_TYPES]);
/** A reading that passes, so lookups do go out and their destination can be checked. */
const validReading = fc.array(hex40, { minLength: 1, maxLength: 3 }).map((hashes) => ({
  type: 'page:reading',
  url: 'https://claimed.example/',
  reading: { engine: 'nexusphp', kind: 'list', hashes: hashes.map((hash, index) => ({ hash, source: 'info-row', row: String(index) })) },
}));

const pageUrl = fc.constantFrom('https://hdsky.me/details.php?id=1', 'https://unknown.example/torrents/2', 'http://ourbits.club/details.php?id=3');
const contentSender = (url: string, tabId: number): Browser.runtime.MessageSender => ({ id: extension.id, url, frameId: 0, tab: { id: tabId } as Browser.tabs.Tab });

async function storedCredentials(): Promise<{ token: string; baseUrl: string }> {
  const { settings } = readSettings((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]);
  return { token: settings.token, baseUrl: settings.baseUrl };
}

// ------------------------------------------------------------------------------------------------

describe('routeMessage under random messages', () => {
  it('answers nothing, and does nothing, for another extension or a sender without an id', async () => {
    await fc.assert(
      fc.asyncProperty(message, fc.constantFrom('someone-else', '', undefined), pageUrl, async (sent, id, url) => {
        tried();
        const senders: Browser.runtime.MessageSender[] = [
          { id, url, frameId: 0, tab: { id: 3 } as Browser.tabs.Tab },
          { id, url: `${extension.origin}popup.html` },
        ];
        for (const sender of senders) expect(routeMessage(app, sent, sender, extension)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
    expect(fetched).toEqual([]);
    expect(await storedCredentials()).toEqual({ token: TOKEN, baseUrl: SERVICE });
  });

  it('lets a content script say only its four things, for its own tab, never learning the token', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: messageOf(CONTENT_TYPES) }, { weight: 1, arbitrary: validReading }), pageUrl, fc.nat({ max: 20 }), async (sent, url, tabId) => {
        tried();
        const type = (sent as { type?: unknown } | null)?.type;
        // A sub-frame or a sender without a tab never gets anywhere.
        expect(routeMessage(app, sent, { ...contentSender(url, tabId), frameId: 2 }, extension)).toBeUndefined();
        expect(routeMessage(app, sent, { id: extension.id, url }, extension)).toBeUndefined();

        const toldBefore = toTabs.length;
        const pending = routeMessage(app, sent, contentSender(url, tabId), extension);
        if (pending === undefined) return;
        expect(CONTENT_TYPES).toContain(type);
        answered++;
        const answer = await pending;
        // What the page hears: the answer, and the views announced to its tab (only to its tab).
        // (Another tab's lookup may finish meanwhile: only this tab's are its.)
        const told = toTabs.slice(toldBefore).filter((entry) => entry.tabId === tabId);
        const views = told.map((entry) => (entry.message as { view?: PageView }).view).filter((view) => view !== undefined);
        const text = JSON.stringify([answer, views]);
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain('"settings"');
        const view = views.at(-1);
        if (view && 'status' in view) {
          // The page's view: nothing of the user's sites, not even its tab id …
          expect(text).not.toMatch(/"held"|"tabId"/);
          if (type === 'page:reading') {
            expect(view.url).toBe(url);
            expect(answer).toEqual({ filedUnder: url });
            // … and filed under the sender's own tab.
            expect((await app.tabs.get(tabId))?.url).toBe(url);
          }
        }
      }),
      { numRuns: 500 },
    );
    expect(answered).toBeGreaterThan(50);
    // Lookups went out for the readings, and only ever to the configured service.
    expect(fetched.length).toBeGreaterThan(0);
    for (const url of fetched) expect(url.startsWith(`${SERVICE}/`), url).toBe(true);
    expect(await storedCredentials()).toEqual({ token: TOKEN, baseUrl: SERVICE });
  });

  it("answers the extension's own pages only for valid messages, and every answer settles", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(messageOf(PAGE_TYPES), async (sent) => {
        tried();
        const pending = routeMessage(app, sent, { id: extension.id, url: `${extension.origin}options.html` }, extension);
        if (pending === undefined) return;
        answered++;
        expect(PAGE_TYPES).toContain((sent as { type: string }).type);
        await pending; // never rejects: failures come back as values
        const { resetFields } = readSettings((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY]);
        expect(resetFields).toEqual([]); // whatever was saved is valid
        expect(readClients((await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY]).dropped).toBe(0);
      }),
      { numRuns: 600 },
    );
    expect(answered).toBeGreaterThan(50);
    // No origin is granted here: a client could only be reached on this machine (the manifest's loopback).
    for (const url of clientFetched) expect(['127.0.0.1', 'localhost'], url).toContain(new URL(url).hostname);
  });
});
