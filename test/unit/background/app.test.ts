/** The background's app against the reference service: what a tab's view becomes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../entrypoints/background/app';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { installI18n } from '../support/i18n';
import { grantOrigin } from '../support/permissions';

let service: ReferenceService;
let app: BackgroundApp;

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());
beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('en');
  service.control.reset();
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN } });
  grantOrigin(service.url);
  app = new BackgroundApp({ retryDelaysMs: [] });
});

function groupOnHdsky() {
  const group = service.data.torrents.find((candidate) => candidate.members.some((member) => member.site === 'hdsky') && candidate.members.length >= 5)!;
  return { group, hash: group.members.find((member) => member.site === 'hdsky')!.info_hash };
}

describe('BackgroundApp', () => {
  it('folds open tabs at once when the user picks their sites, from the answers it holds', async () => {
    const { hash } = groupOnHdsky();
    const view = await app.pages.onPageReading(3, 'https://hdsky.me/details.php?id=1', {
      engine: 'nexusphp',
      kind: 'details',
      hashes: [{ hash, source: 'info-row' }],
    });
    expect(view.status).toBe('done');
    expect(view.candidates.every((candidate) => candidate.held === undefined)).toBe(true);
    const lookupsBefore = service.requests.filter((request) => request.path === '/reseed/index/index').length;

    const held = view.candidates[0]!.sid;
    const saved = await app.preferences.saveSettings({ heldSites: [held], askedForSites: true });
    expect('settings' in saved).toBe(true);

    const redrawn = (await app.tabs.get(3))!;
    expect(redrawn.candidates.find((candidate) => candidate.sid === held)!.held).toBe(true);
    expect(redrawn.candidates.filter((candidate) => candidate.sid !== held).every((candidate) => candidate.held === false)).toBe(true);
    // Held sites come first.
    expect(redrawn.candidates[0]!.sid).toBe(held);
    // From the cache: the service was not asked again.
    expect(service.requests.filter((request) => request.path === '/reseed/index/index').length).toBe(lookupsBefore);
  });
});

describe('answers and the user\'s sites', () => {
  it('asks again on the next visit once the user\'s sites changed: a service may answer only for the sites reported', async () => {
    const { hash } = groupOnHdsky();
    const lookups = () => service.requests.filter((request) => request.path === '/reseed/index/index').length;
    const reading = { engine: 'nexusphp', kind: 'details' as const, hashes: [{ hash, source: 'info-row' as const }] };
    await app.pages.onPageReading(3, 'https://hdsky.me/details.php?id=1', reading);
    await app.tabs.forget(3);
    await app.pages.onPageReading(3, 'https://hdsky.me/details.php?id=1', reading);
    const before = lookups();
    await app.preferences.saveSettings({ heldSites: [7], askedForSites: true });
    // The open tab is redrawn from what is held: nothing asked.
    expect(lookups()).toBe(before);
    await app.tabs.forget(3);
    await app.pages.onPageReading(3, 'https://hdsky.me/details.php?id=1', reading);
    expect(lookups()).toBe(before + 1);
  });
});

describe('a page changing its own hashes', () => {
  const unknown = (n: number) => `${n.toString(16).padStart(8, '0')}${'ab'.repeat(16)}`;
  const lookups = () => service.requests.filter((request) => request.path === '/reseed/index/index').length;
  const reading = (hash: string) => ({ engine: 'nexusphp', kind: 'details' as const, hashes: [{ hash, source: 'info-row' as const }] });

  it('spends at most 10 lookups a minute, then waits for the user, whose "Look up again" asks at once', async () => {
    const url = 'https://hdsky.me/details.php?id=1';
    await app.pages.onPageReading(5, url, reading(unknown(0)));
    const first = lookups();
    // A page that swaps in a new hash 30 times (every 250 ms for the 30 s would be 120).
    let last;
    for (let n = 1; n <= 30; n++) last = await app.pages.onPageReading(5, url, reading(unknown(n)));
    expect(lookups() - first).toBe(10);
    expect(last!.status).toBe('waiting-for-user');
    expect(last!.hashes[0]!.hash).toBe(unknown(30));
    // The user's click: asked at once, and the page has a new budget.
    const asked = await app.pages.refresh(5);
    expect(asked.status).toBe('done');
    expect(lookups() - first).toBe(11);
    expect((await app.pages.onPageReading(5, url, reading(unknown(31)))).status).toBe('done');
  });

  it('counts only what the service is asked: hashes answered by the cache cost nothing', async () => {
    const url = 'https://hdsky.me/details.php?id=2';
    const { hash } = groupOnHdsky();
    await app.pages.onPageReading(6, url, reading(hash));
    for (let n = 0; n < 30; n++) expect((await app.pages.onPageReading(6, url, reading(hash))).status).toBe('done');
  });

  it('does not count a new document: the first reading after a navigation is the navigation\'s', async () => {
    for (let n = 0; n < 15; n++) {
      await app.tabs.forget(7); // what tabs.onUpdated "loading" does
      expect((await app.pages.onPageReading(7, `https://hdsky.me/details.php?id=${n}`, reading(unknown(100 + n)))).status).toBe('done');
    }
  });
});

describe('Controller settings', () => {
  it('says when storage held no settings at all, and writes a migrated store back in the new shape', async () => {
    fakeBrowser.reset();
    installI18n('en');
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: 'not settings' });
    const foreign = await new BackgroundApp().preferences.settingsView();
    expect(foreign.unreadable).toBe(true);

    fakeBrowser.reset();
    installI18n('en');
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { apiBase: 'https://vip.iyuu.cn', token: 'kept' } });
    const migrated = await new BackgroundApp().preferences.settingsView();
    expect(migrated.unreadable).toBe(false);
    expect(migrated.settings).toMatchObject({ baseUrl: 'https://vip.iyuu.cn', token: 'kept' });
    const stored = (await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Record<string, unknown>;
    expect(stored.version).toBe(1);
    expect(stored.baseUrl).toBe('https://vip.iyuu.cn');
    expect(stored).not.toHaveProperty('apiBase');
  });
});

describe('the in-page panel on list pages (issue 15)', () => {
  it('is never wanted on a list page, with or without hashes; a details page on the same site keeps it', async () => {
    const { hash } = groupOnHdsky();
    const withoutHashes = await app.pages.onPageReading(5, 'https://hdsky.me/torrents.php', {
      engine: 'nexusphp',
      kind: 'list',
      hashes: [],
      problem: 'site-gives-no-hash',
      rows: [{ id: '1' }, { id: '2' }],
    });
    expect(withoutHashes.panel).toBe(false);
    const withHashes = await app.pages.onPageReading(6, 'https://hdsky.me/torrents.php?cat=1', {
      engine: 'nexusphp',
      kind: 'list',
      hashes: [{ hash, source: 'magnet', row: '1' }],
      rows: [{ id: '1', hash }],
    });
    expect(withHashes.status).toBe('done');
    expect(withHashes.panel).toBe(false);
    const details = await app.pages.onPageReading(7, 'https://hdsky.me/details.php?id=1', { engine: 'nexusphp', kind: 'details', hashes: [{ hash, source: 'info-row' }] });
    expect(details.panel).toBe(true);
  });
});
