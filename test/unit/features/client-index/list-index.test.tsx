// @vitest-environment happy-dom
/**
 * The popup on a list page (features/client-index/ui/ListIndex.tsx inside the popup): what the index says about
 * the page's rows, "Cross-seed" on a row (which sends the row's id only), the row-marks switch and
 * what it tells the user, in English and Chinese. The background is answered through the fake
 * browser's messaging; the feature behind it is tested in test/unit/features/client-index/client-index.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Popup } from '../../../../entrypoints/popup/PopupApp';
import type { IndexCrossSeedAnswer, IndexPageAnswer, IndexRowView } from '../../../../features/client-index/client-index.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { TAB_ID, answerBackground, click, resetBrowser, show, tabView, unmount, waitFor } from '../../support/components';

const SOURCE: IndexRowView['clientTorrent'] = { hash: 'a'.repeat(40), name: 'Night.Harbor.2021.1080p.BluRay.x264-GRP', savePath: '/data/movies', state: 'seeding', progress: 1, size: 8_000_000_000 };
const listView = (extra: Partial<TabView> = {}): TabView =>
  tabView({
    url: 'https://ourbits.club/torrents.php?search=Night+Harbor',
    host: 'ourbits.club',
    siteName: 'OurBits',
    status: 'no-hash',
    problem: 'site-gives-no-hash',
    kind: 'list',
    hashes: [],
    rows: [
      { id: '71001', title: 'Night.Harbor.2021.1080p.BluRay' },
      { id: '71002', title: 'Night.Harbor.2021.2160p.UHD.BluRay' },
      { id: '70950', title: 'Night.Harbor.2021.720p.WEB-DL' },
      { id: '70877' },
    ],
    ...extra,
  });

const row = (id: string, title?: string, torrent = SOURCE): IndexRowView => ({ id, ...(title && { title }), clientTorrent: torrent });
const answered = (extra: Partial<Extract<IndexPageAnswer, { state: 'answered' }>> = {}): IndexPageAnswer => ({
  state: 'answered',
  host: 'ourbits.club',
  siteName: 'OurBits',
  rows: 4,
  inClient: [row('70950', 'Night.Harbor.2021.720p.WEB-DL', { ...SOURCE, hash: 'b'.repeat(40), name: 'Night.Harbor.720p', state: 'paused' })],
  canCrossSeed: [row('71001', 'Night.Harbor.2021.1080p.BluRay'), row('70877')],
  marks: false,
  empty: false,
  ...extra,
});

beforeEach(() => {
  resetBrowser('en');
  (fakeBrowser.runtime as { openOptionsPage: () => Promise<void> }).openOptionsPage = vi.fn(async () => undefined);
});
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

const texts = (root: HTMLElement, selector: string) => [...root.querySelectorAll(selector)].map((element) => element.textContent?.replace(/\s+/g, ' ').trim());

describe('the popup on a list page', () => {
  it('lists the rows to cross-seed, each with "Cross-seed", and those already in the client', async () => {
    const background = answerBackground({ 'view:get': () => listView(), 'index:page': () => answered() });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.list-index[data-state=answered]'), 'the index section');
    expect(root.querySelector('#index-cross-seed-heading')?.textContent).toBe('Can cross-seed on this page (2)');
    expect(texts(root, 'ul.can-cross-seed .index-row-title')).toEqual(['Night.Harbor.2021.1080p.BluRay', 'Torrent #70877']);
    expect(texts(root, 'ul.can-cross-seed .index-source')).toEqual([`From ${SOURCE.name} · /data/movies`, `From ${SOURCE.name} · /data/movies`]);
    expect(texts(root, 'ul.can-cross-seed button')).toEqual(['Cross-seed', 'Cross-seed']);
    expect(texts(root, '.index-in-client summary')).toEqual(['Already in your client (1)']);
    expect(texts(root, 'ul.in-client li')).toEqual(['Night.Harbor.2021.720p.WEB-DL · paused']);
    expect(background.sentOf('index:page')).toEqual([{ type: 'index:page', tabId: TAB_ID }]);
  });

  it('with several clients: each row says which client holds its data and where its copy would go, which clients hold a row, and a row whose copy can go nowhere says why, without a button', async () => {
    const several = answered({
      canCrossSeed: [
        { ...row('71001', 'Night.Harbor.2021.1080p.BluRay'), from: 'NAS', into: { name: 'Seedbox', savePath: '/mnt/nas/movies', viaPair: true } },
        { ...row('70877'), from: 'Seedbox', into: { name: 'Seedbox', savePath: '/data/movies', viaPair: false } },
      ],
      inClient: [{ ...row('70950', 'Night.Harbor.2021.720p.WEB-DL', { ...SOURCE, hash: 'b'.repeat(40), state: 'paused' }), heldBy: ['NAS', 'Seedbox'] }],
      refused: [{ ...row('71002', 'Night.Harbor.2021.2160p.UHD.BluRay'), from: 'Archive', refused: { kind: 'read-only', clientName: 'Archive' } }],
    });
    answerBackground({ 'view:get': () => listView(), 'index:page': () => several });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.list-index[data-state=answered]'), 'the index section');
    expect(root.querySelector('#index-cross-seed-heading')?.textContent).toBe('Can cross-seed on this page (2)');
    expect(texts(root, 'ul.can-cross-seed .index-route')).toEqual(['from NAS → Seedbox, at /mnt/nas/movies', 'from Seedbox → Seedbox']);
    expect([...root.querySelectorAll('ul.can-cross-seed .index-route')].map((route) => [route.getAttribute('data-from'), route.getAttribute('data-into')])).toEqual([
      ['NAS', 'Seedbox'],
      ['Seedbox', 'Seedbox'],
    ]);
    expect(texts(root, 'ul.can-cross-seed button')).toEqual(['Cross-seed', 'Cross-seed']);
    expect(texts(root, 'ul.in-client li')).toEqual(['Night.Harbor.2021.720p.WEB-DL · paused · in NAS, Seedbox']);
    expect(texts(root, '.index-refused summary')).toEqual(['Data held, but its copy can go nowhere (1)']);
    expect(texts(root, 'ul.refused li .index-route')).toEqual(['from Archive']);
    expect(texts(root, 'ul.refused li .index-outcome')).toEqual(['Archive only reads: nothing is added to it. To cross-seed its torrents, choose where their copies go under “Copies go to” in the settings.']);
    expect(root.querySelectorAll('ul.refused button')).toHaveLength(0);
  });

  it('"Cross-seed" sends the row\'s id alone, shows the work, then the result; the row stays with it, in the client now', async () => {
    let release: (answer: IndexCrossSeedAnswer) => void = () => undefined;
    const background = answerBackground({
      'view:get': () => listView(),
      'index:page': () => answered(),
      'index:cross-seed': () => new Promise<IndexCrossSeedAnswer>((resolve) => (release = resolve)),
    });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const button = await waitFor(() => root.querySelector('li[data-row-id="71001"] button'), 'the button');
    await click(button);
    expect(background.sentOf('index:cross-seed')).toEqual([{ type: 'index:cross-seed', tabId: TAB_ID, rowId: '71001' }]);
    expect(button.textContent).toBe('Cross-seeding…');
    expect((button as HTMLButtonElement).disabled).toBe(true);
    release({
      result: { kind: 'added', hash: 'c'.repeat(40), savePath: '/data/movies', client: 'qbittorrent', checked: true, state: 'seeding', progress: 1 },
      siteName: 'OurBits',
      page: answered({ canCrossSeed: [row('70877')], inClient: [...(answered() as { inClient: IndexRowView[] }).inClient, row('71001', 'Night.Harbor.2021.1080p.BluRay')] }),
    });
    await waitFor(() => root.querySelector('li[data-row-id="71001"] .index-outcome.ok'), 'the result');
    expect(root.querySelector('li[data-row-id="71001"] .index-outcome')?.textContent).toBe('Added to qBittorrent, seeding: its check found every file on disk.');
    expect(root.querySelector('li[data-row-id="71001"] button')).toBeNull();
    expect(root.querySelector('#index-cross-seed-heading')?.textContent).toBe('Can cross-seed on this page (1)');
  });

  it('a cross-seed that failed says why in the site\'s name, and the button stays to try again', async () => {
    answerBackground({
      'view:get': () => listView(),
      'index:page': () => answered(),
      'index:cross-seed': () => ({ result: { kind: 'not-logged-in', evidence: 'login-page' }, siteName: 'OurBits', page: answered() }),
    });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await click(await waitFor(() => root.querySelector('li[data-row-id="70877"] button'), 'the button'));
    await waitFor(() => root.querySelector('li[data-row-id="70877"] .index-outcome.problem'), 'the failure');
    expect(root.querySelector('li[data-row-id="70877"] .index-outcome')?.textContent).toBe('OurBits answered with its login page: log in to OurBits, then try again.');
    expect(root.querySelector('li[data-row-id="70877"] button')?.textContent).toBe('Cross-seed');
  });

  it('a download the browser refused for the site: "Allow downloads from …" asks within that click, then cross-seeds the row again', async () => {
    const answers: IndexCrossSeedAnswer[] = [
      { result: { kind: 'no-permission', for: 'site', origin: 'https://ourbits.club' }, siteName: 'OurBits', page: answered() },
      {
        result: { kind: 'added', client: 'qbittorrent', hash: 'c'.repeat(40), savePath: '/data/movies', checked: true, state: 'seeding', progress: 1 },
        siteName: 'OurBits',
        page: answered({ canCrossSeed: [row('71001', 'Night.Harbor.2021.1080p.BluRay')], inClient: [...(answered() as { inClient: IndexRowView[] }).inClient, row('70877')] }),
      },
    ];
    const background = answerBackground({ 'view:get': () => listView(), 'index:page': () => answered(), 'index:cross-seed': () => answers.shift()! });
    const request = vi.spyOn(fakeBrowser.permissions, 'request').mockImplementation(async () => true);
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await click(await waitFor(() => root.querySelector('li[data-row-id="70877"] button.index-cross-seed'), 'the button'));
    const allow = await waitFor(() => root.querySelector<HTMLButtonElement>('li[data-row-id="70877"] button.allow-site'), 'the allow button');
    expect(root.querySelector('li[data-row-id="70877"] .index-outcome')?.textContent).toBe('Reseed Lens needs your permission to download from OurBits.');
    expect(allow.textContent).toBe('Allow downloads from OurBits and try again');
    await click(allow);
    expect(request).toHaveBeenCalledWith({ origins: ['https://ourbits.club/*'] });
    await waitFor(() => background.sentOf('index:cross-seed').length === 2, 'the cross-seed again');
    expect(background.sentOf('index:cross-seed')[1]).toEqual({ type: 'index:cross-seed', tabId: TAB_ID, rowId: '70877' });
    await waitFor(() => root.querySelector('li[data-row-id="70877"] .index-outcome.ok'), 'the outcome');
    expect(root.querySelector('li[data-row-id="70877"] button.allow-site')).toBeNull();
  });

  it('the marks switch is off, says what the site learns from marks, and turns them on for this site', async () => {
    const background = answerBackground({ 'view:get': () => listView(), 'index:page': () => answered(), 'index:row-marks': (request) => answered({ marks: request.on }) });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    const box = await waitFor(() => root.querySelector<HTMLInputElement>('#index-row-marks'), 'the switch');
    expect(box.checked).toBe(false);
    expect(root.querySelector('label.index-marks')?.textContent).toBe("Show marks in this site's pages");
    expect(root.querySelector('#index-marks-warning')?.textContent).toBe('The marks sit in the page itself, so OurBits’s own scripts can see them: a “Can cross-seed” mark tells the tracker that you hold the data from another site.');
    await click(box);
    await waitFor(() => root.querySelector<HTMLInputElement>('#index-row-marks:checked'), 'the switch on');
    expect(background.sentOf('index:row-marks')).toEqual([{ type: 'index:row-marks', tabId: TAB_ID, on: true }]);
  });

  it('off, no client, not synced yet: each said in words', async () => {
    let answer: IndexPageAnswer = { state: 'off' };
    answerBackground({ 'view:get': () => listView(), 'index:page': () => answer });
    let root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.list-index'), 'the section');
    expect(root.querySelector('.list-index')?.textContent).toBe('Turn on the index of your client in the settings to see which torrents on this page you can cross-seed. · Open settings');
    await unmount();
    answer = { state: 'no-client' };
    root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.list-index[data-state=no-client]'), 'the section');
    await unmount();
    answer = answered({ empty: true, canCrossSeed: [], inClient: [] });
    root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.index-empty'), 'the empty note');
    expect(root.querySelector('.index-empty')?.textContent).toBe('The index of your client has no answers yet: it fills in with its first sync. Open settings');
  });

  it('on a details page it asks nothing and shows nothing', async () => {
    const background = answerBackground({ 'view:get': () => tabView(), 'client:status': () => ({ state: 'no-client' }) });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.hash-value'), 'the details view');
    expect(root.querySelector('.list-index')).toBeNull();
    expect(background.sentOf('index:page')).toEqual([]);
  });

  it('in Chinese', async () => {
    resetBrowser('zh_CN');
    answerBackground({ 'view:get': () => listView(), 'index:page': () => answered() });
    const root = await show(<Popup tabId={TAB_ID} poppedOut />);
    await waitFor(() => root.querySelector('.list-index[data-state=answered]'), 'the index section');
    expect(root.querySelector('#index-cross-seed-heading')?.textContent).toBe('本页可辅种（2）');
    expect(texts(root, 'ul.can-cross-seed button')).toEqual(['辅种', '辅种']);
    expect(texts(root, '.index-in-client summary')).toEqual(['已在下载器中（1）']);
    expect(root.querySelector('label.index-marks')?.textContent).toBe('在此站点的页面中显示标记');
    expect(root.querySelector('#index-marks-warning')?.textContent).toBe('标记位于页面之中，OurBits 自身的脚本可以看到它们：“可辅种”标记会让该站点知道你从其他站点获得了这些数据。');
  });
});
