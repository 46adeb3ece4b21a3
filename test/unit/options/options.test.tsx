// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/** The whole options page: its structure, labels, languages, and the notice for settings reset. */
import { afterEach, describe, expect, it } from 'vitest';
import { Options } from '../../../entrypoints/options/OptionsApp';
import { loadMessages } from '../support/i18n';
import { $, accessibleName, click, mount, startOptionsWorld, startService, storedSettings, text, type, waitFor, type OptionsWorld } from './support';

const en = loadMessages('en');
const zh = loadMessages('zh_CN');

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function openOptions(): Promise<HTMLElement> {
  const page = mount(<Options />);
  await waitFor(() => page.querySelector('#site-list') && page.querySelector('#token-state dl, #token-state .notice'), 'the page');
  return page;
}

describe('the options page', () => {
  it('keeps the connection section a person (and the checks) know', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    for (const [id, label] of [['baseUrl', 'API base URL'], ['token', 'Token'], ['appId', 'App ID'], ['secret', 'Secret']]) {
      expect(accessibleName($(page, `#${id}`))).toBe(label);
    }
    expect(text(page, '#save')).toBe('Save');
    expect(text(page, '#test-connection')).toBe('Test connection');
    expect($<HTMLInputElement>(page, '#baseUrl').value).toBe(world.service.url);
  });

  it('has one h1, a heading per section in order, and a table of contents that leads to each', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    expect(page.querySelectorAll('h1')).toHaveLength(1);
    const headings = [...page.querySelectorAll('h2')].map((heading) => heading.id);
    const links = [...page.querySelectorAll<HTMLAnchorElement>('nav.toc a')].map((link) => link.getAttribute('href')!.slice(1));
    expect(links).toEqual(headings);
    expect(headings).toEqual([
      'get-started-heading',
      'connection-heading',
      'token-state-heading',
      'bind-heading',
      'sites-heading',
      'addresses-heading',
      'panel-heading',
      'custom-sites-heading',
      'clients-heading',
      'client-index-heading',
      'backup-heading',
      'privacy-heading',
    ]);
    // Every section is named by its heading; h3s sit only inside sections.
    for (const section of page.querySelectorAll('section')) {
      expect(document.getElementById(section.getAttribute('aria-labelledby')!)?.tagName).toBe('H2');
    }
    for (const heading of page.querySelectorAll('h3')) expect(heading.closest('section')).not.toBeNull();
  });

  it('names every control for screen readers and keeps them all in the tab order', async () => {
    world = await startOptionsWorld({ settings: { token: 'demo-unbound-token', heldSites: [4], panelDisabledHosts: ['hdsky.me'], customHosts: ['tracker.example.org'] } });
    const page = await openOptions();
    await waitFor(() => page.querySelector('#bind-site option[value="7"]'), 'the bind form');
    const controls = [...page.querySelectorAll('input, select, textarea, button, a[href]')];
    expect(controls.length).toBeGreaterThan(140);
    const unnamed = controls.filter((control) => !accessibleName(control)).map((control) => control.outerHTML.slice(0, 80));
    expect(unnamed).toEqual([]);
    for (const control of controls) {
      const tabIndex = control.getAttribute('tabindex');
      expect(tabIndex === null || tabIndex === '0', control.outerHTML.slice(0, 80)).toBe(true);
    }
    // Ids are unique, so every label and description points at one element.
    const ids = [...page.querySelectorAll('[id]')].map((element) => element.id);
    expect(ids.length).toBe(new Set(ids).size);
    for (const element of page.querySelectorAll('[aria-describedby], label[for]')) {
      const refs = (element.getAttribute('aria-describedby') ?? element.getAttribute('for'))!.split(' ');
      for (const ref of refs) expect(document.getElementById(ref), ref).not.toBeNull();
    }
  });

  it('says which settings could not be read and were reset', async () => {
    world = await startOptionsWorld({ settings: { panelEnabled: 'yes', heldSites: 'all of them' } });
    const page = await openOptions();
    const notice = $(page, '.options > .notice.warn');
    expect(notice.getAttribute('role')).toBe('alert');
    expect(notice.textContent).toBe(en.settingsReset!.message.replace('$1', `${en.fieldPanelEnabled!.message} and ${en.fieldHeldSites!.message}`));
  });

  it('saves the connection without touching the other settings', async () => {
    world = await startOptionsWorld({ settings: { heldSites: [4, 7], panelEnabled: false } });
    const page = await openOptions();
    await type($(page, '#token'), 'demo-forever-token');
    await click($(page, '#save'));
    await waitFor(() => page.querySelector('.status.ok'), 'saved');
    const stored = await storedSettings();
    expect(stored).toMatchObject({ token: 'demo-forever-token', heldSites: [4, 7], panelEnabled: false });
    // The new token's state is asked for.
    await waitFor(() => text(page, '.token-expiry') === en.tokenLifetime!.message, 'the new token state');
    await waitFor(() => page.querySelector('#site-list'), 'the site list again');
  });

  it('reads in Chinese throughout for a Chinese browser', async () => {
    world = await startOptionsWorld({ locale: 'zh_CN', settings: { panelDisabledHosts: ['hdsky.me'] } });
    const page = await openOptions();
    expect(text(page, 'h1')).toBe(zh.optionsTitle!.message);
    expect(accessibleName($(page, '#baseUrl'))).toBe(zh.labelBaseUrl!.message);
    expect(text(page, '#sites-heading')).toBe(zh.yourSitesHeading!.message);
    expect(text(page, '#backup-heading')).toBe(zh.backupHeading!.message);
    expect(text(page, '.token-activated')).toContain(zh.tokenActivated!.message);
    expect(accessibleName($(page, '#panel-hidden-hosts button'))).toBe(zh.panelShowAgainOn!.message.replace('$1', 'hdsky.me'));
    // Sites are named as Chinese users know them.
    expect($(page, '#site-list input[value="4"]').closest('label')!.textContent).toContain('天空');
    // No English sentence is left in the page (site names, hosts and proper names aside).
    const englishOnly = [...page.querySelectorAll('h1, h2, h3, label, button, p, legend, dt, strong')]
      .filter((element) => !element.closest('#site-list') && !element.closest('.service-message'))
      .map((element) => element.textContent?.trim() ?? '')
      .filter((content) => /[a-z]{4,}\s+[a-z]{3,}/i.test(content) && !/[\u4e00-\u9fff]/.test(content));
    expect(englishOnly).toEqual([]);
  });
});

