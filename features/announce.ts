/**
 * The background's two ways to announce a change, typed by the declared events (features/events.ts).
 * Nobody listening (no popup open, a tab without our script) is not an error.
 */
import { browser } from 'wxt/browser';
import type { ExtensionEvent, TabEvent } from './events';

export async function announceToPages(event: ExtensionEvent): Promise<void> {
  // Wrapped: the fake browser and some browsers throw synchronously when nobody listens.
  await (async () => browser.runtime.sendMessage(event))().catch(() => undefined);
}

export async function announceToTab(tabId: number, event: TabEvent, options?: { frameId: number }): Promise<void> {
  await (async () => (options ? browser.tabs.sendMessage(tabId, event, options) : browser.tabs.sendMessage(tabId, event)))().catch(() => undefined);
}
