/**
 * SiteBudget's log of downloads (features/cross-seed/site-budget.ts): a download is counted before
 * its request leaves, and its time moves to the site's answer, which is where the next download's
 * "Seconds between downloads" is measured from (a slow request does not bring the next one closer).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { siteDownloadsItem } from '../../../../features/cross-seed/cross-seed.storage';
import { DAY_MS, SiteBudget } from '../../../../features/cross-seed/site-budget';

let clock = 1_800_000_000_000;
const budget = () => new SiteBudget(() => clock);

beforeEach(() => {
  fakeBrowser.reset();
  clock = 1_800_000_000_000;
});

describe('SiteBudget', () => {
  it('counts a download when it starts and moves its time to the answer', async () => {
    const b = budget();
    const at = await b.record(9);
    expect(at).toBe(clock);
    clock += 1_200;
    expect(await b.answered(9, at)).toBe(clock);
    expect(await b.lastAt(9)).toBe(clock);
    expect(await b.usedToday(9)).toBe(1);
    // A second request of the same download (a details page, then the file) moves it again; still one download.
    clock += 300;
    expect(await b.answered(9, clock - 300)).toBe(clock);
    expect((await siteDownloadsItem.get())['9']).toEqual([clock]);
  });

  it('moves only that download, on that site; a time no longer in the log changes nothing', async () => {
    const b = budget();
    const first = await b.record(9);
    clock += 10;
    const other = await b.record(23);
    clock += 10;
    const second = await b.record(9);
    clock += 500;
    await b.answered(9, first);
    // In order still: the last download on the site is the one answered last.
    expect(await siteDownloadsItem.get()).toEqual({ '9': [second, clock], '23': [other] });
    expect(await b.lastAt(9)).toBe(clock);
    // Gone from the rolling day: nothing to move, nothing added.
    clock += DAY_MS;
    await b.record(23);
    expect(await b.answered(9, first)).toBe(first);
    expect((await siteDownloadsItem.get())['9']).toBeUndefined();
  });
});
