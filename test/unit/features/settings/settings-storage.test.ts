/**
 * The settings' stored record (features/settings/settings.storage.ts): storage.local `settings`,
 * `{ version, ...settings }`, each numbered migration tested on its own (old shape in, current
 * shape out), a newer build's record read for what this one understands, and the store writing a
 * migrated record back once in the current shape, and a newer one never.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { SETTINGS_KEY, settingsItem } from '../../../../features/settings/settings.storage';
import { SettingsStore } from '../../../../features/settings/settings-store';
import { DEFAULT_SETTINGS, SETTINGS_MIGRATIONS, SETTINGS_VERSION, readSettings, storedSettings } from '../../../../utils/settings';

beforeEach(() => {
  fakeBrowser.reset();
});

const stored = async () => (await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as Record<string, unknown> | undefined;

describe('the settings item', () => {
  it('is storage.local "settings", version 1, with one step per version up to it', () => {
    expect([settingsItem.area, settingsItem.key, settingsItem.version]).toEqual(['local', 'settings', SETTINGS_VERSION]);
    expect(SETTINGS_VERSION).toBe(1);
    expect(Object.keys(SETTINGS_MIGRATIONS).map(Number)).toEqual([1]);
  });

  it('writes what it always wrote: the settings with their version inside', async () => {
    const settings = { ...DEFAULT_SETTINGS, token: 'tok', heldSites: [4, 7] };
    await settingsItem.set(settings);
    expect(await stored()).toEqual(storedSettings(settings));
    expect(await stored()).toEqual({ version: 1, ...settings });
    expect((await settingsItem.get()).settings).toEqual(settings);
  });

  it('reads field by field and reports resets and repairs, as readSettings does', async () => {
    const record = { version: 1, baseUrl: 'javascript:alert(1)', token: 'keep-me', panelDisabledHosts: ['ok.example.org', 'not a host'] };
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: record });
    const loaded = await settingsItem.get();
    expect(loaded).toEqual(readSettings(record));
    expect(loaded.resetFields).toEqual(['baseUrl']);
    expect(loaded.repairedFields).toEqual(['panelDisabledHosts']);
    expect(loaded.settings.token).toBe('keep-me');
  });
});

describe('migration 1 (version 0 → 1): `apiBase` becomes `baseUrl`', () => {
  const toV1 = SETTINGS_MIGRATIONS[1]!;

  it('old shape in, current shape out', () => {
    expect(toV1({ apiBase: 'http://vip.iyuu.cn/', token: 'tok' })).toEqual({ baseUrl: 'http://vip.iyuu.cn/', token: 'tok' });
  });

  it('keeps a baseUrl already there (and drops apiBase), and ignores an apiBase that is not text', () => {
    expect(toV1({ apiBase: 'http://old.example.org', baseUrl: 'https://2025.iyuu.cn' })).toEqual({ baseUrl: 'https://2025.iyuu.cn' });
    expect(toV1({ apiBase: 42, token: 't' })).toEqual({ token: 't' });
    expect(toV1({})).toEqual({});
  });

  it('through the item: a version-0 record reads as current settings, marked migrated', async () => {
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { apiBase: 'http://vip.iyuu.cn/', token: 'tok', panelEnabled: false } });
    const loaded = await settingsItem.get();
    expect(loaded.migrated).toBe(true);
    expect(loaded.settings).toEqual({ ...DEFAULT_SETTINGS, baseUrl: 'http://vip.iyuu.cn', token: 'tok', panelEnabled: false });
  });

  it('the store writes a migrated record back once, in the current shape', async () => {
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { apiBase: 'http://vip.iyuu.cn/', token: 'tok' } });
    await new SettingsStore().load();
    expect(await stored()).toEqual({ ...storedSettings(DEFAULT_SETTINGS), baseUrl: 'http://vip.iyuu.cn', token: 'tok' });
    expect((await settingsItem.get()).migrated).toBe(false);
  });
});

describe('a record of an unknown, newer version', () => {
  it('is read for the fields this build understands, not migrated, and not written back', async () => {
    const newer = { version: SETTINGS_VERSION + 1, token: 't', apiBase: 'http://vip.iyuu.cn', futureField: { x: 1 } };
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: newer });
    const loaded = await new SettingsStore().load();
    expect(loaded.migrated).toBe(false);
    expect(loaded.settings).toEqual({ ...DEFAULT_SETTINGS, token: 't' });
    expect(await stored()).toEqual(newer);
  });
});
