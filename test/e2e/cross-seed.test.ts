/**
 * "Cross-seed" end to end (issue #9), in Chromium and Firefox, with the built extension, the real
 * daemons started here (qbittorrent-nox with its CSRF protection on, its default, transmission-daemon,
 * rTorrent behind lighttpd's /RPC2 with HTTP authentication, and Flood over another rTorrent) and the test trackers of support/cross-seed-world.ts behind the router.
 *
 * As a user, for each client in turn: the client is set up through the options page (its labels,
 * Save client, Test client with its version and torrent count); the user is logged in on the
 * trackers in a tab, opens the seeding torrent's details page, sees "In your client" (state and
 * save path) in the popup, and presses "Cross-seed" on a candidate (in the popup, and with the
 * mouse in the page's panel, then in the confirmation window that opens). Then the client's own API says the candidate is there, at the same
 * save path, and reaches 100 % — from disk, as no peer exists anywhere. Also: a candidate with other
 * files is not added and the popup names the differences; a logged-out site, a wrong password and
 * a stopped client each say so; "Cross-seed all" adds every candidate on the user's sites and no
 * other, downloads from one site at least 1 s apart; and nothing is downloaded before a click.
 * Firefox only (Chromium's permission prompt cannot be answered by automation): a client on
 * another machine is granted its origin within the Save click, and cross-seeding works through it.
 *
 * What the probe extension of cross-seed-background.test.ts shows (cookies on the download, the
 * opaque redirect to login.php) and what clients.test.ts shows (Test client's wrong password, the
 * popup's marks) is not repeated here.
 */
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import { SITE_GAP_MS } from '../../utils/cross-seed-engine/site-queue';
import { DEFAULT_SECONDS_BETWEEN } from '../../features/cross-seed/site-budget';
import type { TabView } from '../../features/lookup/lookup.messages';
import { clientBuilds, startFlood, startQbittorrent, startRtorrent, startTransmission, type RunningDaemon } from '../clients/daemons';
import { shareOfValidPieces } from '../clients/torrent-content';
import { ownClient } from '../clients/own-client';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { clientFieldLabels, fillClientForm, openClientsOptions, pressSaveClient, pressTestClient, removeAllClients } from './support/client-options';
import { CANDIDATE_SITE, OTHER_SITE, crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from './support/cross-seed-world';
import { confirmationFor, confirmCrossSeed } from './support/confirm';
import { candidateRow, clickPanelButton, crossSeedOutcomeOf, settledView } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';

afterAll(closeAllBrowsers);

type Kind = 'qbittorrent' | 'transmission' | 'rtorrent' | 'flood';
/** rTorrent behind lighttpd's SCGI mount at /RPC2 with HTTP authentication, as seedboxes serve it: today's 0.16 in Chromium, bookworm's 0.9.8 in Firefox. */
/** Flood: npm's 4.16.2 over bookworm's rTorrent 0.9.8, with its own users (its jwt cookie kept by the browser). */
const CLIENTS = ['qbittorrent', 'transmission', 'rtorrent', 'flood'] as const;
const NAMES: Record<Kind, string> = { qbittorrent: 'qBittorrent', transmission: 'Transmission', rtorrent: 'rTorrent', flood: 'Flood' };
/** A client on another machine (a NAS), as the router serves it: passed through to the loopback daemon. */
const NAS_HOST = 'nas.reseed.test';

/** The router's handler for NAS_HOST: every request, body bytes untouched, to the daemon on `port`. */
function passTo(port: number) {
  return (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    new Promise((done) => {
      const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => done());
      });
      upstream.on('error', () => {
        res.destroy();
        done();
      });
      req.pipe(upstream);
    });
}

