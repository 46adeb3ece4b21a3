import { describe, expect, it } from 'vitest';
import { longestBlock, percentile, perTorrentOverhead } from '../../../bench/job-figures';

describe("the cross-seed job's figures", () => {
  it('takes the nearest-rank percentile', () => {
    const values = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile(values, 50)).toBe(10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 95)).toBeNaN();
  });

  it("counts a torrent's own time from when it could start: the previous outcome, and the site's gap after the previous download", () => {
    // Downloads at 10, 1010 and 2030; outcomes at 40, 1050 and 2060; a 1000 ms gap.
    expect(perTorrentOverhead(0, [40, 1050, 2060], [10, 1010, 2030], 1000)).toEqual([40, 40, 50]);
    // A torrent slower than the gap: the next one may start at its outcome.
    expect(perTorrentOverhead(0, [1500, 1530], [10, 1510], 1000)).toEqual([1500, 30]);
  });

  it("measures the event loop's longest blocking stretch while work runs", async () => {
    const { result, longestMs } = await longestBlock(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const until = performance.now() + 60;
      while (performance.now() < until);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'done';
    });
    expect(result).toBe('done');
    expect(longestMs).toBeGreaterThanOrEqual(60);
  });
});
