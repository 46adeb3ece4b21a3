/**
 * Wiring only: who may say what, and which controller method answers it. The background is the
 * only caller of the service and the only context that knows the token.
 */
import { browser, type Browser } from 'wxt/browser';
import { Controller } from '../utils/background/controller';
import { contentMessageSchema, pageMessageSchema, type PageMessage } from '../utils/background/message-schemas';

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
      case 'settings:get':
        return controller.settingsView();
      case 'settings:save':
        return controller.saveSettings(message.update);
    }
  }

  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => {
    if (sender.id !== browser.runtime.id) return undefined;
    // A tracker page's content script: only its own tab's reading, from the top frame.
    if (sender.tab?.id !== undefined && !sender.url?.startsWith(extensionOrigin)) {
      const parsed = contentMessageSchema.safeParse(message);
      if (!parsed.success || sender.frameId !== 0 || !sender.url) return undefined;
      return controller.onPageReading(sender.tab.id, sender.url, parsed.data.reading);
    }
    if (!sender.url?.startsWith(extensionOrigin)) return undefined;
    const parsed = pageMessageSchema.safeParse(message);
    if (!parsed.success) return undefined;
    return fromExtensionPage(parsed.data);
  });

  browser.tabs.onUpdated.addListener((tabId, changeInfo) => {
    if (changeInfo.status === 'loading' && changeInfo.url) void controller.tabs.forget(tabId);
  });
  browser.tabs.onRemoved.addListener((tabId) => void controller.tabs.forget(tabId));
});
