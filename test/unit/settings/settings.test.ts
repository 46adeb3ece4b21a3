import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SERVICE_BASE_URL,
  DEFAULT_SETTINGS,
  SETTINGS_VERSION,
  applySettingsUpdate,
  exportSettings,
  lookupMode,
  normaliseBaseUrl,
  readSettings,
  storedSettings,
} from '../../../utils/settings';

describe('readSettings', () => {
  it('gives the defaults for a fresh install, without calling it a migration', () => {
    const loaded = readSettings(undefined);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.settings.baseUrl).toBe(DEFAULT_SERVICE_BASE_URL);
    expect(loaded.migrated).toBe(false);
    expect(loaded.resetFields).toEqual([]);
    expect(loaded.unreadable).toBe(false);
  });

  it('round-trips what it stores', () => {
    const settings = { ...DEFAULT_SETTINGS, token: 'abc', heldSites: [1, 7], siteOverrides: { '7': { host: 'mirror.example.org', scheme: 'http' as const } } };
    const stored = storedSettings(settings);
    expect(stored.version).toBe(SETTINGS_VERSION);
    expect(readSettings(JSON.parse(JSON.stringify(stored))).settings).toEqual(settings);
  });

  it('migrates a version-0 store (apiBase) to the current shape', () => {
    const loaded = readSettings({ apiBase: 'http://vip.iyuu.cn/', token: 'tok' });
    expect(loaded.migrated).toBe(true);
    expect(loaded.settings.baseUrl).toBe('http://vip.iyuu.cn');
    expect(loaded.settings.token).toBe('tok');
  });

  it('falls back field by field: one corrupt value costs only itself', () => {
    const loaded = readSettings({ version: 1, baseUrl: 'javascript:alert(1)', token: 'keep-me', heldSites: 'nope', panelEnabled: false });
    expect(loaded.settings.baseUrl).toBe(DEFAULT_SERVICE_BASE_URL);
    expect(loaded.settings.heldSites).toBeNull();
    expect(loaded.settings.token).toBe('keep-me');
    expect(loaded.settings.panelEnabled).toBe(false);
    expect(loaded.resetFields.sort()).toEqual(['baseUrl', 'heldSites']);
  });

  it('reads a foreign value (not an object) as defaults and says so', () => {
    for (const foreign of ['a string', 42, [1, 2], true]) {
      const loaded = readSettings(foreign);
      expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
      expect(loaded.unreadable).toBe(true);
    }
  });

  it('keeps what it understands from a newer version without migrating it backwards', () => {
    const loaded = readSettings({ version: SETTINGS_VERSION + 5, token: 't', futureField: { x: 1 } });
    expect(loaded.settings.token).toBe('t');
    expect(loaded.migrated).toBe(false);
    expect(loaded.settings).not.toHaveProperty('futureField');
  });
});

describe('normaliseBaseUrl', () => {
  it.each([
    ['https://2025.iyuu.cn', 'https://2025.iyuu.cn'],
    ['https://2025.iyuu.cn/', 'https://2025.iyuu.cn'],
    ['  http://vip.iyuu.cn//  ', 'http://vip.iyuu.cn'],
    ['https://proxy.example.org/iyuu/', 'https://proxy.example.org/iyuu'],
    ['HTTPS://API.IYUU.CN', 'https://api.iyuu.cn'],
  ])('%s → %s', (input, expected) => expect(normaliseBaseUrl(input)).toBe(expected));

  it.each(['ftp://iyuu.cn', 'javascript:alert(1)', 'not a url', 'https://user:pw@iyuu.cn', 'https://iyuu.cn/?q=1', 'https://iyuu.cn/#x', ''])(
    'refuses %s',
    (input) => expect(normaliseBaseUrl(input)).toBeUndefined(),
  );
});

describe('applySettingsUpdate', () => {
  it('applies a valid partial update', () => {
    const next = applySettingsUpdate(DEFAULT_SETTINGS, { token: ' tok ', baseUrl: 'https://vip.iyuu.cn/' });
    expect(next.token).toBe('tok');
    expect(next.baseUrl).toBe('https://vip.iyuu.cn');
    expect(next.panelEnabled).toBe(DEFAULT_SETTINGS.panelEnabled);
  });

  it('refuses unknown fields and bad values, naming the field', () => {
    expect(() => applySettingsUpdate(DEFAULT_SETTINGS, { tokn: 'x' })).toThrow();
    try {
      applySettingsUpdate(DEFAULT_SETTINGS, { token: 'has spaces inside' });
      expect.unreachable();
    } catch (error) {
      expect((error as { issues: { path: string[] }[] }).issues[0]!.path[0]).toBe('token');
    }
  });
});

