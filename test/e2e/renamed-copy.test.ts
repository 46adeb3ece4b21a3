/**
 * A renamed copy end to end (issue 25), in Chromium and Firefox with the built extension and a real
 * qbittorrent-nox: the candidate site carries the page's torrent's bytes under another root folder
 * name. "Cross-seed" in the popup adds it stopped, renames it in the client to the folder on disk,
 * checks it and starts it at 100 % (no peer exists: the data can only come from disk); the popup
 * says "Added (renamed to match your files)" and lists each file old → new; the source keeps its
 * names. With "Cross-seed copies whose names differ" turned off in the options page, the same copy
 * is not added and the popup says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { ownClient } from '../clients/own-client';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { fillClientForm, openClientsOptions, pressSaveClient, removeAllClients } from './support/client-options';
import { crossSeedUserSettings, OTHER_SITE, startCrossSeedWorld, type CrossSeedWorld } from './support/cross-seed-world';
import { candidateRow, crossSeedOutcomeOf, settledView, type CrossSeedOutcome } from './support/popup';
import { until } from './support/wait';

afterAll(closeAllBrowsers);

describe.each(BROWSER_KINDS)('%s: a renamed copy', (kind) => {
  let cs: CrossSeedWorld;
  let daemon: RunningDaemon;
  let reader: TorrentClient;
  let browser: HarnessBrowser;

  beforeAll(async () => {
    [cs, daemon] = await Promise.all([startCrossSeedWorld({ pairs: 1, renamedCopy: true }), startQbittorrent()]);
    reader = ownClient(daemon);
    await cs.seed(reader, daemon.dataDir, 0);
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), crossSeedUserSettings([OTHER_SITE.sid]));
    for (const tracker of [cs.page, cs.candidate]) {
      const tab = await browser.newPage();
      await tab.goto(tracker.loginUrl('http'));
      await tab.close();
    }
    const options = await openClientsOptions(browser);
    await removeAllClients(options);
    await fillClientForm(options, daemon);
    await pressSaveClient(options);
    await options.close();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await cs?.close();
    await daemon?.stop();
  }, 60_000);

  async function crossSeedFromPopup(marker: string): Promise<CrossSeedOutcome> {
    const renamed = cs.renamed!;
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(cs.pairs[0]!.sourceId)}&${marker}`);
    const tabId = await browser.tabIdOf(marker);
    await settledView(browser, tabId, (seen) => seen.status === 'done' && seen.candidates.length > 0);
    const popup: HarnessPage = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.bringToFront();
    await popup.waitForSelector(`${candidateRow(renamed.id)} button.cross-seed`, { timeoutMs: 30_000 });
    await popup.click(`${candidateRow(renamed.id)} button.cross-seed`);
    const outcome = await crossSeedOutcomeOf(popup, renamed.id, 60_000);
    await popup.close();
    await tab.close();
    return outcome;
  }

  /** Turns "Cross-seed copies whose names differ" on or off in the options page, by its box, and waits until it is saved. */
  async function setRenamedCopies(on: boolean): Promise<void> {
    const options = await openClientsOptions(browser);
    await options.waitForSelector('#cross-seed-renamed-copies', { timeoutMs: 10_000 });
    const checked = await options.evaluate(() => (document.querySelector('#cross-seed-renamed-copies') as HTMLInputElement).checked);
    expect(checked).toBe(!on);
    await options.click('#cross-seed-renamed-copies');
    await until(
      () => browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:get' })),
      (answer) => (answer as { settings: { crossSeedRenamedCopies: boolean } }).settings.crossSeedRenamedCopies === on,
      `the setting saved ${on ? 'on' : 'off'}`,
    );
    await options.close();
  }

  it('with "Cross-seed copies whose names differ" off: not added, and the popup says why', async () => {
    // On by default: the box is ticked, and unticked here.
    await setRenamedCopies(false);
    const outcome = await crossSeedFromPopup('renamed=off');
    expect(outcome.kind).toBe('files-differ');
    expect(outcome.details[0]).toBe('The same data under other names: “Cross-seed copies whose names differ” is off.');
    expect((await reader.lookup([cs.renamed!.torrent.hash])).size).toBe(0);
  });

  it('"Cross-seed" adds it renamed to the folder on disk, checked at 100 % from disk, the source untouched', async () => {
    await setRenamedCopies(true);
    const sourceFiles = await reader.files(cs.pairs[0]!.source.hash);
    const outcome = await crossSeedFromPopup('renamed=on');
    expect(outcome).toMatchObject({ kind: 'added', sentence: 'Added (renamed to match your files) to qBittorrent: its check found every file on disk, and it is seeding.' });
    const main = cs.pairs[0]!;
    expect(outcome.details).toEqual(main.files.map((file) => `Renamed: ${cs.renamed!.name}/${file.path} → ${main.name}/${file.path}`));
    const added = await untilSeeding(reader, cs.renamed!.torrent.hash);
    expect(added).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    expect(await reader.files(cs.renamed!.torrent.hash)).toEqual(sourceFiles);
    expect(await reader.files(main.source.hash)).toEqual(sourceFiles);
  });
});
