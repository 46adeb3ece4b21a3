/**
 * Reading what the extension shows about a tab: the background's view of it (view:get, as the
 * popup asks) and the popup's own DOM (popup.html?tabId=N, as "pop out" opens it).
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import type { HarnessBrowser, HarnessPage } from '../harness/index.ts';
import type { ReferenceService } from '../../service/server';
import { expectedLinks } from '../world';
import type { TabView } from '../../../features/lookup/lookup.messages';
import { inPanel } from './shadow';
import { until, waitFor } from './wait';

export { waitFor };

/**
 * Token and service address, typed into the options page as a person would. The page is closed
 * afterwards unless `keepOpen` (then it is returned, e.g. to press "Test connection" next).
 */
export async function configureThroughOptions(
  browser: HarnessBrowser,
  values: { baseUrl: string; token: string },
  { keepOpen = false } = {},
): Promise<HarnessPage | undefined> {
  const options = await browser.openExtensionPage('options.html');
  await options.waitForSelector('#baseUrl', { state: 'visible' });
  await options.fill('#baseUrl', values.baseUrl);
  await options.fill('#token', values.token);
  await options.click('#save');
  await options.waitForSelector('.status.ok');
  if (keepOpen) return options;
  await options.close();
  return undefined;
}

/**
 * Returns once the popup has acted on what the background answered it as it opened, for asserting
 * that it did NOT show something. First its effects have run (Preact runs them after the next frame,
 * or 35 ms without one: a frame or as long, then a task, waited for after them); then a settings:get
 * and a sites:list sent from the popup now come back after those its effects sent (the background
 * answers one page's messages in order), and a task later what their answers rendered is there.
 */
export async function afterPopupAsked(popup: HarnessPage): Promise<void> {
  await popup.evaluate(async () => {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timeout);
        cancelAnimationFrame(frame);
        setTimeout(resolve);
      };
      const timeout = setTimeout(done, 35);
      const frame = requestAnimationFrame(done);
    });
    const api = ((globalThis as { browser?: unknown }).browser ?? (globalThis as { chrome?: unknown }).chrome) as { runtime: { sendMessage(message: unknown): Promise<unknown> } };
    await api.runtime.sendMessage({ type: 'settings:get' });
    await api.runtime.sendMessage({ type: 'sites:list' });
    await new Promise((resolve) => setTimeout(resolve));
  });
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

export interface PanelContent {
  /** The panel's one-line summary (the toggle's title when it is a folded corner badge, else its generated content). */
  summary: string;
  links: string[];
  /** Labels of its buttons. */
  buttons: string[];
}

/** What the in-page panel shows (null when there is no panel). */
export function panelContent(tab: HarnessPage): Promise<PanelContent | null> {
  return inPanel(tab, (root) => {
    const toggle = root.querySelector('.panel-toggle');
    return {
      summary: (toggle && (toggle.getAttribute('title') || toggle.querySelector('.panel-summary')?.getAttribute('data-text'))) || '',
      links: [...root.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href),
      buttons: [...root.querySelectorAll('button')].map((button) => (button.textContent ?? '').trim()),
    };
  });
}

/** The viewport centre of the first element matching `selector` inside the shadow root (scrolled into view). */
function pointInShadow(root: ShadowRoot, selector: string): { x: number; y: number } | null {
  const element = root.querySelector(selector);
  if (!element) return null;
  element.scrollIntoView({ block: 'nearest' });
  const box = element.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}

/**
 * Clicks in the panel as a person does, with the mouse: the panel acts only on trusted clicks, so
 * a script's element.click() would (rightly) do nothing.
 */
export async function clickInPanel(tab: HarnessPage, selector: string): Promise<void> {
  const point = await inPanel(tab, pointInShadow, selector);
  if (!point) throw new Error(`nothing matches ${selector} in the panel`);
  await (tab.raw as PlaywrightPage | PuppeteerPage).mouse.click(point.x, point.y);
}

/** Clicks the panel's button with this label (its text or generated content), with the mouse; false when there is none. */
export async function clickPanelButton(tab: HarnessPage, label: string): Promise<boolean> {
  const point = await inPanel(
    tab,
    (root, wanted: string) => {
      const button = [...root.querySelectorAll('button')].find((candidate) => ((candidate.textContent ?? '').trim() || candidate.getAttribute('data-text')) === wanted);
      if (!button) return null;
      button.scrollIntoView({ block: 'nearest' });
      const box = button.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    },
    label,
  );
  if (!point) return false;
  await (tab.raw as PlaywrightPage | PuppeteerPage).mouse.click(point.x, point.y);
  return true;
}

/** A candidate's row in the popup, by its link's torrent id. */
export const candidateRow = (torrentId: number) => `li.torrent:has(a.candidate-link[href$="id=${torrentId}"])`;

/** A Cross-seed's outcome under its candidate in the popup: its kind, its sentence and its detail lines. */
export interface CrossSeedOutcome {
  kind: string | null;
  sentence: string;
  details: string[];
  ok: boolean;
}

/** The outcome under a candidate in the popup, once it is no longer running. */
export function crossSeedOutcomeOf(popup: HarnessPage, torrentId: number, timeoutMs = 30_000): Promise<CrossSeedOutcome> {
  return until(
    () =>
      popup.evaluate((selector) => {
        const outcome = document.querySelector(`${selector} .cross-seed-outcome:not(.running)`);
        return outcome
          ? {
              kind: outcome.getAttribute('data-kind'),
              sentence: outcome.querySelector('.cross-seed-sentence')?.textContent ?? outcome.textContent ?? '',
              details: [...outcome.querySelectorAll('.cross-seed-differences li')].map((line) => line.textContent ?? ''),
              ok: outcome.classList.contains('ok'),
            }
          : null;
      }, candidateRow(torrentId)),
    (outcome) => outcome !== null,
    `the outcome for #${torrentId}`,
    timeoutMs,
  ) as Promise<CrossSeedOutcome>;
}
