/** Firefox ESR with the MV2 build installed as a temporary add-on, driven by Puppeteer (WebDriver BiDi). */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { assertBuilt, createProfileDir, DEFAULT_EXTENSION_DIRS, shutDown } from './profile.ts';
import { callExpression, jsonArg, resolveTabId } from './shared.ts';
import { until, waitFor } from '../support/wait.ts';
import type { ExtensionApi, HarnessBrowser, HarnessPage, LaunchOptions, WaitOptions } from './types.ts';

export const FIREFOX_PATH = process.env.RESEED_FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Prefs that keep a test profile quiet and predictable (Puppeteer already sets the usual automation ones). */
const QUIET_PREFS: Record<string, string | number | boolean> = {
  'app.normandy.enabled': false,
  'messaging-system.rsexperimentloader.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.region.update.enabled': false,
  'browser.region.network.url': '',
  'extensions.update.enabled': false,
  'extensions.getAddons.cache.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.http.speculative-parallel-limit': 0,
  'browser.translations.enable': false,
  'datareporting.policy.firstRunURL': '',
  // Real tracker hosts are served over http by the router; the built-in HSTS list would send some
  // (kp.m-team.cc, monikadesign.uk) to https, which it does not serve.
  'network.stricttransportsecurity.preloadlist': false,
  // Optional host permissions ("Use on this site") are granted without the prompt a test cannot click.
  'extensions.webextOptionalPermissionPrompts': false,
  // Scrolls land at once: a focus that scrolls the page is not measured mid-animation (a busy
  // machine would otherwise read a different fraction of a pixel each time).
  'general.smoothScroll': false,
};

function languagePackInstalled(locale: string): boolean {
  try {
    const appDir = dirname(realpathSync(FIREFOX_PATH));
    const dir = join(appDir, 'browser/extensions');
    return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(`langpack-${locale}@`));
  } catch {
    return false;
  }
}

function isExtensionUrl(url: string): boolean {
  return url.startsWith('moz-extension://');
}

class FirefoxPage implements HarnessPage {
  readonly kind = 'firefox' as const;
  constructor(
    readonly raw: Page,
    private readonly timeoutMs: number,
  ) {}