describe('the service address and the saved credentials', () => {
  it('warns before Save when the address is plain http, and not for https', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    // The test service is http: the warning stands beside the field from the start.
    expect(text(page, '#http-warning')).toBe(en.plainHttpWarning!.message);
    expect($(page, '#baseUrl').getAttribute('aria-describedby')).toBe('http-warning');
    await type($(page, '#baseUrl'), 'https://2025.iyuu.cn');
    expect(page.querySelector('#http-warning')).toBeNull();
  });

  it('asks before the saved token goes to another address, and saves nothing until answered', async () => {
    world = await startOptionsWorld();
    const other = await startService();
    try {
      const page = await openOptions();
      const before = await storedSettings();
      await type($(page, '#baseUrl'), other.url);
      await click($(page, '#save'));
      await waitFor(() => page.querySelector('.confirm-credentials'), 'the question');
      expect(text(page, '.confirm-credentials .notice-title')).toBe(en.confirmCredentialsTitle!.message.replace('$1', other.url));
      expect(await storedSettings()).toEqual(before);

      await click($(page, '#drop-credentials'));
      await waitFor(async () => (await storedSettings()).baseUrl === other.url, 'saved');
      expect(await storedSettings()).toMatchObject({ token: '' });
      expect($<HTMLInputElement>(page, '#token').value).toBe('');
      expect(page.querySelector('.confirm-credentials')).toBeNull();
      expect(other.requests.filter((request) => request.headers.token)).toHaveLength(0);
    } finally {
      await world.close();
      world = undefined;
      await other.close();
    }
  });

  it('keeps the token for the new address only on "Keep my token"', async () => {
    world = await startOptionsWorld();
    const other = await startService();
    try {
      const page = await openOptions();
      await type($(page, '#baseUrl'), other.url);
      await click($(page, '#save'));
      await waitFor(() => page.querySelector('#keep-credentials'), 'the question');
      await click($(page, '#keep-credentials'));
      await waitFor(async () => (await storedSettings()).baseUrl === other.url, 'saved');
      expect(await storedSettings()).toMatchObject({ token: 'demo-token' });
    } finally {
      await world.close();
      world = undefined;
      await other.close();
    }
  });

  it('asks nothing when the token is typed with the address, or the address stays IYUU\'s', async () => {
    world = await startOptionsWorld({ settings: { baseUrl: 'https://2025.iyuu.cn' } });
    expect(await world.app.preferences.saveSettings({ baseUrl: 'http://vip.iyuu.cn', token: 'demo-token' })).toHaveProperty('settings');
    expect(await world.app.preferences.saveSettings({ baseUrl: 'https://lookup.example.net', token: 'another-token' })).toHaveProperty('settings');
    expect(await world.app.preferences.saveSettings({ baseUrl: 'https://mirror.example.net' })).toMatchObject({ confirm: 'credentials', fields: ['token'] });
  });
});

describe('what leaves the browser', () => {
  it('says it plainly on the first run until the user has read it, and keeps it as the last section', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    const host = new URL(world.service.url).host;
    expect(text(page, '#first-run-title')).toBe(en.privacyFirstRunTitle!.message);
    expect(text(page, '#first-run')).toContain(en.privacyLookups!.message.replace('$1', host));
    expect(text(page, '#first-run')).toContain(en.privacyBinding!.message);
    expect(text(page, '#privacy-section')).toContain(en.privacyNothingElse!.message);
    await click($(page, '#first-run-ok'));
    await waitFor(async () => (await storedSettings()).privacyNoticeSeen === true, 'remembered');
    await waitFor(() => !page.querySelector('#first-run'), 'the notice gone');
    expect(text(page, '#privacy-section')).toContain(en.privacyClients!.message);
  });

  it('in Chinese', async () => {
    world = await startOptionsWorld({ locale: 'zh_CN' });
    const page = await openOptions();
    expect(text(page, '#first-run-title')).toBe(zh.privacyFirstRunTitle!.message);
    expect(text(page, '#privacy-heading')).toBe(zh.privacyHeading!.message);
  });
});

