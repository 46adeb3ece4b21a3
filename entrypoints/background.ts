/**
 * Wiring only: who may say what, and which controller method answers it. The background is the
 * only caller of the service and the only context that knows the token.
 */
import { browser, type Browser } from 'wxt/browser';
import { Controller } from '../utils/background/controller';
import { contentMessageSchema, pageMessageSchema, type ContentMessage, type PageMessage } from '../utils/background/message-schemas';

export default defineBackground(() => {
  const controller = new Controller({ version: browser.runtime.getManifest().version, minIntervalMs: 500 });
  const extensionOrigin = browser.runtime.getURL('/');

  async function fromExtensionPage(message: PageMessage): Promise<unknown> {
    switch (message.type) {
      case 'view:get':
        return controller.view(message.tabId);
      case 'view:refresh':
        return controller.refresh(message.tabId);
      case 'view:hash-from-torrent':
        // The tab's content script downloads its own .torrent link with the user's session.
        await browser.tabs.sendMessage(message.tabId, { type: 'content:hash-from-torrent' }).catch(() => undefined);
        return controller.view(message.tabId);
      case 'recommended:get':
        return controller.recommended(message.refresh ?? false);
      case 'connection:test':
        return controller.testConnection(message);
      case 'view:read-once':
        return controller.readOnce(message.tabId);
      case 'site:enable':
        return controller.enableSite(message.host);
      case 'site:disable':
        return controller.disableSite(message.host);
      case 'settings:get':
        return controller.settingsView();
      case 'settings:save':
        return controller.saveSettings(message.update);
    }
  }

  /** From a tracker page: it can speak only for its own tab and its own URL. */
  async function fromContentScript(message: ContentMessage, tabId: number, url: string): Promise<unknown> {
    switch (message.type) {
      case 'page:reading':
        return controller.onPageReading(tabId, url, message.reading);
      case 'page:refresh':
        return controller.refresh(tabId);
      case 'panel:hide-on-site':
        return controller.hidePanelOn(url);
      case 'page:torrent-file':
        return controller.hashFromTorrentFile(tabId, message.data, message.problem);
    }
  }

  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => {
    if (sender.id !== browser.runtime.id) return undefined;
    // A tracker page's content script: only its own tab's reading, from the top frame.
    if (sender.tab?.id !== undefined && !sender.url?.startsWith(extensionOrigin)) {
      const parsed = contentMessageSchema.safeParse(message);
      if (!parsed.success || sender.frameId !== 0 || !sender.url) return undefined;
      return fromContentScript(parsed.data, sender.tab.id, sender.url);
    }
    if (!sender.url?.startsWith(extensionOrigin)) return undefined;
    const parsed = pageMessageSchema.safeParse(message);
    if (!parsed.success) return undefined;
    return fromExtensionPage(parsed.data);
  });

  void controller.start();
  // Firefox closes the popup while it shows the permission prompt, so the popup may never get to
  // say "enable": a newly granted site origin is enabled here instead.
  browser.permissions.onAdded.addListener((permissions) => {
    for (const origin of permissions.origins ?? []) {
      const host = /^\*:\/\/([a-z0-9.-]+)\/\*$/.exec(origin)?.[1];
      if (host) void controller.enableSite(host);
    }
  });

  browser.tabs.onUpdated.addListener((tabId, changeInfo) => {
    if (changeInfo.status === 'loading' && changeInfo.url) void controller.tabs.forget(tabId);
  });
  browser.tabs.onRemoved.addListener((tabId) => void controller.tabs.forget(tabId));
});
