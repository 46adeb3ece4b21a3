// @vitest-environment happy-dom
/**
 * The panel's confirmation window (features/cross-seed/ui/ConfirmCrossSeed.tsx, issue 15): it names the
 * torrent, the site and the client; its "Cross-seed" takes no click until it has been shown (and
 * focused) for a moment; its click sends the popup's own `crossseed:one` for the candidate the
 * tab's view holds, and the outcome is shown in it. The background is answered through the fake
 * browser's messaging; the words come from the real locale files.
 */
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ARM_DELAY_MS, ConfirmCrossSeed } from '../../../../features/cross-seed/ui/ConfirmCrossSeed';
import type { ClientStatus } from '../../../../features/clients/clients.messages';
import type { CrossSeedsChanged, TabCrossSeeds } from '../../../../features/cross-seed/cross-seed.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { installPermissions } from '../../support/permissions';
import { HASH, TAB_ID, answerBackground, candidate, click, resetBrowser, show, tabView, text, unmount, waitFor } from '../../support/components';

const OURBITS = candidate(9, 2001, { siteName: 'OurBits', held: true, infoHash: 'a'.repeat(40), detailsUrl: 'https://ourbits.club/details.php?id=2001' });
const OTHER = candidate(23, 3001, { siteName: 'SSD', held: false, infoHash: 'c'.repeat(40), detailsUrl: 'https://springsunday.net/details.php?id=3001' });

function view(extra: Partial<TabView> = {}): TabView {
  return tabView({ hashes: [{ hash: HASH, source: 'info-row', title: 'From the page' }], candidates: [OURBITS, OTHER], ...extra });
}

const answered: ClientStatus = {
  state: 'answered',
  asked: [HASH, OURBITS.infoHash, OTHER.infoHash],
  clients: [
    {
      state: 'answered',
      client: { id: 'c1', type: 'qbittorrent', url: 'http://127.0.0.1:8080', name: 'qBittorrent on 127.0.0.1' },
      held: { [HASH]: { hash: HASH, name: 'Album (2024) [FLAC]', savePath: '/data', state: 'seeding', progress: 1, size: 1 } },
    },
  ],
  copies: { [HASH]: { from: 'qBittorrent on 127.0.0.1', into: 'qBittorrent on 127.0.0.1', savePath: '/data', viaPair: false } },
};

const none = (): TabCrossSeeds => ({ tabId: TAB_ID, url: view().url, items: [] });

async function announce(state: TabCrossSeeds): Promise<void> {
  const message: CrossSeedsChanged = { type: 'crossseed:changed', crossSeeds: state };
  await act(async () => {
    await fakeBrowser.runtime.sendMessage(message).catch(() => undefined);
  });
}

/** Lets `ms` pass on the page's clock (its arming timer), rendering what follows. */
async function pass(ms: number): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
  });
}

const button = (root: HTMLElement) => root.querySelector<HTMLButtonElement>('#confirm-cross-seed');

beforeEach(() => {
  resetBrowser('en');
  installPermissions();
});
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

