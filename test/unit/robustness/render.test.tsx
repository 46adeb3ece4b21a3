/**
 * What a hostile service's words become on screen: the real popup and panel components rendered
 * (happy-dom) from views the background made against the reference service. Markup in a site's
 * nickname or in the service's message is shown as text and creates no element; a rate limit says
 * when it retries; a skewed clock says by how much; a bad answer shows nothing of itself.
 */
import { Window } from 'happy-dom';
import { render } from 'preact';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Panel } from '../../../features/lookup/ui/Panel';
import { Popup } from '../../../entrypoints/popup/PopupApp';
import type { BackgroundApp } from '../../../entrypoints/background/app';
import { routeMessage } from '../../../entrypoints/background/router';
import { formatDuration, formatTime, t } from '../../../utils/i18n';
import type { TabView } from '../../../features/lookup/lookup.messages';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { installI18n } from '../support/i18n';
import {
  LOOKUP_PATH,
  SITES_PATH,
  TestClock,
  expectSafeLink,
  hashOn,
  linkRules,
  makeApp,
  readingOf,
  reportBadInputs,
  storeSettings,
  tried,
} from './support';

const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
const HOSTILE_MESSAGE = '<script>alert(2)</script><b onmouseover=alert(3)>token无效吗</b>';
/** Elements the service's text would become if it were ever parsed as HTML (none of them is ours). */
const FOREIGN_ELEMENTS = 'img, script, b, iframe, object, embed, style, link, meta, form';

let service: ReferenceService;
let clock: TestClock;
let app: BackgroundApp;
let window: Window;
let root: HTMLElement;

const extension = { id: fakeBrowser.runtime.id, origin: 'chrome-extension://test-extension-id/' };
const popupSender = { id: extension.id, url: `${extension.origin}popup.html` };

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('zh_CN'); // Chinese readers see the service's own nicknames
  service.control.reset();
  clock = new TestClock(service);
  await storeSettings({ baseUrl: service.url, token: DEMO_TOKEN });
  // No test here is about a slow service: a generous timeout, so a loaded machine's slow answer is not retried into another.
  app = makeApp(clock, { timeoutMs: 10_000 });
  // The popup's messages reach the background as they would from an extension page.
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => routeMessage(app, message, popupSender, extension));
  window = new Window({ url: `${extension.origin}popup.html` });
  root = window.document.createElement('div') as unknown as HTMLElement;
  window.document.body.append(root as never);
});
afterEach(async () => {
  render(null, root);
  await window.happyDOM.close();
});

reportBadInputs('rendering', 8);

