/** The content-script breakdown: source-map decoding, runs per source, and gzip shares that add up. */
import { describe, expect, it } from 'vitest';
import { contentScriptBreakdown, decodeMappings, groupOf, gzipShares, sourceRuns } from '../../../bench/size-breakdown';
import { gzipSize } from '../../../bench/size';

describe('source map', () => {
  it('decodes columns and source indexes, relative across segments and lines; unmapped segments are -1', () => {
    // A=0, C=+1, D=-1, G=+3; a one-field segment maps nothing.
    expect(decodeMappings('AAAA,GAAA,CCAA;AAAA,GDAA,C')).toEqual([
      [[0, 0], [3, 0], [4, 1]],
      [[0, 1], [3, 0], [4, -1]],
    ]);
    expect(decodeMappings('gBAAA')[0]).toEqual([[16, 0]]);
  });

  it('cuts the code into runs of one source, joining neighbours from the same one', () => {
    const code = 'abc;def\nghi;jk';
    const runs = sourceRuns(code, decodeMappings('AAAA,GAAA,CCAA;AAAA,GDAA,C'));
    expect(runs).toEqual([
      { source: 0, text: 'abc;' },
      { source: 1, text: 'def\nghi' },
      { source: 0, text: ';' },
      { source: -1, text: 'jk' },
    ]);
    expect(runs.map((run) => run.text).join('')).toBe(code);
  });

  it('charges each source what it adds to the gzip size; the shares add up to the whole', () => {
    const runs = [
      { source: 0, text: 'function alpha(){return 1}'.repeat(30) },
      { source: 1, text: 'const beta=[1,2,3].map(x=>x*2);' },
      { source: 0, text: 'function alpha(){return 2}' },
    ];
    const shares = gzipShares(runs);
    const total = [...shares.values()].reduce((sum, bytes) => sum + bytes, 0);
    expect(total).toBe(gzipSize(runs.map((run) => run.text).join('')) - gzipSize(''));
    expect(shares.get(0)!).toBeGreaterThan(shares.get(1)!);
  });

  it('groups node_modules by package and project files by folder', () => {
    expect(groupOf('node_modules/preact/hooks/dist/hooks.mjs')).toBe('preact');
    expect(groupOf('node_modules/@wxt-dev/webextension-polyfill/dist/browser.mjs')).toBe('@wxt-dev/webextension-polyfill');
    expect(groupOf('utils/pages/nexusphp.ts')).toBe('utils/pages');
  });
});

describe('content script breakdown', () => {
  it('bundles the content script as WXT does, with every module charged and no zod', async () => {
    const breakdown = await contentScriptBreakdown();
    const modules = breakdown.modules.map((share) => share.module);
    expect(modules).toContain('entrypoints/tracker.content/index.ts');
    expect(modules).toContain('node_modules/wxt/dist/virtual/content-script-isolated-world-entrypoint.mjs');
    expect(modules).toContain('components/base.css (inline)');
    expect(modules.some((module) => module.startsWith('node_modules/preact/'))).toBe(true);
    expect(modules.some((module) => module.includes('node_modules/zod/'))).toBe(false);
    const shares = breakdown.modules.reduce((sum, share) => sum + share.gzipBytes, 0);
    expect(shares).toBe(breakdown.gzipBytes - gzipSize(''));
    expect(breakdown.groups.reduce((sum, group) => sum + group.gzipBytes, 0)).toBe(shares);
  }, 30_000);
});