describe('exportSettings / lookupMode', () => {
  it('leaves the credentials out unless asked', () => {
    const settings = { ...DEFAULT_SETTINGS, token: 'tok', appId: 'app', secret: 'sec' };
    expect(exportSettings(settings, false)).not.toHaveProperty('token');
    expect(exportSettings(settings, false)).not.toHaveProperty('secret');
    expect(exportSettings(settings, true)).toMatchObject({ token: 'tok', appId: 'app', secret: 'sec' });
  });

  it('leaves the site passkeys out unless asked', () => {
    const settings = { ...DEFAULT_SETTINGS, sitePasskeys: { '9': '0123456789abcdef0123456789abcdef' } };
    expect(exportSettings(settings, false)).not.toHaveProperty('sitePasskeys');
    expect(exportSettings(settings, true)).toMatchObject({ sitePasskeys: { '9': '0123456789abcdef0123456789abcdef' } });
  });

  it('reads site passkeys entry by entry: a bad sid or a key with odd characters is dropped alone', () => {
    const loaded = readSettings({ version: 1, sitePasskeys: { '9': ' 0123456789abcdef0123456789abcdef ', abc: 'ffffffffffff', '4': 'has space inside', '7': 'short', '2': 12345678 } });
    expect(loaded.settings.sitePasskeys).toEqual({ '9': '0123456789abcdef0123456789abcdef' });
    expect(loaded.repairedFields).toContain('sitePasskeys');
  });

  it("leaves the sites' API keys out unless asked, and reads them entry by entry (a header-breaking value dropped alone)", () => {
    const settings = { ...DEFAULT_SETTINGS, siteApiKeys: { '3': 'mteam-apikey-0123456789' } };
    expect(exportSettings(settings, false)).not.toHaveProperty('siteApiKeys');
    expect(exportSettings(settings, true)).toMatchObject({ siteApiKeys: { '3': 'mteam-apikey-0123456789' } });
    const loaded = readSettings({ version: 1, siteApiKeys: { '3': ' mteam-apikey-0123456789 ', '4': 'key\r\nx-evil: 1', x: 'mteam-apikey-0123456789', '5': 'short' } });
    expect(loaded.settings.siteApiKeys).toEqual({ '3': 'mteam-apikey-0123456789' });
    expect(loaded.repairedFields).toContain('siteApiKeys');
    expect(readSettings({ version: 1 }).settings.siteApiKeys).toEqual({});
  });

  it('picks token mode over signed mode, and none without either', () => {
    expect(lookupMode(DEFAULT_SETTINGS)).toBe('none');
    expect(lookupMode({ ...DEFAULT_SETTINGS, appId: 'a', secret: 's' })).toBe('signed');
    expect(lookupMode({ ...DEFAULT_SETTINGS, appId: 'a' })).toBe('none');
    expect(lookupMode({ ...DEFAULT_SETTINGS, token: 't', appId: 'a', secret: 's' })).toBe('token');
  });
});

describe('piecesHashSites (issue 18)', () => {
  it('is off for every site by default', () => {
    expect(DEFAULT_SETTINGS.piecesHashSites).toEqual({});
    expect(readSettings({ version: 1 }).settings.piecesHashSites).toEqual({});
  });

  it('reads entry by entry: a trimmed path on the site or an http(s) address is kept, an empty one dropped, a bad entry dropped alone', () => {
    const loaded = readSettings({
      version: 1,
      piecesHashSites: {
        '1': { on: true, path: ' /api/torrents/pieces-hash ' },
        '69': { on: true, path: 'https://api.piggo.me/api/pieces-hash' },
        '72': { on: false, path: '' },
        '4': { on: true },
        '5': { on: 'yes' },
        '6': { on: true, path: 'api/pieces-hash' },
        '7': { on: true, path: '//evil.example/api' },
        '8': { on: true, path: 'javascript:alert(1)' },
        '9': { on: true, path: `/${'x'.repeat(300)}` },
        '10': { on: true, path: '/api/pieces hash' },
        '11': { on: true, path: '/api/\u7a2e' },
        abc: { on: true },
        '12': 'on',
      },
    });
    expect(loaded.settings.piecesHashSites).toEqual({
      '1': { on: true, path: '/api/torrents/pieces-hash' },
      '69': { on: true, path: 'https://api.piggo.me/api/pieces-hash' },
      '72': { on: false },
      '4': { on: true },
    });
    expect(loaded.repairedFields).toEqual(['piecesHashSites']);
    expect(loaded.resetFields).toEqual([]);
  });

  it('a save that names it is checked by the same schema; other fields stay as they were', () => {
    const current = { ...DEFAULT_SETTINGS, token: 'tok', sitePasskeys: { '4': '0123456789abcdef0123456789abcdef' } };
    const next = applySettingsUpdate(current, { piecesHashSites: { '4': { on: true, path: '/npapi/pieces-hash' } } });
    expect(next.piecesHashSites).toEqual({ '4': { on: true, path: '/npapi/pieces-hash' } });
    expect(next.token).toBe('tok');
    expect(next.sitePasskeys).toEqual(current.sitePasskeys);
    expect(() => applySettingsUpdate(current, { piecesHashSites: [] })).toThrow();
  });

  it('is not a credential: exported with or without credentials, and round-trips', () => {
    const settings = { ...DEFAULT_SETTINGS, piecesHashSites: { '72': { on: true, path: '/nexusapi/pieces-hash' } } };
    expect(exportSettings(settings, false)).toMatchObject({ piecesHashSites: settings.piecesHashSites });
    expect(exportSettings(settings, true)).toMatchObject({ piecesHashSites: settings.piecesHashSites });
    expect(readSettings(storedSettings(settings)).settings).toEqual(settings);
  });
});
