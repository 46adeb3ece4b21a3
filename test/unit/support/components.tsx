/**
 * Component-test support: views and candidates to render, the background's answers behind
 * fakeBrowser.runtime.onMessage (what sendToBackground reaches), and a DOM container to render in.
 * Tests using it run under happy-dom (`// @vitest-environment happy-dom`).
 */
import type { MessageType, Reply, Request } from '../../../features/protocol';
import { render, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { CandidateView, TabView } from '../../../features/lookup/lookup.messages';
import type { Settings } from '../../../utils/settings';
import { DEFAULT_SETTINGS } from '../../../utils/settings';
import { installI18n } from './i18n';

export const HASH = '2237b65bbcd8db99fdb7b6e8380f046b01733d21';
export const TAB_ID = 7;

export function tabView(extra: Partial<TabView> = {}): TabView {
  return {
    tabId: TAB_ID,
    url: 'https://hdsky.me/details.php?id=195588',
    host: 'hdsky.me',
    siteName: 'HDSky',
    status: 'done',
    engine: 'nexusphp',
    access: 'catalog',
    panel: true,
    hashes: [{ hash: HASH, source: 'info-row' }],
    candidates: [],
    ...extra,
  };
}

export function candidate(sid: number, torrentId: number, extra: Partial<CandidateView> = {}): CandidateView {
  const siteName = extra.siteName ?? `Site${sid}`;
  return {
    sid,
    torrentId,
    infoHash: String(sid).padStart(40, '0'),
    forHash: HASH,
    siteName,
    detailsUrl: `https://site${sid}.example/details.php?id=${torrentId}`,
    isCurrentSite: false,
    ...extra,
  };
}

type Handlers = { [K in MessageType]?: (request: Request<K>) => Reply<K> | Promise<Reply<K>> };

/** Everything sent to the background, in order. */
export interface Background {
  sent: { type: string; [key: string]: unknown }[];
  sentOf(type: MessageType): { type: string; [key: string]: unknown }[];
}

export const defaultSettings = (extra: Partial<Settings> = {}) => ({
  settings: { ...DEFAULT_SETTINGS, token: 'demo-token', askedForSites: true, ...extra },
  resetFields: [],
  serviceOriginGranted: true,
});

/**
 * Answers sendToBackground like the background would, from `handlers`. Defaults: no recommended
 * sites, settings that do not ask for the user's sites.
 */
export function answerBackground(handlers: Handlers): Background {
  const sent: Background['sent'] = [];
  const all: Handlers = {
    'recommended:get': () => ({ sites: [], count: 0 }),
    'settings:get': () => defaultSettings(),
    ...handlers,
  };
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    const typed = message as { type: MessageType };
    if (typeof typed?.type !== 'string' || typed.type.startsWith('view:changed')) return undefined;
    sent.push(typed as Background['sent'][number]);
    const handler = all[typed.type] as ((request: unknown) => unknown) | undefined;
    return handler ? Promise.resolve(handler(typed)) : undefined;
  });
  return { sent, sentOf: (type) => sent.filter((message) => message.type === type) };
}

/**
 * What the background does after a command changed a tab's view: announces the whole view to the
 * extension's pages (the command itself answers nothing).
 */
export async function announceView(view: TabView): Promise<void> {
  await fakeBrowser.runtime.onMessage.trigger({ type: 'view:changed', view }, {});
}

/** A fresh fake browser with the real locale files behind its i18n. */
export function resetBrowser(locale: 'en' | 'zh_CN' = 'en'): void {
  fakeBrowser.reset();
  installI18n(locale);
}

let container: HTMLElement | undefined;

export async function show(element: ComponentChild): Promise<HTMLElement> {
  container = document.createElement('div');
  document.body.append(container);
  await act(() => {
    render(element, container!);
  });
  return container;
}

export async function unmount(): Promise<void> {
  if (!container) return;
  const gone = container;
  container = undefined;
  await act(() => {
    render(null, gone);
  });
  gone.remove();
}

/** Waits until `read` gives something truthy (renders after answers arrive), or fails naming `what`. */
export async function waitFor<T>(read: () => T | null | undefined | false, what: string, timeoutMs = 2000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    let value: T | null | undefined | false;
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    value = read();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
  }
}

/** A person's click: the event says it is trusted, as the browser's own does (page scripts' clicks are not). */
export async function click(element: Element | null | undefined): Promise<void> {
  if (!element) throw new Error('nothing to click');
  await act(async () => {
    const event = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    Object.defineProperty(event, 'isTrusted', { value: true });
    element.dispatchEvent(event);
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

/** A page script's click (isTrusted false), which in-page buttons must ignore. */
export async function scriptedClick(element: Element | null | undefined): Promise<void> {
  if (!element) throw new Error('nothing to click');
  await act(async () => {
    (element as HTMLElement).click();
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

/** Plain text of an element with runs of white space made single. */
export const text = (element: Element | null | undefined) => (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
