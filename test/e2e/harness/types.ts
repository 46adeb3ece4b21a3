import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import type { Browser as ExtensionApi } from 'webextension-polyfill';

export type { ExtensionApi };
export type BrowserKind = 'chromium' | 'firefox';
export type UiLanguage = 'en' | 'zh-CN';

export interface LaunchOptions {
  /** Unpacked build to load; defaults to .output/chrome-mv3 or .output/firefox-mv2. */
  extensionDir?: string;
  /**
   * The same browser with no extension at all (to compare what a page is without it). Its
   * extensionOrigin and extensionId are empty, and evaluateInExtension / openExtensionPage throw.
   */
  withoutExtension?: boolean;
  /**
   * Firefox: install this package (a release's .zip / .xpi) as a user's install is, not as a
   * temporary add-on (BiDi webExtension.install with `moz:permanent`), at the first start, with
   * signature checking off (Firefox ESR honours that); it stays across restarts. `extensionDir` is
   * then the same package unpacked (its manifest gives the id).
   */
  installedPackage?: string;
  /**
   * Leave open the options page the install opens at "Get started" (launchBrowser closes it
   * otherwise, once it is there).
   */
  keepFirstRun?: boolean;
  /** Port of the test router (proxy) on 127.0.0.1; every http and https request goes there. Omit for no proxy. */
  proxyPort?: number;
  /** Firefox: more prefs for this profile (a bench's own instruments, e.g. the memory-report trigger), or a function of the profile's folder giving them. */
  firefoxPrefs?: Record<string, string | number | boolean> | ((profileDir: string) => Record<string, string | number | boolean>);
  /** Browser UI language, which is also what the extension's i18n picks. Default 'en'. */
  lang?: UiLanguage;
  /** Default true. Headful needs a display (xvfb-run). */
  headless?: boolean;
  /** Default timeout for page actions and waits, ms. Default 15 000. */
  timeoutMs?: number;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** 'attached' (default): in the DOM; 'visible': rendered with a box; 'hidden': absent or invisible. */
  state?: 'attached' | 'visible' | 'hidden';
}

/**
 * One tab, with the same small API in both browsers. Selectors are plain CSS (they do not pierce
 * closed shadow roots). For anything else use `raw` (narrow with `kind`).
 */
export interface HarnessPage {
  readonly kind: BrowserKind;
  /** Playwright Page in Chromium, Puppeteer Page in Firefox. */
  readonly raw: PlaywrightPage | PuppeteerPage;
  /** The document's real location.href (Puppeteer's cached URL lags on Firefox extension pages). */
  url(): Promise<string>;
  /**
   * Navigates and waits for the load event (or, with `waitUntil: 'domcontentloaded'`, only for the
   * document to be parsed: a page whose pictures are still loading). Returns the HTTP status, or
   * null for extension and about: pages.
   */
  goto(url: string, options?: { timeoutMs?: number; waitUntil?: 'load' | 'domcontentloaded' }): Promise<number | null>;
  reload(): Promise<void>;
  title(): Promise<string>;
  waitForSelector(selector: string, options?: WaitOptions): Promise<void>;
  /** Waits for the element to be visible, then clicks it like a user. */
  click(selector: string): Promise<void>;
  /** Waits for the input/textarea to be visible, replaces its value and fires input events. */
  fill(selector: string, value: string): Promise<void>;
  /** Selects an <option> by value in a <select>. */
  select(selector: string, value: string): Promise<void>;
  /** textContent of the first match, or null when nothing matches (does not wait). */
  textContent(selector: string): Promise<string | null>;
  /**
   * Runs `fn(arg)` in the page and returns its (awaited) result. `fn` is sent as source text, so
   * it must not use variables from the test's scope; `arg` must be JSON-serialisable.
   */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  screenshot(path: string): Promise<void>;
  bringToFront(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessBrowser {
  readonly kind: BrowserKind;
  /** `chrome-extension://<id>` or `moz-extension://<uuid>`, no trailing slash. */
  readonly extensionOrigin: string;
  /** Chromium extension id, or the Firefox add-on id (gecko id). */
  readonly extensionId: string;
  /** Milliseconds from launch call until the extension was loaded and its origin known. */
  readonly launchMs: number;
  /** The temp profile directory (removed on close). */
  readonly profileDir: string;
  /** A new tab (the first call reuses the browser's initial blank tab). */
  newPage(): Promise<HarnessPage>;
  /** Every open page, in every window (a window the extension opened too, e.g. its confirmation). */
  openPages(): Promise<HarnessPage[]>;
  /** Opens `<extensionOrigin>/<path>` (e.g. 'popup.html?tabId=3') in a new tab and waits for it to load. */
  openExtensionPage(path: string): Promise<HarnessPage>;
  /**
   * Runs `fn(api, arg)` in an extension page (a helper tab showing the extension's manifest.json,
   * opened on first use, in both browsers), where `api` is the promise-based `browser` namespace.
   * From there `api.runtime.sendMessage` reaches the background like the popup's would. The helper
   * tab is visible to `api.tabs.query`. Same serialisation rules as HarnessPage.evaluate.
   */
  evaluateInExtension<R, A = undefined>(fn: (api: ExtensionApi, arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  /**
   * The extension-side tab id of the open tab whose URL contains `urlSubstring`. When the
   * extension may not see tab URLs (no "tabs" or host permission), it brings that tab to the front
   * and asks for the active tab, so afterwards that tab is the active one.
   */
  tabIdOf(urlSubstring: string): Promise<number>;
  /**
   * Ends this browser and launches it again on the same profile with the same options, as a
   * person's browser restarted: the extension keeps its id, origin and storage. 'quit': the
   * browser's own close; 'crash': SIGKILL to every process of the profile, nothing flushed.
   * This object is closed afterwards; use the one returned.
   */
  restart(how: 'quit' | 'crash'): Promise<HarnessBrowser>;
  /** Closes the browser, kills anything left of it, deletes the profile. Safe to call twice. */
  close(): Promise<void>;
}
