/**
 * Reading what the extension shows about a tab: the background's view of it (view:get, as the
 * popup asks) and the popup's own DOM (popup.html?tabId=N, as "pop out" opens it).
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { HarnessBrowser, HarnessPage } from '../harness/index.ts';
import type { ReferenceService } from '../../service/server';
import { expectedLinks } from '../world';
import type { TabView } from '../../../utils/messages';

/** Polls `read` until `done` says yes or the time is up; returns the last value either way. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Token and service address, typed into the options page as a person would (lookup-flow.test.ts). */
export async function configureThroughOptions(browser: HarnessBrowser, values: { baseUrl: string; token: string }): Promise<void> {
  const options = await browser.openExtensionPage('options.html');
  await options.waitForSelector('#baseUrl', { state: 'visible' });
  await options.fill('#baseUrl', values.baseUrl);
  await options.fill('#token', values.token);
  await options.click('#save');
  await options.waitForSelector('.status.ok');
  await options.close();
}

export function tabView(browser: HarnessBrowser, tabId: number): Promise<TabView> {
  return browser.evaluateInExtension((api, id) => api.runtime.sendMessage({ type: 'view:get', tabId: id }) as Promise<TabView>, tabId);
}

/** The tab's view once `done` holds (by default: the lookup finished). */
export function settledView(browser: HarnessBrowser, tabId: number, done: (view: TabView) => boolean = (view) => view.status === 'done', timeoutMs = 30_000): Promise<TabView> {
  return waitFor(() => tabView(browser, tabId), done, timeoutMs);
}

export interface PopupCandidate {
  sid: number;
  /** The site group is marked as the page's own site (li.site.current). */
  current: boolean;
  href: string | null;
  /** The short page hash shown beside it on list pages (code.for-hash). */
  forHash: string | null;
}

export interface PopupContent {
  hashes: string[];
  hashesHeading: string | null;
  candidates: PopupCandidate[];
  /** Text of the notices (status, problems, "use on this site"). */
  notices: string;
  /** Labels of the buttons shown. */
  buttons: string[];
}

export function popupContent(popup: HarnessPage): Promise<PopupContent> {
  return popup.evaluate(() => ({
    hashes: [...document.querySelectorAll('.hash-value')].map((element) => element.textContent ?? ''),
    hashesHeading: document.querySelector('#hashes-heading')?.textContent ?? null,
    candidates: [...document.querySelectorAll('li.site')].flatMap((site) =>
      [...site.querySelectorAll('li.torrent')].map((row) => ({
        sid: Number(site.getAttribute('data-sid')),
        current: site.classList.contains('current'),
        href: row.querySelector<HTMLAnchorElement>('a.candidate-link')?.href ?? null,
        forHash: row.querySelector('code.for-hash')?.textContent ?? null,
      })),
    ),
    notices: [...document.querySelectorAll('.notice')].map((element) => element.textContent ?? '').join('\n'),
    buttons: [...document.querySelectorAll('button')].map((element) => element.textContent?.trim() ?? ''),
  }));
}

/** Opens the popup for a tab and waits until its content satisfies `done`. */
export async function openPopup(
  browser: HarnessBrowser,
  tabId: number,
  done: (content: PopupContent) => boolean,
): Promise<{ popup: HarnessPage; content: PopupContent }> {
  const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
  const content = await waitFor(() => popupContent(popup), done, 30_000);
  if (!done(content)) {
    // Say what the popup did show: a bare "expected null" says nothing about a slow or wrong view.
    const shown = await popup.evaluate(() => document.body.innerText).catch((error: unknown) => `(unreadable: ${String(error)})`);
    throw new Error(`the popup for tab ${tabId} never showed what was awaited; it shows:\n${shown}\nview: ${JSON.stringify(await tabView(browser, tabId))}`);
  }
  return { popup, content };
}

/** Every candidate link the service's data gives for these page hashes (other members of each group). */
export function expectedLinksFor(service: ReferenceService, hashes: readonly string[]): string[] {
  return hashes.flatMap((hash) => expectedLinks(service, hash)).sort();
}

/** The few fields of a CDP DOM.Node used here. */
interface DomNode {
  localName: string;
  backendNodeId: number;
  children?: DomNode[];
  shadowRoots?: DomNode[];
}

export interface PanelContent {
  /** The panel's one-line summary (the toggle's title when it is a folded corner badge, else its text). */
  summary: string;
  links: string[];
  /** Labels of its buttons. */
  buttons: string[];
}

/**
 * Runs a function (source text; `this` is the shadow root) inside the in-page panel. Its shadow
 * root is closed, so neither the page nor Playwright's selectors reach into it; the DevTools
 * protocol does (Chromium only). Null: no panel on the page.
 */
async function inPanel<T>(tab: HarnessPage, functionDeclaration: string, arg?: unknown): Promise<T | null> {
  if (tab.kind !== 'chromium') throw new Error('the panel is reached through CDP: Chromium only');
  const raw = tab.raw as PlaywrightPage;
  const session = await raw.context().newCDPSession(raw);
  try {
    const { root } = (await session.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const find = (node: DomNode): DomNode | undefined =>
      node.localName === 'reseed-lens-panel' ? node : [...(node.children ?? []), ...(node.shadowRoots ?? [])].map(find).find(Boolean);
    const shadow = find(root)?.shadowRoots?.[0];
    if (!shadow) return null;
    const { object } = await session.send('DOM.resolveNode', { backendNodeId: shadow.backendNodeId });
    const { result } = await session.send('Runtime.callFunctionOn', {
      objectId: object.objectId!,
      functionDeclaration,
      arguments: [{ value: arg ?? null }],
      returnByValue: true,
    });
    return result.value as T;
  } finally {
    await session.detach();
  }
}

/** What the in-page panel shows (Chromium only; null when there is no panel). */
export function panelContent(tab: HarnessPage): Promise<PanelContent | null> {
  return inPanel<PanelContent>(
    tab,
    `function () {
      const toggle = this.querySelector('.panel-toggle');
      return {
        summary: (toggle && (toggle.getAttribute('title') || toggle.textContent)) || '',
        links: [...this.querySelectorAll('a.candidate-link')].map((a) => a.href),
        buttons: [...this.querySelectorAll('button')].map((button) => button.textContent.trim()),
      };
    }`,
  );
}

/** Clicks the panel's button with this label (Chromium only); false when there is none. */
export async function clickPanelButton(tab: HarnessPage, label: string): Promise<boolean> {
  const clicked = await inPanel<boolean>(
    tab,
    `function (label) {
      const button = [...this.querySelectorAll('button')].find((candidate) => candidate.textContent.trim() === label);
      if (!button) return false;
      button.click();
      return true;
    }`,
    label,
  );
  return clicked === true;
}
