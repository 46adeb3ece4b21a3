/**
 * Every stored key is declared once, as an item beside its owner, and read and written only
 * through it: no two items share a key, no key falls under another family's prefix, and no source
 * file but utils/stored-item.ts calls browser.storage's get, set or remove.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tabViewItems } from '../../features/tabs.storage';
import { indexRunsItem } from '../../features/client-index/client-index.storage';
import { clientsItem } from '../../features/clients/clients.storage';
import { confirmWindowsItem, tabCrossSeedItems } from '../../features/cross-seed/cross-seed.storage';
import { decidedItem, jobOutcomeChunks, jobQueues, jobStateItem, jobSwitchesItem, noticedFindsItem } from '../../features/cross-seed-job/cross-seed-job.storage';
import { getStartedItem } from '../../features/get-started/get-started.storage';
import { settingsItem } from '../../features/settings/settings.storage';
import { recommendedSitesItem, seenSitesItem, siteListItem } from '../../features/sites/sites.storage';
import { legacyIndexBuckets, legacyIndexMetaItem } from '../../utils/client-index/legacy-storage';
import { answerCountItem, answerItems, clockOffsetItem, rateLimitItem, siteReportItem } from '../../utils/lookup/lookup-storage';

const ITEMS = [
  settingsItem,
  getStartedItem,
  clientsItem,
  indexRunsItem,
  confirmWindowsItem,
  seenSitesItem,
  siteListItem,
  recommendedSitesItem,
  legacyIndexMetaItem,
  answerCountItem,
  clockOffsetItem,
  rateLimitItem,
  siteReportItem,
  jobStateItem,
  decidedItem,
  jobSwitchesItem,
  noticedFindsItem,
];
const FAMILIES = [tabViewItems, tabCrossSeedItems, legacyIndexBuckets, answerItems, jobOutcomeChunks, jobQueues];

describe('the stored keys', () => {
  it('are each declared once, and no single key falls under a family of its area', () => {
    const names = [...ITEMS.map((item) => `${item.area}:${item.key}`), ...FAMILIES.map((family) => `${family.area}:${family.prefix}*`)];
    expect(new Set(names).size).toBe(names.length);
    for (const item of ITEMS) {
      for (const family of FAMILIES) if (family.area === item.area) expect(item.key.startsWith(family.prefix), `${item.key} under ${family.prefix}`).toBe(false);
    }
    // Two families of one area: neither prefix may hold the other's keys.
    for (const a of FAMILIES) for (const b of FAMILIES) if (a !== b && a.area === b.area) expect(a.prefix.startsWith(b.prefix), `${a.prefix} under ${b.prefix}`).toBe(false);
  });

  it('are read and written only through their items', () => {
    const root = join(__dirname, '../..');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name)) files.push(path);
      }
    };
    for (const dir of ['utils', 'features', 'entrypoints', 'components']) walk(join(root, dir));
    const direct = files
      .filter((file) => !file.endsWith(join('utils', 'stored-item.ts')))
      .filter((file) => /storage\s*\.\s*(local|session|sync)\s*\.\s*(get|set|remove|clear)\b|storage\[[^\]]+\]\s*\.\s*(get|set|remove)\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(direct).toEqual([]);
  });
});
