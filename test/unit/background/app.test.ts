/** The background's app against the reference service: what a tab's view becomes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../utils/background/app';
import { SETTINGS_KEY } from '../../../utils/settings';
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
  app = new BackgroundApp({ version: '0.1.0', retryDelaysMs: [] });
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

describe('Controller settings', () => {
  it('says when storage held no settings at all, and writes a migrated store back in the new shape', async () => {
    fakeBrowser.reset();
    installI18n('en');
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: 'not settings' });
    const foreign = await new BackgroundApp({ version: '0.1.0' }).preferences.settingsView();
    expect(foreign.unreadable).toBe(true);

    fakeBrowser.reset();
    installI18n('en');
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { apiBase: 'https://vip.iyuu.cn', token: 'kept' } });
    const migrated = await new BackgroundApp({ version: '0.1.0' }).preferences.settingsView();
    expect(migrated.unreadable).toBe(false);
    expect(migrated.settings).toMatchObject({ baseUrl: 'https://vip.iyuu.cn', token: 'kept' });
    const stored = (await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Record<string, unknown>;
    expect(stored.version).toBe(1);
    expect(stored.baseUrl).toBe('https://vip.iyuu.cn');
    expect(stored).not.toHaveProperty('apiBase');
  });
});
