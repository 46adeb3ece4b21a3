/**
 * The user's torrent clients (issue #9) in the built extension, in Chromium and Firefox, with the
 * real daemons started here: Debian's qbittorrent-nox (its CSRF protection left on, its default)
 * and transmission-daemon, and Flood from npm over Debian's rtorrent (its jwt cookie HttpOnly and
 * SameSite=Strict, kept by the browser), on loopback ports with known credentials. Each is configured through the
 * options page as a person would; Test client says what it answered (a wrong password, a stopped
 * client too); then on a NexusPHP details page of a torrent the client seeds, the popup says
 * "In your client", seeding, and the save path, and marks the candidate the client also holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientKind } from '../../utils/clients/client-types';
import { makeTorrent, torrentOn, writeSampleContent, type MadeTorrent } from '../clients/torrent-content';
import { startFlood, startQbittorrent, startTransmission, type RunningDaemon } from '../clients/daemons';
import { addSeeding } from '../clients/seeding';
import { DEMO_TOKEN, loadReferenceData } from '../service/server';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { clientFieldLabels, fillClientForm, openClientsOptions, pressTestClient } from './support/client-options';
import { SERVICE_BASE_URL, nexusDetailsPage, startWorld, type World } from './world';
import { ownClient } from '../clients/own-client';

afterAll(closeAllBrowsers);

const PAGE_ID = 990_001;
const HELD_ID = 990_002;
const ABSENT_ID = 990_003;

/** The torrents of the sample folder on three trackers: the page's and one other in the client, the third not. */
interface Torrents {
  page: MadeTorrent;
  held: MadeTorrent;
  absent: MadeTorrent;
}

/** Starts a daemon seeding the page's torrent and the held candidate from its own data folder. */
type Kind = Extract<ClientKind, 'qbittorrent' | 'transmission' | 'flood'>;
const STARTS: Record<Kind, () => Promise<RunningDaemon>> = { qbittorrent: startQbittorrent, transmission: startTransmission, flood: startFlood };

async function seedingDaemon(kind: Kind): Promise<{ daemon: RunningDaemon; torrents: Torrents }> {
  const daemon = await STARTS[kind]();
  const { folder } = writeSampleContent(daemon.dataDir);
  const torrents = {
    page: torrentOn('alpha', folder),
    held: torrentOn('beta', folder),
    absent: makeTorrent(folder, { announce: 'http://127.0.0.1:9/gamma/announce.php', source: 'GAMMA' }),
  };
  // As the user's own web UI added them (same-origin requests).
  const client = ownClient(daemon);
  await addSeeding(client, torrents.page, folder);
  await addSeeding(client, torrents.held, folder);
  return { daemon, torrents };
}

const CLIENT_NAMES = { qbittorrent: 'qBittorrent', transmission: 'Transmission', flood: 'Flood' } as const;

