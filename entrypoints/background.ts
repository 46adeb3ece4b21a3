/**
 * Wiring only: listeners, and the controller that answers them (utils/background). The background
 * is the only caller of the service and the only context that knows the token.
 */
import { browser, type Browser } from 'wxt/browser';
import { Controller } from '../utils/background/controller';
import { routeMessage } from '../utils/background/router';
import { LOOKUP_DEFAULTS } from '../utils/lookup/lookup';

export default defineBackground(() => {
  const controller = new Controller({ ...LOOKUP_DEFAULTS }); // `version` sent to the service: SERVICE_CLIENT_VERSION

  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) =>
    routeMessage(controller, message, sender),
  );

  void controller.start();
  // Firefox closes the popup while it shows the permission prompt, so the popup may never get to
  // say "enable": a newly granted site origin is enabled here instead.
  browser.permissions.onAdded.addListener((permissions) => {
    for (const origin of permissions.origins ?? []) {
      const host = /^\*:\/\/([a-z0-9.-]+)\/\*$/.exec(origin)?.[1];
      if (host) void controller.enableSite(host);
    }
  });

  // A new document (navigation or reload) starts without a view: its reader reports afresh, and a
  // page read once on a toolbar click is read again on the next click.
  browser.tabs.onUpdated.addListener((tabId, changeInfo) => {
    if (changeInfo.status === 'loading') void controller.tabs.forget(tabId);
  });
  browser.tabs.onRemoved.addListener((tabId) => void controller.tabs.forget(tabId));
});
