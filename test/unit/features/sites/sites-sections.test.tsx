// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * "Your sites" and their addresses, against the real background and the reference service: the
 * sites picked here are exactly what the next site report sends as sid_list.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { SitesSections } from '../../../../features/sites/ui/SitesSections';
import type { SettingsView } from '../../../../features/settings/settings.messages';
import { DEFAULT_SETTINGS } from '../../../../utils/settings';
import { loadMessages, installI18n } from '../../support/i18n';
import { WithView } from '../../options/harness';
import { $, choose, click, mount, startOptionsWorld, storedSettings, text, type, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');
const message = (key: string, ...values: (string | number)[]) =>
  en[key]!.message.replace(/\$(\d)/g, (_, index: string) => String(values[Number(index) - 1]));

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function renderSites(world: OptionsWorld): Promise<HTMLElement> {
  const page = mount(<WithView initial={await world.app.preferences.settingsView()} section={SitesSections} />);
  await waitFor(() => page.querySelector('#site-list'), 'the site list');
  return page;
}

const shownSids = (page: HTMLElement) => [...page.querySelectorAll<HTMLInputElement>('#site-list input[type=checkbox]')].map((box) => Number(box.value));
const box = (page: HTMLElement, sid: number) => $<HTMLInputElement>(page, `#site-list input[value="${sid}"]`);

describe('your sites', () => {
  it("lists the service's sites, the ones visited first and marked", async () => {
    world = await startOptionsWorld({ storage: { seenSites: [9, 4] } });
    const page = await renderSites(world);
    const sids = shownSids(page);
    expect(sids).toHaveLength(world.service.data.sites.length);
    expect(new Set(sids.slice(0, 2))).toEqual(new Set([4, 9]));
    expect(text(page, '#sites-visited-heading')).toBe(en.sitesVisited!.message);
    expect(text(page, '#sites-others-heading')).toBe(en.sitesOthers!.message);
    expect(box(page, 4).closest('label')!.textContent).toContain(en.visitedTag!.message);
    expect(box(page, 2).closest('label')!.textContent).not.toContain(en.visitedTag!.message);
    expect(text(page, '#sites-saved-state')).toBe(en.yourSitesNotChosen!.message);
    expect(page.querySelector('#sites-section .notice.warn')).toBeNull();
  });

  it('finds a site by its Chinese name, its Latin name, its short name and its host', async () => {
    world = await startOptionsWorld();
    const page = await renderSites(world);
    const search = $<HTMLInputElement>(page, '#site-search');
    for (const [query, sid] of [['天空', 4], ['hdsky', 4], ['PTHome', 2], ['铂金家', 2], ['keepfrds', 1], ['pt.keepfrds.com', 1], ['我堡', 9]] as const) {
      await type(search, query);
      expect(shownSids(page), query).toContain(sid);
      expect(shownSids(page).length, query).toBeLessThan(5);
    }
    await type(search, 'no-such-site-anywhere');
    expect(shownSids(page)).toEqual([]);
    expect(text(page, '#site-list')).toBe(message('sitesNoMatch', 'no-such-site-anywhere'));
    expect(text(page, '#sites-count')).toBe(message('sitesShownChosen', 0, world.service.data.sites.length, 0));
  });

  it('saves the ticked sites, and the next site report sends exactly those', async () => {
    world = await startOptionsWorld();
    const page = await renderSites(world);
    await type($(page, '#site-search'), '天空');
    await click(box(page, 4));
    // Ticks survive a new search.
    await type($(page, '#site-search'), '家园');
    await click(box(page, 7));
    await type($(page, '#site-search'), '');
    expect(box(page, 4).checked).toBe(true);
    expect(text(page, '#sites-count')).toContain('2 ticked');

    await click($(page, '#sites-save'));
    await waitFor(() => page.querySelector('#sites-status.ok'), 'saved');
    expect(text(page, '#sites-status')).toBe(message('sitesSavedOk', 2));
    expect(text(page, '#sites-saved-state')).toBe(message('yourSitesSavedCount', 2));
    const stored = await storedSettings();
    expect(stored.heldSites).toEqual([4, 7]);
    expect(stored.askedForSites).toBe(true);

    await world.app.lookup.answers(['2237b65bbcd8db99fdb7b6e8380f046b01733d21']);
    const reports = world.service.requests.filter((request) => request.path === '/reseed/sites/reportExisting');
    expect(reports).toHaveLength(1);
    const form = new URLSearchParams(reports[0]!.body);
    expect([...form.entries()].filter(([key]) => key.startsWith('sid_list')).map(([, value]) => value)).toEqual(['4', '7']);
  });

  it('refuses to save no site at all, and "Report every site" clears the choice', async () => {
    world = await startOptionsWorld({ settings: { heldSites: [4, 7], askedForSites: true } });
    const page = await renderSites(world);
    expect(box(page, 4).checked).toBe(true);
    await click(box(page, 4));
    await click(box(page, 7));
    await click($(page, '#sites-save'));
    expect(text(page, '#sites-status')).toBe(en.sitesChooseOne!.message);
    expect((await storedSettings()).heldSites).toEqual([4, 7]);

    await click($(page, '#sites-clear'));
    await waitFor(() => page.querySelector('#sites-status.ok'), 'cleared');
    expect(text(page, '#sites-status')).toBe(en.sitesClearedOk!.message);
    expect((await storedSettings()).heldSites).toBeNull();
    expect(text(page, '#sites-saved-state')).toBe(en.yourSitesNotChosen!.message);
    expect(page.querySelector('#addresses-section')!.textContent).toContain(en.overridesNeedSites!.message);
  });

  it("offers the sites Reseed Lens knows when there is no token for the service's list", async () => {
    world = await startOptionsWorld({ settings: { token: '' } });
    const page = await renderSites(world);
    expect(text(page, '#sites-section .notice.warn')).toBe(en.yourSitesFromCatalog!.message);
    expect(shownSids(page)).toContain(4);
    expect(world.service.requests).toHaveLength(0);
  });
});

describe('addresses of your sites', () => {
  it('checks each domain before saving, takes a pasted address apart, and keeps other sites\u2019 overrides', async () => {
    world = await startOptionsWorld({ settings: { heldSites: [2, 4], siteOverrides: { '1': { host: 'old.keepfrds.example' } } } });
    const page = await renderSites(world);
    expect($<HTMLInputElement>(page, '#override-host-4').placeholder).toBe('hdsky.me');
    expect(page.querySelector('fieldset[data-sid="2"] legend')!.textContent).toBe('PTHome');

    await type($(page, '#override-host-2'), 'not a host');
    await type($(page, '#override-host-4'), 'https://Mirror.HDSky.example/');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#override-error-2'), 'the error');
    expect(text(page, '#override-error-2')).toBe(en.overrideBadHost!.message);
    expect($(page, '#override-host-2').getAttribute('aria-invalid')).toBe('true');
    expect($(page, '#override-host-2').getAttribute('aria-describedby')).toBe('override-error-2');
    expect(document.activeElement?.id).toBe('override-host-2');
    expect(text(page, '#overrides-status')).toBe(en.overridesFixErrors!.message);
    expect((await storedSettings()).siteOverrides).toEqual({ '1': { host: 'old.keepfrds.example' } });

    await type($(page, '#override-host-2'), '');
    await choose($<HTMLSelectElement>(page, '#override-scheme-2'), 'http');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    expect((await storedSettings()).siteOverrides).toEqual({
      '1': { host: 'old.keepfrds.example' },
      '2': { scheme: 'http' },
      '4': { host: 'mirror.hdsky.example', scheme: 'https' },
    });
    // The form shows what was stored.
    expect($<HTMLInputElement>(page, '#override-host-4').value).toBe('mirror.hdsky.example');
    expect($<HTMLSelectElement>(page, '#override-scheme-4').value).toBe('https');

    // Emptying both fields removes the override.
    await type($(page, '#override-host-4'), '');
    await choose($<HTMLSelectElement>(page, '#override-scheme-4'), '');
    await click($(page, '#overrides-save'));
    await waitFor(async () => !('4' in ((await storedSettings()).siteOverrides as object)), 'the override removed');
    expect(Object.keys((await storedSettings()).siteOverrides as object).sort()).toEqual(['1', '2']);
    expect($<HTMLInputElement>(page, '#override-host-4').value).toBe('');
  });

  it("a typed mirror moves links only until the user says yes to downloads from it; another site's host is said to be refused", async () => {
    world = await startOptionsWorld({ settings: { heldSites: [9, 23] } });
    const page = await renderSites(world);
    // One of the site's own hosts asks nothing.
    await type($(page, '#override-host-9'), 'pt.ourhelp.club');
    expect(page.querySelector('#override-confirm-9')).toBeNull();
    await type($(page, '#override-host-9'), 'ob-mirror.example.org');
    const yes = $<HTMLInputElement>(page, '#override-confirm-9');
    expect(yes.checked).toBe(false);
    expect(yes.closest('label')!.textContent).toBe(message('overrideConfirmHost', 'ob-mirror.example.org', 'OurBits'));
    await type($(page, '#override-host-23'), 'tjupt.org');
    expect(page.querySelector('#override-confirm-23')).toBeNull();
    expect(text(page, '#override-other-site-23')).toBe(message('overrideOtherSiteHost', 'tjupt.org', 'TJUPT', 'SpringSunday'));
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    expect((await storedSettings()).siteOverrides).toEqual({ '9': { host: 'ob-mirror.example.org' }, '23': { host: 'tjupt.org' } });

    await click($(page, '#override-confirm-9'));
    await click($(page, '#overrides-save'));
    await waitFor(async () => ((await storedSettings()).siteOverrides as Record<string, object>)['9']?.hasOwnProperty('confirmedHost'), 'confirmed');
    expect((await storedSettings()).siteOverrides).toEqual({ '9': { host: 'ob-mirror.example.org', confirmedHost: 'ob-mirror.example.org' }, '23': { host: 'tjupt.org' } });
    await waitFor(() => $<HTMLInputElement>(page, '#override-confirm-9').checked, 'shown as confirmed');
    // Another address needs its own yes: the tick does not carry over.
    await type($(page, '#override-host-9'), 'other-mirror.example.org');
    expect($<HTMLInputElement>(page, '#override-confirm-9').checked).toBe(false);
    await click($(page, '#overrides-save'));
    await waitFor(async () => ((await storedSettings()).siteOverrides as Record<string, { host?: string }>)['9']?.host === 'other-mirror.example.org', 'saved again');
    expect((await storedSettings()).siteOverrides).toMatchObject({ '9': { host: 'other-mirror.example.org' } });
    expect(((await storedSettings()).siteOverrides as Record<string, object>)['9']).not.toHaveProperty('confirmedHost');
  });

  it("takes each site's passkey masked, refuses a paste accident, and keeps it in the settings only", async () => {
    world = await startOptionsWorld({ settings: { heldSites: [2, 4], sitePasskeys: { '1': 'keepfrds-passkey-0001' } } });
    const page = await renderSites(world);
    const field = $<HTMLInputElement>(page, '#site-passkey-4');
    expect(field.type).toBe('password');
    expect(page.querySelector('label[for="site-passkey-4"]')!.textContent).toBe('Passkey (for Cross-seed)');
    expect(field.getAttribute('aria-describedby')).toBe('site-passkey-hint');
    expect(text(page, '#site-passkey-hint')).toBe(en.sitePasskeyHint!.message);
    expect(text(page, '#site-passkey-hint')).toMatch(/sent only to that site, inside its own download address/);

    await type($(page, '#site-passkey-2'), 'has spaces in it');
    await type(field, ' 0123456789abcdef0123456789abcdef ');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#site-passkey-error-2'), 'the error');
    expect(text(page, '#site-passkey-error-2')).toBe(en.sitePasskeyBad!.message);
    expect(document.activeElement?.id).toBe('site-passkey-2');
    expect((await storedSettings()).sitePasskeys).toEqual({ '1': 'keepfrds-passkey-0001' });

    await type($(page, '#site-passkey-2'), '');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    // Trimmed; another site's passkey (no longer ticked) kept.
    expect((await storedSettings()).sitePasskeys).toEqual({ '1': 'keepfrds-passkey-0001', '4': '0123456789abcdef0123456789abcdef' });
    expect((await storedSettings()).siteOverrides).toEqual({});
    // Emptied, it is gone.
    await type($(page, '#site-passkey-4'), '');
    await click($(page, '#overrides-save'));
    await waitFor(async () => !('4' in ((await storedSettings()).sitePasskeys as object)), 'the passkey removed');
  });

  it("asks M-Team's API key (its downloads come only through its API), masked, and for no other site", async () => {
    world = await startOptionsWorld({ settings: { heldSites: [3, 4] } });
    const page = await renderSites(world);
    expect(page.querySelector('#site-api-key-4')).toBeNull();
    const field = $<HTMLInputElement>(page, '#site-api-key-3');
    expect(field.type).toBe('password');
    expect(page.querySelector('label[for="site-api-key-3"]')!.textContent).toBe('API key (for Cross-seed)');
    expect(text(page, '#site-api-key-hint-3')).toBe(en.siteApiKeyHint!.message);
    expect(text(page, '#site-api-key-hint-3')).toMatch(/sent only to the site’s own API host/);

    await type(field, 'not a key!');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#site-api-key-error-3'), 'the error');
    expect(text(page, '#site-api-key-error-3')).toBe(en.siteApiKeyInvalid!.message);
    expect(document.activeElement?.id).toBe('site-api-key-3');
    expect((await storedSettings()).siteApiKeys ?? {}).toEqual({});

    await type($(page, '#site-api-key-3'), ' 3f9a1c2b-7d6e-4a5b-9c8d-0e1f2a3b4c5d ');
    await click($(page, '#overrides-save'));
    await waitFor(async () => ((await storedSettings()).siteApiKeys as Record<string, string> | undefined)?.['3'] !== undefined, 'saved');
    expect((await storedSettings()).siteApiKeys).toEqual({ '3': '3f9a1c2b-7d6e-4a5b-9c8d-0e1f2a3b4c5d' });
    expect((await storedSettings()).sitePasskeys ?? {}).toEqual({});
    await type($(page, '#site-api-key-3'), '');
    await click($(page, '#overrides-save'));
    await waitFor(async () => !('3' in ((await storedSettings()).siteApiKeys as object)), 'the key removed');
  });

  it("names the field the background refused", async () => {
    fakeBrowser.reset();
    installI18n('en');
    fakeBrowser.runtime.onMessage.addListener((request: unknown) => {
      const { type: kind } = request as { type: string };
      if (kind === 'sites:list') return Promise.resolve({ sites: [{ sid: 4, site: 'hdsky', nickname: 'HDSky', host: 'hdsky.me' }], seen: [], fromService: true });
      if (kind === 'settings:save') return Promise.resolve({ refused: 'siteOverrides' });
      return undefined;
    });
    const view: SettingsView = { settings: { ...DEFAULT_SETTINGS, heldSites: [4] }, resetFields: [], serviceOriginGranted: true };
    const page = mount(<WithView initial={view} section={SitesSections} />);
    await waitFor(() => page.querySelector('#override-host-4'), 'the address form');
    await type($(page, '#override-host-4'), 'mirror.hdsky.example');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.problem'), 'the refusal');
    expect(text(page, '#overrides-status')).toBe(message('fieldRefused', en.fieldSiteOverrides!.message));
  });
});
