/**
 * Who may say what to the background. A tracker page's content script may speak only for its own
 * tab and URL (both taken from the browser, never from the message); everything else must come
 * from the extension's own pages. Anything that fails its schema is dropped without an answer.
 */
import { browser, type Browser } from 'wxt/browser';
import type { Controller } from './controller';
import { contentMessageSchema, pageMessageSchema, type ContentMessage, type PageMessage } from './message-schemas';
import { pageView } from './page-view';

async function fromExtensionPage(controller: Controller, message: PageMessage): Promise<unknown> {
  switch (message.type) {
    case 'view:get':
      return controller.view(message.tabId);
    case 'view:refresh':
      return controller.refresh(message.tabId);
    case 'view:hash-from-torrent':
      // The tab's content script downloads its own .torrent link with the user's session.
      await browser.tabs.sendMessage(message.tabId, { type: 'content:hash-from-torrent' }).catch(() => undefined);
      return controller.view(message.tabId);
    case 'view:read-once':
      return controller.readOnce(message.tabId);
    case 'recommended:get':
      return controller.recommended(message.refresh ?? false);
    case 'connection:test':
      return controller.testConnection(message);
    case 'site:enable':
      return controller.enableSite(message.host);
    case 'site:disable':
      return controller.disableSite(message.host);
    case 'settings:get':
      return controller.settingsView();
    case 'settings:save':
      return controller.saveSettings(message.update);
    case 'settings:export':
      return controller.exportSettings(message.includeCredentials);
    case 'settings:import':
      return controller.importSettings(message.data);
    case 'sites:list':
      return controller.siteChoices(message.refresh ?? false);
    case 'profile:get':
      return controller.profile();
    case 'account:bind':
      return controller.bind(message);
  }
}

/**
 * The URL a reading is filed under. The browser's sender URL keeps the address the document loaded
 * with, even after history.pushState (single-page trackers); the page's own location is taken
 * instead, but only on the same origin, so a page can never speak for another site.
 */
function pageUrl(claimed: string, sender: string): string {
  try {
    return new URL(claimed).origin === new URL(sender).origin ? claimed : sender;
  } catch {
    return sender;
  }
}

/**
 * From a tracker page: it can speak only for its own tab and its own URL, and hears back only the
 * page's view of it (page-view.ts), never which sites the user holds.
 */
async function fromContentScript(controller: Controller, message: ContentMessage, tabId: number, url: string): Promise<unknown> {
  switch (message.type) {
    case 'page:reading':
      return pageView(await controller.onPageReading(tabId, pageUrl(message.url, url), message.reading));
    case 'page:refresh':
      return pageView(await controller.refresh(tabId));
    case 'panel:hide-on-site':
      return controller.hidePanelOn(url);
    case 'page:torrent-file': {
      const { hash, view } = await controller.hashFromTorrentFile(tabId, message.data, message.problem);
      return { hash, view: pageView(view) };
    }
  }
}

/**
 * Routes one runtime message. Returns undefined (no answer at all) for anything not allowed, so a
 * page cannot even learn which messages exist.
 */
export function routeMessage(
  controller: Controller,
  message: unknown,
  sender: Browser.runtime.MessageSender,
  extension: { id: string; origin: string } = { id: browser.runtime.id, origin: browser.runtime.getURL('/') },
): Promise<unknown> | undefined {
  if (sender.id !== extension.id) return undefined;
  const fromOwnPage = !!sender.url?.startsWith(extension.origin);
  if (!fromOwnPage) {
    // A content script: its own tab's top frame only.
    if (sender.tab?.id === undefined || sender.frameId !== 0 || !sender.url) return undefined;
    const parsed = contentMessageSchema.safeParse(message);
    return parsed.success ? fromContentScript(controller, parsed.data, sender.tab.id, sender.url) : undefined;
  }
  const parsed = pageMessageSchema.safeParse(message);
  return parsed.success ? fromExtensionPage(controller, parsed.data) : undefined;
}
