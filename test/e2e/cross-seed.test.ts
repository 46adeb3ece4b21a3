/**
 * "Cross-seed" end to end (issue #9), in Chromium and Firefox, with the built extension, the real
 * daemons started here (qbittorrent-nox with its CSRF protection on, its default, and
 * transmission-daemon) and the test trackers of support/cross-seed-world.ts behind the router.
 *
 * As a user: the client is set up through the options page (its labels), the user is logged in on
 * the trackers in a tab, opens the seeding torrent's details page, sees "In your client" in the
 * popup, and presses "Cross-seed" on a candidate (in the popup, and with the mouse in the page's
 * panel). Then the client's own API says the candidate is there, at the same save path, and reaches
 * 100 % — from disk, as no peer exists anywhere. Also: a candidate with other files is not added
 * and the popup names the differences; a logged-out site, a wrong password and a stopped client each
 * say so; "Cross-seed all" adds every candidate on the user's sites and no other, one download from
 * a site at a time, at least 1 s apart; and nothing is downloaded before a click.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../utils/clients/index';
import type { TorrentClient } from '../../utils/clients/types';
import { SITE_GAP_MS } from '../../utils/crossseed/download';
import type { TabView } from '../../utils/messages';
import { startQbittorrent, startTransmission, type RunningDaemon } from '../clients/daemons';
import { nodeClientFetch } from '../clients/node-fetch';
import { untilSeeding } from '../clients/seed';
import { DEMO_TOKEN } from '../service/server';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from './support/cross-seed-world';
import { clickPanelButton, settledView } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';
import { SERVICE_BASE_URL } from './world';

afterAll(closeAllBrowsers);

type Kind = 'qbittorrent' | 'transmission';
const NAMES: Record<Kind, string> = { qbittorrent: 'qBittorrent', transmission: 'Transmission' };

describe.each(BROWSER_KINDS)('%s: Cross-seed', (kind) => {
  let cs: CrossSeedWorld;
  let browser: HarnessBrowser;
  const daemons = {} as Record<Kind, RunningDaemon>;
  /** Each daemon as the user's own web UI reaches it: to read back what the extension did. */
  const readers = {} as Record<Kind, TorrentClient>;

  beforeAll(async () => {
    [cs, daemons.qbittorrent, daemons.transmission] = await Promise.all([startCrossSeedWorld({ pairs: 3, otherSite: true }), startQbittorrent(), startTransmission()]);
    for (const client of ['qbittorrent', 'transmission'] as const) {
      readers[client] = createClient(daemons[client].config, { fetch: nodeClientFetch({ origin: 'same' }) });
      for (const index of [0, 1, 2]) await cs.seed(readers[client], daemons[client].dataDir, index);
    }
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    // The token, the user's sites (HDSky and OurBits; not SpringSunday), and their addresses over
    // http (the router is a plain HTTP proxy), as the options page saves them.
    const http = { scheme: 'http' };
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), {
      baseUrl: SERVICE_BASE_URL,
      token: DEMO_TOKEN,
      heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid],
      askedForSites: true,
      siteOverrides: { [PAGE_SITE.sid]: http, [CANDIDATE_SITE.sid]: http, [OTHER_SITE.sid]: http },
    });
    // The user logs in on the trackers in a tab, as they would.
    await logIn(cs.page);
    await logIn(cs.candidate);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await cs?.close();
    await Promise.all(Object.values(daemons).map((daemon) => daemon?.stop()));
  }, 60_000);

  async function logIn(tracker: TestTracker): Promise<void> {
    const tab = await browser.newPage();
    await tab.goto(tracker.loginUrl('http'));
    await tab.close();
  }

  const downloads = (tracker: TestTracker) => tracker.downloads.filter((download) => download.path.startsWith('/download.php'));

  /** Sets up `client` (in place of the one before) through the options page, by its labels, as a person would. */
  async function setUpClient(client: Kind, password = daemons[client].password): Promise<void> {
    const daemon = daemons[client];
    const options = await browser.openExtensionPage('options.html#clients-heading');
    await options.bringToFront();
    await options.waitForSelector('#client-url', { state: 'visible' });
    await options.waitForSelector('#client-none, #client-list');
    const labels = await options.evaluate(() => ['client-type', 'client-url', 'client-username', 'client-password'].map((id) => document.querySelector(`label[for="${id}"]`)?.textContent));
    expect(labels).toEqual(['Client type', 'Client URL', 'Username', 'Password']);
    while (await options.evaluate(() => !!document.querySelector('#client-list .remove-client'))) {
      await options.click('#client-list .remove-client');
      await until(() => options.evaluate(() => document.querySelectorAll('#client-list .remove-client').length), (count) => count === 0, 'the old client removed');
    }
    await options.select('#client-type', daemon.kind);
    await options.fill('#client-url', daemon.url);
    await options.fill('#client-username', daemon.username);
    await options.fill('#client-password', password);
    await options.click('#save-client');
    await options.waitForSelector('#client-list li.client.default');
    await options.close();
  }

  /** Opens pair `index`'s details page (the page's torrent, seeding in the client) and its popup. */
  async function openPage(index: number, marker: string): Promise<{ tab: HarnessPage; popup: HarnessPage; tabId: number; view: TabView }> {
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(cs.pairs[index]!.sourceId)}&${marker}`);
    const tabId = await browser.tabIdOf(marker);
    const view = await settledView(browser, tabId, (seen) => seen.status === 'done' && seen.candidates.length > 0);
    expect(view.status).toBe('done');
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.bringToFront();
    return { tab, popup, tabId, view };
  }

  const row = (torrentId: number) => `li.torrent:has(a.candidate-link[href$="id=${torrentId}"])`;

  /** The outcome under a candidate in the popup, once it is no longer running. */
  async function outcomeOf(popup: HarnessPage, torrentId: number): Promise<{ kind: string | null; sentence: string; details: string[]; ok: boolean }> {
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
        }, row(torrentId)),
      (outcome) => outcome !== null,
      `the outcome for #${torrentId}`,
      30_000,
    ) as Promise<{ kind: string | null; sentence: string; details: string[]; ok: boolean }>;
  }

  async function pressCrossSeed(popup: HarnessPage, torrentId: number): Promise<void> {
    await popup.waitForSelector(`${row(torrentId)} button.cross-seed`, { timeoutMs: 30_000 });
    expect((await popup.textContent(`${row(torrentId)} button.cross-seed`))?.trim()).toBe('Cross-seed');
    await popup.click(`${row(torrentId)} button.cross-seed`);
  }

  const siteNameOf = (view: TabView, sid: number) => view.candidates.find((candidate) => candidate.sid === sid)!.siteName;

  for (const client of ['qbittorrent', 'transmission'] as const) {
    it(`${client}: set up in the options page; "Cross-seed" in the popup adds the candidate beside the source and it reaches 100 % from disk`, async () => {
      await setUpClient(client);
      const pair = cs.pairs[1]!;
      const before = downloads(cs.candidate).length;
      const { tab, popup } = await openPage(1, `one=${client}`);
      await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
      expect((await popup.textContent('.client-status .client-line'))?.replace(/\s+/g, ' ').trim()).toBe('In your client · seeding');
      // Nothing downloaded on opening the page or the popup: only a click does.
      await popup.waitForSelector(`${row(pair.candidateId)} button.cross-seed`, { timeoutMs: 30_000 });
      expect(downloads(cs.candidate).length).toBe(before);

      await pressCrossSeed(popup, pair.candidateId);
      const outcome = await outcomeOf(popup, pair.candidateId);
      expect(outcome).toMatchObject({ kind: 'added', ok: true });
      expect(outcome.sentence).toMatch(new RegExp(`^Added to ${NAMES[client]}`));
      expect(downloads(cs.candidate).slice(before)).toEqual([expect.objectContaining({ id: pair.candidateId, served: true })]);
      // The client's own API: there, beside the source, complete — nothing could be downloaded (no peers).
      const added = await untilSeeding(readers[client], pair.candidate.hash);
      expect(added).toMatchObject({ savePath: daemons[client].dataDir, progress: 1 });
      expect(await readers[client].files(pair.candidate.hash)).toEqual(await readers[client].files(pair.source.hash));
      // Now the client holds it: "In your client", no button.
      await popup.waitForSelector(`${row(pair.candidateId)} .tag.in-client`, { timeoutMs: 15_000 });
      expect(await popup.evaluate((selector) => !!document.querySelector(`${selector} button.cross-seed`), row(pair.candidateId))).toBe(false);
      await popup.close();
      await tab.close();
    });

    it(`${client}: "Cross-seed" in the page's panel, clicked with the mouse, adds its candidate`, async () => {
      const pair = cs.pairs[2]!;
      const tab = await browser.newPage();
      await tab.goto(`${cs.page.detailsUrl(pair.sourceId)}&panel=${client}`);
      await tab.bringToFront();
      const buttons = await until(
        () => inPanel(tab, (root) => [...root.querySelectorAll('button.cross-seed')].map((button) => button.getAttribute('data-text'))),
        (found) => !!found?.length,
        'the panel with its Cross-seed button',
        30_000,
      );
      expect(buttons).toEqual(['Cross-seed']);
      expect(await clickPanelButton(tab, 'Cross-seed')).toBe(true);
      const added = await untilSeeding(readers[client], pair.candidate.hash);
      expect(added).toMatchObject({ savePath: daemons[client].dataDir, progress: 1 });
      // The panel says so, as generated content only.
      const words = await until(
        () => inPanel(tab, (root) => [...root.querySelectorAll('.cross-seed-outcome')].map((line) => `${line.getAttribute('data-text')}|${line.textContent}`)),
        (found) => !!found?.length && !found[0]!.startsWith('Cross-seeding'),
        'the outcome in the panel',
      );
      expect(words).toEqual([`Added to ${NAMES[client]}: it checks the files on disk, then seeds.|`]);
      await tab.close();
    });
  }

  it('a candidate with other files is not added, and the popup names the first differences', async () => {
    // The client now is Transmission (set up last).
    const { tab, popup } = await openPage(0, 'differ=1');
    const before = downloads(cs.candidate).length;
    await pressCrossSeed(popup, cs.differentFiles.id);
    const outcome = await outcomeOf(popup, cs.differentFiles.id);
    expect(outcome).toMatchObject({ kind: 'files-differ', ok: false, sentence: "The files differ from this page's torrent: not added." });
    const name = cs.pairs[0]!.name;
    expect(outcome.details).toEqual([
      `${name}/01 - Opening.flac — 180,000 bytes in this page's torrent, 180,001 bytes in the candidate`,
      `${name}/extra.nfo — not in this page's torrent`,
      `${name}/Scans/cover.jpg — only in this page's torrent`,
    ]);
    expect(downloads(cs.candidate).slice(before)).toEqual([expect.objectContaining({ id: cs.differentFiles.id, served: true })]);
    expect((await readers.transmission.lookup([cs.differentFiles.torrent.hash])).size).toBe(0);
    await popup.close();
    await tab.close();
  });

  it('a site the user is logged out of says so, and nothing is added', async () => {
    const { tab, popup, view } = await openPage(0, 'loggedout=1');
    cs.candidate.endSessions();
    try {
      await pressCrossSeed(popup, cs.pairs[0]!.candidateId);
      const outcome = await outcomeOf(popup, cs.pairs[0]!.candidateId);
      const site = siteNameOf(view, CANDIDATE_SITE.sid);
      expect(outcome).toMatchObject({ kind: 'not-logged-in', ok: false });
      expect(outcome.sentence).toBe(`${site} sent another page instead of the torrent, usually its login page (or a first-download notice): open ${site}, log in, then try again.`);
      expect((await readers.transmission.lookup([cs.pairs[0]!.candidate.hash])).size).toBe(0);
    } finally {
      await logIn(cs.candidate);
    }
    await popup.close();
    await tab.close();
  });

  it('"Cross-seed all" adds every candidate on the user\'s sites and no other, one download from a site at a time, ≥ 1 s apart', async () => {
    const pair = cs.pairs[0]!;
    const { tab, popup } = await openPage(0, 'all=1');
    const before = { candidate: downloads(cs.candidate).length, other: cs.other!.tracker.downloads.length };
    await popup.waitForSelector('.cross-seed-all-button', { timeoutMs: 30_000 });
    expect((await popup.textContent('.cross-seed-all-button'))?.trim()).toBe('Cross-seed all');
    await popup.click('.cross-seed-all-button');
    const summary = await until(
      () => popup.evaluate(() => (document.querySelector('.cross-seed-all-button:not([disabled])') ? document.querySelector('.cross-seed-all-status')?.textContent : null) ?? null),
      (text) => !!text && !text.startsWith('Cross-seeding'),
      'the summary of Cross-seed all',
      30_000,
    );
    expect(summary).toBe('1 added, 1 not added.');
    expect(await untilSeeding(readers.transmission, pair.candidate.hash)).toMatchObject({ savePath: daemons.transmission.dataDir, progress: 1 });
    expect((await outcomeOf(popup, cs.differentFiles.id)).kind).toBe('files-differ');
    // SpringSunday is not one of the user's sites: not asked for anything, not added.
    expect(cs.other!.tracker.downloads.length).toBe(before.other);
    expect((await readers.transmission.lookup([cs.other!.torrent.hash])).size).toBe(0);
    const made = downloads(cs.candidate).slice(before.candidate);
    expect(made.map((download) => download.id).sort()).toEqual([pair.candidateId, cs.differentFiles.id].sort());
    expect(made[1]!.at - made[0]!.at).toBeGreaterThanOrEqual(SITE_GAP_MS - 5);
    await popup.close();
    await tab.close();
  });

  // Last: each client in turn is given a wrong password, then stopped.
  for (const client of ['qbittorrent', 'transmission'] as const) {
    it(`${client}: a wrong password says so`, async () => {
      await setUpClient(client, 'not-the-password');
      try {
        const { tab, popup } = await openPage(1, `wrong=${client}`);
        const pair = cs.pairs[1]!;
        // The client cannot be asked: every candidate has its button, and the click says why it fails.
        await popup.waitForSelector('.client-status.client-problem', { timeoutMs: 30_000 });
        await pressCrossSeed(popup, pair.candidateId);
        const outcome = await outcomeOf(popup, pair.candidateId);
        expect(outcome).toMatchObject({ kind: 'client-failed', sentence: 'Your client refused the user name or password: check them in the settings.' });
        await popup.close();
        await tab.close();
      } finally {
        await setUpClient(client);
      }
    });

    it(`${client}: a stopped client says so, and nothing is downloaded for it`, async () => {
      await setUpClient(client);
      await daemons[client].stop();
      const { tab, popup } = await openPage(1, `stopped=${client}`);
      const pair = cs.pairs[1]!;
      const before = downloads(cs.candidate).length;
      await popup.waitForSelector('.client-status.client-problem', { timeoutMs: 30_000 });
      await pressCrossSeed(popup, pair.candidateId);
      const outcome = await outcomeOf(popup, pair.candidateId);
      expect(outcome).toMatchObject({ kind: 'client-failed', sentence: 'Your client did not answer: is it running?' });
      expect(downloads(cs.candidate).length).toBe(before);
      await popup.close();
      await tab.close();
    });
  }
});
