/**
 * A renamed copy end to end (issue 25), in Chromium and Firefox with the built extension and a real
 * qbittorrent-nox: the candidate site carries the page's torrent's bytes under another root folder
 * name. "Cross-seed" in the popup adds it stopped, renames it in the client to the folder on disk,
 * checks it and starts it at 100 % (no peer exists: the data can only come from disk); the popup
 * says "Added (renamed to match your files)" and lists each file old → new; the source keeps its
 * names. With "Cross-seed copies whose names differ" turned off in the options page, the same copy
 * is not added and the popup says why.
 *
 * The whole-client job (cross-seed.html, Chromium): "Find what I can cross-seed" counts the renamed
 * copy with the exact one; "Start cross-seeding" adds both, the renamed one renamed in the client;
 * the report lists it under "Added" as renamed, with each file old → new, and the other release
 * under "Not the same files", its differences one per line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { JobView } from '../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { ownClient } from '../clients/own-client';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { fillClientForm, openClientsOptions, pressSaveClient, removeAllClients } from './support/client-options';
import { CANDIDATE_SITE, crossSeedUserSettings, OTHER_SITE, startCrossSeedWorld, type CrossSeedWorld } from './support/cross-seed-world';
import { openCrossSeedWithIndexOn, setUpCrossSeedUser, startCrossSeedBrowser, type CrossSeedBrowser } from './support/cross-seed-user';
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
    expect(outcome).toMatchObject({ kind: 'added', sentence: 'Added to qBittorrent on 127.0.0.1, seeding (renamed to match your files): its check found every file on disk.' });
    const main = cs.pairs[0]!;
    expect(outcome.details).toEqual(main.files.map((file) => `Renamed: ${cs.renamed!.name}/${file.path} → ${main.name}/${file.path}`));
    const added = await untilSeeding(reader, cs.renamed!.torrent.hash);
    expect(added).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    expect(await reader.files(cs.renamed!.torrent.hash)).toEqual(sourceFiles);
    expect(await reader.files(main.source.hash)).toEqual(sourceFiles);
  });
});

describe('chromium: "Cross-seed your client" with a renamed copy', () => {
  let started: CrossSeedBrowser | undefined;
  const SID = CANDIDATE_SITE.sid;
  const row = `tr.job-site[data-sid="${SID}"]`;

  beforeAll(async () => {
    started = await startCrossSeedBrowser('chromium', 'en', { pairs: 1, renamedCopy: true }, () => startQbittorrent());
    await setUpCrossSeedUser(started.browser, started.cross, { client: started.daemon });
  }, 240_000);
  afterAll(() => started?.close(), 60_000);

  it('counts it, adds it renamed to the names on disk, and the report says so file by file', async () => {
    const { cross, client, daemon, browser } = started!;
    const renamed = cross.renamed!;
    const main = cross.pairs[0]!;
    const page = await openCrossSeedWithIndexOn(browser);
    await page.click('#job-find');
    await page.waitForSelector(`${row}[data-readiness=ready]`, { timeoutMs: 30_000 });
    // The exact copy, the renamed one and the other release: all three are to be tried.
    expect(await page.evaluate((css) => document.querySelector(`${css} td.count`)?.firstChild?.textContent?.trim(), row)).toBe('3');
    await page.fill(`#seconds-${SID}`, '1');
    await page.click('#page-title');
    await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
    await page.click('#job-start');
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 120_000 });
    expect((await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'job:status' }) as Promise<JobView>)).state).toBe('done');

    const sourceFiles = await client.files(main.source.hash);
    expect(await untilSeeding(client, renamed.torrent.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    expect(await client.files(renamed.torrent.hash)).toEqual(sourceFiles);
    expect(await client.files(main.source.hash)).toEqual(sourceFiles);
    expect((await client.lookup([cross.differentFiles.torrent.hash])).size).toBe(0);

    type Line = { id: number; words: string; details: (string | null)[] };
    const report: Record<string, Line[]> = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('#job-report .report-group')].map((group) => [
          group.getAttribute('data-group'),
          [...group.querySelectorAll(':scope > ul > li.outcome')].map((item) => ({
            id: Number(/[?&]id=(\d+)/.exec(item.querySelector('a')?.getAttribute('href') ?? '')?.[1]),
            words: item.querySelector('.outcome-words')?.textContent ?? '',
            details: [...item.querySelectorAll('.outcome-details li')].map((line) => line.textContent),
          })),
        ]),
      ),
    );
    expect(Object.keys(report).sort()).toEqual(['added', 'files-differ']);
    const added = report.added!.sort((a, b) => a.id - b.id);
    expect(added.map((outcome) => outcome.id)).toEqual([main.candidateId, renamed.id].sort((a, b) => a - b));
    const renamedRow = added.find((outcome) => outcome.id === renamed.id)!;
    expect(renamedRow.words).toMatch(/renamed to match your files/);
    expect(renamedRow.details).toEqual(main.files.map((file) => `Renamed: ${renamed.name}/${file.path} → ${main.name}/${file.path}`));
    // Not the same files: its differences one per line, about the torrent in the client (no page here).
    const differs = report['files-differ']!;
    expect(differs.map((outcome) => outcome.id)).toEqual([cross.differentFiles.id]);
    expect(differs[0]!.details.length).toBeGreaterThan(1);
    expect(differs[0]!.words).toMatch(/your torrent in qBittorrent/);
  });
});
