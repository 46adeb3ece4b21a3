/**
 * The options page as a person uses it, in Chromium (English) and in Firefox ESR (Chinese), against
 * the reference service answering as 2025.iyuu.cn: bind a new token with a site account (only the
 * passkey's SHA-1 goes out), pick one's own sites (the next site report carries only those), and
 * back the settings up and restore them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page as PlaywrightPage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage, type RecordedRequest } from './harness/index.ts';
import { DEMO_UNBOUND_TOKEN } from '../service/server';
import { SERVICE_BASE_URL, SERVICE_HOST, nexusDetailsPage, startWorld, torrentOn, type World } from './world';
import { importFile } from './support/import-file';
import { waitFor } from './support/wait';
import { uiText } from './support/messages';

afterAll(closeAllBrowsers);


const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** Everything a request carried, as one string to search. */
const everything = (request: RecordedRequest) => `${request.url}\n${JSON.stringify(request.headers)}\n${request.body}`;

/** The sid_list of a site report, in the order sent (form fields sid_list[0]=…, or JSON). */
function reportedSids(request: RecordedRequest): string[] {
  if (request.body.trim().startsWith('{')) return ((JSON.parse(request.body) as { sid_list: unknown[] }).sid_list ?? []).map(String);
  return [...new URLSearchParams(request.body)].filter(([key]) => /^sid_list(\[\d*\])?$/.test(key)).map(([, value]) => value);
}

async function stored(browser: HarnessBrowser): Promise<Record<string, unknown>> {
  return browser.evaluateInExtension(async (api) => ((await api.storage.local.get('settings')).settings ?? {}) as Record<string, unknown>);
}

/**
 * Brings the page back in front of the helper tab evaluateInExtension uses: a hidden tab gets no
 * animation frames in Firefox, and Puppeteer waits for those before it types or clicks.
 */
async function inFront(page: HarnessPage): Promise<HarnessPage> {
  await page.bringToFront();
  return page;
}

/** Clicks Export and returns the file the browser was handed (Chromium: the real download). */
async function exportFile(options: HarnessPage): Promise<string> {
  if (options.kind === 'chromium') {
    const raw = options.raw as PlaywrightPage;
    const [download] = await Promise.all([raw.waitForEvent('download'), options.click('#export')]);
    expect(download.suggestedFilename()).toMatch(/^reseed-lens-settings-\d{4}-\d{2}-\d{2}\.json$/);
    const path = await download.path();
    return readFileSync(path, 'utf8');
  }
  // Firefox would save into the home directory: keep the file the page makes, and stop the download.
  await options.evaluate(() => {
    const page = window as unknown as { exportedFiles?: Promise<string>[] };
    if (page.exportedFiles) return;
    page.exportedFiles = [];
    const create = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (blob: Blob | MediaSource) => {
      page.exportedFiles!.push((blob as Blob).text());
      return create(blob);
    };
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (!this.download) click.call(this);
    };
  });
  const before = await options.evaluate(() => (window as unknown as { exportedFiles: unknown[] }).exportedFiles.length);
  await options.click('#export');
  await options.waitForSelector('#export-status.ok');
  return options.evaluate((index) => (window as unknown as { exportedFiles: Promise<string>[] }).exportedFiles[index]!, before);
}

