/**
 * The Chinese UI, as a Chinese PT user meets it: Chromium under --lang=zh-CN and Firefox ESR with
 * its zh-CN language pack (firefox-esr-l10n-zh-cn). The popup and the in-page panel speak Chinese,
 * sites go by their Chinese nicknames, and no English message slips through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { inPanel } from './support/shadow';
import { until } from './support/wait';
import { SERVICE_BASE_URL, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type TrackerTorrent, type World } from './world';

afterAll(closeAllBrowsers);

/** English words of our messages that must not show in the Chinese UI. */
const ENGLISH = ['torrents', 'Refresh', 'Copy', 'Settings', 'Answered', 'Saved answer', 'Info-hashes', 'Recommended', 'Sites you are not on', 'other sites', 'Hide on this site', 'Set your IYUU token'];


interface PanelWords {
  summary: string;
  names: string[];
  buttons: string[];
  /** All the words the panel shows: its text and its generated content. */
  shown: string;
}

/** Runs in the page with `root` = the panel's closed shadow root (handed over by the automation protocol). */
function panelWords(root: ShadowRoot): PanelWords {
  return {
    summary: root.querySelector('.panel-summary')?.getAttribute('data-text') ?? '',
    names: [...root.querySelectorAll('.site-name')].map((name) => name.getAttribute('data-text') ?? ''),
    buttons: [...root.querySelectorAll('.panel-foot button')].map((button) => button.textContent ?? ''),
    shown: [root.querySelector('.rl-root')?.textContent, ...[...root.querySelectorAll('[data-text]')].map((element) => element.getAttribute('data-text'))].join(' '),
  };
}

/** Reads the panel through the browser's automation protocol, which alone reaches a closed shadow root. */
const readPanel = (page: HarnessPage) => inPanel(page, panelWords);

describe.each(BROWSER_KINDS)('%s in Chinese (zh-CN)', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  let torrent: TrackerTorrent;
  /** The Chinese nicknames (the service's) of the sites carrying the torrent elsewhere. */
  let nicknames: string[];

  beforeAll(async () => {
    world = await startWorld();
    torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    const hosts = expectedLinks(world.service, torrent.hash).map((link) => new URL(link).host);
    nicknames = world.service.data.sites
      .filter((site) => hosts.some((host) => host === site.base_url || (site.site === 'm-team' && host === 'kp.m-team.cc')))
      .map((site) => site.nickname ?? site.site);
    world.router.setHost('hdsky.me', { '/details.php': nexusDetailsPage(torrent) });
    browser = await launchBrowser(kind, { proxyPort: world.router.port, lang: 'zh-CN' });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  async function trackerTab(marker: string): Promise<{ page: HarnessPage; tabId: number }> {
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}&${marker}`);
    return { page, tabId: await browser.tabIdOf(marker) };
  }

  it('the popup without a token: the warning and its button in Chinese', async () => {
    const { page, tabId } = await trackerTab('notoken=1');
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('.notice.warn');
    expect(await popup.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await popup.title()).toBe('Reseed Lens 辅种透镜');
    expect(await popup.textContent('.notice.warn .notice-title')).toBe('设置 IYUU Token 后即可查询此种子。');
    expect(await popup.textContent('.notice.warn button')).toBe('打开设置');
    expect(await popup.textContent('#hashes-heading')).toBe('本页的 Hash（1）');
    await popup.close();
    await page.close();
  });

  it('the popup with an answer: headings, site nicknames, actions and labels in Chinese', async () => {
    const update = { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, askedForSites: true };
    await browser.evaluateInExtension((api, values) => api.runtime.sendMessage({ type: 'settings:save', update: values }), update);
    const { page, tabId } = await trackerTab('answer=1');
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('a.candidate-link');
    await popup.waitForSelector('.recommended-list a');
    const shown = await popup.evaluate(() => ({
      heading: document.querySelector('#results-heading')?.textContent,
      names: [...document.querySelectorAll('li.site .site-name')].map((name) => name.textContent ?? ''),
      copyAll: document.querySelector('.results .section-head button.copy')?.textContent,
      copyHash: document.querySelector('.hashes button.copy')?.getAttribute('aria-label'),
      age: document.querySelector('.age .muted')?.textContent,
      refresh: document.querySelector('button.refresh')?.textContent,
      settings: document.querySelector('button.settings')?.getAttribute('aria-label'),
      recommended: document.querySelector('#recommended-heading')?.textContent,
      text: document.body.innerText,
    }));
    const count = expectedLinks(world.service, torrent.hash).length;
    expect(shown.heading).toBe(`其他 ${count} 个站点共 ${count} 个种子`);
    expect([...shown.names].sort()).toEqual([...nicknames].sort());
    expect(shown.copyAll).toBe('复制全部链接');
    expect(shown.copyHash).toBe(`复制 ${torrent.hash}`);
    expect(shown.age).toMatch(/^(查询时间|缓存结果，查询时间)：/);
    expect(shown.refresh).toBe('刷新');
    expect(shown.settings).toBe('设置');
    expect(shown.recommended).toMatch(/^推荐站点（\d+）$/);
    for (const word of ENGLISH) expect(shown.text).not.toContain(word);
    await popup.close();
    await page.close();
  });

  it('the in-page panel in Chinese', async () => {
    const { page } = await trackerTab('panel=1');
    const panel = await until(() => readPanel(page), (words) => !!words?.summary.startsWith('其他'), 'the panel\'s answer');
    const count = expectedLinks(world.service, torrent.hash).length;
    expect(panel!.summary).toBe(`其他 ${count} 个站点共 ${count} 个种子`);
    expect([...panel!.names].sort()).toEqual([...nicknames].sort());
    expect(panel!.buttons).toEqual(['刷新', '在此站点隐藏']);
    expect(panel!.shown).toContain('Reseed Lens 辅种透镜');
    for (const word of ENGLISH) expect(panel!.shown).not.toContain(word);
    await page.close();
  });

  // A fresh machine without a CJK font draws every Chinese character as the same empty box (the
  // demo's screenshots showed boxes). Two different characters drawn alike means no font has them.
  // (Chromium only: the demo and the screenshots use it.)
  if (kind === 'chromium') it('draws Chinese characters with real glyphs (a CJK font is installed)', async () => {
    const popup = await browser.openExtensionPage('popup.html');
    const drawn = await popup.evaluate(() => {
      const pixels = (text: string) => {
        const canvas = document.createElement('canvas');
        canvas.width = 48;
        canvas.height = 48;
        const context = canvas.getContext('2d')!;
        context.font = '32px sans-serif';
        context.fillText(text, 4, 38);
        return Array.from(context.getImageData(0, 0, 48, 48).data).join(',');
      };
      const blank = pixels('');
      return { seed: pixels('种'), child: pixels('子'), blank };
    });
    expect(drawn.seed).not.toBe(drawn.blank);
    expect(drawn.child).not.toBe(drawn.blank);
    expect(drawn.seed).not.toBe(drawn.child);
    await popup.close();
  });
});