  async url(): Promise<string> {
    return this.raw.evaluate(() => location.href).catch(() => this.raw.url());
  }
  async goto(url: string, options: { timeoutMs?: number; waitUntil?: 'load' | 'domcontentloaded' } = {}): Promise<number | null> {
    const timeout = options.timeoutMs ?? this.timeoutMs;
    if (!isExtensionUrl(url)) {
      const response = await this.raw.goto(url, { waitUntil: options.waitUntil ?? 'load', timeout });
      return response?.status() ?? null;
    }
    // Puppeteer's goto never settles for moz-extension:// pages in Firefox: start it, then watch the document.
    void this.raw.goto(url, { timeout }).catch(() => undefined);
    const wanted = url.split('#')[0]!;
    await until(
      () => this.raw.evaluate(() => [location.href, document.readyState] as const),
      (state) => state[0].split('#')[0] === wanted && state[1] === 'complete',
      `${url} to load`,
      timeout,
      50,
    );
    return null;
  }
  async reload(): Promise<void> {
    const href = await this.url();
    if (!isExtensionUrl(href)) {
      await this.raw.reload({ waitUntil: 'load' });
      return;
    }
    // Same never-settling navigation as goto(); mark the old document to tell the new one apart.
    await this.raw.evaluate(() => {
      (window as unknown as { __harnessOld?: boolean }).__harnessOld = true;
    });
    void this.raw.reload().catch(() => undefined);
    await until(
      () => this.raw.evaluate(() => !(window as unknown as { __harnessOld?: boolean }).__harnessOld && document.readyState === 'complete'),
      (reloaded) => reloaded,
      `${href} to reload`,
      this.timeoutMs,
      50,
    );
  }
  title(): Promise<string> {
    return this.raw.evaluate(() => document.title);
  }
  async waitForSelector(selector: string, options: WaitOptions = {}): Promise<void> {
    const state = options.state ?? 'attached';
    await this.raw.waitForSelector(selector, {
      visible: state === 'visible',
      hidden: state === 'hidden',
      timeout: options.timeoutMs ?? this.timeoutMs,
    });
  }
  /**
   * Until the element is enabled. Polled with evaluate(): waitForFunction builds a Function, which
   * an extension page's CSP refuses.
   */
  private async untilEnabled(element: ElementHandle<Element>, selector: string): Promise<void> {
    const enabled = await waitFor(() => element.evaluate((node) => (node as HTMLButtonElement).disabled !== true), (yes) => yes, this.timeoutMs, 50);
    if (!enabled) throw new Error(`${selector} stayed disabled`);
  }
  async click(selector: string): Promise<void> {
    // An element handle's click, not a locator's: in Firefox ESR 140 Puppeteer's locator never
    // ended its wait for an element below the fold (the click timed out with the element visible
    // and enabled); the handle scrolls it into view and clicks its centre, as a person would.
    const element = await this.raw.waitForSelector(selector, { visible: true, timeout: this.timeoutMs });
    if (!element) throw new Error(`no element ${selector} to click`);
    try {
      // As the locator (and Playwright) did: a disabled control is waited for, not clicked in vain.
      await this.untilEnabled(element, selector);
      await element.click().catch((error: unknown) => {
        // A click that closes its own page (the popup's "Pop out") leaves the input command without
        // its browsing context: the click was delivered, and there is nothing left to wait for.
        if (!/no such frame|BrowsingContext does no longer exist/.test(String(error))) throw error;
      });
    } finally {
      await element.dispose().catch(() => undefined);
    }
  }
  async fill(selector: string, value: string): Promise<void> {
    // An element handle, for the reason click() gives: the locator's wait never ended in Firefox ESR 140.
    const element = await this.raw.waitForSelector(selector, { visible: true, timeout: this.timeoutMs });
    if (!element) throw new Error(`no element ${selector} to fill`);
    try {
      await this.untilEnabled(element, selector);
      // Puppeteer's handle has no fill(): select what is there and type over it, as a person would.
      await element.click({ count: 3 });
      await element.evaluate((node) => {
        const input = node as HTMLInputElement;
        input.select?.();
      });
      if (value === '') await this.raw.keyboard.press('Backspace');
      else await element.type(value);
    } finally {
      await element.dispose().catch(() => undefined);
    }
  }
  async select(selector: string, value: string): Promise<void> {
    await this.raw.waitForSelector(selector, { timeout: this.timeoutMs });
    await this.raw.select(selector, value);
  }
  textContent(selector: string): Promise<string | null> {
    return this.raw.evaluate((css) => document.querySelector(css)?.textContent ?? null, selector);
  }
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>> {
    return this.raw.evaluate(callExpression(fn, [jsonArg(arg)])) as Promise<Awaited<R>>;
  }
  async screenshot(path: string): Promise<void> {
    await this.raw.screenshot({ path: path as `${string}.png` });
  }
  bringToFront(): Promise<void> {
    return this.raw.bringToFront();
  }
  close(): Promise<void> {
    return this.raw.close();
  }
}

/**
 * Installs a package file as Firefox installs one a user opens, not as a temporary add-on:
 * WebDriver BiDi's webExtension.install with Firefox's `moz:permanent` (Puppeteer's own
 * installExtension installs temporarily).
 */
async function installForGood(browser: Browser, file: string): Promise<void> {
  // Puppeteer's public type of a BiDi browser does not show its connection.
  const { connection } = browser as unknown as { connection: { send(method: string, params: object): Promise<unknown> } };
  await connection.send('webExtension.install', { extensionData: { type: 'archivePath', path: file }, 'moz:permanent': true });
}

