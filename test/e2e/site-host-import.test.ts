/**
 * Issue 15, point 4, in Chromium and Firefox with the built extension, a real qBittorrent and the
 * test trackers behind the router: a settings file that moves OurBits (sid 9) onto TJUPT's host
 * (another catalogued site, so a granted host: the browser would ask nothing) cannot send OurBits's
 * passkey or the user's session there.
 *
 * The import preview shows the move as its own change ("OurBits: ourbits.club → tjupt.org") with
 * its own yes, unticked; applied without it, "Cross-seed" in the popup downloads from OurBits's own
 * host with its passkey, and tjupt.org hears nothing. Ticked (the user insisted), the links follow
 * it but the download is refused with a sentence naming both sites, and tjupt.org still hears
 * nothing: no stored override can defeat the rule. Throughout, the passkey is in no request except
 * to ourbits.club.
 */
import type { Page as PuppeteerPage } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { CANDIDATE_SITE, crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from './support/cross-seed-world';
import { importFile } from './support/import-file';
import { settledView } from './support/popup';
import { until } from './support/wait';
import { ownClient } from '../clients/own-client';

afterAll(closeAllBrowsers);

/**
 * A real click (the browser's own pointer input) on `selector`. In Firefox, Puppeteer's locator
 * click (the harness's) never settled in this file's session although the element was visible,
 * enabled, in view and getting animation frames; Puppeteer's page.click (scroll into view, then the
 * same BiDi pointer actions) does the same click without the locator's waiting.
 */
async function press(page: HarnessPage, selector: string): Promise<void> {
  await page.waitForSelector(selector, { state: 'visible' });
  if (page.kind === 'firefox') await (page.raw as PuppeteerPage).click(selector);
  else await page.click(selector);
}

/** TJUPT's host: another catalogued site's, so a host the extension holds a permission for. */
const OTHER_HOST = 'tjupt.org';

interface Stored {
  siteOverrides: Record<string, { host?: string; scheme?: string; confirmedHost?: string }>;
}

describe.each(BROWSER_KINDS)("%s: a settings file cannot move a site's passkey to another host", (kind) => {
  let cs: CrossSeedWorld;
  let browser: HarnessBrowser;
  let daemon: RunningDaemon;
  let reader: TorrentClient;

  beforeAll(async () => {
    [cs, daemon] = await Promise.all([startCrossSeedWorld({ pairs: 2 }), startQbittorrent()]);
    reader = ownClient(daemon);
    for (const index of [0, 1]) await cs.seed(reader, daemon.dataDir, index);
    // TJUPT would answer as a tracker does to a stranger: its login page. Anything reaching it is recorded.
    cs.world.router.setHost(OTHER_HOST, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<form action="takelogin.php"><input type="password" name="password"></form>');
    });
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    // The user's sites over http (the router is a plain HTTP proxy), and their OurBits passkey.
    await browser.evaluateInExtension(
      (api, update) => api.runtime.sendMessage({ type: 'settings:save', update }),
      { ...crossSeedUserSettings(), sitePasskeys: { [String(CANDIDATE_SITE.sid)]: cs.candidate.passkey } },
    );
    // The client saved as the options page saves it (its form is tested in cross-seed.test.ts).
    const answer = await browser.evaluateInExtension(
      (api, client) => api.runtime.sendMessage({ type: 'clients:save', client }) as Promise<object>,
      { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password },
    );
    if ('problem' in answer) throw new Error(`qBittorrent not saved: ${JSON.stringify(answer)}`);
    await logIn(cs.page);
    await logIn(cs.candidate);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await cs?.close();
    await daemon?.stop();
  }, 60_000);

  async function logIn(tracker: TestTracker): Promise<void> {
    const tab = await browser.newPage();
    await tab.goto(tracker.loginUrl('http'));
    await tab.close();
  }

  const stored = () =>
    browser.evaluateInExtension(async (api) => ((await api.runtime.sendMessage({ type: 'settings:get' })) as { settings: Stored }).settings);

  /** The file: OurBits moved to TJUPT's host (over http, as the router serves it). */
  const FILE = JSON.stringify({ app: 'reseed-lens', version: 1, siteOverrides: { '4': { scheme: 'http' }, '9': { host: OTHER_HOST, scheme: 'http' } } });

  /** Imports FILE in the options page; ticks the site's yes or not; Apply. */
  async function importMove(tick: boolean, marker: string): Promise<void> {
    const options = await browser.openExtensionPage('options.html');
    await options.bringToFront();
    await options.waitForSelector('#import-file');
    await importFile(options, FILE, `${kind}-${marker}`);
    await options.waitForSelector('#import-preview');
    const move = `.import-change[data-field=siteHost][data-sid="${CANDIDATE_SITE.sid}"]`;
    expect((await options.textContent(`${move} dd`))?.replace(/\s+/g, ' ')).toContain(`OurBits: ourbits.club → ${OTHER_HOST}`);
    expect(await options.textContent(`${move} .site-host-warning`)).toContain('TJUPT');
    // Not part of the "Site addresses" row, and not ticked to begin with.
    expect(await options.evaluate(() => document.querySelector('.import-change[data-field=siteOverrides]') === null)).toBe(true);
    expect(await options.evaluate((sid) => (document.getElementById(`import-site-host-${sid}`) as HTMLInputElement).checked, CANDIDATE_SITE.sid)).toBe(false);
    if (tick) await press(options, `#import-site-host-${CANDIDATE_SITE.sid}`);
    await press(options, '#import-apply');
    await options.waitForSelector('#import-result.notice.ok');
    await options.close();
  }

  /** Pair `index`'s page, its popup, "Cross-seed" on its candidate, and the outcome's kind and sentence. */
  async function crossSeedFromPopup(index: number, marker: string): Promise<{ kind: string | null; sentence: string; href: string | null }> {
    const pair = cs.pairs[index]!;
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(pair.sourceId)}&${marker}`);
    const tabId = await browser.tabIdOf(marker);
    await settledView(browser, tabId, (seen) => seen.status === 'done' && seen.candidates.length > 0);
    const popup: HarnessPage = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.bringToFront();
    const row = `li.torrent:has(a.candidate-link[href$="id=${pair.candidateId}"])`;
    await popup.waitForSelector(`${row} button.cross-seed`, { timeoutMs: 30_000 });
    const href = await popup.evaluate((selector) => document.querySelector(`${selector} a.candidate-link`)?.getAttribute('href') ?? null, row);
    await press(popup, `${row} button.cross-seed`);
    const outcome = (await until(
      () =>
        popup.evaluate((selector) => {
          const found = document.querySelector(`${selector} .cross-seed-outcome:not(.running)`);
          return found ? { kind: found.getAttribute('data-kind'), sentence: found.querySelector('.cross-seed-sentence')?.textContent ?? found.textContent ?? '' } : null;
        }, row),
      (seen) => seen !== null,
      `the outcome for #${pair.candidateId}`,
      30_000,
    )) as { kind: string | null; sentence: string };
    await popup.close();
    await tab.close();
    return { ...outcome, href };
  }

  /** Every request that carried the passkey, by host. */
  const passkeyHosts = () => [...new Set(cs.world.router.requests.filter((request) => request.url.includes(cs.candidate.passkey)).map((request) => request.host))];

  it('the preview shows the move as its own change; without the yes, Cross-seed downloads from OurBits with its passkey and tjupt.org hears nothing', async () => {
    await importMove(false, 'unticked');
    expect((await stored()).siteOverrides[String(CANDIDATE_SITE.sid)]).toEqual({ scheme: 'http' });
    const outcome = await crossSeedFromPopup(0, 'cs-unticked');
    expect(outcome.kind).toBe('added');
    await untilSeeding(reader, cs.pairs[0]!.candidate.hash);
    expect(cs.candidate.downloads.some((download) => download.path.includes(`passkey=${cs.candidate.passkey}`))).toBe(true);
    expect(cs.world.router.requestsTo(OTHER_HOST)).toHaveLength(0);
    expect(passkeyHosts()).toEqual([CANDIDATE_SITE.host]);
  });

  it('even with the yes (links follow), the download onto another site\'s host is refused, named, and tjupt.org still hears nothing', async () => {
    await importMove(true, 'ticked');
    // Applied for links, never confirmed for downloads: it is another catalogued site's host.
    expect((await stored()).siteOverrides[String(CANDIDATE_SITE.sid)]).toEqual({ host: OTHER_HOST, scheme: 'http' });
    const before = cs.candidate.downloads.length;
    const outcome = await crossSeedFromPopup(1, 'cs-ticked');
    expect(outcome.href).toBe(`http://${OTHER_HOST}/details.php?id=${cs.pairs[1]!.candidateId}`);
    expect(outcome.kind).toBe('other-site-host');
    expect(outcome.sentence).toContain('OurBits');
    expect(outcome.sentence).toContain(OTHER_HOST);
    expect(outcome.sentence).toContain('TJUPT');
    expect(cs.candidate.downloads.length).toBe(before);
    expect(await reader.lookup([cs.pairs[1]!.candidate.hash])).toEqual(new Map());
    expect(cs.world.router.requestsTo(OTHER_HOST)).toHaveLength(0);
    expect(passkeyHosts()).toEqual([CANDIDATE_SITE.host]);
  });
});
