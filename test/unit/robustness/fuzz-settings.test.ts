/**
 * Stored settings of any shape through readSettings: valid settings survive a round trip intact,
 * a corrupt field falls back alone and is named, anything at all reads as valid settings, and the
 * version number cannot make it throw or migrate backwards.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  SETTINGS_VERSION,
  isPageHost,
  siteOverrideSchema,
  readSettings,
  settingsFields,
  settingsSchema,
  storedSettings,
  type Settings,
  type SettingsField,
} from '../../../utils/settings';
import { reportBadInputs, tried } from './support';

reportBadInputs('settings fuzz', 2000);

const FIELDS = Object.keys(settingsFields) as SettingsField[];
const host = fc.domain().filter((value) => isPageHost(value) && siteOverrideSchema.safeParse({ host: value }).success);
const credential = fc.stringMatching(/^[\x21-\x7e]{0,40}$/);

const validSettings: fc.Arbitrary<Settings> = fc.record({
  baseUrl: fc.constantFrom('https://2025.iyuu.cn', 'http://vip.iyuu.cn', 'https://proxy.example.org/iyuu', 'http://127.0.0.1:8080'),
  token: credential,
  appId: credential,
  secret: credential,
  panelEnabled: fc.boolean(),
  panelDisabledHosts: fc.uniqueArray(host, { maxLength: 4 }),
  heldSites: fc.option(fc.uniqueArray(fc.nat({ max: 100_000 }), { maxLength: 10 }), { nil: null }),
  askedForSites: fc.boolean(),
  siteOverrides: fc.dictionary(fc.nat({ max: 9999 }).map(String), fc.record({ host, scheme: fc.constantFrom('http' as const, 'https' as const) }, { requiredKeys: [] }), { maxKeys: 3 }),
  customHosts: fc.uniqueArray(host, { maxLength: 4 }),
  privacyNoticeSeen: fc.boolean(),
  clientIndexEnabled: fc.boolean(),
  crossSeedRenamedCopies: fc.boolean(),
  indexMarkHosts: fc.uniqueArray(host, { maxLength: 4 }),
  sitePasskeys: fc.dictionary(fc.nat({ max: 9999 }).map(String), fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/), { maxKeys: 3 }),
  siteApiKeys: fc.dictionary(fc.nat({ max: 9999 }).map(String), fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/), { maxKeys: 3 }),
  piecesHashSites: fc.dictionary(
    fc.nat({ max: 9999 }).map(String),
    fc.record({ on: fc.boolean(), path: fc.constantFrom('/api/pieces-hash', '/nexusapi/pieces-hash', 'https://api.piggo.me/api/pieces-hash') }, { requiredKeys: ['on'] }),
    { maxKeys: 3 },
  ),
});

/** Values each field must refuse as a whole: wrong types and right types with wrong content. */
const JUNK: Record<SettingsField, unknown[]> = {
  baseUrl: ['javascript:alert(1)', 'ftp://iyuu.cn', 'not a url', 'https://user:pw@iyuu.cn', 'https://iyuu.cn/?q=1', '', 42, null, ['https://2025.iyuu.cn']],
  token: ['has spaces', 'tab\there', '令牌', '\u0000', 'x'.repeat(300), 7, false, null, { token: 't' }],
  appId: ['a b', '应用', 1, null, []],
  secret: ['s e c', 'line\nbreak', 2, null, {}],
  panelEnabled: ['yes', 1, 0, null, [], 'false'],
  panelDisabledHosts: ['hdsky.me', {}, 42, null],
  heldSites: ['all', 3, {}],
  askedForSites: ['no', 1, null, {}],
  siteOverrides: [[], 'x', null, 7],
  customHosts: ['hdsky.me', { 0: 'hdsky.me' }, true],
  privacyNoticeSeen: ['yes', 1, null, {}],
  clientIndexEnabled: ['yes', 1, null, {}],
  crossSeedRenamedCopies: ['no', 0, null, []],
  indexMarkHosts: ['hdsky.me', { 0: 'hdsky.me' }, 5, null],
  sitePasskeys: [[], 'x', null, 7],
  siteApiKeys: [[], 'x', null, 7],
  piecesHashSites: [[], 'x', null, 7],
};

/** Entries a list field must drop alone, keeping the rest. */
const BAD_ENTRIES = {
  panelDisabledHosts: [42, 'not a host!', 'https://hdsky.me/', null, 'hdsky.me:443', 'a b'],
  heldSites: [-1, 1.5, '1', null, {}],
  customHosts: [1, 'a b', 'xn--', 'evil.example.org/x', []],
  indexMarkHosts: [2, 'ourbits.club/torrents.php', 'https://ourbits.club', 'a b', {}],
} as const;
// Keys above the valid ones' 9999, so a bad entry never stands in for a good one.
const BAD_OVERRIDES: Record<string, unknown>[] = [{ abc: {} }, { '10001': { scheme: 'ftp' } }, { '10002': { host: 'evil.example/x' } }, { '10003': 'host' }, { '10004': { host: '10.0.0.1' } }];

