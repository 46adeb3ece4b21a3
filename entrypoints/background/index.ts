/**
 * Wiring only: listeners, and the features that answer them (entrypoints/background/app.ts). The
 * background is the only caller of the service and the only context that knows the token.
 */
import { browser, type Browser } from 'wxt/browser';
import { BackgroundApp } from './app';
import { routeMessage } from './router';
import { LOOKUP_DEFAULTS } from '../../utils/lookup/lookup';
import { JOB_ALARM } from '../../features/cross-seed-job/cross-seed-job.feature';

export default defineBackground(() => {
  // `version` sent to the service: SERVICE_CLIENT_VERSION (utils/iyuu/operations.ts), not the extension's own.
  const app = new BackgroundApp({ ...LOOKUP_DEFAULTS });

  browser.runtime.onMessage.addListener((message: unknown, sender: Browser.runtime.MessageSender) => routeMessage(app, message, sender));

  // The first run that guides (features/get-started): registered at once, as onInstalled fires only
  // to listeners added in the worker's first turn.
  browser.runtime.onInstalled.addListener((details) => {
    const open = (path: string) => browser.tabs.create({ url: (browser.runtime.getURL as (path: string) => string)(path) });
    void app.getStarted.installed(details, browser.runtime.getManifest().version, open).catch(() => undefined);
  });
  void app.start();
  // Repeated jobs (pruning old answers) on alarms, which outlive the service worker's restarts.
  for (const [name, job] of Object.entries(app.repeatedJobs)) {
    void browser.alarms.get(name).then(async (existing) => {
      if (!existing) await browser.alarms.create(name, { periodInMinutes: job.periodInMinutes });
    });
  }
  browser.alarms.onAlarm.addListener((alarm) => void app.repeatedJobs[alarm.name]?.run().catch(() => undefined));
  // Firefox closes the popup while it shows the permission prompt, so the popup may never get to
  // say "enable": a newly granted site origin is enabled here instead.
  browser.permissions.onAdded.addListener((permissions) => {
    for (const origin of permissions.origins ?? []) {
      const host = /^\*:\/\/([a-z0-9.-]+)\/\*$/.exec(origin)?.[1];
      if (host) void app.customSites.enableSite(host);
    }
  });

  // A new document (navigation or reload) starts without a view: its reader reports afresh, and a
  // page read once on a toolbar click is read again on the next click.
  browser.tabs.onUpdated.addListener((tabId, changeInfo) => {
    if (changeInfo.status === 'loading') {
      void app.tabs.forget(tabId);
      void app.crossSeeds.forget(tabId);
    }
  });
  // "Something new to cross-seed" (features/cross-seed-job): its click opens the page.
  browser.notifications?.onClicked.addListener((id) => {
    if (id === JOB_ALARM) void browser.tabs.create({ url: (browser.runtime.getURL as (path: string) => string)('/cross-seed.html') });
  });
  // A panel's confirmation window the user closed (features/cross-seed/confirm-windows.ts).
  browser.windows.onRemoved.addListener((windowId) => void app.crossSeeds.confirmations.closed(windowId));
  browser.tabs.onRemoved.addListener((tabId) => {
    app.pages.budget.reset(tabId);
    void app.tabs.forget(tabId);
    void app.crossSeeds.forget(tabId);
  });
});
