/**
 * The status a tracker page's panel is told when the popup's candidates come from sites asked by
 * pieces hash only (issue 18, `serviceStatus`): with no token, the popup says done and the page
 * no-credentials; once the user has a token, the page follows the service again (looking up,
 * error, done), never a no-credentials left from before. The background runs against the reference
 * service over HTTP; the index's places for the page's hash are handed in (app.pages.piecesPlaces),
 * as a synced index would give them.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { PageView, TabView } from '../../../../features/lookup/lookup.messages';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { siteForName } from '../../../../utils/sites';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../../service/server';
import { installI18n } from '../../support/i18n';
import { grantOrigin } from '../../support/permissions';

const extension = { id: 'reseed-lens-test', origin: 'chrome-extension://abcdefghijklmnop/' };
const TAB = 7;
const PAGE_URL = 'https://hdsky.me/details.php?id=1';
const contentSender = { id: extension.id, url: PAGE_URL, frameId: 0, tab: { id: TAB } as Browser.tabs.Tab } as Browser.runtime.MessageSender;
const popupSender: Browser.runtime.MessageSender = { id: extension.id, url: `${extension.origin}popup.html` };
const OURBITS = siteForName('ourbits')!.sid!;

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

describe('the page status with pieces-only candidates', () => {
  it('no token: popup done, page no-credentials with no candidate; with a token and a failing service: the page sees the error', async () => {
    fakeBrowser.reset();
    installI18n('en');
    const toTab: { view: PageView }[] = [];
    vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockImplementation(async (tabId: number, message: unknown) => {
      if (tabId === TAB) toTab.push(message as { view: PageView });
      return undefined;
    });
    vi.spyOn(fakeBrowser.runtime, 'sendMessage').mockImplementation(async () => undefined);
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: '', heldSites: [OURBITS], askedForSites: true } });
    grantOrigin(service.url);
    const app = new BackgroundApp({ retryDelaysMs: [] });
    const hash = service.data.torrents[0]!.members[0]!.info_hash;
    app.pages.piecesPlaces = async (hashes) => hashes.map((forHash) => ({ forHash, sid: OURBITS, torrentId: 77, piecesHash: 'b'.repeat(40) }));

    await routeMessage(app, { type: 'page:reading', url: PAGE_URL, reading: { engine: 'nexusphp', kind: 'details', hashes: [{ hash, source: 'info-row' }] } }, contentSender, extension);
    const popup = (await routeMessage(app, { type: 'view:get', tabId: TAB }, popupSender, extension)) as TabView;
    expect(popup).toMatchObject({ status: 'done', serviceStatus: 'no-credentials' });
    expect(popup.candidates).toEqual([expect.objectContaining({ sid: OURBITS, torrentId: 77, infoHash: '', foundBy: 'pieces' })]);
    expect(toTab.at(-1)!.view).toMatchObject({ status: 'no-credentials', candidates: [] });

    // The user enters a token; the service fails: the page is told the error, as the popup is.
    await app.preferences.saveSettings({ token: DEMO_TOKEN });
    service.control.forceStatus(500, 1000);
    try {
      await routeMessage(app, { type: 'page:refresh' }, contentSender, extension);
      const after = (await routeMessage(app, { type: 'view:get', tabId: TAB }, popupSender, extension)) as TabView;
      expect(after.status).toBe('error');
      expect(toTab.at(-1)!.view.status).toBe('error');
    } finally {
      service.control.clearOverrides();
    }
  });
});
