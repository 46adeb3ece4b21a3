/**
 * Issue 15, point 1, end to end in Chromium and Firefox with the built extension, the real
 * qbittorrent-nox (CSRF protection on) and the test trackers of support/cross-seed-world.ts.
 *
 * A tracker page steers the user's click onto the panel's "Cross-seed": its own CSS makes the
 * panel's host `position: fixed; opacity: 0` over a bait button of its own (and, second variant,
 * its own script wraps the host in a transparent fixed element). A real mouse click on the bait
 * lands on the hidden "Cross-seed" — and only opens the extension's confirmation window: the
 * tracker is asked for no .torrent and the client gets nothing. The honest path still works: the
 * panel's "Cross-seed", then the confirmation's own "Cross-seed", and qBittorrent lists the torrent.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { ClientsAnswer } from '../../features/clients/clients.messages';
import type { TabCrossSeeds } from '../../features/cross-seed/cross-seed.messages';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { confirmationFacts, confirmationFor, confirmCrossSeed, openConfirmations } from './support/confirm';
import { CANDIDATE_SITE, crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from './support/cross-seed-world';
import { clickInPanel, settledView } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';
import { ownClient } from '../clients/own-client';

afterAll(closeAllBrowsers);

/** The bait: a button of the page's own, fixed where the user is asked to click. */
const BAIT = `<button id="bait" type="button" style="position:fixed;left:240px;top:260px;width:200px;height:48px;z-index:1"
  onclick="window.baitClicks=(window.baitClicks||0)+1">Claim your free upload bonus</button>`;

/** Variant 1: the page's own stylesheet lifts the panel's host out of the flow, invisible, over everything. */
const CSS_TRICK = `<style>
reseed-lens-panel { position: fixed !important; left: var(--x, 0px) !important; top: var(--y, 0px) !important;
  opacity: 0 !important; z-index: 2147483647 !important; margin: 0 !important; }
</style>${BAIT}`;

/** Variant 2: the page's own script moves the host into a transparent fixed wrapper of its own. */
const WRAPPER_TRICK = `${BAIT}<script>
new MutationObserver(function () {
  var host = document.querySelector('reseed-lens-panel');
  if (!host || document.getElementById('veil')) return;
  var veil = document.createElement('div');
  veil.id = 'veil';
  veil.setAttribute('style', 'position:fixed;left:var(--x,0px);top:var(--y,0px);opacity:0;z-index:2147483647');
  host.replaceWith(veil);
  veil.append(host);
}).observe(document.documentElement, { childList: true, subtree: true });
</script>`;