describe.each(BROWSER_KINDS)('%s: torrent clients', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  const daemons: Partial<Record<Kind, { daemon: RunningDaemon; torrents: Torrents }>> = {};

  beforeAll(async () => {
    const [qbittorrent, transmission, flood] = await Promise.all([seedingDaemon('qbittorrent'), seedingDaemon('transmission'), seedingDaemon('flood')]);
    daemons.qbittorrent = qbittorrent;
    daemons.transmission = transmission;
    daemons.flood = flood;
    // The daemons seed the same content, so the torrents (and hashes) are the same for all.
    const { torrents } = qbittorrent;
    const data = loadReferenceData();
    data.torrents.push({
      title: 'Reseed Lens Album (2024) [FLAC]',
      members: [
        { site: 'hdsky', torrent_id: PAGE_ID, info_hash: torrents.page.hash },
        { site: 'ourbits', torrent_id: HELD_ID, info_hash: torrents.held.hash },
        { site: 'ssd', torrent_id: ABSENT_ID, info_hash: torrents.absent.hash },
      ],
    });
    world = await startWorld({ service: { data } });
    world.router.setHost('hdsky.me', {
      '/details.php': nexusDetailsPage({ site: 'hdsky', torrentId: PAGE_ID, hash: torrents.page.hash, title: 'Reseed Lens Album (2024) [FLAC]' }),
    });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
    await Promise.all(Object.values(daemons).map((entry) => entry?.daemon.stop()));
  }, 60_000);

  const optionsPage = () => openClientsOptions(browser);
  const fill = (options: HarnessPage, daemon: RunningDaemon, password = daemon.password) => fillClientForm(options, daemon, password);
  const testClient = async (options: HarnessPage) => {
    const { text, said } = await pressTestClient(options);
    return { text, said };
  };

  async function popupFor(url: string, marker: string): Promise<HarnessPage> {
    const page = await browser.newPage();
    await page.goto(url);
    const tabId = await browser.tabIdOf(marker);
    return browser.openExtensionPage(`popup.html?tabId=${tabId}`);
  }

  const labels = clientFieldLabels;

  it.each(['qbittorrent', 'flood', 'transmission'] as const)('%s: set up through the options page, and the popup says "In your client"', async (clientKind) => {
    const { daemon, torrents } = daemons[clientKind]!;
    const seen = world.router.requests.length;
    const options = await optionsPage();
    expect(await labels(options)).toEqual(['Client type', 'Client URL', 'Username', 'Password']);
    // The previous client goes (the form then adds a new one).
    if (await options.evaluate(() => !!document.querySelector('#client-list .remove-client'))) {
      await options.click('#client-list .remove-client');
      await options.waitForSelector('#client-none');
    }

    await fill(options, daemon, 'not-the-password');
    const wrong = await testClient(options);
    expect(wrong.text).toBe('Wrong username or password (or API key).');
    // Transmission says why in words of its own (an HTML page), shown as text.
    if (clientKind === 'transmission') expect(wrong.said).toMatch(/^The client said: “401: Unauthorized/);

    await fill(options, daemon);
    expect(await testClient(options)).toEqual({ text: `Connected: ${CLIENT_NAMES[clientKind]} ${daemon.version}, 2 torrents`, said: '' });
    await options.click('#save-client');
    await options.waitForSelector('#client-list li.client');
    expect(await options.textContent('#client-list .client-url')).toBe(daemon.url);
    await options.close();

    // Its Name by default: its type and host.
    const name = `${CLIENT_NAMES[clientKind]} on 127.0.0.1`;
    const popup = await popupFor(`http://hdsky.me/details.php?id=${PAGE_ID}&client=${clientKind}`, `client=${clientKind}`);
    await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
    expect((await popup.textContent('.client-status .client-line'))?.replace(/\s+/g, ' ').trim()).toBe('In your client');
    expect((await popup.textContent('.client-status .client-held-line'))?.replace(/\s+/g, ' ').trim()).toBe(`${name}: seeding, ${daemon.dataDir}`);
    // The candidate on OurBits is the other torrent the client holds; the one on SSD it does not.
    await popup.waitForSelector('li.torrent .tag.in-client');
    const marked = await popup.evaluate(() =>
      [...document.querySelectorAll('li.torrent')].map((row) => [row.querySelector('a.candidate-link')?.getAttribute('href') ?? '', row.querySelector('.tag.in-client')?.textContent ?? '']),
    );
    expect(marked.find(([href]) => href!.endsWith(`id=${HELD_ID}`))?.[1]).toBe(`In ${name}`);
    expect(marked.find(([href]) => href!.endsWith(`id=${ABSENT_ID}`))?.[1]).toBe('');
    expect(torrents.absent.hash).not.toBe(torrents.held.hash);
    await popup.close();

    // Nothing of the client reached the tracker's page: its requests carried no client address.
    for (const request of world.router.requestsTo('hdsky.me')) expect(JSON.stringify(request)).not.toContain(daemon.url);
    // The password went only to the client's own address (the test daemons have the same password):
    // in a form (qBittorrent), a header (Transmission) or JSON (Flood).
    const carrying = world.router.requests.slice(seen).filter((request) => {
      const sent = `${request.url} ${JSON.stringify(request.headers)} ${request.body}`;
      return sent.includes(encodeURIComponent(daemon.password)) || sent.includes(daemon.password) || request.headers.authorization;
    });
    expect(carrying.length).toBeGreaterThan(0);
    for (const request of carrying) expect(request.url.startsWith(`${daemon.url}/`), request.url).toBe(true);
  });

  it('a stopped client: Test client and the popup say it cannot be reached', async () => {
    // The only client now is the last one set up (Transmission).
    const { daemon } = daemons.transmission!;
    await daemon.stop();
    const options = await optionsPage();
    await options.click('#client-list .edit-client');
    expect((await testClient(options)).text).toBe('The client could not be reached at this address. Is it running, and are the address and port right?');
    await options.close();

    const popup = await popupFor(`http://hdsky.me/details.php?id=${PAGE_ID}&stopped=1`, 'stopped=1');
    await popup.waitForSelector('.client-problems .client-unanswered.problem', { timeoutMs: 30_000 });
    expect(await popup.textContent('.client-problems .notice-title')).toBe('Your client could not be asked');
    expect(await popup.evaluate(() => document.querySelector('.client-unanswered.problem')?.getAttribute('data-kind'))).toBe('unreachable');
    expect(await popup.evaluate(() => document.querySelector('.tag.in-client'))).toBeNull();
    await popup.close();
  });
});
