/**
 * The first run, in Chromium, with the release's Chrome package unpacked into a fresh profile as a
 * user loads it: the options page opens by itself at "Get started" once — not again after a
 * restart, though Chromium with --load-extension reports "install" at every start — and each of
 * its three steps turns done as the user does it; then the guide folds away, and the header's
 * "Get started" unfolds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { startWorld, type World } from './world';
import { fillClientForm, pressSaveClient } from './support/client-options';
import { releasePackage, type ReleasePackage } from './support/release-package';
import { until } from './support/wait';

let release: ReleasePackage;
let world: World;
let browser: HarnessBrowser;
let options: HarnessPage;

beforeAll(async () => {
  release = await releasePackage('chrome');
  world = await startWorld();
  browser = await launchBrowser('chromium', { extensionDir: release.dir, proxyPort: world.router.port, keepFirstRun: true });
});
afterAll(async () => {
  await closeAllBrowsers();
  await world?.close();
  release?.remove();
});

/** The extension's options pages open in the browser, by URL. */
async function optionsPages(): Promise<string[]> {
  const urls = await Promise.all((await browser.openPages()).map((page) => page.url()));
  return urls.filter((url) => url.startsWith(`${browser.extensionOrigin}/options.html`));
}

const stepsDone = () => options.evaluate(() => Object.fromEntries([...document.querySelectorAll<HTMLElement>('#get-started li[data-step]')].map((step) => [step.dataset.step, step.dataset.done])));

async function stepTurnsDone(step: string): Promise<void> {
  await options.waitForSelector(`#get-started li[data-step="${step}"][data-done="true"]`);
}

describe('the first run, in Chromium', () => {
  it('opens the options page at "Get started" by itself, every step not done yet', async () => {
    await until(optionsPages, (urls) => urls.length === 1, 'the options page opened by the install');
    expect(await optionsPages()).toEqual([`${browser.extensionOrigin}/options.html#get-started`]);
    const pages = await browser.openPages();
    for (const page of pages) if ((await page.url()).includes('options.html')) options = page;
    await options.waitForSelector('#get-started[open]', { state: 'visible' });
    expect(await stepsDone()).toEqual({ service: 'false', sites: 'false', client: 'false' });
    const links = await options.evaluate(() => [...document.querySelectorAll('#get-started li[data-step] > a:first-child')].map((link) => link.getAttribute('href')));
    expect(links).toEqual(['#connection-section', '#sites-section', '#clients-section']);
    for (const target of links) expect(await options.evaluate((id) => !!document.getElementById(id), target!.slice(1))).toBe(true);
  });

  it('marks each step done as the user does it, then folds away and stays reachable from the header', async () => {
    await options.fill('#token', DEMO_TOKEN);
    await options.click('#save');
    await stepTurnsDone('service');

    await options.waitForSelector('#site-list input[value="4"]');
    await options.click('#site-list input[value="4"]');
    await options.click('#sites-save');
    await stepTurnsDone('sites');

    // Saved as a person saves a client on this machine (no prompt for loopback); nothing need answer there.
    await fillClientForm(options, { kind: 'qbittorrent', url: 'http://127.0.0.1:9', username: 'admin', password: 'secret' });
    await pressSaveClient(options);
    await stepTurnsDone('client');

    await options.waitForSelector('#get-started[data-done="true"]:not([open])');
    await options.click('#get-started-link');
    await options.waitForSelector('#get-started[open]', { state: 'visible' });
  });

  it('does not open it again after a restart, which reports "install" again', async () => {
    browser = await browser.restart('quit');
    // A page of the user's own, answered by the background: its onInstalled has run by then.
    const own = await browser.openExtensionPage('options.html');
    await own.waitForSelector('#get-started[data-done="true"]');
    expect(await optionsPages()).toEqual([`${browser.extensionOrigin}/options.html`]);
    const record = await browser.evaluateInExtension(async (api) => (await api.storage.local.get('getStarted')).getStarted);
    expect(record).toEqual({ opened: true });
  });
});