describe('readSettings on random stored values', () => {
  it('reads back exactly what it stored, for any valid settings', () => {
    fc.assert(
      fc.property(validSettings, (settings) => {
        const loaded = readSettings(JSON.parse(JSON.stringify(storedSettings(settings))));
        expect(loaded.settings).toEqual(settings);
        expect(loaded.resetFields).toEqual([]);
        expect(loaded.migrated).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('lets a corrupt field cost only itself, and names exactly the corrupt ones', () => {
    const corruption = fc
      .subarray(FIELDS, { minLength: 1 })
      .chain((fields) => fc.tuple(...fields.map((field) => fc.constantFrom(...JUNK[field]).map((junk) => [field, junk] as const))));
    fc.assert(
      fc.property(validSettings, corruption, (settings, corrupt) => {
        tried(corrupt.length);
        const stored = { ...storedSettings(settings), ...Object.fromEntries(corrupt) };
        const loaded = readSettings(JSON.parse(JSON.stringify(stored)));
        const broken = new Set(corrupt.map(([field]) => field));
        for (const field of FIELDS) expect(loaded.settings[field], field).toEqual(broken.has(field) ? DEFAULT_SETTINGS[field] : settings[field]);
        expect([...loaded.resetFields].sort()).toEqual([...broken].sort());
      }),
      { numRuns: 600 },
    );
  });

  it('drops a bad entry of a list alone, keeps every good one, and names the list as repaired', () => {
    const listField = fc.constantFrom(...(Object.keys(BAD_ENTRIES) as (keyof typeof BAD_ENTRIES)[]));
    fc.assert(
      fc.property(validSettings, listField, fc.nat(), fc.nat({ max: 4 }), fc.constantFrom(...BAD_OVERRIDES), (settings, field, pick, at, badOverride) => {
        tried(2);
        const good = (settings[field] ?? []) as unknown[];
        const bad = BAD_ENTRIES[field][pick % BAD_ENTRIES[field].length];
        const spoiled = [...good.slice(0, at), bad, ...good.slice(at)];
        const stored = { ...storedSettings(settings), [field]: spoiled, siteOverrides: { ...settings.siteOverrides, ...badOverride } };
        const loaded = readSettings(JSON.parse(JSON.stringify(stored)));
        expect(loaded.settings[field]).toEqual(good);
        expect(loaded.settings.siteOverrides).toEqual(settings.siteOverrides);
        expect(loaded.resetFields).toEqual([]);
        expect(loaded.repairedFields).toContain(field);
        expect(loaded.repairedFields).toContain('siteOverrides');
      }),
      { numRuns: 400 },
    );
  });

  it('reads anything at all as valid settings, never throwing, resetting only fields it was given', () => {
    const settingsLike = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS, 'version', 'apiBase', '__proto__', 'constructor'), fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 });
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), settingsLike, fc.anything()), (stored) => {
        tried();
        const loaded = readSettings(stored);
        expect(settingsSchema.safeParse(loaded.settings).success).toBe(true);
        const isObject = stored !== null && typeof stored === 'object' && !Array.isArray(stored);
        expect(loaded.unreadable).toBe(stored !== undefined && stored !== null && !isObject);
        const given = isObject ? Object.keys(stored as object) : [];
        // Version 0 stored the address as apiBase: it is read (and refused) as baseUrl.
        if (given.includes('apiBase')) given.push('baseUrl');
        for (const field of loaded.resetFields) expect(given).toContain(field);
        for (const field of FIELDS) {
          if (!given.includes(field)) expect(loaded.settings[field], field).toEqual(DEFAULT_SETTINGS[field]);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('reads a store with a negative version at once (counting up from it took seconds, or forever)', () => {
    // Counting up from the lowest safe integer would never end: had the fix gone, the test would time out.
    expect(readSettings({ version: Number.MIN_SAFE_INTEGER, token: 'kept' }).settings.token).toBe('kept');
    tried();
  });

  it('takes any version number without throwing, and never migrates a newer store backwards', () => {
    const version = fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.constantFrom(null, undefined, NaN, Infinity, -0, -1, SETTINGS_VERSION + 1));
    fc.assert(
      fc.property(version, fc.constantFrom('http://vip.iyuu.cn', 'javascript:alert(1)', 7), (value, apiBase) => {
        tried();
        const loaded = readSettings({ version: value, apiBase, token: 'kept' });
        expect(loaded.settings.token).toBe('kept');
        const newer = typeof value === 'number' && Number.isInteger(value) && value > SETTINGS_VERSION;
        const older = !(typeof value === 'number' && Number.isInteger(value)) || value < SETTINGS_VERSION;
        if (newer) expect(loaded.migrated).toBe(false);
        // Version 0 named the address apiBase: an older store keeps a usable one, and drops a bad one alone.
        if (older && (value === undefined || value === 0 || typeof value !== 'number' || !Number.isInteger(value))) {
          expect(loaded.settings.baseUrl).toBe(apiBase === 'http://vip.iyuu.cn' ? 'http://vip.iyuu.cn' : DEFAULT_SETTINGS.baseUrl);
        }
      }),
      { numRuns: 400 },
    );
  });
});