async function until<T>(read: () => T | null | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the page shows: ${root.textContent}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function pageView(hash: string): Promise<TabView> {
  return app.pages.onPageReading(7, `https://hdsky.me/details.php?id=${hashOn(service, 'hdsky').torrentId}`, readingOf([hash]));
}

function renderPopup(tabId: number): void {
  render(<Popup tabId={tabId} poppedOut />, root);
}

function renderPanel(view: TabView): void {
  render(<Panel view={view} mode="inline" onHideOnSite={() => {}} onHashFromTorrent={() => {}} onRefresh={() => {}} onCrossSeed={() => {}} />, root);
}

/** Nothing the service said became an element, an event handler or a link of its own. */
function expectOnlyText(rules = linkRules(service.data.sites)): void {
  expect(root.querySelectorAll(FOREIGN_ELEMENTS).length, root.innerHTML).toBe(0);
  for (const element of root.querySelectorAll('*')) {
    for (const attribute of element.getAttributeNames()) expect(attribute, element.outerHTML).not.toMatch(/^on/i);
  }
  for (const anchor of root.querySelectorAll('a')) {
    const href = anchor.getAttribute('href') ?? '';
    // The web, or one of the extension's own pages (the popup links to the options page).
    expect(href.startsWith(extension.origin) || /^https?:\/\//.test(href), href).toBe(true);
    // The panel shows the id as generated content (data-text), the popup as text.
    if (anchor.classList.contains('candidate-link')) expectSafeLink(href, Number((anchor.getAttribute('data-text') ?? anchor.textContent!).replace('#', '')), rules);
  }
}

describe('markup from the service stays text', () => {
  it('(the check can fail: the same strings parsed as HTML do make elements)', () => {
    root.innerHTML = `<span>${HOSTILE_NAME}</span><p>${HOSTILE_MESSAGE}</p>`;
    expect(root.querySelectorAll(FOREIGN_ELEMENTS).length).toBe(3);
    root.innerHTML = '';
  });

  it('site nicknames with markup (site list and recommended list) show as text in the popup and the panel', async () => {
    const sites = service.data.sites.map((site) => ({ ...site, nickname: `${site.nickname}${HOSTILE_NAME}` }));
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { sites } }) }, 1, SITES_PATH);
    service.control.badBody('markup', 1, '/reseed/sites/recommend');
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried(sites.length + service.data.recommend.length);
    expect(view.status).toBe('done');
    expect(view.candidates.every((candidate) => candidate.siteName.endsWith(HOSTILE_NAME))).toBe(true);

    renderPopup(view.tabId);
    await until(() => root.querySelector('a.candidate-link'), 'the candidates');
    await until(() => root.querySelector('.recommended-list li'), 'the recommended sites');
    expect(root.querySelectorAll('a.candidate-link').length).toBe(view.candidates.length);
    expect(root.querySelector('.site-name')!.textContent).toContain(HOSTILE_NAME);
    expect(root.querySelector('.recommended-list li')!.textContent).toContain(HOSTILE_NAME);
    expectOnlyText();

    render(null, root);
    renderPanel(view);
    // The panel holds site names as generated content: an attribute, which markup cannot break out of.
    expect(root.querySelector('.site-name')!.getAttribute('data-text')).toContain(HOSTILE_NAME);
    expectOnlyText();
  });

  it("the service's message with markup is quoted as text in the failure notice", async () => {
    service.control.rawAnswer({ body: JSON.stringify({ code: 400, msg: HOSTILE_MESSAGE, data: [] }) }, 1, LOOKUP_PATH);
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried();
    expect(view.status).toBe('error');
    expect(view.error?.serviceMessage).toBe(HOSTILE_MESSAGE);

    renderPopup(view.tabId);
    const notice = await until(() => root.querySelector('.notice.error'), 'the failure notice');
    expect(notice.querySelector('.raw')!.textContent).toContain(HOSTILE_MESSAGE);
    expectOnlyText();

    render(null, root);
    renderPanel(view);
    expect(root.querySelector('.notice.error')).not.toBeNull();
    expectOnlyText();
  });

  it('an HTML page instead of an answer shows the bad-answer notice and nothing of the page', async () => {
    service.control.badBody('html', 1, LOOKUP_PATH);
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried();
    renderPopup(view.tabId);
    const notice = await until(() => root.querySelector('.notice.error'), 'the failure notice');
    expect(notice.getAttribute('data-kind')).toBe('bad-answer');
    expect(notice.textContent).toContain(t('errBadAnswer'));
    expect(root.textContent).not.toMatch(/Just a moment|Checking your browser/);
    expectOnlyText();
  });
});

describe('what the user is told', () => {
  it('a rate limit says at what time it will try again', async () => {
    service.control.forceStatus(429, 1, { headers: { 'Retry-After': '45' } });
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried();
    expect(view.error?.kind).toBe('rate-limited');
    renderPopup(view.tabId);
    const notice = await until(() => root.querySelector('.notice.error'), 'the failure notice');
    expect(notice.textContent).toContain(t('errRateLimited'));
    expect(notice.querySelector('.notice-action')!.textContent).toContain(formatTime(view.retryAt!));
  });

  it('a corrected clock is named, with by how much and which way', async () => {
    service.control.clockSkewSeconds = 7200;
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried();
    expect(view.status).toBe('done');
    const skew = view.clockSkewSeconds!;
    expect(Math.abs(skew - 7200)).toBeLessThanOrEqual(2);
    renderPopup(view.tabId);
    const notice = await until(() => root.querySelector('.notice.warn'), 'the clock notice');
    expect(notice.textContent).toBe(t('clockCorrected', formatDuration(skew), t('clockBehind')));
    expect(root.querySelectorAll('a.candidate-link').length).toBe(view.candidates.length);
  });

  it('a refused timestamp names the offset in the failure notice', async () => {
    const ahead = new Date(Date.now() - 3 * 3600_000).toUTCString();
    service.control.rawAnswer({ headers: { Date: ahead }, body: JSON.stringify({ code: 400, msg: '时间戳已过期', data: [] }) }, 2, LOOKUP_PATH);
    const view = await pageView(hashOn(service, 'hdsky').hash);
    tried(2);
    expect(view.error?.kind).toBe('expired-timestamp');
    renderPanel(view);
    const notice = root.querySelector('.notice.error')!.textContent!;
    expect(notice).toContain(t('actClockOffBy', formatDuration(view.error!.clockOffsetSeconds!), t('clockAhead')));
    expect(view.error!.clockOffsetSeconds).toBeLessThan(-3 * 3600 + 5);
  });
});
