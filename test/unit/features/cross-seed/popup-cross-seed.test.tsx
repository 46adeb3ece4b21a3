// @vitest-environment happy-dom
/**
 * The popup's "Cross-seed" and "Cross-seed all" (features/cross-seed/ui/PopupCrossSeed.tsx): which candidates get a
 * button, what a click sends, the busy state, the outcome in words, a site's permission asked for
 * within the click, and the progress of "Cross-seed all" as the background announces it. The
 * background is answered through the fake browser's messaging (features/cross-seed/cross-seed.feature.ts has
 * its own tests against the real client and trackers); the words come from the real locale files.
 */
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Popup } from '../../../../entrypoints/popup/PopupApp';
import type { CrossSeedResult } from '../../../../utils/cross-seed-engine/cross-seed';
import type { ClientStatus } from '../../../../features/clients/clients.messages';
import type { CrossSeedItem, CrossSeedsChanged, TabCrossSeeds } from '../../../../features/cross-seed/cross-seed.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { installPermissions } from '../../support/permissions';
import { HASH, TAB_ID, answerBackground, candidate, click, resetBrowser, show, tabView, text, unmount, waitFor } from '../../support/components';

const ADDED = candidate(9, 2001, { siteName: 'OurBits', held: true, infoHash: 'a'.repeat(40), detailsUrl: 'https://ourbits.club/details.php?id=2001' });
const HELD = candidate(9, 2002, { siteName: 'OurBits', held: true, infoHash: 'b'.repeat(40), detailsUrl: 'https://ourbits.club/details.php?id=2002' });
const MIRROR = candidate(23, 3001, { siteName: 'SSD', held: true, infoHash: 'c'.repeat(40), detailsUrl: 'https://ssd-mirror.example/details.php?id=3001' });
const NOT_MINE = candidate(7, 4001, { siteName: 'HDHome', held: false, infoHash: 'd'.repeat(40), detailsUrl: 'https://hdhome.org/details.php?id=4001' });

function view(): TabView {
  return tabView({ candidates: [ADDED, HELD, MIRROR, NOT_MINE] });
}

const answered = (held: string[]): ClientStatus => ({
  state: 'answered',
  asked: [HASH, ...view().candidates.map((entry) => entry.infoHash)],
  clients: [
    {
      state: 'answered',
      client: { id: 'c1', type: 'qbittorrent', url: 'http://127.0.0.1:8080', name: 'qBittorrent on 127.0.0.1' },
      held: Object.fromEntries([HASH, ...held].map((hash) => [hash, { hash, name: 'Album', savePath: '/data', state: 'seeding' as const, progress: 1, size: 1 }])),
    },
  ],
});

function item(of: typeof ADDED, result?: CrossSeedResult): CrossSeedItem {
  return { sid: of.sid, torrentId: of.torrentId, infoHash: of.infoHash, forHash: of.forHash, siteName: of.siteName, state: result ? 'done' : 'running', result };
}

const crossSeeds = (items: CrossSeedItem[], all?: TabCrossSeeds['all']): TabCrossSeeds => ({ tabId: TAB_ID, url: view().url, items, ...(all ? { all } : {}) });

/** The background announcing a change, as it does to every extension page. */
async function announce(state: TabCrossSeeds): Promise<void> {
  const message: CrossSeedsChanged = { type: 'crossseed:changed', crossSeeds: state };
  await act(async () => {
    await fakeBrowser.runtime.sendMessage(message).catch(() => undefined);
  });
}

const rowOf = (root: HTMLElement, torrentId: number) =>
  [...root.querySelectorAll('li.torrent')].find((row) => row.querySelector('a.candidate-link')?.getAttribute('href')?.endsWith(`id=${torrentId}`)) as HTMLElement | undefined;
const buttonIn = (row: Element | undefined) => row?.querySelector<HTMLButtonElement>('button.cross-seed') ?? null;