describe.each(BROWSER_KINDS)('%s: Cross-seed', (kind) => {
  let cs: CrossSeedWorld;
  let browser: HarnessBrowser;
  const daemons = {} as Record<Kind, RunningDaemon>;
  /** Each daemon as the user's own web UI reaches it: to read back what the extension did. */
  const readers = {} as Record<Kind, TorrentClient>;

  beforeAll(async () => {
    [cs, daemons.qbittorrent, daemons.transmission, daemons.rtorrent, daemons.flood] = await Promise.all([
      startCrossSeedWorld({ pairs: 5, otherSite: true }),
      startQbittorrent(),
      startTransmission(),
      startRtorrent({ build: clientBuilds({ kind: 'rtorrent', generation: kind === 'chromium' ? 'current' : 'bookworm' })[0]! }),
      startFlood(),
    ]);
    for (const client of CLIENTS) {
      readers[client] = ownClient(daemons[client]);
      for (const index of [0, 1, 2, 3, 4]) await cs.seed(readers[client], daemons[client].dataDir, index);
    }
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    // The token, the user's sites (HDSky and OurBits; not SpringSunday), and their addresses over
    // http (the router is a plain HTTP proxy; SpringSunday's too), as the options page saves them.
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), crossSeedUserSettings([OTHER_SITE.sid]));
    // Four clients take about 36 downloads from the candidate's site: over its default 20 a day.
    // The user raises it as "Cross-seed your client" does (its pace stays the default).
    await browser.evaluateInExtension((api, pace) => api.runtime.sendMessage({ type: 'job:site-pace', ...pace }), { sid: CANDIDATE_SITE.sid, secondsBetween: DEFAULT_SECONDS_BETWEEN, perDay: 60 });
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

  /**
   * Sets up `client` (in place of the one before) through the options page, by its labels, as a
   * person would: Save client, then Test client, which must say the client's version and how many
   * torrents it holds (unless the password is wrong: then only saved).
   */
  async function setUpClient(client: Kind, { password = daemons[client].password, url = daemons[client].url } = {}): Promise<void> {
    const daemon = daemons[client];
    const options = await openClientsOptions(browser);
    expect(await clientFieldLabels(options)).toEqual(['Client type', 'Client URL', 'Username', 'Password']);
    await removeAllClients(options);
    await fillClientForm(options, { ...daemon, url }, password);
    expect((await options.textContent('#save-client'))?.trim()).toBe('Save client');
    await pressSaveClient(options);
    if (password === daemon.password) {
      expect((await options.textContent('#test-client'))?.trim()).toBe('Test client');
      const held = (await readers[client].list()).length;
      expect(await pressTestClient(options)).toEqual({ ok: true, said: '', text: `Connected: ${NAMES[client]} ${daemon.version}, ${held} torrents` });
    }
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

  /** The popup's "In your client" for the page's torrent: its heading, and one line per client holding it ("<Name>: seeding, <save path>"). */
  async function inYourClient(popup: HarnessPage): Promise<{ line: string; held: string[] }> {
    await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
    return {
      line: ((await popup.textContent('.client-status .client-line')) ?? '').replace(/\s+/g, ' ').trim(),
      held: await popup.evaluate(() => [...document.querySelectorAll('.client-status .client-held-line')].map((line) => (line.textContent ?? '').replace(/\s+/g, ' ').trim())),
    };
  }

  /** A client's Name as the form gives it by default: its type and host. */
  const defaultName = (client: Kind, host = '127.0.0.1') => `${NAMES[client]} on ${host}`;
  const added = (client: Kind) => `Added to ${defaultName(client)}, seeding: its check found every file on disk.`;

  const row = candidateRow;
  const outcomeOf = (popup: HarnessPage, torrentId: number) => crossSeedOutcomeOf(popup, torrentId);

  async function pressCrossSeed(popup: HarnessPage, torrentId: number): Promise<void> {
    await popup.waitForSelector(`${row(torrentId)} button.cross-seed`, { timeoutMs: 30_000 });
    expect((await popup.textContent(`${row(torrentId)} button.cross-seed`))?.trim()).toBe('Cross-seed');
    await popup.click(`${row(torrentId)} button.cross-seed`);
  }

  const siteNameOf = (view: TabView, sid: number) => view.candidates.find((candidate) => candidate.sid === sid)!.siteName;

  /** What the client itself says of `hash`: there at the source's save path, complete, its files those of the source. */
  async function expectCrossSeeded(client: Kind, hash: string, sourceHash: string): Promise<void> {
    const added = await untilSeeding(readers[client], hash);
    expect(added).toMatchObject({ savePath: daemons[client].dataDir, progress: 1 });
    expect(await readers[client].files(hash)).toEqual(await readers[client].files(sourceHash));
  }

  for (const client of CLIENTS) {
    describe(NAMES[client], () => {
      it('is set up in the options page; the popup says "In your client"; "Cross-seed" there adds the candidate beside the source and it reaches 100 % from disk', async () => {
        await setUpClient(client);
        const pair = cs.pairs[1]!;
        const before = downloads(cs.candidate).length;
        const { tab, popup } = await openPage(1, `one=${client}`);
        expect(await inYourClient(popup)).toEqual({ line: 'In your client', held: [`${defaultName(client)}: seeding, ${daemons[client].dataDir}`] });
        // Nothing downloaded on opening the page or the popup: only a click does.
        await popup.waitForSelector(`${row(pair.candidateId)} button.cross-seed`, { timeoutMs: 30_000 });
        expect(downloads(cs.candidate).length).toBe(before);

        await pressCrossSeed(popup, pair.candidateId);
        const outcome = await outcomeOf(popup, pair.candidateId);
        expect(outcome).toMatchObject({ kind: 'added', ok: true, sentence: added(client) });
        expect(downloads(cs.candidate).slice(before)).toEqual([expect.objectContaining({ id: pair.candidateId, served: true })]);
        // The client's own API: there, beside the source, complete — nothing could be downloaded (no peers).
        await expectCrossSeeded(client, pair.candidate.hash, pair.source.hash);
        // Now the client holds it: "In your client", no button.
        await popup.waitForSelector(`${row(pair.candidateId)} .tag.in-client`, { timeoutMs: 15_000 });
        expect(await popup.evaluate((selector) => !!document.querySelector(`${selector} button.cross-seed`), row(pair.candidateId))).toBe(false);
        await popup.close();
        await tab.close();
      });

      it('"Cross-seed" in the page\'s panel, clicked with the mouse, opens the confirmation window, whose own "Cross-seed" adds its candidate', async () => {
        const pair = cs.pairs[2]!;
        const tab = await browser.newPage();
        await tab.goto(`${cs.page.detailsUrl(pair.sourceId)}&panel=${client}`);
        await tab.bringToFront();
        const tabId = await browser.tabIdOf(`panel=${client}`);
        const buttons = await until(
          () => inPanel(tab, (root) => [...root.querySelectorAll('button.cross-seed')].map((button) => button.getAttribute('data-text'))),
          (found) => !!found?.length,
          'the panel with its Cross-seed button',
          30_000,
        );
        expect(buttons).toEqual(['Cross-seed']);
        const before = downloads(cs.candidate).length;
        expect(await clickPanelButton(tab, 'Cross-seed')).toBe(true);
        // The panel's click only opens the extension's confirmation (issue 15): nothing downloaded yet.
        const confirmation = await confirmationFor(browser, tabId);
        expect(downloads(cs.candidate).length).toBe(before);
        expect(await confirmCrossSeed(confirmation)).toBe(added(client));
        await expectCrossSeeded(client, pair.candidate.hash, pair.source.hash);
        // The panel says so, as generated content only.
        const words = await until(
          () => inPanel(tab, (root) => [...root.querySelectorAll('.cross-seed-outcome')].map((line) => `${line.getAttribute('data-text')}|${line.textContent}`)),
          (found) => !!found?.length && !found[0]!.startsWith('Cross-seeding'),
          'the outcome in the panel',
        );
        expect(words).toEqual([`${added(client)}|`]);
        await confirmation.close();
        await tab.close();
      });

      it('a candidate with other files is not added, and the popup names the first differences', async () => {
        const { tab, popup } = await openPage(0, `differ=${client}`);
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
        expect((await readers[client].lookup([cs.differentFiles.torrent.hash])).size).toBe(0);
        await popup.close();
        await tab.close();
      });

      it('a site the user is logged out of says so, and nothing is added', async () => {
        const { tab, popup, view } = await openPage(0, `loggedout=${client}`);
        cs.candidate.endSessions();
        try {
          await pressCrossSeed(popup, cs.pairs[0]!.candidateId);
          const outcome = await outcomeOf(popup, cs.pairs[0]!.candidateId);
          const site = siteNameOf(view, CANDIDATE_SITE.sid);
          expect(outcome).toMatchObject({ kind: 'not-logged-in', ok: false });
          expect(outcome.sentence).toBe(`${site} sent another page instead of the torrent, usually its login page (or a first-download notice): open ${site}, log in, then try again.`);
          expect((await readers[client].lookup([cs.pairs[0]!.candidate.hash])).size).toBe(0);
        } finally {
          await logIn(cs.candidate);
        }
        await popup.close();
        await tab.close();
      });

      it('a candidate whose data is only partly on disk is left stopped and tagged, and the popup says how much was found', async () => {
        const pair = cs.pairs[4]!;
        // The data changed on disk after the client checked the page's torrent (it still says 100 %).
        const damaged = pair.files[1]!;
        writeFileSync(join(daemons[client].dataDir, pair.name, damaged.path), Buffer.alloc(damaged.size));
        const found = shareOfValidPieces(pair.files, 1);
        const { tab, popup } = await openPage(4, `incomplete=${client}`);
        await pressCrossSeed(popup, pair.candidateId);
        const outcome = await outcomeOf(popup, pair.candidateId);
        expect(outcome).toMatchObject({ kind: 'left-stopped', ok: false });
        expect(outcome.sentence).toBe(
          `Left stopped in ${defaultName(client)}: its check found only ${Math.round(found * 1000) / 10}% of the data on disk, and started it would download the rest from the other site. Tagged “reseed-lens-incomplete”.`,
        );
        // The client's own API: there, stopped at that share, tagged; nothing is downloading.
        const held = (await readers[client].lookup([pair.candidate.hash])).get(pair.candidate.hash);
        expect(held).toMatchObject({ state: 'paused', savePath: daemons[client].dataDir });
        expect(held!.progress).toBeCloseTo(found, 3);
        expect(held!.tags).toContain('reseed-lens-incomplete');
        await popup.close();
        await tab.close();
      });

      it('"Cross-seed all" adds every candidate on the user\'s sites and no other, downloads from one site ≥ 1 s apart', async () => {
        const pair = cs.pairs[0]!;
        const { tab, popup } = await openPage(0, `all=${client}`);
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
        await expectCrossSeeded(client, pair.candidate.hash, pair.source.hash);
        expect((await outcomeOf(popup, cs.differentFiles.id)).kind).toBe('files-differ');
        // SpringSunday is not one of the user's sites: not asked for anything, not added.
        expect(cs.other!.tracker.downloads.length).toBe(before.other);
        expect((await readers[client].lookup([cs.other!.torrent.hash])).size).toBe(0);
        const made = downloads(cs.candidate).slice(before.candidate);
        expect(made.map((download) => download.id).sort()).toEqual([pair.candidateId, cs.differentFiles.id].sort());
        // The pace counts from the end of one download to the start of the next: at the tracker,
        // the two requests are at least that far apart.
        expect(made[1]!.at - made[0]!.at).toBeGreaterThanOrEqual(SITE_GAP_MS);
        await popup.close();
        await tab.close();
      });

      if (kind === 'firefox' && client === 'qbittorrent') {
        it('on another machine: Save client asks for its address, and then "Cross-seed" goes there (CSRF protection on)', async () => {
          const daemon = daemons[client];
          const port = new URL(daemon.url).port;
          cs.world.router.setHost(NAS_HOST, passTo(Number(port)));
          const nasUrl = `http://${NAS_HOST}:${port}`;
          const granted = (origin: string) => browser.evaluateInExtension((api, pattern) => api.permissions.contains({ origins: [pattern] }), origin);
          expect(await granted(`http://${NAS_HOST}/*`)).toBe(false);
          await setUpClient(client, { url: nasUrl });
          expect(await granted(`http://${NAS_HOST}/*`)).toBe(true);

          const pair = cs.pairs[3]!;
          const seen = cs.world.router.requestsTo(NAS_HOST).length;
          const { tab, popup } = await openPage(3, 'nas=1');
          expect(await inYourClient(popup)).toEqual({ line: 'In your client', held: [`${defaultName(client, NAS_HOST)}: seeding, ${daemon.dataDir}`] });
          await pressCrossSeed(popup, pair.candidateId);
          expect(await outcomeOf(popup, pair.candidateId)).toMatchObject({ kind: 'added', ok: true });
          await expectCrossSeeded(client, pair.candidate.hash, pair.source.hash);
          // It went through the NAS's address (the only way the router could pass it to the daemon).
          expect(cs.world.router.requestsTo(NAS_HOST).slice(seen).some((request) => request.path.startsWith('/api/v2/torrents/add'))).toBe(true);
          await popup.close();
          await tab.close();
        });
      }

      // Last for this client: a wrong password, then the client stopped. For qBittorrent the browser
      // still holds the live session of the right password here, with which qBittorrent answers
      // "Ok." to any password: the wrong one must be said all the same.
      it('a wrong password says so', async () => {
        await setUpClient(client, { password: 'not-the-password' });
        try {
          const { tab, popup } = await openPage(1, `wrong=${client}`);
          const pair = cs.pairs[1]!;
          // The client cannot be asked: the popup says so, the button is there, and its click says why it fails.
          await popup.waitForSelector('.client-problems .client-unanswered.problem', { timeoutMs: 30_000 });
          expect(await popup.textContent('.client-problems .notice-title')).toBe('Your client could not be asked');
          await pressCrossSeed(popup, pair.candidateId);
          expect(await outcomeOf(popup, pair.candidateId)).toMatchObject({ kind: 'client-failed', ok: false, sentence: `${defaultName(client)} refused the user name or password: check them in the settings.` });
          await popup.close();
          await tab.close();
        } finally {
          await setUpClient(client);
        }
      });

      it('a stopped client says so, and nothing is downloaded for it', async () => {
        await daemons[client].stop();
        const { tab, popup } = await openPage(1, `stopped=${client}`);
        const pair = cs.pairs[1]!;
        const before = downloads(cs.candidate).length;
        await popup.waitForSelector('.client-problems .client-unanswered.problem', { timeoutMs: 30_000 });
        expect(await popup.textContent('.client-problems .notice-title')).toBe('Your client could not be asked');
        await pressCrossSeed(popup, pair.candidateId);
        expect(await outcomeOf(popup, pair.candidateId)).toMatchObject({ kind: 'client-failed', ok: false, sentence: `${defaultName(client)} did not answer: is it running?` });
        expect(downloads(cs.candidate).length).toBe(before);
        await popup.close();
        await tab.close();
      });
    });
  }
});
