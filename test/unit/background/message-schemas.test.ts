/** The background's check of a page reading's list rows (issue #10): what passes, what is refused, nothing dropped on the way. */
import { describe, expect, it } from 'vitest';
import { protocol } from '../../../features/protocol';
import { pageReadingSchema } from '../../../features/lookup/lookup.messages';
import { readPage } from '../../../utils/pages';
import { contextFor } from '../pages/load';

const HASH = 'b257af45fbc9f52d0e728490f2c2da9e4f66647e';
const list = { engine: 'nexusphp', kind: 'list', hashes: [] };

describe('page reading rows', () => {
  it('keeps every row as the content script sent it', () => {
    const rows = [{ id: '1' }, { id: '60003', hash: HASH, title: '剧集.S01-GRP' }, { id: '999999999999' }];
    expect(pageReadingSchema.parse({ ...list, rows }).rows).toEqual(rows);
    expect(pageReadingSchema.parse(list).rows).toBeUndefined();
    const message = protocol['page:reading'].request.parse({ type: 'page:reading', url: 'https://a.b/torrents.php', reading: { ...list, rows } });
    expect(message.reading?.rows).toEqual(rows);
  });

  it('accepts what the engines read from real list pages', async () => {
    for (const name of ['nexusphp-list', 'nexusphp-search', 'ttg-browse', 'unit3d-list', 'unit3d-similar', 'gazelle-browse', 'mteam-browse']) {
      const { page, context } = contextFor(name);
      const reading = await readPage(context, page.hint ? { engine: page.hint } : undefined);
      expect(reading?.rows?.length, name).toBeGreaterThan(0);
      expect(pageReadingSchema.safeParse(reading).success, name).toBe(true);
    }
  }, 30_000); // seven fixtures parsed: seconds on a busy machine

  it('refuses ids that are not 1–12 digits, bad hashes, long titles and more than 500 rows', () => {
    const bad = [
      [{ id: '' }],
      [{ id: '12a' }],
      [{ id: '-1' }],
      [{ id: '1234567890123' }],
      [{ id: 12 }],
      [{ id: '1', hash: HASH.toUpperCase() }],
      [{ id: '1', hash: 'not-a-hash' }],
      [{ id: '1', title: 'x'.repeat(501) }],
      Array.from({ length: 501 }, (_, index) => ({ id: String(index + 1) })),
      'not a list',
    ];
    for (const rows of bad) expect(pageReadingSchema.safeParse({ ...list, rows }).success, JSON.stringify(rows).slice(0, 60)).toBe(false);
    expect(pageReadingSchema.safeParse({ ...list, rows: Array.from({ length: 500 }, (_, index) => ({ id: String(index + 1) })) }).success).toBe(true);
  });
});