describe.each(BROWSER_KINDS)('%s: a page that steers a click onto its panel', (kind) => {
  let cs: CrossSeedWorld;
  let daemon: RunningDaemon;
  let readBack: TorrentClient;
  let browser: HarnessBrowser;

  beforeAll(async () => {
    [cs, daemon] = await Promise.all([startCrossSeedWorld({ pairs: 3 }), startQbittorrent()]);
    readBack = ownClient(daemon);
    for (const index of [0, 1, 2]) await cs.seed(readBack, daemon.dataDir, index);
    cs.page.pageExtras.set(cs.pairs[1]!.sourceId, CSS_TRICK);
    cs.page.pageExtras.set(cs.pairs[2]!.sourceId, WRAPPER_TRICK);
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), crossSeedUserSettings());
    const saved = await browser.evaluateInExtension(
      (api, client) => api.runtime.sendMessage({ type: 'clients:save', client }) as Promise<ClientsAnswer | { problem: unknown }>,
      { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password },
    );
    if ('problem' in saved) throw new Error(`qBittorrent not saved: ${JSON.stringify(saved.problem)}`);
    // The user is logged in on both trackers, as in their own browser.
    for (const tracker of [cs.page, cs.candidate]) {
      const tab = await browser.newPage();
      await tab.goto(tracker.loginUrl('http'));
      await tab.close();
    }
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await cs?.close();
    await daemon?.stop();
  }, 60_000);

  const downloadsOf = (tracker: TestTracker, id: number) => tracker.downloads.filter((download) => download.id === id);

  /** Opens pair `index`'s details page and waits for the panel to show its candidate's "Cross-seed". */
  async function openDetails(index: number, marker: string): Promise<{ tab: HarnessPage; tabId: number; siteName: string }> {
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(cs.pairs[index]!.sourceId)}&${marker}`);
    await tab.bringToFront();
    const tabId = await browser.tabIdOf(marker);
    const view = await settledView(browser, tabId, (seen) => seen.status === 'done' && seen.candidates.length > 0);
    const siteName = view.candidates.find((candidate) => candidate.sid === CANDIDATE_SITE.sid)?.siteName ?? '';
    await until(
      () => inPanel(tab, (root) => root.querySelectorAll('button.cross-seed').length),
      (count) => !!count,
      'the panel with its Cross-seed button',
      30_000,
    );
    return { tab, tabId, siteName };
  }

  /**
   * The page's script does what a hostile page would: it places the (invisible) panel so that the
   * "Cross-seed" of `torrentId` lies exactly under the bait's centre. It cannot see into the closed
   * shadow root, but the extension's layout is public; the test reads it through the automation
   * protocol instead. Returns the bait's centre.
   */
  async function alignOverBait(tab: HarnessPage, torrentId: number): Promise<{ x: number; y: number }> {
    const button = await inPanel(
      tab,
      (root, id: number) => {
        const row = [...root.querySelectorAll('li.torrent')].find((entry) => entry.querySelector(`a.candidate-link[href$="id=${id}"]`));
        const box = row?.querySelector('button.cross-seed')?.getBoundingClientRect();
        return box ? { x: box.left + box.width / 2, y: box.top + box.height / 2 } : null;
      },
      torrentId,
    );
    if (!button) throw new Error(`no Cross-seed for #${torrentId} in the panel`);
    return tab.evaluate(
      ({ x, y }) => {
        const host = document.querySelector('reseed-lens-panel') as HTMLElement;
        const moved = (document.getElementById('veil') ?? host) as HTMLElement;
        const place = moved.getBoundingClientRect();
        const bait = document.getElementById('bait')!.getBoundingClientRect();
        const centre = { x: bait.left + bait.width / 2, y: bait.top + bait.height / 2 };
        moved.style.setProperty('--x', `${place.left + centre.x - x}px`);
        moved.style.setProperty('--y', `${place.top + centre.y - y}px`);
        return centre;
      },
      button,
    );
  }

  /** Whether the panel's element at this point of the viewport is a "Cross-seed" button. */
  const onCrossSeed = (tab: HarnessPage, point: { x: number; y: number }) =>
    inPanel(tab, (root, at: { x: number; y: number }) => root.elementFromPoint(at.x, at.y)?.closest('button.cross-seed') != null, point);

  for (const [variant, index] of [
    ['its own CSS makes the panel host fixed and transparent over a bait button', 1],
    ['its own script wraps the panel host in a transparent fixed element over a bait button', 2],
  ] as const) {
    it(`${variant}: the real click only opens the confirmation — no .torrent downloaded, nothing in the client`, async () => {
      const pair = cs.pairs[index]!;
      const { tab, tabId, siteName } = await openDetails(index, `attack=${index}`);
      // Placed again until it holds (moving a shrink-to-fit box may re-wrap what is in it).
      let centre = await alignOverBait(tab, pair.candidateId);
      for (let tries = 0; tries < 3 && !(await onCrossSeed(tab, centre)); tries++) centre = await alignOverBait(tab, pair.candidateId);
      // The trick is in place: at the bait's centre the page shows its own button, but the click goes
      // to the invisible panel, onto its "Cross-seed".
      expect(await tab.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('reseed-lens-panel') !== null, centre)).toBe(true);
      expect(await tab.evaluate(() => getComputedStyle(document.getElementById('veil') ?? document.querySelector('reseed-lens-panel')!).opacity)).toBe('0');
      expect(await onCrossSeed(tab, centre)).toBe(true);
      expect(await openConfirmations(browser)).toEqual([]);
      const before = downloadsOf(cs.candidate, pair.candidateId).length;

      await (tab.raw as PlaywrightPage | PuppeteerPage).mouse.click(centre.x, centre.y);

      // The background's answer to that click: the confirmation window, for this tab and candidate.
      const confirmation = await confirmationFor(browser, tabId);
      expect(await confirmation.url()).toContain(`/confirm.html?tabId=${tabId}&sid=${CANDIDATE_SITE.sid}&torrentId=${pair.candidateId}`);
      // By then the click has done all it will: no .torrent asked of the tracker, nothing added, no run recorded.
      expect(downloadsOf(cs.candidate, pair.candidateId).slice(before)).toEqual([]);
      expect((await readBack.lookup([pair.candidate.hash])).size).toBe(0);
      const state = await browser.evaluateInExtension((api, id) => api.runtime.sendMessage({ type: 'crossseed:get', tabId: id }) as Promise<TabCrossSeeds>, tabId);
      expect(state.items).toEqual([]);
      expect(await tab.evaluate(() => (window as unknown as { baitClicks?: number }).baitClicks ?? 0)).toBe(0);
      // The confirmation says what a click there would do; the user does not click it.
      const facts = await until(() => confirmationFacts(confirmation), (seen) => seen.client.startsWith('qBittorrent'), 'the confirmation\'s facts');
      expect(facts).toEqual({ torrent: pair.name, site: `${siteName}, torrent #${pair.candidateId}`, client: `qBittorrent on 127.0.0.1, at ${daemon.dataDir}` });
      await confirmation.close();
      await tab.close();
    });
  }

  it('the honest path: the panel\'s "Cross-seed", then the confirmation\'s own "Cross-seed"; qBittorrent lists the torrent', async () => {
    // pairs[0] has two candidates on the other site: its copy, and a release with other files.
    const pair = cs.pairs[0]!;
    const { tab, tabId } = await openDetails(0, 'honest=1');
    const crossSeedOf = (torrentId: number) => `li.torrent:has(a.candidate-link[href$="id=${torrentId}"]) button.cross-seed`;
    const before = downloadsOf(cs.candidate, pair.candidateId).length;
    await clickInPanel(tab, crossSeedOf(pair.candidateId));
    const confirmation = await confirmationFor(browser, tabId);
    expect(await confirmation.url()).toContain(`torrentId=${pair.candidateId}`);
    expect(downloadsOf(cs.candidate, pair.candidateId).slice(before)).toEqual([]);

    expect(await confirmCrossSeed(confirmation)).toBe('Added to qBittorrent on 127.0.0.1, seeding: its check found every file on disk.');
    expect(downloadsOf(cs.candidate, pair.candidateId).slice(before)).toEqual([expect.objectContaining({ served: true })]);
    expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    // The panel tells it too, as generated content.
    const words = await until(
      () => inPanel(tab, (root) => [...root.querySelectorAll('.cross-seed-outcome')].map((line) => line.getAttribute('data-text'))),
      (found) => !!found?.length && !found[0]!.startsWith('Cross-seeding'),
      'the outcome in the panel',
    );
    expect(words).toEqual(['Added to qBittorrent on 127.0.0.1, seeding: its check found every file on disk.']);

    // The panel's "Cross-seed" on the other candidate: the same window shows it (one per tab), nothing downloaded.
    const other = downloadsOf(cs.candidate, cs.differentFiles.id).length;
    await tab.bringToFront();
    await clickInPanel(tab, crossSeedOf(cs.differentFiles.id));
    await until(() => confirmation.url(), (url) => url.includes(`torrentId=${cs.differentFiles.id}`), 'the confirmation showing the other candidate');
    await confirmation.waitForSelector('#confirm-cross-seed');
    expect((await openConfirmations(browser)).filter((url) => url.includes(`tabId=${tabId}&`))).toHaveLength(1);
    expect(downloadsOf(cs.candidate, cs.differentFiles.id).length).toBe(other);
    await confirmation.close();
    await tab.close();
  });
});