describe('the confirmation window of the panel\'s "Cross-seed"', () => {
  it('names the torrent (as the client holds it), the site and torrent id, and the client', async () => {
    answerBackground({ 'view:get': () => view(), 'client:status': () => answered, 'crossseed:get': () => none() });
    const root = await show(<ConfirmCrossSeed tabId={TAB_ID} sid={9} torrentId={2001} onClose={() => undefined} />);
    await waitFor(() => text(root.querySelector('.confirm-client')).startsWith('qBittorrent'), 'the client');
    expect(text(root.querySelector('h1'))).toBe('Cross-seed this torrent?');
    expect([...root.querySelectorAll('.confirm-facts dt')].map(text)).toEqual(['Torrent', 'From', 'Into']);
    expect(text(root.querySelector('.confirm-torrent'))).toBe('Album (2024) [FLAC]');
    expect(text(root.querySelector('.confirm-site'))).toBe('OurBits, torrent #2001');
    expect(text(root.querySelector('.confirm-client'))).toBe('qBittorrent on 127.0.0.1, at /data');
    expect(text(root.querySelector('.confirm p.muted'))).toContain('The page cannot press this button for you');
    expect(text(button(root))).toBe('Cross-seed');
  });

  it('says when no client is set up, and names the torrent from the page then', async () => {
    answerBackground({ 'view:get': () => view(), 'client:status': () => ({ state: 'no-client' }), 'crossseed:get': () => none() });
    const root = await show(<ConfirmCrossSeed tabId={TAB_ID} sid={23} torrentId={3001} onClose={() => undefined} />);
    await waitFor(() => text(root.querySelector('.confirm-client')).startsWith('No torrent client'), 'the client line');
    expect(text(root.querySelector('.confirm-torrent'))).toBe('From the page');
    expect(text(root.querySelector('.confirm-site'))).toBe('SSD, torrent #3001');
  });

  it('takes no click until it has been shown for a moment, nor while the user is away and a moment after; then sends the popup\'s crossseed:one and shows the outcome', async () => {
    let finish: (state: TabCrossSeeds) => void = () => undefined;
    const background = answerBackground({
      'view:get': () => view(),
      'client:status': () => answered,
      'crossseed:get': () => none(),
      'crossseed:one': () => new Promise<void>((resolve) => (finish = () => resolve())),
    });
    const root = await show(<ConfirmCrossSeed tabId={TAB_ID} sid={9} torrentId={2001} onClose={() => undefined} />);
    await waitFor(() => button(root), 'the button');
    // Just shown: a click that was meant for the page (a double click's second half) does nothing.
    expect(button(root)!.disabled).toBe(true);
    await click(button(root));
    expect(background.sentOf('crossseed:one')).toEqual([]);

    await pass(ARM_DELAY_MS + 50);
    expect(button(root)!.disabled).toBe(false);
    // A focus without having been away changes nothing.
    await act(() => {
      window.dispatchEvent(new Event('focus'));
    });
    expect(button(root)!.disabled).toBe(false);
    // The user goes to the page and comes back: disarmed while away, and for a moment after.
    await act(() => {
      window.dispatchEvent(new Event('blur'));
    });
    expect(button(root)!.disabled).toBe(true);
    await act(() => {
      window.dispatchEvent(new Event('focus'));
    });
    expect(button(root)!.disabled).toBe(true);
    await pass(ARM_DELAY_MS + 50);
    expect(button(root)!.disabled).toBe(false);

    await click(button(root));
    expect(background.sentOf('crossseed:one')).toEqual([{ type: 'crossseed:one', tabId: TAB_ID, sid: 9, torrentId: 2001, infoHash: OURBITS.infoHash }]);
    expect(button(root)!.disabled).toBe(true);
    expect(text(root.querySelector('.cross-seed-outcome'))).toBe('Cross-seeding…');

    const done: TabCrossSeeds = {
      ...none(),
      items: [
        {
          sid: 9,
          torrentId: 2001,
          infoHash: OURBITS.infoHash,
          forHash: HASH,
          siteName: 'OurBits',
          state: 'done',
          result: { kind: 'added', hash: OURBITS.infoHash, savePath: '/data', client: 'qbittorrent', checked: true, state: 'checking', progress: 0 },
        },
      ],
    };
    finish(done);
    await announce(done);
    await waitFor(() => root.querySelector('.cross-seed-outcome.ok'), 'the outcome');
    expect(text(root.querySelector('.cross-seed-outcome'))).toBe('Added to qBittorrent, seeding: its check found every file on disk.');
    // Done: no second "Cross-seed", only Close.
    expect(button(root)).toBeNull();
    expect(text(root.querySelector('#confirm-close'))).toBe('Close');
  });

  it('a candidate the tab no longer shows (the page moved on) offers nothing to press', async () => {
    const background = answerBackground({ 'view:get': () => view({ candidates: [OTHER] }), 'client:status': () => answered, 'crossseed:get': () => none() });
    const onClose = vi.fn();
    const root = await show(<ConfirmCrossSeed tabId={TAB_ID} sid={9} torrentId={2001} onClose={onClose} />);
    await waitFor(() => root.querySelector('.confirm-gone'), 'the notice');
    expect(text(root.querySelector('.confirm-gone'))).toBe('This page no longer shows that torrent: nothing to cross-seed.');
    expect(button(root)).toBeNull();
    await click(root.querySelector('#confirm-close'));
    expect(onClose).toHaveBeenCalledOnce();
    expect(background.sentOf('crossseed:one')).toEqual([]);
  });

  it('speaks Simplified Chinese', async () => {
    resetBrowser('zh_CN');
    installPermissions();
    answerBackground({ 'view:get': () => view(), 'client:status': () => answered, 'crossseed:get': () => none() });
    const root = await show(<ConfirmCrossSeed tabId={TAB_ID} sid={9} torrentId={2001} onClose={() => undefined} />);
    await waitFor(() => text(root.querySelector('.confirm-client')).startsWith('qBittorrent'), 'the client');
    expect(text(root.querySelector('h1'))).toBe('辅种这个种子？');
    expect(text(root.querySelector('.confirm-site'))).toBe('OurBits，种子 #2001');
    expect(text(button(root))).toBe('辅种');
    expect(text(root.querySelector('#confirm-close'))).toBe('关闭');
  });
});
