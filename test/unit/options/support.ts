/**
 * Component tests of the options page against the real background: the BackgroundApp behind the
 * router, calling the reference service over HTTP, reached through fakeBrowser's runtime messages
 * as the page's sendToBackground reaches the real background.
 */
import { IDBFactory } from 'fake-indexeddb';
import { join } from 'node:path';
import { render, type ComponentChild } from 'preact';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../entrypoints/background/app';
import { routeMessage } from '../../../entrypoints/background/router';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';
import { loadReferenceData } from '../../service/data';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { installI18n } from '../support/i18n';
import { grantOrigin } from '../support/permissions';

const extension = { id: fakeBrowser.runtime.id, origin: 'chrome-extension://reseed-lens-test/' };
const optionsPage = { id: extension.id, url: `${extension.origin}options.html` };

export interface OptionsWorld {
  service: ReferenceService;
  app: BackgroundApp;
  /** Every message the page sent to the background, in order. */
  messages: { type: string }[];
  close(): Promise<void>;
}

/**
 * The browser parts the background touches that fakeBrowser leaves unimplemented, kept in memory:
 * registered content scripts (host permissions: test/unit/support/permissions.ts, where a request
 * is granted as a user accepting the prompt would).
 */
function installBrowserParts(): void {
  let registered: { id: string }[] = [];
  Object.assign(fakeBrowser.scripting, {
    registerContentScripts: async (scripts: { id: string }[]) => void (registered = [...registered, ...scripts]),
    unregisterContentScripts: async ({ ids }: { ids: string[] }) => void (registered = registered.filter((script) => !ids.includes(script.id))),
    getRegisteredContentScripts: async ({ ids }: { ids: string[] }) => registered.filter((script) => ids.includes(script.id)),
  });
}

/** A reference service; happy-dom replaces the URL class Node's fs understands, so its data files go as paths. */
export function startService(): Promise<ReferenceService> {
  const dir = join(__dirname, '../../service');
  return startReferenceService({ data: loadReferenceData({ sites: join(dir, 'sites.json'), data: join(dir, 'data.json') }) });
}

/**
 * A fresh fake browser in `locale`, the reference service, stored settings pointing at it (the
 * demo token unless `settings` says otherwise), and the real background answering the page.
 */
export async function startOptionsWorld(
  options: { settings?: Record<string, unknown>; storage?: Record<string, unknown>; locale?: 'en' | 'zh_CN'; clientFetch?: typeof fetch; siteFetch?: typeof fetch } = {},
): Promise<OptionsWorld> {
  fakeBrowser.reset();
  // A world is a fresh profile: its storage.local is emptied above, and so is its IndexedDB (the
  // client index's store). A world opened earlier in the same test keeps its own, as a closed
  // browser would, instead of holding connections to this one's database.
  globalThis.indexedDB = new IDBFactory();
  installI18n(options.locale ?? 'en');
  installBrowserParts();
  const service = await startService();
  await fakeBrowser.storage.local.set({
    [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN, ...options.settings },
    ...options.storage,
  });
  // The options page saved this (loopback) address, which granted its origin.
  grantOrigin(service.url);
  // Every call the background makes is tracked, so closing the world first lets them finish: a
  // test that ends while the page is still reloading its sections leaves nothing half-answered.
  const pending = new Set<Promise<unknown>>();
  const tracked: typeof fetch = (input, init) => {
    const call = globalThis.fetch(input, init);
    pending.add(call);
    void call.catch(() => undefined).finally(() => pending.delete(call));
    return call;
  };
  const app = new BackgroundApp({ retryDelaysMs: [], minIntervalMs: 0, fetch: tracked, clientFetch: options.clientFetch, siteFetch: options.siteFetch });
  const messages: { type: string }[] = [];
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    messages.push(message as { type: string });
    return routeMessage(app, message, optionsPage, extension);
  });
  return {
    service,
    app,
    messages,
    async close() {
      unmountAll();
      // A sync of the client index still under way would go on writing into the next test's
      // storage (the fake browser is shared): it is stopped and waited for, as a closing browser's is.
      await (routeMessage(app, { type: 'index:cancel' }, optionsPage, extension) as Promise<unknown> | undefined)?.catch(() => undefined);
      while (pending.size) await Promise.allSettled([...pending]);
      await service.close();
    },
  };
}

const mounted: HTMLElement[] = [];

export function mount(node: ComponentChild): HTMLElement {
  const container = document.createElement('div');
  document.body.append(container);
  render(node, container);
  mounted.push(container);
  return container;
}

export function unmountAll(): void {
  for (const container of mounted.splice(0)) {
    render(null, container);
    container.remove();
  }
}

/** Waits until `check` gives something truthy (the page talks to a real background and service). */
export async function waitFor<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what = 'the condition',
  timeoutMs = 4000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * For asserting that the page did NOT do something: returns once its effects have run (Preact runs
 * them after the next frame, or 35 ms without one: this waits for either, then a task, after them)
 * and a marker sent its way to the background, and on to the service when there is a token (a
 * profile request), has come back. Whatever the page sent before the marker arrived before it.
 */
export async function afterPageMessages(): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timeout);
      cancelAnimationFrame(frame);
      setTimeout(resolve);
    };
    const timeout = setTimeout(done, 35);
    const frame = requestAnimationFrame(done);
  });
  await fakeBrowser.runtime.sendMessage({ type: 'profile:get' });
}

export function $<T extends Element = HTMLElement>(root: ParentNode, selector: string): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`nothing matches ${selector}`);
  return found;
}

export function text(root: ParentNode, selector: string): string {
  return root.querySelector(selector)?.textContent?.trim() ?? '';
}

/** A turn for the page to render what the last event changed, as a person's next action would find it. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Types into an input as a person would: the value changes and an input event fires. */
export async function type(input: HTMLInputElement, value: string): Promise<void> {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await tick();
}

export async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
  await tick();
}

export async function click(element: HTMLElement): Promise<void> {
  element.click();
  await tick();
}

export async function storedSettings(): Promise<Record<string, unknown>> {
  return ((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {}) as Record<string, unknown>;
}

/** The accessible name a screen reader would give a control, by the rules this page uses. */
export function accessibleName(control: Element): string {
  const aria = control.getAttribute('aria-label');
  if (aria) return aria.trim();
  const labelledBy = control.getAttribute('aria-labelledby');
  if (labelledBy) return labelledBy.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
  if (control.id) {
    const label = document.querySelector(`label[for="${control.id}"]`);
    if (label?.textContent?.trim()) return label.textContent.trim();
  }
  const wrapping = control.closest('label');
  if (wrapping?.textContent?.trim()) return wrapping.textContent.trim();
  if (control.tagName === 'BUTTON' || control.tagName === 'A') return control.textContent?.trim() ?? '';
  return '';
}
