/**
 * The extension's service worker in Chromium, seen and stopped through DevTools' ServiceWorker
 * domain (as chrome://serviceworker-internals' "Stop" does, and as Chromium does to an idle worker
 * after 30 s). The CDP session is an extension page's: the worker lives in its storage partition.
 */
import type { CDPSession, Page as PlaywrightPage } from 'playwright-core';
import { until } from './wait';

export interface ExtensionWorker {
  /** The worker's running statuses as DevTools reported them, oldest first. */
  readonly statuses: readonly string[];
  /** Stops the worker and waits until DevTools says it stopped. */
  stop(): Promise<void>;
  /** Waits until the worker runs (since the last stop(): runs again, something woke it). */
  running(timeoutMs?: number, intervalMs?: number): Promise<void>;
  /** The worker's DevTools targets now: 1 while it runs, 0 once it is really gone. */
  targets(): Promise<number>;
  close(): Promise<void>;
}

export async function watchExtensionWorker(extensionPage: PlaywrightPage, extensionOrigin: string): Promise<ExtensionWorker> {
  const devtools: CDPSession = await extensionPage.context().newCDPSession(extensionPage);
  const statuses: string[] = [];
  let versionId: string | undefined;
  devtools.on('ServiceWorker.workerVersionUpdated', (event) => {
    for (const version of event.versions) {
      if (!version.scriptURL.startsWith(extensionOrigin)) continue;
      versionId = version.versionId;
      statuses.push(version.runningStatus);
    }
  });
  await devtools.send('ServiceWorker.enable');
  /** Statuses from here on are what running() looks at: 0 at first, then where the last stop ended. */
  let sinceStop = 0;
  return {
    statuses,
    async stop() {
      if (!versionId) await until(async () => versionId, Boolean, 'the service worker known to DevTools');
      const from = statuses.length;
      await devtools.send('ServiceWorker.stopWorker', { versionId: versionId! });
      await until(async () => statuses.slice(from), (seen) => seen.includes('stopped'), 'the service worker stopped', 30_000, 50);
      sinceStop = statuses.length;
    },
    async running(timeoutMs = 30_000, intervalMs = 50) {
      const from = sinceStop;
      await until(async () => statuses.slice(from), (seen) => seen.includes('running') || (from === 0 && statuses.at(-1) === 'running'), 'the service worker running', timeoutMs, intervalMs);
    },
    async targets() {
      const browserSession = await extensionPage.context().browser()!.newBrowserCDPSession();
      try {
        const { targetInfos } = await browserSession.send('Target.getTargets');
        return targetInfos.filter((target) => target.type === 'service_worker' && target.url.startsWith(extensionOrigin)).length;
      } finally {
        await browserSession.detach();
      }
    },
    close: () => devtools.detach().catch(() => undefined),
  };
}