/** `reuse`: an existing profile and the extension's uuid there, to launch on again (HarnessBrowser.restart). */
export async function launchFirefox(options: LaunchOptions = {}, reuse?: { profileDir: string; uuid: string }): Promise<HarnessBrowser> {
  const started = Date.now();
  const extensionDir = options.extensionDir ?? DEFAULT_EXTENSION_DIRS.firefox;
  const withExtension = !options.withoutExtension;
  if (withExtension) assertBuilt('firefox', extensionDir);
  const manifest = withExtension
    ? (JSON.parse(readFileSync(join(extensionDir, 'manifest.json'), 'utf8')) as { browser_specific_settings?: { gecko?: { id?: string } } })
    : { browser_specific_settings: { gecko: { id: 'no-extension@reseed-lens.invalid' } } };
  const geckoId = manifest.browser_specific_settings?.gecko?.id;
  if (!geckoId) throw new Error(`${extensionDir}/manifest.json has no browser_specific_settings.gecko.id; Firefox needs one to pin the extension's origin.`);
  const lang = options.lang ?? 'en';
  if (lang === 'zh-CN' && !languagePackInstalled('zh-CN')) {
    // Without it Firefox silently stays in en-US and the extension would pick its English messages.
    throw new Error('Firefox has no zh-CN language pack: install the Debian package firefox-esr-l10n-zh-cn (`npm test` does when it may).');
  }
  const timeoutMs = options.timeoutMs ?? 15_000;
  const uuid = reuse?.uuid ?? randomUUID();
  const profileDir = reuse?.profileDir ?? createProfileDir('firefox');

  const prefs: Record<string, string | number | boolean> = {
    ...QUIET_PREFS,
    'extensions.webextensions.uuids': JSON.stringify({ [geckoId]: uuid }),
    // A temporary add-on is uninstalled when the browser ends (or, after a crash, when it starts
    // again) and installed anew by the next launch: its storage and origin are kept across that, as
    // an installed add-on's are across a restart (HarnessBrowser.restart).
    'extensions.webextensions.keepStorageOnUninstall': true,
    'extensions.webextensions.keepUuidOnUninstall': true,
    'intl.locale.requested': lang === 'zh-CN' ? 'zh-CN' : 'en-US',
    'intl.accept_languages': lang === 'zh-CN' ? 'zh-CN, zh, en-US, en' : 'en-US, en',
  };
  Object.assign(prefs, typeof options.firefoxPrefs === 'function' ? options.firefoxPrefs(profileDir) : options.firefoxPrefs);
  // An unsigned package installed for good: Firefox ESR lets a profile turn signature checking off.
  if (options.installedPackage) prefs['xpinstall.signatures.required'] = false;
  if (options.proxyPort !== undefined) {
    Object.assign(prefs, {
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': options.proxyPort,
      'network.proxy.ssl': '127.0.0.1',
      'network.proxy.ssl_port': options.proxyPort,
      'network.proxy.no_proxies_on': '',
      'network.proxy.allow_hijacking_localhost': true,
    });
  }

  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: options.headless ?? true,
      userDataDir: profileDir,
      args: ['--remote-allow-system-access'],
      extraPrefsFirefox: prefs,
      timeout: 30_000,
      protocolTimeout: 60_000,
    });
  } catch (error) {
    await shutDown(profileDir, async () => {});
    throw error;
  }
  const shut = (how: 'close' | 'quit' | 'crash' = 'close') =>
    how === 'crash' ? shutDown(profileDir, async () => {}, 0, true) : shutDown(profileDir, () => browser.close(), 5_000, how === 'quit');
  try {
    if (withExtension && options.installedPackage && !reuse) await installForGood(browser, options.installedPackage);
    else if (withExtension && !options.installedPackage) await browser.installExtension(extensionDir);
  } catch (error) {
    await shut();
    throw new Error(`Firefox did not install ${extensionDir}: ${String(error)}`);
  }
  const extensionOrigin = withExtension ? `moz-extension://${uuid}` : '';

  const wrap = new Map<Page, FirefoxPage>();
  const adapt = (page: Page) => {
    let adapted = wrap.get(page);
    if (!adapted) {
      page.setDefaultTimeout(timeoutMs);
      adapted = new FirefoxPage(page, timeoutMs);
      wrap.set(page, adapted);
    }
    return adapted;
  };
  let initialPage: Page | undefined = (await browser.pages())[0];
  let helper: Promise<FirefoxPage> | undefined;
  let closed = false;

  const harness: HarnessBrowser = {
    kind: 'firefox',
    extensionId: withExtension ? geckoId : '',
    extensionOrigin,
    profileDir,
    launchMs: Date.now() - started,
    async newPage() {
      const reuse = initialPage && !initialPage.isClosed() && initialPage.url() === 'about:blank' ? initialPage : undefined;
      initialPage = undefined;
      return adapt(reuse ?? (await browser.newPage()));
    },
    async openPages() {
      return (await browser.pages()).map(adapt);
    },
    async openExtensionPage(path) {
      const page = await harness.newPage();
      await page.goto(`${extensionOrigin}/${path.replace(/^\//, '')}`);
      return page;
    },
    async evaluateInExtension<R, A = undefined>(fn: (api: ExtensionApi, arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>> {
      if (!withExtension) throw new Error('this browser was launched without the extension');
      helper ??= (async () => {
        const page = adapt(await browser.newPage());
        await page.goto(`${extensionOrigin}/manifest.json`);
        return page;
      })();
      const page = await helper;
      return (await page.raw.evaluate(callExpression(fn, ['globalThis.browser', jsonArg(arg)]))) as Awaited<R>;
    },
    tabIdOf(urlSubstring) {
      return resolveTabId(urlSubstring, async () => (await browser.pages()).map(adapt), harness.evaluateInExtension);
    },
    async restart(how) {
      if (closed) throw new Error('restart() of a closed browser');
      closed = true;
      await shut(how);
      return launchFirefox(options, { profileDir, uuid });
    },
    async close() {
      if (closed) return;
      closed = true;
      await shut();
    },
  };
  return harness;
}
