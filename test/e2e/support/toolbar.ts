/**
 * Pressing the extension's toolbar button on a tab, the way the browser does for a person's click:
 * the action is triggered by the browser itself, so it grants activeTab and opens the popup.
 *
 * - Chromium: the DevTools protocol's Extensions.triggerAction on the tab's target (needs
 *   --enable-unsafe-extension-debugging, set by the harness, and Playwright's pipe connection).
 * - Firefox: privileged code in the browser window (WebDriver BiDi with --remote-allow-system-access,
 *   set by the harness, or Marionette where BiDi has no chrome contexts, as in ESR 140) calls the
 *   browser action's triggerAction, the path its keyboard shortcut and its button take.
 * Neither is a synthetic DOM event in a page, nor an extension API call: both run the browser's own
 * "action invoked by the user" path, which is what grants activeTab.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import type { HarnessBrowser, HarnessPage } from '../harness/index.ts';
import { waitFor } from './wait';

export async function pressToolbarButton(browser: HarnessBrowser, tab: HarnessPage): Promise<void> {
  // The popup shows the active tab of its window; activeTab is granted for the tab it opened on.
  await tab.bringToFront();
  if (tab.kind === 'chromium') await pressInChromium(browser, tab.raw as PlaywrightPage);
  else await pressInFirefox(browser, tab.raw as PuppeteerPage);
}

async function pressInChromium(browser: HarnessBrowser, page: PlaywrightPage): Promise<void> {
  const chromium = page.context().browser();
  if (!chromium) throw new Error('no Browser object behind this Playwright context');
  const session = await chromium.newBrowserCDPSession();
  try {
    // triggerAction wants the tab target (not the page target) showing this page.
    const pageSession = await page.context().newCDPSession(page);
    const { targetInfo } = await pageSession.send('Target.getTargetInfo');
    await pageSession.detach();
    const { targetInfos } = await session.send('Target.getTargets', { filter: [{ type: 'tab' }] });
    const tabs = targetInfos.filter((target) => target.type === 'tab' && target.url === targetInfo.url);
    if (tabs.length !== 1) throw new Error(`pressToolbarButton: ${tabs.length} tab targets show ${targetInfo.url}`);
    await session.send('Extensions.triggerAction', { id: browser.extensionId, targetId: tabs[0]!.targetId });
  } finally {
    await session.detach();
  }
}

interface BidiConnection {
  send(method: string, params: unknown): Promise<{ result: Record<string, unknown> }>;
}

/** What runs in the browser window: the browser action's own trigger for our add-on. */
function triggerScript(extensionId: string): string {
  return `
      const { ExtensionParent } = ChromeUtils.importESModule('resource://gre/modules/ExtensionParent.sys.mjs');
      const extension = ExtensionParent.GlobalManager.getExtension(${JSON.stringify(extensionId)});
      if (!extension) return 'the add-on is not running';
      // A popup still open from an earlier press would make this press close it instead.
      for (const panel of window.document.querySelectorAll('panel')) {
        if (panel.state === 'open' || panel.state === 'showing') {
          const hidden = new Promise((done) => panel.addEventListener('popuphidden', done, { once: true }));
          panel.hidePopup();
          await hidden;
        }
      }
      // The browser action's own trigger: what the add-on's keyboard shortcut (_execute_browser_action)
      // runs, and the path of a click on its button. It grants activeTab and opens the popup. (The
      // button itself sits unrendered in the closed Extensions panel, so it cannot simply be clicked.)
      await ExtensionParent.apiManager.global.browserActionFor(extension).triggerAction(window);
      return 'triggered';`;
}

async function pressInFirefox(browser: HarnessBrowser, page: PuppeteerPage): Promise<void> {
  // Puppeteer has no API for the browser's own (chrome) window; its BiDi connection does, in newer
  // Firefox ('moz:scope': 'chrome'). Firefox ESR 140 answers with content contexts only: there the
  // same script runs in a privileged page of the browser's own (about:preferences, system principal)
  // opened in a background tab, whose topChromeWindow is the browser window.
  const connection = (page.browser() as unknown as { connection: BidiConnection }).connection;
  const { result: tree } = await connection.send('browsingContext.getTree', { 'moz:scope': 'chrome' });
  const window = (tree.contexts as { context: string; url: string }[]).find((context) => context.url === 'chrome://browser/content/browser.xhtml');
  if (!window) return pressFromPrivilegedPage(browser, page, connection);
  const { result } = await connection.send('script.evaluate', {
    expression: `(async () => { const window = globalThis;${triggerScript(browser.extensionId)}
    })()`,
    target: { context: window.context },
    awaitPromise: true,
  });
  const outcome = (result as { result?: { value?: unknown }; exceptionDetails?: { text?: string } }).result?.value;
  if (outcome !== 'triggered') throw new Error(`pressToolbarButton (Firefox): ${String(outcome ?? JSON.stringify(result))}`);
}

/** Firefox ESR 140: the trigger, run from about:preferences in a background tab of the same window. */
async function pressFromPrivilegedPage(browser: HarnessBrowser, page: PuppeteerPage, connection: BidiConnection): Promise<void> {
  const { result: created } = await connection.send('browsingContext.create', { type: 'tab', background: true });
  const helper = created.context as string;
  try {
    // Navigation events are not reported for a page of the parent process: do not wait for them.
    await connection.send('browsingContext.navigate', { context: helper, url: 'about:preferences', wait: 'none' });
    const evaluate = async (expression: string) => {
      const { result } = await connection.send('script.evaluate', { expression, target: { context: helper }, awaitPromise: true });
      return result as { type: string; result?: { value?: unknown }; exceptionDetails?: { text?: string } };
    };
    const scriptable = await waitFor(
      () => evaluate("typeof ChromeUtils === 'object' && !!window.browsingContext?.topChromeWindow").then((ready) => ready.result?.value === true, () => false),
      (yes) => yes,
      15_000,
      50,
    );
    if (!scriptable) throw new Error('pressToolbarButton (Firefox): about:preferences never became scriptable');
    await page.bringToFront();
    const answer = await evaluate(`(async () => { const window = globalThis.browsingContext.topChromeWindow;${triggerScript(browser.extensionId)}
    })()`);
    const outcome = answer.result?.value;
    if (outcome !== 'triggered') throw new Error(`pressToolbarButton (Firefox): ${String(outcome ?? answer.exceptionDetails?.text ?? JSON.stringify(answer))}`);
  } finally {
    await connection.send('browsingContext.close', { context: helper }).catch(() => undefined);
  }
}