/** A click whose handler must act within it: the permission request has to be made before dispatch returns. */
function clickNow(element: Element | null): void {
  if (!element) throw new Error('nothing to click');
  const event = new MouseEvent('click', { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'isTrusted', { value: true });
  element.dispatchEvent(event);
}

beforeEach(() => {
  resetBrowser('en');
  installPermissions();
});
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

describe('"Cross-seed" in the popup', () => {
  it('waits for the client, then offers "Cross-seed" on every candidate it does not hold, and "Cross-seed all"', async () => {
    let answerStatus: (status: ClientStatus) => void = () => undefined;
    answerBackground({
      'view:get': () => view(),
      'client:status': () => new Promise<ClientStatus>((resolve) => (answerStatus = resolve)),
      'crossseed:get': () => crossSeeds([]),
    });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('li.torrent'), 'the candidates');
    // Not before the client said what it holds: a button that then vanished would be a trap.
    expect(root.querySelector('button.cross-seed')).toBeNull();
    expect(root.querySelector('.cross-seed-all-button')).toBeNull();

    answerStatus(answered([HELD.infoHash]));
    await waitFor(() => root.querySelector('button.cross-seed'), 'the buttons');
    expect(text(buttonIn(rowOf(root, ADDED.torrentId)))).toBe('Cross-seed');
    expect(buttonIn(rowOf(root, MIRROR.torrentId))).not.toBeNull();
    // The candidate the client holds keeps its tag and gets no button.
    expect(buttonIn(rowOf(root, HELD.torrentId))).toBeNull();
    expect(text(rowOf(root, HELD.torrentId)!.querySelector('.tag.in-client'))).toBe('In qBittorrent on 127.0.0.1');
    expect(text(root.querySelector('.cross-seed-all-button'))).toBe('Cross-seed all');
  });

  it('sends the candidate on a click, is busy while it runs, then says what happened and asks the client again', async () => {
    let finish: (state: TabCrossSeeds) => void = () => undefined;
    const background = answerBackground({
      'view:get': () => view(),
      'client:status': () => answered([HELD.infoHash]),
      'crossseed:get': () => crossSeeds([]),
      'crossseed:one': () => new Promise<void>((resolve) => (finish = () => resolve())),
    });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const button = await waitFor(() => buttonIn(rowOf(root, ADDED.torrentId)), 'the button');
    await click(button);
    expect(background.sentOf('crossseed:one')).toEqual([{ type: 'crossseed:one', tabId: TAB_ID, sid: 9, torrentId: 2001, infoHash: ADDED.infoHash }]);
    expect(button.disabled).toBe(true);
    expect(text(rowOf(root, ADDED.torrentId)!.querySelector('.cross-seed-outcome'))).toBe('Cross-seeding…');

    await announce(crossSeeds([item(ADDED)]));
    expect(button.disabled).toBe(true);
    const done = crossSeeds([item(ADDED, { kind: 'added', hash: ADDED.infoHash, savePath: '/data', client: 'qbittorrent', checked: true, state: 'seeding', progress: 1 })]);
    finish(done);
    await announce(done);
    await waitFor(() => rowOf(root, ADDED.torrentId)?.querySelector('.cross-seed-outcome.ok'), 'the outcome');
    expect(text(rowOf(root, ADDED.torrentId)!.querySelector('.cross-seed-outcome'))).toBe('Added to qBittorrent, seeding: its check found every file on disk.');
    // The client is asked again, so the candidate it now holds is marked as such.
    await waitFor(() => background.sentOf('client:status').length === 2, 'the client asked again');
  });

  it('shows the first file differences of a candidate that was not added', async () => {
    const result: CrossSeedResult = {
      kind: 'files-differ',
      differences: [
        { kind: 'size', path: 'Album/01.flac', size: 11, clientSize: 10 },
        { kind: 'missing', path: 'Album/extra.nfo', size: 700 },
      ],
      more: 3,
    };
    answerBackground({ 'view:get': () => view(), 'client:status': () => answered([]), 'crossseed:get': () => crossSeeds([item(ADDED, result)]) });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const outcome = await waitFor(() => rowOf(root, ADDED.torrentId)?.querySelector('.cross-seed-outcome.problem'), 'the outcome');
    expect(outcome.getAttribute('data-kind')).toBe('files-differ');
    expect(text(outcome.querySelector('.cross-seed-sentence'))).toBe("The files differ from this page's torrent: not added.");
    expect([...outcome.querySelectorAll('.cross-seed-differences li')].map((line) => line.textContent)).toEqual([
      "Album/01.flac — 10 bytes in this page's torrent, 11 bytes in the candidate",
      "Album/extra.nfo — not in this page's torrent",
      '…and 3 more',
    ]);
  });

  it("asks for a site the browser has not granted within the click, then cross-seeds; a refusal sends nothing", async () => {
    const background = answerBackground({ 'view:get': () => view(), 'client:status': () => answered([]), 'crossseed:get': () => crossSeeds([]), 'crossseed:one': () => undefined });
    let answer = false;
    const request = vi.spyOn(fakeBrowser.permissions, 'request').mockImplementation(async () => answer);
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const button = await waitFor(() => buttonIn(rowOf(root, MIRROR.torrentId)), 'the button');
    // A catalogued site's permission is the manifest's: no prompt for it.
    await waitFor(() => buttonIn(rowOf(root, ADDED.torrentId)), 'the other button');

    await act(async () => clickNow(button));
    expect(request).toHaveBeenCalledTimes(1);
    expect(request).toHaveBeenCalledWith({ origins: ['https://ssd-mirror.example/*'] });
    await waitFor(() => rowOf(root, MIRROR.torrentId)?.querySelector('.cross-seed-outcome.problem'), 'the refusal');
    expect(text(rowOf(root, MIRROR.torrentId)!.querySelector('.cross-seed-outcome.problem'))).toBe('Not allowed: without your permission Reseed Lens cannot download from SSD.');
    expect(background.sentOf('crossseed:one')).toEqual([]);

    answer = true;
    await act(async () => clickNow(buttonIn(rowOf(root, MIRROR.torrentId))));
    expect(request).toHaveBeenCalledTimes(2);
    await waitFor(() => background.sentOf('crossseed:one').length === 1, 'the cross-seed after the grant');
    expect(background.sentOf('crossseed:one')[0]).toMatchObject({ sid: 23, torrentId: 3001 });

    // The manifest's sites go straight to the background.
    await act(async () => clickNow(buttonIn(rowOf(root, ADDED.torrentId))));
    expect(request).toHaveBeenCalledTimes(2);
    await waitFor(() => background.sentOf('crossseed:one').length === 2, 'the second cross-seed');
  });

  it('a site the background found not granted: "Allow downloads from …" asks within that click and tries again', async () => {
    const denied = crossSeeds([item(ADDED, { kind: 'no-permission', for: 'site', origin: 'https://ourbits.club' })]);
    const background = answerBackground({ 'view:get': () => view(), 'client:status': () => answered([]), 'crossseed:get': () => denied, 'crossseed:one': () => undefined });
    const request = vi.spyOn(fakeBrowser.permissions, 'request').mockImplementation(async () => true);
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const allow = await waitFor(() => rowOf(root, ADDED.torrentId)?.querySelector('button.allow-site'), 'the allow button');
    expect(text(rowOf(root, ADDED.torrentId)!.querySelector('.cross-seed-sentence'))).toBe('Reseed Lens needs your permission to download from OurBits.');
    expect(text(allow)).toBe('Allow downloads from OurBits and try again');
    await act(async () => clickNow(allow));
    expect(request).toHaveBeenCalledWith({ origins: ['https://ourbits.club/*'] });
    await waitFor(() => background.sentOf('crossseed:one').length === 1, 'the retry');
  });
});

