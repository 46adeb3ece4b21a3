/** Chromium with the unpacked MV3 build, driven by Playwright. */
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { assertBuilt, createProfileDir, DEFAULT_EXTENSION_DIRS, shutDown } from './profile.ts';
import { callExpression, jsonArg, resolveTabId } from './shared.ts';
import type { ExtensionApi, HarnessBrowser, HarnessPage, LaunchOptions, WaitOptions } from './types.ts';

export const CHROMIUM_PATH = process.env.RESEED_CHROMIUM_PATH ?? '/usr/bin/chromium';

class ChromiumPage implements HarnessPage {
  readonly kind = 'chromium' as const;
  constructor(
    readonly raw: Page,
    private readonly timeoutMs: number,
  ) {}

  async url(): Promise<string> {
    return this.raw.url();
  }
  async goto(url: string, options: { timeoutMs?: number; waitUntil?: 'load' | 'domcontentloaded' } = {}): Promise<number | null> {
    const response = await this.raw.goto(url, { waitUntil: options.waitUntil ?? 'load', timeout: options.timeoutMs ?? this.timeoutMs });
    return response?.status() ?? null;
  }
  async reload(): Promise<void> {
    await this.raw.reload({ waitUntil: 'load' });
  }
  title(): Promise<string> {
    return this.raw.title();
  }
  async waitForSelector(selector: string, options: WaitOptions = {}): Promise<void> {
    await this.raw.waitForSelector(selector, { state: options.state ?? 'attached', timeout: options.timeoutMs ?? this.timeoutMs });
  }
  click(selector: string): Promise<void> {
    return this.raw.click(selector, { timeout: this.timeoutMs });
  }
  fill(selector: string, value: string): Promise<void> {
    return this.raw.fill(selector, value, { timeout: this.timeoutMs });
  }
  async select(selector: string, value: string): Promise<void> {
    await this.raw.selectOption(selector, value, { timeout: this.timeoutMs });
  }
  textContent(selector: string): Promise<string | null> {
    return this.raw.evaluate((css) => document.querySelector(css)?.textContent ?? null, selector);
  }
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>> {
    return this.raw.evaluate(callExpression(fn, [jsonArg(arg)])) as Promise<Awaited<R>>;
  }
  async screenshot(path: string): Promise<void> {
    await this.raw.screenshot({ path });
  }
  bringToFront(): Promise<void> {
    return this.raw.bringToFront();
  }
  close(): Promise<void> {
    return this.raw.close();
  }
}

/** `profileDir`: an existing profile to launch on again (HarnessBrowser.restart). */
export async function launchChromium(options: LaunchOptions = {}, reuse?: { profileDir: string }): Promise<HarnessBrowser> {
  const started = Date.now();
  const extensionDir = options.extensionDir ?? DEFAULT_EXTENSION_DIRS.chromium;
  const withExtension = !options.withoutExtension;
  if (withExtension) assertBuilt('chromium', extensionDir);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const lang = options.lang === 'zh-CN' ? 'zh-CN' : 'en-US';
  const profileDir = reuse?.profileDir ?? createProfileDir('chromium');
  const args = [
    ...(withExtension ? [`--load-extension=${extensionDir}`, `--disable-extensions-except=${extensionDir}`] : ['--disable-extensions']),
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    `--lang=${lang}`,
    // CDP's Extensions domain, so a test can press the toolbar button (Extensions.triggerAction),
    // which grants activeTab as a person's click does. Needs the pipe connection Playwright uses.
    '--enable-unsafe-extension-debugging',
  ];
  // Also route https (it reaches the router as CONNECT, which is refused and recorded).
  if (options.proxyPort !== undefined) args.push(`--proxy-server=http://127.0.0.1:${options.proxyPort}`, '--proxy-bypass-list=<-loopback>');

  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM_PATH,
      headless: options.headless ?? true,
      locale: lang,
      args,
      timeout: 30_000,
    });
  } catch (error) {
    await shutDown(profileDir, async () => {});
    throw error;
  }
  const shut = (how: 'close' | 'quit' | 'crash' = 'close') =>
    how === 'crash' ? shutDown(profileDir, async () => {}, 0, true) : shutDown(profileDir, () => context.close(), 5_000, how === 'quit');

  let extensionId = '';
  if (withExtension) try {
    const isOurs = (url: string) => url.startsWith('chrome-extension://');
    const worker =
      context.serviceWorkers().find((w) => isOurs(w.url())) ??
      (await context.waitForEvent('serviceworker', { predicate: (w) => isOurs(w.url()), timeout: timeoutMs }));
    extensionId = new URL(worker.url()).host;
  } catch (error) {
    await shut();
    throw new Error(`Chromium started but the extension's service worker did not (is ${extensionDir} a valid MV3 build?): ${String(error)}`);
  }
  const extensionOrigin = withExtension ? `chrome-extension://${extensionId}` : '';
  context.setDefaultTimeout(timeoutMs);

  const wrap = new Map<Page, ChromiumPage>();
  const adapt = (page: Page) => {
    let adapted = wrap.get(page);
    if (!adapted) {
      adapted = new ChromiumPage(page, timeoutMs);
      wrap.set(page, adapted);
    }
    return adapted;
  };
  let initialPage: Page | undefined = context.pages()[0];
  let helper: Promise<Page> | undefined;
  let closed = false;

  const browser: HarnessBrowser = {
    kind: 'chromium',
    extensionId,
    extensionOrigin,
    profileDir,
    launchMs: Date.now() - started,
    async newPage() {
      const reuse = initialPage && !initialPage.isClosed() && initialPage.url() === 'about:blank' ? initialPage : undefined;
      initialPage = undefined;
      return adapt(reuse ?? (await context.newPage()));
    },
    async openPages() {
      return context.pages().map(adapt);
    },
    async openExtensionPage(path) {
      const page = await browser.newPage();
      await page.goto(`${extensionOrigin}/${path.replace(/^\//, '')}`);
      return page;
    },
    async evaluateInExtension<R, A = undefined>(fn: (api: ExtensionApi, arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>> {
      if (!withExtension) throw new Error('this browser was launched without the extension');
      helper ??= (async () => {
        const page = await context.newPage();
        await page.goto(`${extensionOrigin}/manifest.json`);
        return page;
      })();
      const page = await helper;
      return (await page.evaluate(callExpression(fn, ['globalThis.browser ?? globalThis.chrome', jsonArg(arg)]))) as Awaited<R>;
    },
    tabIdOf(urlSubstring) {
      return resolveTabId(urlSubstring, async () => context.pages().map(adapt), browser.evaluateInExtension);
    },
    async restart(how) {
      if (closed) throw new Error('restart() of a closed browser');
      closed = true;
      await shut(how);
      return launchChromium(options, { profileDir });
    },
    async close() {
      if (closed) return;
      closed = true;
      await shut();
    },
  };
  return browser;
}
