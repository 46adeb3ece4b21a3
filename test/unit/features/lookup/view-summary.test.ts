/**
 * Count sentences in the right form: "1 torrent", "2 torrents" (the browser's i18n has no plural
 * rules, so each form is its own message); Chinese has one form and reads the same either way.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { lookingUpText, resultsText, viewSummary } from '../../../../features/lookup/ui/view-summary';
import { candidate, resetBrowser, tabView } from '../../support/components';

beforeEach(() => resetBrowser('en'));

describe('count sentences', () => {
  it.each([
    [1, 1, '1 torrent on 1 other site'],
    [2, 1, '2 torrents on 1 other site'],
    [4, 3, '4 torrents on 3 other sites'],
    [1234, 12, '1,234 torrents on 12 other sites'],
  ])('%i torrents on %i sites: "%s"', (torrents, sites, said) => {
    expect(resultsText(torrents, sites)).toBe(said);
  });

  it.each([
    [1, 'Looking up 1 hash…'],
    [3, 'Looking up 3 hashes…'],
  ])('looking up %i hashes: "%s"', (hashes, said) => {
    expect(lookingUpText(hashes)).toBe(said);
  });

  it('the panel\'s summary of one torrent on one other site is in the singular', () => {
    expect(viewSummary(tabView({ candidates: [candidate(9, 1)] }))).toBe('1 torrent on 1 other site');
    expect(viewSummary(tabView({ status: 'looking-up' }))).toBe('Looking up 1 hash…');
  });

  it('reads the same in Chinese, whichever form the number picks', () => {
    resetBrowser('zh_CN');
    expect(resultsText(1, 1)).toBe('其他 1 个站点共 1 个种子');
    expect(resultsText(2, 1)).toBe('其他 1 个站点共 2 个种子');
    expect(resultsText(4, 3)).toBe('其他 3 个站点共 4 个种子');
    expect(lookingUpText(1)).toBe('正在查询 1 个 Hash…');
  });
});