describe('"Cross-seed all" in the popup', () => {
  it('sends one request, shows the progress as it is announced, then a summary', async () => {
    let finish: (state: TabCrossSeeds) => void = () => undefined;
    const background = answerBackground({
      'view:get': () => view(),
      'client:status': () => answered([HELD.infoHash]),
      'crossseed:get': () => crossSeeds([]),
      'crossseed:all': () => new Promise<void>((resolve) => (finish = () => resolve())),
    });
    vi.spyOn(fakeBrowser.permissions, 'request').mockImplementation(async () => true);
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const button = await waitFor(() => root.querySelector<HTMLButtonElement>('.cross-seed-all-button'), 'the button');
    await click(button);
    expect(background.sentOf('crossseed:all')).toEqual([{ type: 'crossseed:all', tabId: TAB_ID }]);
    expect(button.disabled).toBe(true);

    const base = { sitesChosen: true, notYourSites: 1, alreadyInClient: 1, overLimit: 0, limit: 20 };
    await announce(crossSeeds([], { state: 'running', total: 2, done: 0, added: 0, ...base }));
    expect(text(root.querySelector('.cross-seed-all-status'))).toBe('Cross-seeding 1 of 2…');
    const added = item(ADDED, { kind: 'added', hash: ADDED.infoHash, savePath: '/data', client: 'qbittorrent', checked: true, state: 'seeding', progress: 1 });
    await announce(crossSeeds([added], { state: 'running', total: 2, done: 1, added: 1, ...base }));
    expect(text(root.querySelector('.cross-seed-all-status'))).toBe('Cross-seeding 2 of 2…');
    const end = crossSeeds([added, item(MIRROR, { kind: 'not-logged-in', evidence: 'redirect' })], { state: 'done', total: 2, done: 2, added: 1, ...base });
    finish(end);
    await announce(end);
    await waitFor(() => !button.disabled, 'the end');
    expect(text(root.querySelector('.cross-seed-all-status'))).toBe('1 added, 1 not added.');
    expect(text(rowOf(root, MIRROR.torrentId)!.querySelector('.cross-seed-sentence'))).toBe(
      'SSD sent another page instead of the torrent, usually its login page (or a first-download notice): open SSD, log in, then try again.',
    );
  });

  it('says why nothing was tried: sites not chosen, the client stopped it, more than 20', async () => {
    const base = { state: 'done' as const, total: 0, done: 0, added: 0, sitesChosen: true, notYourSites: 0, alreadyInClient: 0, overLimit: 0, limit: 20 };
    const cases: [TabCrossSeeds['all'], string][] = [
      [{ ...base, sitesChosen: false }, 'Choose your sites first: Cross-seed all only takes the candidates on your sites.'],
      [{ ...base, stopped: { kind: 'client-failed', failure: { kind: 'auth', detail: 'x' } } }, 'Your client refused the user name or password: check them in the settings.'],
      [{ ...base, notYourSites: 2 }, 'Nothing to cross-seed: none of these candidates is on your sites.'],
      [{ ...base, total: 20, done: 20, added: 20, overLimit: 5 }, '20 added, 0 not added. At most 20 per click: 5 left for the next one.'],
    ];
    for (const [all, words] of cases) {
      answerBackground({ 'view:get': () => view(), 'client:status': () => answered([]), 'crossseed:get': () => crossSeeds([], all) });
      const root = await show(<Popup tabId={TAB_ID} poppedOut />);
      expect(text(await waitFor(() => root.querySelector('.cross-seed-all-status'), 'the summary'))).toBe(words);
      await unmount();
      resetBrowser('en');
      installPermissions();
    }
  });

  it('reads in Chinese', async () => {
    resetBrowser('zh_CN');
    installPermissions();
    answerBackground({ 'view:get': () => view(), 'client:status': () => answered([]), 'crossseed:get': () => crossSeeds([]) });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    expect(text(await waitFor(() => root.querySelector('button.cross-seed'), 'the button'))).toBe('辅种');
    expect(text(root.querySelector('.cross-seed-all-button'))).toBe('全部辅种');
  });
});
