/**
 * The store listing (store/): in both languages, a summary within the Chrome Web Store's 132
 * characters, a reason for every permission either built manifest asks (and none for a permission
 * no manifest asks), and a privacy policy that names each kind of data Firefox's declaration does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentScriptMatches } from '../../utils/sites/hosts';
import { DEFAULT_EXTENSION_DIRS, REPO_ROOT } from '../e2e/harness/profile';

interface Manifest {
  permissions?: string[];
  host_permissions?: string[];
  optional_permissions?: string[];
  optional_host_permissions?: string[];
  browser_specific_settings?: { gecko?: { data_collection_permissions?: { required?: string[]; optional?: string[] } } };
}

/** Needs the builds (`npm run build && npm run build:firefox`; `npm test` makes them first). */
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const chrome = manifest(DEFAULT_EXTENSION_DIRS.chromium);
const firefox = manifest(DEFAULT_EXTENSION_DIRS.firefox);
const asked = new Set(
  [chrome, firefox].flatMap((one) => [...(one.permissions ?? []), ...(one.host_permissions ?? []), ...(one.optional_permissions ?? []), ...(one.optional_host_permissions ?? [])]),
);
/** What permissions.json calls the catalog's tracker hosts, which the manifests list one by one. */
const CATALOGUED = 'catalogued sites';
const catalogued = new Set(contentScriptMatches());

/** How each language's policy names Firefox's data-collection categories. */
const CATEGORY_NAMES: Record<string, Record<string, string>> = {
  en: { browsingActivity: 'browsing activity', authenticationInfo: 'authentication information', personallyIdentifyingInfo: 'personally identifying information' },
  zh_CN: { browsingActivity: '浏览活动', authenticationInfo: '身份验证信息', personallyIdentifyingInfo: '个人身份信息' },
};

const read = (lang: string, file: string) => readFileSync(join(REPO_ROOT, 'store', lang, file), 'utf8');

describe.each(['en', 'zh_CN'])('store/%s', (lang) => {
  it('has a name, a summary within 132 characters, a description and a privacy policy', () => {
    const listing = JSON.parse(read(lang, 'listing.json')) as { name: string; summary: string };
    expect(listing.name).toMatch(/^Reseed Lens/);
    expect(listing.summary.length).toBeGreaterThan(20);
    expect([...listing.summary].length).toBeLessThanOrEqual(132);
    expect(read(lang, 'description.md').length).toBeGreaterThan(500);
    expect(read(lang, 'privacy.md').length).toBeGreaterThan(500);
  });

  it('gives a reason for every permission of both manifests, and only for those', () => {
    const reasons = JSON.parse(read(lang, 'permissions.json')) as { permissions: string[]; why: string }[];
    for (const reason of reasons) expect(reason.why.length, reason.permissions.join()).toBeGreaterThan(20);
    const given = new Set(reasons.flatMap((reason) => reason.permissions));
    const without = [...asked].filter((permission) => !given.has(permission) && !(catalogued.has(permission) && given.has(CATALOGUED)));
    expect(without).toEqual([]);
    const unasked = [...given].filter((permission) => !asked.has(permission) && !(permission === CATALOGUED && [...catalogued].some((host) => asked.has(host))));
    expect(unasked).toEqual([]);
    expect(asked.size).toBeGreaterThan(given.size);
  });

  it("names in its privacy policy each kind of data Firefox's manifest declares", () => {
    const declared = firefox.browser_specific_settings?.gecko?.data_collection_permissions;
    const kinds = [...(declared?.required ?? []), ...(declared?.optional ?? [])];
    expect(kinds.length).toBeGreaterThan(0);
    const policy = read(lang, 'privacy.md');
    expect(kinds.filter((kind) => !policy.includes(CATEGORY_NAMES[lang]![kind] ?? `(no name for ${kind})`))).toEqual([]);
  });
});
