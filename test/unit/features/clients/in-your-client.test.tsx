// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * The popup's "In your client", against the real background: the tab's view as the background
 * holds it, the default client answering as qbittorrent-nox 4.5.2 did (its recorded lookup of two
 * seeding torrents and an absent hash, replayed strictly), or a client that cannot be reached.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Popup } from '../../../../entrypoints/popup/PopupApp';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { CLIENTS_KEY } from '../../../../features/clients/clients.storage';
import { nodeClientFetch } from '../../../clients/node-fetch';
import { replayFetch, type Recording, type ReplayFetch } from '../../../clients/recording';
import { factsOf, recordings } from '../../clients/support';
import { loadMessages } from '../../support/i18n';
import { mount, startOptionsWorld, text, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');
const zh = loadMessages('zh_CN');
const [recording] = recordings('qbittorrent') as [Recording];
const facts = factsOf(recording);
const TAB = 7;
/** The recorded lookup asked for these three, in this order: the page's hash, then its candidates'. */
const PAGE_HASH = facts.torrents.singleAlpha.hash;
const HELD_CANDIDATE = facts.torrents.folderAlpha.hash;
const ABSENT_CANDIDATE = facts.absentHash;

let world: OptionsWorld | undefined;
let replay: ReplayFetch | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (replay) expect(replay.remaining(), 'recorded requests left unasked').toBe(0);
  replay = undefined;
});

function detailsView(): TabView {
  return {
    tabId: TAB,
    url: 'https://hdsky.me/details.php?id=1',
    host: 'hdsky.me',
    siteName: 'HDSky',
    status: 'done',
    hashes: [{ hash: PAGE_HASH, source: 'info-row' }],
    candidates: [
      { sid: 1, torrentId: 11, infoHash: HELD_CANDIDATE, forHash: PAGE_HASH, siteName: 'Alpha', detailsUrl: 'https://alpha.example/details.php?id=11', isCurrentSite: false, held: true },
      { sid: 2, torrentId: 22, infoHash: ABSENT_CANDIDATE, forHash: PAGE_HASH, siteName: 'Beta', detailsUrl: 'https://beta.example/details.php?id=22', isCurrentSite: false, held: true },
    ],
  };
}

type SavedClient = { url: string; username: string; password: string; name?: string };

/** The real background with `client` (and `others` after it) saved and the tab's view in place; the popup on it. */
async function popupWith(options: { client?: SavedClient; others?: SavedClient[]; view?: TabView; locale?: 'en' | 'zh_CN'; clientFetch?: typeof fetch }) {
  world = await startOptionsWorld({ locale: options.locale, clientFetch: options.clientFetch, settings: { askedForSites: true } });
  if (options.client) {
    const saved = [options.client, ...(options.others ?? [])].map(({ url, username, password, name }, index) => ({ id: `c${index + 1}`, type: 'qbittorrent', url, username, password, ...(name && { name }) }));
    await fakeBrowser.storage.local.set({ [CLIENTS_KEY]: { version: 2, clients: saved } });
  }
  if (options.view) await world.app.tabs.set(options.view);
  return mount(<Popup tabId={TAB} poppedOut />);
}

const candidateRow = (page: HTMLElement, torrentId: number) =>
  [...page.querySelectorAll('li.torrent')].find((row) => row.querySelector('a.candidate-link')?.getAttribute('href')?.endsWith(`id=${torrentId}`));

