/** bench/browser.ts: benchmark code really runs in Chromium, bundled from TypeScript. */
import { describe, expect, it } from 'vitest';
import { runInChromium, withChromiumPage } from '../../../bench/browser.ts';

const MODULE = 'test/e2e/harness/bench-page-module.ts';

describe('bench/browser', () => {
  it('bundles a TS module with its npm imports and calls its exports in the page', async () => {
    const html = '<ul><li><a href="/a">a</a></li><li><a href="/b">b</a></li></ul><a class="other">c</a>';
    expect(await runInChromium(MODULE, { html, exportName: 'countLinks', arg: 'li a' })).toEqual({ links: 2, chrome: true });
    expect(await runInChromium(MODULE, { arg: 'bench' })).toBe('hello bench');
  });

  it('runs a plain function against the given HTML', async () => {
    expect(await runInChromium((suffix: string) => document.title + suffix, { html: '<title>bench</title>', arg: '!' })).toBe('bench!');
  });

  it('times code in the page and reports per-call figures', async () => {
    await withChromiumPage(async (bench) => {
      await bench.loadModule(MODULE);
      const stats = await bench.time(
        () => {
          const end = performance.now() + 0.2; // ~0.2 ms of busy work per call
          while (performance.now() < end);
        },
        { iterations: 20, warmup: 2, batch: 5 },
      );
      expect(stats.samples).toBe(20);
      expect(stats.callsPerSample).toBe(5);
      expect(stats.minMs).toBeGreaterThanOrEqual(0.19);
      expect(stats.medianMs).toBeGreaterThanOrEqual(stats.minMs);
      expect(stats.p95Ms).toBeGreaterThanOrEqual(stats.medianMs);
      expect(stats.opsPerSecond).toBeLessThan(5_500);
      expect(await bench.evaluate(() => typeof (window as unknown as { benchModule?: unknown }).benchModule)).toBe('object');
    });
  });

  it('says which export is missing', async () => {
    await expect(runInChromium(MODULE, { exportName: 'nothing' })).rejects.toThrow(/no exported function "nothing"/);
  });
});