describe.each(BROWSER_KINDS)('%s: the options page', (kind) => {
  // One language per browser keeps to one launch per browser: Firefox shows the Chinese page.
  const lang = kind === 'firefox' ? 'zh-CN' : 'en';
  const text = uiText(lang);
  let world: World;
  let browser: HarnessBrowser;
  let options: HarnessPage;

  beforeAll(async () => {
    world = await startWorld();
    const torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    world.router.setHost('hdsky.me', { [`/details.php?id=${torrent.torrentId}`]: nexusDetailsPage(torrent) });
    browser = await launchBrowser(kind, { proxyPort: world.router.port, lang });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('shows a new token as not bound, binds it with only the SHA-1 of the passkey, then shows it activated', async () => {
    options = await browser.openExtensionPage('options.html');
    await options.fill('#baseUrl', SERVICE_BASE_URL);
    await options.fill('#token', DEMO_UNBOUND_TOKEN);
    await options.click('#save');
    await options.waitForSelector('.status.ok');
    await options.waitForSelector('.token-unbound');
    expect(await options.textContent('.token-unbound')).toContain(text('tokenNotBound'));

    const account = world.service.data.accounts.find((entry) => entry.site === 'hdhome' && entry.user_id === '120087')!;
    const sid = world.service.data.recommend.find((entry) => entry.site === account.site)!.id;
    await options.waitForSelector(`#bind-site option[value="${sid}"]`);
    expect(await options.textContent('#bind-passkey-hint')).toBe(text('bindPasskeyPrivacy'));
    await options.select('#bind-site', String(sid));
    await options.fill('#bind-user-id', account.user_id);
    await options.fill('#bind-passkey', account.passkey);
    await options.click('#bind');
    await options.waitForSelector('#bind-result.ok');
    expect(await options.textContent('#bind-result .notice-title')).toBe(text('bindOk'));
    await options.waitForSelector('.token-activated');
    expect(await options.textContent('.token-activated')).toContain(text('tokenActivated'));

    const binds = world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/users/bind');
    expect(binds).toHaveLength(1);
    const form = new URLSearchParams(binds[0]!.body);
    expect(form.get('passkey')).toBe(sha1(account.passkey));
    expect(form.get('id')).toBe(account.user_id);
    expect(form.get('sid')).toBe(String(sid));
    expect(binds[0]!.headers.token).toBe(DEMO_UNBOUND_TOKEN);
    // The raw passkey went nowhere, and nothing of it was kept.
    expect(world.router.requests.filter((request) => everything(request).includes(account.passkey))).toEqual([]);
    const storage = await browser.evaluateInExtension(async (api) => JSON.stringify(await api.storage.local.get(null)));
    expect(storage).not.toContain(account.passkey);
    expect(world.service.control.binding(DEMO_UNBOUND_TOKEN)).toEqual({ site: 'hdhome', user_id: account.user_id });
  });

  it("speaks the browser's language, dates included", async () => {
    expect(await options.textContent('h1')).toBe(text('optionsTitle'));
    expect(await options.textContent('#sites-heading')).toBe(text('yourSitesHeading'));
    expect(await options.textContent('#bind-result .notice-title')).toBe(text('bindOk'));
    const expiry = await options.textContent('.token-expiry');
    // The browser runs in this machine's time zone: the same date, formatted for the language.
    const expiresAt = world.service.data.tokens.find((token) => token.token === DEMO_UNBOUND_TOKEN)!.overdue_time * 1000;
    expect(expiry).toContain(new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(expiresAt));
    if (lang === 'zh-CN') {
      expect(await options.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
      expect(await options.textContent('label[for="baseUrl"]')).toBe('API 地址');
      expect(expiry).toMatch(/^\d{4}年\d{1,2}月\d{1,2}日/);
      // Sites are listed under the names Chinese users know (the list arrives from the service).
      await options.waitForSelector('#site-list label[data-sid="4"] .choice-name');
      expect(await options.textContent('#site-list label[data-sid="4"] .choice-name')).toBe('天空');
    } else {
      // The connection section keeps its English labels.
      for (const [id, label] of [['baseUrl', 'API base URL'], ['token', 'Token'], ['appId', 'App ID'], ['secret', 'Secret']]) {
        expect(await options.textContent(`label[for="${id}"]`)).toBe(label);
      }
      expect(expiry).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}/);
    }
  });

  it("saves the sites picked from the service's list, and the next lookup reports only those", async () => {
    await inFront(options);
    await options.waitForSelector('#site-list label[data-sid="4"]');
    // Found by the name each reader knows it by: 天空 in Chinese, its short name in English.
    await options.fill('#site-search', lang === 'zh-CN' ? '天空' : 'hdsky');
    const shown = await options.evaluate(() => [...document.querySelectorAll<HTMLInputElement>('#site-list input')].map((box) => box.value));
    expect(shown).toContain('4');
    expect(shown.length).toBeLessThan(5);
    await options.click('#site-list input[value="4"]');
    await options.fill('#site-search', 'hdhome');
    await options.click('#site-list input[value="7"]');
    await options.fill('#site-search', '');
    const mark = world.router.requests.length;
    await options.click('#sites-save');
    await options.waitForSelector('#sites-status.ok');
    expect(await options.textContent('#sites-status')).toBe(text('sitesSavedOk', '2'));
    expect((await stored(browser)).heldSites).toEqual([4, 7]);

    const torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const lookup = await world.router.waitForRequest((request) => request.seq > mark && request.path === '/reseed/index/index', 15_000);
    const reports = world.router.requests.filter((request) => request.seq > mark && request.path === '/reseed/sites/reportExisting');
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) expect(reportedSids(report)).toEqual(['4', '7']);
    expect(reports[0]!.seq).toBeLessThan(lookup.seq);
    await page.close();
  });

  it('exports without the token unless asked, and an import restores a changed setting', async () => {
    await inFront(options);
    const exported = await exportFile(options);
    const backup = JSON.parse(exported) as Record<string, unknown>;
    expect(backup.app).toBe('reseed-lens');
    expect(backup.heldSites).toEqual([4, 7]);
    expect(backup.panelEnabled).toBe(true);
    expect(backup).not.toHaveProperty('token');
    expect(exported).not.toContain(DEMO_UNBOUND_TOKEN);

    // Changed after the backup: the panel switched off.
    await options.click('#panel-enabled');
    await waitFor(() => stored(browser), (settings) => settings.panelEnabled === false);
    expect((await stored(browser)).panelEnabled).toBe(false);

    await inFront(options);
    await importFile(options, exported, kind);
    // Shown first, applied only on Apply.
    await options.waitForSelector('#import-preview');
    expect(await options.textContent('#import-preview')).toContain(text('fieldPanelEnabled'));
    expect((await stored(browser)).panelEnabled).toBe(false);
    await options.click('#import-apply');
    await options.waitForSelector('#import-result.ok');
    expect(await options.textContent('#import-result .notice-title')).toBe(text('importDone'));
    expect(await options.textContent('#import-result .import-imported')).toContain(text('fieldPanelEnabled'));
    const settings = await stored(browser);
    expect(settings.panelEnabled).toBe(true);
    // The token was not in the file and stays as it was.
    expect(settings.token).toBe(DEMO_UNBOUND_TOKEN);
    expect(await options.evaluate(() => (document.getElementById('panel-enabled') as HTMLInputElement).checked)).toBe(true);

    // Asked for, the credentials are in the file.
    await inFront(options);
    await options.click('#export-credentials');
    await options.waitForSelector('#export-credentials-warning');
    const withCredentials = JSON.parse(await exportFile(options)) as Record<string, unknown>;
    expect(withCredentials.token).toBe(DEMO_UNBOUND_TOKEN);
  });
});