describe('"In your client" in the popup', () => {
  it("says the page's torrent is in the client, seeding, with its save path, and marks the candidate the client holds", async () => {
    replay = replayFetch(recording.scenarios.lookup!);
    const page = await popupWith({ client: facts, view: detailsView(), clientFetch: nodeClientFetch({ inner: replay }) });
    await waitFor(() => page.querySelector('.client-status.in-client'), 'the client status');
    expect(text(page, '.client-status .client-line')).toBe('In your client');
    // One line per client holding it: its Name, the torrent's state and save path.
    expect([...page.querySelectorAll('.client-status .client-held-line')].map((line) => line.textContent)).toEqual([`qBittorrent on 127.0.0.1: seeding, ${facts.savePath}`]);
    expect(text(candidateRow(page, 11)!, '.tag.in-client')).toBe('In qBittorrent on 127.0.0.1');
    expect(candidateRow(page, 22)!.querySelector('.in-client')).toBeNull();
    // Asked once, for the page's hash and its candidates' together.
    expect(world!.messages.filter((message) => message.type === 'client:status')).toHaveLength(1);
  });

  it('reads in Chinese', async () => {
    replay = replayFetch(recording.scenarios.lookup!);
    const page = await popupWith({ client: facts, view: detailsView(), clientFetch: nodeClientFetch({ inner: replay }), locale: 'zh_CN' });
    await waitFor(() => page.querySelector('.client-status.in-client'), 'the client status');
    expect(text(page, '.client-status .client-line')).toBe(zh.clientInYour!.message);
    expect(text(page, '.client-status .client-held-line')).toBe(`qBittorrent on 127.0.0.1: ${zh.clientStateSeeding!.message}, ${facts.savePath}`);
    expect(text(candidateRow(page, 11)!, '.tag.in-client')).toBe('已在 qBittorrent on 127.0.0.1');
  });

  it('says so when no client is set up, with the way to the settings', async () => {
    const page = await popupWith({ view: detailsView() });
    await waitFor(() => page.querySelector('.client-status.no-client'), 'the no-client line');
    expect(text(page, '.client-status.no-client')).toBe(`${en.clientNoneSetUp!.message} · ${en.openSettings!.message}`);
    expect(page.querySelector('.tag.in-client')).toBeNull();
  });

  it("says why when the client cannot be reached, and marks nothing", async () => {
    // A port nobody listens on: the request really fails (after the hiccups a client is given: slow first).
    const page = await popupWith({ client: { url: 'http://127.0.0.1:1', username: 'a', password: 'b' }, view: detailsView() });
    await waitFor(() => page.querySelector('.client-problems .client-unanswered.problem'), 'the failure', 10_000);
    expect(text(page, '.client-problems .notice-title')).toBe(en.clientFailed!.message);
    expect(text(page, '.client-unanswered.problem')).toBe(`qBittorrent on 127.0.0.1: ${en.clientProblemUnreachable!.message}`);
    expect(page.querySelector('.tag.in-client')).toBeNull();
  });

  it('asks every client: the one holding it says so by its Name, one that cannot be reached is named as such, and its slowness holds back nothing', async () => {
    replay = replayFetch(recording.scenarios.lookup!);
    const page = await popupWith({
      client: { ...facts, name: 'NAS' },
      others: [{ url: 'http://127.0.0.1:1', username: 'a', password: 'b', name: 'Seedbox' }],
      view: detailsView(),
      clientFetch: nodeClientFetch({ inner: replay }),
    });
    // NAS's answer is shown while Seedbox is still being asked (it is retried for 2.5 s).
    await waitFor(() => page.querySelector('.client-status.in-client'), 'the client status');
    expect(text(page, '.client-status .client-held-line')).toBe(`NAS: seeding, ${facts.savePath}`);
    expect(text(candidateRow(page, 11)!, '.tag.in-client')).toBe('In NAS');
    await waitFor(() => page.querySelector('.client-unanswered.problem'), 'the failure', 10_000);
    expect(text(page, '.client-unanswered.problem')).toBe(`Seedbox: ${en.clientProblemUnreachable!.message}`);
    // With two clients the list names each; no single "could not be asked" title.
    expect(page.querySelector('.client-problems .notice-title')).toBeNull();
  });

  it('shows nothing of any client, and asks none, where the page has no hash', async () => {
    const page = await popupWith({ client: facts, view: { ...detailsView(), status: 'not-a-tracker', hashes: [], candidates: [] } });
    await waitFor(() => page.querySelector('.notice'), 'the popup');
    expect(page.querySelector('.client-status')).toBeNull();
    expect(world!.messages.filter((message) => message.type === 'client:status')).toEqual([]);
  });
});
