// @vitest-environment happy-dom
/**
 * The popup in each state a tab can be in, rendered with preact into happy-dom, its text from the
 * real locale files, and the background answered through the fake browser's runtime messaging.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Popup } from '../../../entrypoints/popup/PopupApp';
import type { TabView } from '../../../features/lookup/lookup.messages';
import type { ServiceErrorKind, ServiceFailure } from '../../../utils/iyuu/service-errors';
import { describeFailure, formatTime } from '../../../utils/i18n';
import { HASH, TAB_ID, announceView, answerBackground, candidate, click, resetBrowser, show, tabView, text, unmount, waitFor } from '../support/components';

const popup = (poppedOut = true) => <Popup tabId={TAB_ID} poppedOut={poppedOut} />;

async function showView(view: TabView, poppedOut = true) {
  const background = answerBackground({ 'view:get': () => view, 'view:refresh': () => announceView(view) });
  const root = await show(popup(poppedOut));
  await waitFor(() => !root.querySelector('.placeholder'), 'the first answer');
  return { root, background };
}

const OPPENHEIMER = [
  candidate(9, 220354, { siteName: 'OurBits', held: true }),
  candidate(6, 360102, { siteName: 'PTerClub', held: true }),
  candidate(6, 360777, { siteName: 'PTerClub', held: true }),
  candidate(7, 209512, { siteName: 'HDHome', held: false }),
  candidate(4, 195000, { siteName: 'HDSky', held: true, isCurrentSite: true }),
];

beforeEach(() => {
  resetBrowser('en');
  (fakeBrowser.runtime as { openOptionsPage: () => Promise<void> }).openOptionsPage = vi.fn(async () => undefined);
});
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

describe('popup states', () => {
  it('shows the shape of the answer before the first one, without jumping (placeholder, busy)', async () => {
    let release: (view: TabView) => void = () => undefined;
    answerBackground({ 'view:get': () => new Promise<TabView>((resolve) => (release = resolve)) });
    const root = await show(popup());
    expect(root.querySelector('.placeholder')).not.toBeNull();
    expect(root.querySelector('main')!.getAttribute('aria-busy')).toBe('true');
    expect(root.querySelector('.content')).not.toBeNull();
    release(tabView({ status: 'no-hash' }));
    await waitFor(() => root.querySelector('.notice'), 'the notice');
    expect(root.querySelector('.placeholder')).toBeNull();
    expect(root.querySelector('main')!.getAttribute('aria-busy')).toBe('false');
  });

  it('not a tracker: says so and what to open', async () => {
    const { root } = await showView(tabView({ status: 'not-a-tracker', hashes: [], url: 'https://example.com/', host: 'example.com', siteName: undefined }));
    expect(text(root.querySelector('.notice.info .notice-title'))).toBe('Reseed Lens is not reading this page.');
    expect(text(root.querySelector('.notice.info'))).toContain('Open a torrent\'s page on a tracker Reseed Lens knows.');
    expect(root.querySelector('.hash-value')).toBeNull();
  });

  it('toolbar popup on an unknown http page: reads it once (activeTab) and offers "Use on this site"', async () => {
    const unknown = tabView({ status: 'not-a-tracker', hashes: [], url: 'http://tracker.example/details.php?id=1', host: 'tracker.example', siteName: undefined });
    const background = answerBackground({
      'view:get': () => unknown,
      'view:read-once': () => announceView({ ...unknown, status: 'no-hash', access: 'once' }),
    });
    const root = await show(popup(false));
    await waitFor(() => root.querySelector('.use-on-site'), 'the read-once view');
    expect(background.sentOf('view:read-once')).toEqual([{ type: 'view:read-once', tabId: TAB_ID }]);
    expect(text(root.querySelector('.use-on-site'))).toContain('tracker.example is not a site Reseed Lens knows');
    expect(text(root.querySelector('.use-on-site button'))).toBe('Use on this site');
  });

  it('reading: says the page is being read, with the space reserved', async () => {
    const { root } = await showView(tabView({ status: 'reading', hashes: [] }));
    expect(text(root.querySelector('.notice.info .notice-title'))).toBe('Reading the page…');
    expect(root.querySelector('.skeleton.block')).not.toBeNull();
    expect(root.querySelector('main')!.getAttribute('aria-busy')).toBe('true');
  });

  it('no hash, with a .torrent link: offers to read the file, and asks the background on click', async () => {
    const view = tabView({ status: 'no-hash', hashes: [], torrentFileUrl: 'https://hdsky.me/download.php?id=1' });
    const background = answerBackground({ 'view:get': () => view, 'view:hash-from-torrent': () => announceView({ ...view, status: 'looking-up', hashes: [{ hash: HASH, source: 'torrent-file' }] }) });
    const root = await show(popup());
    await waitFor(() => root.querySelector('.notice'), 'the notice');
    expect(text(root.querySelector('.notice-title'))).toBe('No info-hash found on this page.');
    const button = root.querySelector<HTMLButtonElement>('.notice button.primary')!;
    expect(text(button)).toBe('Get hash from the .torrent file');
    expect(text(root.querySelector('.notice'))).toContain('Downloads this one .torrent file once');
    await click(button);
    await waitFor(() => root.querySelector('.hash-value'), 'the hash from the file');
    expect(background.sentOf('view:hash-from-torrent')).toEqual([{ type: 'view:hash-from-torrent', tabId: TAB_ID }]);
    expect(text(root.querySelector('.hashes'))).toContain('from the .torrent file');
  });

  it.each([
    ['site-gives-no-hash', 'This site does not give the info-hash for this torrent'],
    ['needs-login', 'Log in to this site to see the torrent\'s hash.'],
    ['not-loaded-yet', 'The page has not shown its hash yet.'],
    ['site-error', ''],
  ] as const)('no hash because %s: says why', async (problem, words) => {
    const { root } = await showView(tabView({ status: 'no-hash', hashes: [], problem }));
    const notice = text(root.querySelector('.notice.info'));
    expect(notice).toContain('No info-hash found on this page.');
    if (words) expect(notice).toContain(words);
    // Every problem has words of its own, never the bare key.
    expect(notice).not.toMatch(/problem[A-Z]/);
    expect(notice.length).toBeGreaterThan('No info-hash found on this page.'.length + 10);
  });

  it.each([
    ['no-link', 'This page has no download link of its own to read.'],
    ['download-failed', 'The .torrent file could not be downloaded. Are you logged in?'],
    ['not-a-torrent', 'The download was not a .torrent file (perhaps a login page).'],
    ['v2-only', 'Unsupported: this is a BitTorrent v2-only torrent, which IYUU cannot look up.'],
    ['malformed', 'The .torrent file is damaged.'],
  ] as const)('the .torrent file gave nothing (%s): says why, as an alert', async (torrentFileProblem, words) => {
    const { root } = await showView(tabView({ status: 'no-hash', hashes: [], torrentFileUrl: 'https://hdsky.me/download.php?id=1', torrentFileProblem }));
    const problem = root.querySelector('.torrent-problem')!;
    expect(text(problem)).toBe(words);
    expect(problem.getAttribute('role')).toBe('alert');
  });

  it('no token: a warning with the hash found and a button to the options page', async () => {
    const { root, background } = await showView(tabView({ status: 'no-credentials' }));
    expect(text(root.querySelector('.notice.warn .notice-title'))).toBe('Set your IYUU token to look this torrent up.');
    expect(text(root.querySelector('.hash-value'))).toBe(HASH);
    // No age or refresh: there is nothing to refresh without a token.
    expect(root.querySelector('.refresh')).toBeNull();
    await click(root.querySelector('.notice.warn button.primary'));
    expect(fakeBrowser.runtime.openOptionsPage).toHaveBeenCalledTimes(1);
    expect(background.sentOf('view:refresh')).toHaveLength(0);
  });

  it('looking up: a status line, the answer\'s space reserved, refresh disabled', async () => {
    const { root } = await showView(tabView({ status: 'looking-up' }));
    expect(text(root.querySelector('.notice.looking'))).toBe('Looking up 1 hash…');
    // Said once, by the popup's one live region.
    expect(text(root.querySelector('main > [role=status]'))).toBe('Looking up 1 hash…');
    expect(root.querySelector('.skeleton.block')).not.toBeNull();
    expect(root.querySelector('a.candidate-link')).toBeNull();
    expect(root.querySelector<HTMLButtonElement>('button.refresh')!.disabled).toBe(true);
    expect(root.querySelector('main')!.getAttribute('aria-busy')).toBe('true');
  });

  it('looking up again (refresh): keeps the last candidates in place, dimmed, instead of a skeleton', async () => {
    const { root } = await showView(tabView({ status: 'looking-up', candidates: OPPENHEIMER }));
    expect(root.querySelector('.results.stale')).not.toBeNull();
    expect(root.querySelectorAll('a.candidate-link').length).toBe(5);
    expect(root.querySelector('.skeleton')).toBeNull();
  });

  it('done: candidates grouped by site, own sites first, the current site marked and last, the others folded', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER, fetchedAt: Date.now() - 3 * 60_000 }));
    expect(text(root.querySelector('#results-heading'))).toBe('4 torrents on 3 other sites');
    expect(text(root.querySelector('main > [role=status]'))).toBe('4 torrents on 3 other sites');
    const shown = [...root.querySelectorAll('.candidates > ul.sites > li.site')];
    expect(shown.map((site) => text(site.querySelector('.site-name')))).toEqual(['OurBits', 'PTerClub', 'HDSky']);
    // One group per site, all its torrents in it, each with a link and a copy button.
    const pter = shown[1]!;
    expect([...pter.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href)).toEqual([
      'https://site6.example/details.php?id=360102',
      'https://site6.example/details.php?id=360777',
    ]);
    expect(pter.querySelectorAll('button.copy').length).toBe(2);
    expect(pter.querySelector('a.candidate-link')!.getAttribute('aria-label')).toBe('PTerClub torrent 360102');
    expect(pter.querySelector('button.copy')!.getAttribute('aria-label')).toBe('Copy PTerClub #360102');
    // The current site's own entry: marked, last, still listed.
    const current = root.querySelector('li.site.current')!;
    expect(current).toBe(shown[2]);
    expect(text(current.querySelector('.tag'))).toBe('this site');
    // Sites the user is not on: folded under their own summary.
    const folded = root.querySelector('details.not-on')!;
    expect(folded.hasAttribute('open')).toBe(false);
    expect(text(folded.querySelector('summary'))).toBe('Sites you are not on (1)');
    expect(text(folded.querySelector('.site-name'))).toBe('HDHome');
    // The age of the answer, and refresh.
    expect(text(root.querySelector('.age'))).toContain('Answered 3 minutes ago');
    expect(root.querySelector<HTMLButtonElement>('button.refresh')!.disabled).toBe(false);
  });

  it('done: until the user picks their sites, every site is shown (nothing folded)', async () => {
    const unpicked = OPPENHEIMER.map(({ held: _held, ...rest }) => rest);
    const { root } = await showView(tabView({ candidates: unpicked }));
    expect(root.querySelector('details.not-on')).toBeNull();
    expect(root.querySelectorAll('li.site').length).toBe(4);
  });

  it('done from the cache: says the answer is a saved one', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER, fetchedAt: Date.now() - 2 * 3600_000, fromCache: true }));
    expect(text(root.querySelector('.age'))).toContain('Saved answer from 2 hours ago');
  });

  it('done with a corrected clock: says how far off the computer\'s clock is', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER, clockSkewSeconds: 125 }));
    expect(text(root.querySelector('.notice.warn .notice-title'))).toBe('Your computer\'s clock is 2 min 5 sec behind; the request was corrected.');
  });

  it('done without candidates: says no other site carries it', async () => {
    const { root } = await showView(tabView({ candidates: [] }));
    expect(text(root.querySelector('.notice.info .notice-title'))).toBe('No other site carries this torrent.');
    expect(root.querySelector('#results-heading')).toBeNull();
    expect(root.querySelector('a.candidate-link')).toBeNull();
  });

  it('done with only this site\'s own entries: no other site, and the own entry still listed', async () => {
    const { root } = await showView(tabView({ candidates: [candidate(4, 1, { siteName: 'HDSky', isCurrentSite: true })] }));
    expect(text(root.querySelector('.notice.info .notice-title'))).toBe('No other site carries this torrent.');
    expect(root.querySelectorAll('li.site.current').length).toBe(1);
    // Nothing to copy: "copy all links" lists other sites only.
    expect(root.querySelector('.results .section-head button.copy')).toBeNull();
  });

  it('a list page with many hashes: the first three shown, the rest folded, all copyable at once', async () => {
    const hashes = Array.from({ length: 5 }, (_, index) => ({ hash: String(index).repeat(40), source: 'magnet' as const }));
    const { root } = await showView(tabView({ hashes, candidates: [candidate(9, 1, { forHash: hashes[0]!.hash })] }));
    expect(text(root.querySelector('#hashes-heading'))).toBe('Info-hashes on this page (5)');
    expect(root.querySelectorAll('.hashes > ul .hash-value').length).toBe(3);
    expect(text(root.querySelector('.hashes details summary'))).toBe('2 more');
    expect(root.querySelectorAll('.hash-value').length).toBe(5);
    expect(text(root.querySelector('.hashes .section-head button.copy'))).toBe('Copy all hashes');
    // Several hashes: each candidate says which one it answers.
    expect(text(root.querySelector('li.torrent .for-hash'))).toBe('00000000');
  });
});

const FAILURES: [ServiceErrorKind, Partial<ServiceFailure>, { retry: boolean; settings: boolean }][] = [
  ['auth', { serviceMessage: 'token无效' }, { retry: false, settings: true }],
  ['not-bound', { serviceMessage: '用户未绑定推荐站点' }, { retry: false, settings: true }],
  ['stale-site-hash', { serviceMessage: '站点缓存哈希值无效' }, { retry: true, settings: false }],
  ['expired-timestamp', { clockOffsetSeconds: 400 }, { retry: true, settings: false }],
  ['bad-sign', {}, { retry: false, settings: true }],
  ['network', {}, { retry: true, settings: true }],
  ['timeout', {}, { retry: true, settings: false }],
  ['bad-answer', {}, { retry: true, settings: false }],
  ['bad-request', { serviceMessage: '参数错误' }, { retry: true, settings: true }],
  ['server', { httpStatus: 502 }, { retry: true, settings: false }],
];

describe('popup errors: what went wrong and what to do, for every kind', () => {
  it.each(FAILURES)('%s', async (kind, extra, offers) => {
    const error: ServiceFailure = { kind, detail: 'test', ...extra };
    const { root, background } = await showView(tabView({ status: 'error', error }));
    const notice = root.querySelector('.notice.error')!;
    expect(notice.getAttribute('role')).toBe('alert');
    expect(notice.getAttribute('data-kind')).toBe(kind);
    const { title, action } = describeFailure(error);
    expect(text(notice.querySelector('.notice-title'))).toBe(title);
    expect(text(notice.querySelector('.notice-action'))).toBe(action);
    if (extra.serviceMessage) expect(text(notice)).toContain(`The service said: “${extra.serviceMessage}”`);
    const buttons = [...notice.querySelectorAll('button')].map((button) => text(button));
    expect(buttons.includes('Try again')).toBe(offers.retry);
    expect(buttons.includes('Open settings')).toBe(offers.settings);
    if (offers.retry) {
      await click([...notice.querySelectorAll('button')].find((button) => text(button) === 'Try again'));
      expect(background.sentOf('view:refresh')).toEqual([{ type: 'view:refresh', tabId: TAB_ID }]);
    }
    if (offers.settings) {
      await click([...notice.querySelectorAll('button')].find((button) => text(button) === 'Open settings'));
      expect(fakeBrowser.runtime.openOptionsPage).toHaveBeenCalledTimes(1);
    }
  });

  it('rate limited: says when it tries again (time and countdown), offers no button, and asks again by itself', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const retryAt = Date.now() + 90_000;
      const error: ServiceFailure = { kind: 'rate-limited', detail: 'test', retryAt, httpStatus: 429 };
      const { root, background } = await showView(tabView({ status: 'error', error, retryAt }));
      const notice = root.querySelector('.notice.error')!;
      expect(text(notice.querySelector('.notice-title'))).toBe('Too many requests: the service asked us to slow down.');
      expect(text(notice.querySelector('.notice-action'))).toMatch(new RegExp(`^Reseed Lens will try again at ${formatTime(retryAt).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(in 1 min (29|30) sec\\)\\.$`));
      expect(notice.querySelectorAll('button').length).toBe(0);
      expect(background.sentOf('view:refresh')).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(91_000);
      expect(background.sentOf('view:refresh')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an error with an older answer: the answer is still shown, and the notice says it is the last saved one', async () => {
    const error: ServiceFailure = { kind: 'network', detail: 'offline' };
    const { root } = await showView(tabView({ status: 'error', error, candidates: OPPENHEIMER, fetchedAt: Date.now() - 7 * 3600_000 }));
    expect(text(root.querySelector('.notice.error'))).toContain('Showing the last saved answer meanwhile.');
    expect(root.querySelectorAll('a.candidate-link').length).toBe(5);
    expect(text(root.querySelector('.age'))).toContain('7 hours ago');
  });
});

describe('popup actions', () => {
  it('copies every other site\'s link at once, one per line', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }));
    const button = root.querySelector<HTMLButtonElement>('.results .section-head button.copy')!;
    expect(text(button)).toBe('Copy all links');
    await click(button);
    await waitFor(() => text(button).startsWith('Copied'), 'the copied state');
    expect(await navigator.clipboard.readText()).toBe(
      [
        'https://site9.example/details.php?id=220354',
        'https://site6.example/details.php?id=360102',
        'https://site6.example/details.php?id=360777',
        'https://site7.example/details.php?id=209512',
      ].join('\n'),
    );
  });

  it('copies the hash', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }));
    const button = root.querySelector('.hashes li.hash button.copy')!;
    expect(button.getAttribute('aria-label')).toBe(`Copy ${HASH}`);
    await click(button);
    expect(await navigator.clipboard.readText()).toBe(HASH);
    await waitFor(() => button.classList.contains('copied'), 'the check mark');
    expect(text(button.querySelector('[aria-live]'))).toBe('Copied');
  });

  it('opens all torrents of a site in background tabs', async () => {
    const create = vi.spyOn(fakeBrowser.tabs, 'create');
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }));
    const sites = [...root.querySelectorAll('li.site')];
    // Only where there is more than one torrent.
    expect(sites.filter((site) => site.querySelector('.open-all')).map((site) => text(site.querySelector('.site-name')))).toEqual(['PTerClub']);
    const openAll = root.querySelector('.open-all')!;
    expect(openAll.getAttribute('aria-label')).toBe('Open all torrents on PTerClub');
    await click(openAll);
    expect(create.mock.calls.map(([properties]) => properties)).toEqual([
      { url: 'https://site6.example/details.php?id=360102', active: false },
      { url: 'https://site6.example/details.php?id=360777', active: false },
    ]);
  });

  it('refresh asks the background again and shows the new answer', async () => {
    const background = answerBackground({
      'view:get': () => tabView({ candidates: OPPENHEIMER.slice(0, 1), fetchedAt: Date.now() - 3600_000 }),
      'view:refresh': () => announceView(tabView({ candidates: OPPENHEIMER, fetchedAt: Date.now() })),
    });
    const root = await show(popup());
    await waitFor(() => root.querySelector('button.refresh'), 'the refresh button');
    expect(root.querySelectorAll('a.candidate-link').length).toBe(1);
    await click(root.querySelector('button.refresh'));
    await waitFor(() => root.querySelectorAll('a.candidate-link').length === 5, 'the new answer');
    expect(background.sentOf('view:refresh')).toEqual([{ type: 'view:refresh', tabId: TAB_ID }]);
    expect(text(root.querySelector('.age'))).toContain('Answered now');
  });

  it('follows the background\'s view:changed for its own tab only', async () => {
    const { root } = await showView(tabView({ status: 'looking-up' }));
    await fakeBrowser.runtime.onMessage.trigger({ type: 'view:changed', view: tabView({ tabId: TAB_ID + 1, candidates: OPPENHEIMER }) }, {});
    await waitFor(() => root.querySelector('.notice.looking'), 'the unchanged view');
    await fakeBrowser.runtime.onMessage.trigger({ type: 'view:changed', view: tabView({ candidates: OPPENHEIMER }) }, {});
    await waitFor(() => root.querySelector('a.candidate-link'), 'the changed view');
    expect(root.querySelector('.notice.looking')).toBeNull();
  });

  it('pops out into a tab for this tab id, and closes the toolbar popup', async () => {
    const create = vi.spyOn(fakeBrowser.tabs, 'create');
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }), false);
    const button = root.querySelector('button.pop-out')!;
    expect(button.getAttribute('aria-label')).toBe('Open in a tab');
    await click(button);
    expect(create).toHaveBeenCalledWith({ url: `chrome-extension://${fakeBrowser.runtime.id}/popup.html?tabId=${TAB_ID}` });
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('popped out, there is no pop-out button; settings is always there', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }), true);
    expect(root.querySelector('button.pop-out')).toBeNull();
    expect(root.querySelector('button.settings')!.getAttribute('aria-label')).toBe('Settings');
  });

  it('every control can be reached by keyboard and has a name', async () => {
    const { root } = await showView(tabView({ candidates: OPPENHEIMER }), false);
    const controls = [...root.querySelectorAll<HTMLElement>('button, a[href], summary, input')];
    expect(controls.length).toBeGreaterThan(10);
    for (const control of controls) {
      expect(control.getAttribute('tabindex')).not.toBe('-1');
      const name = control.getAttribute('aria-label') ?? text(control);
      expect(name, control.outerHTML).not.toBe('');
    }
  });
});

describe('popup recommended sites', () => {
  it('lists the recommended sites with links to their home pages', async () => {
    answerBackground({
      'view:get': () => tabView({ candidates: OPPENHEIMER }),
      'recommended:get': () => ({
        count: 2,
        sites: [
          { sid: 9, site: 'ourbits', nickname: 'OurBits', homeUrl: 'https://ourbits.club/' },
          { sid: 99, site: 'nohome', nickname: 'No Home' },
        ],
      }),
    });
    const root = await show(popup());
    await waitFor(() => root.querySelector('.recommended-list'), 'the recommended sites');
    expect(text(root.querySelector('#recommended-heading'))).toBe('Recommended sites (2)');
    expect([...root.querySelectorAll<HTMLAnchorElement>('.recommended-list a')].map((a) => [a.textContent, a.href])).toEqual([['OurBits', 'https://ourbits.club/']]);
    expect(text(root.querySelector('.recommended-list'))).toContain('No Home');
  });
});

describe('popup in Chinese', () => {
  it('speaks Chinese throughout', async () => {
    resetBrowser('zh_CN');
    const { root } = await showView(tabView({ candidates: OPPENHEIMER, fetchedAt: Date.now() - 60_000 }));
    expect(text(root.querySelector('#results-heading'))).toBe('其他 3 个站点共 4 个种子');
    expect(text(root.querySelector('details.not-on summary'))).toBe('你未加入的站点 (1)');
    expect(text(root.querySelector('li.site.current .tag'))).toBe('本站');
    expect(text(root.querySelector('.results .section-head button.copy'))).toBe('复制全部链接');
    expect(text(root.querySelector('.age .muted'))).toBe('查询时间：1分钟前');
    expect(text(root.querySelector('button.refresh'))).toBe('刷新');
  });
});
