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
  /** Waits until the worker runs again (something woke it). */
  running(timeoutMs?: number): Promise<void>;
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
  const runningFrom = async (from: number, timeoutMs: number) => {
    await until(async () => statuses.slice(from), (seen) => seen.includes('running') || statuses.at(-1) === 'running', 'the service worker running', timeoutMs, 50);
  };
  return {
    statuses,
    async stop() {
      if (!versionId) await until(async () => versionId, Boolean, 'the service worker known to DevTools');
      const from = statuses.length;
      await devtools.send('ServiceWorker.stopWorker', { versionId: versionId! });
      await until(async () => statuses.slice(from), (seen) => seen.includes('stopped'), 'the service worker stopped', 30_000, 50);
    },
    running: (timeoutMs = 30_000) => runningFrom(0, timeoutMs),
    close: () => devtools.detach().catch(() => undefined),
  };
}
