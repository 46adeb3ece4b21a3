/** The bench's verdicts, table, results merge and markdown: what decides OK/OVER and the exit code. */
import { describe, expect, it } from 'vitest';
import { formatBudget, formatMarkdown, formatTable, formatValue, measuredOrNoted, median, mergeResults, overBudget, verdict, type Figure, type Results } from '../../../bench/figures';
import { parseArgs } from '../../../bench/command-line';

const figure = (extra: Partial<Figure>): Figure => ({ id: 'x', bench: 'size', label: 'x', value: 0, unit: 'bytes', ...extra });

describe('verdict', () => {
  it('is empty without a budget, and honours ≤ and < at the limit', () => {
    expect(verdict({ value: 5 })).toBe('');
    expect(verdict({ value: 20_480, budget: { op: '<=', limit: 20_480 } })).toBe('OK');
    expect(verdict({ value: 20_481, budget: { op: '<=', limit: 20_480 } })).toBe('OVER');
    expect(verdict({ value: 2, budget: { op: '<', limit: 2 } })).toBe('OVER');
    expect(verdict({ value: 1.999, budget: { op: '<', limit: 2 } })).toBe('OK');
  });

  it('counts a figure that could not be computed as over its budget', () => {
    expect(verdict({ value: Number.NaN, budget: { op: '<=', limit: 1 } })).toBe('OVER');
    expect(verdict({ value: Number.POSITIVE_INFINITY, budget: { op: '<', limit: 1 } })).toBe('OVER');
  });
});

describe('formatting', () => {
  it('prints bytes as KB (1024) with the exact count, and budgets in whole KB', () => {
    expect(formatValue(20_257, 'bytes')).toBe('19.78 KB (20257 B)');
    expect(formatValue(900, 'bytes')).toBe('900 B');
    expect(formatBudget({ op: '<=', limit: 20 * 1024 }, 'bytes')).toBe('≤ 20 KB');
    expect(formatBudget({ op: '<', limit: 2 }, 'ms')).toBe('< 2 ms');
    expect(formatBudget({ op: '<=', limit: 0 }, 'requests')).toBe('≤ 0');
    expect(formatValue(0.0473, 'ms')).toBe('0.047 ms');
    expect(formatValue(1102.4, 'ratio')).toBe('1102×');
  });

  it('shows OVER in the table and says by how much, with the figure id', () => {
    const figures = [
      figure({ id: 'size.chrome-mv3.content', label: 'content script', value: 20_498, budget: { op: '<=', limit: 20_480 } }),
      figure({ id: 'size.chrome-mv3.popup', label: 'popup', value: 17_000, budget: { op: '<=', limit: 40_960 } }),
      figure({ id: 'extraction.x', bench: 'extraction', label: 'readPage', value: 0.05, unit: 'ms' }),
    ];
    const table = formatTable(figures, new Map([['size.chrome-mv3.content', 20_366]]));
    const contentLine = table.split('\n').find((line) => line.startsWith('content script'))!;
    expect(contentLine).toMatch(/20\.02 KB \(20498 B\)\s+≤ 20 KB\s+OVER\s+19\.89 KB \(20366 B\)$/);
    expect(table).toContain('[extraction]');
    expect(overBudget(figures)).toEqual(['size.chrome-mv3.content (content script): 20.02 KB (20498 B), budget ≤ 20 KB']);
  });

  it('takes the lower middle as the median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([])).toBeNaN();
  });
});

describe('results', () => {
  const previous: Results = {
    generatedAt: 'then',
    environment: {},
    figures: [
      { ...figure({ id: 'size.a', value: 1 }), verdict: '' },
      { ...figure({ id: 'flood.a', bench: 'flood', value: 9, unit: 'requests', budget: { op: '<=', limit: 50 } }), verdict: 'OK' },
    ],
    benches: { size: { measuredAt: 'then', seconds: 1 }, flood: { measuredAt: 'then', seconds: 30 } },
  };

  it('replaces the benches that ran and keeps the others (a --only run erases nothing)', () => {
    const merged = mergeResults(previous, {
      ran: ['size'],
      figures: [figure({ id: 'size.b', value: 2, budget: { op: '<=', limit: 1 } })],
      benches: { size: { measuredAt: 'now', seconds: 2 } },
      environment: { node: 'v20' },
      at: 'now',
    });
    expect(merged.figures.map((entry) => [entry.id, entry.verdict])).toEqual([
      ['flood.a', 'OK'],
      ['size.b', 'OVER'],
    ]);
    expect(merged.benches.flood!.measuredAt).toBe('then');
    expect(merged.benches.size!.measuredAt).toBe('now');
  });

  it('writes one markdown table per bench, in the given order, pipes escaped', () => {
    const results: Results = { ...previous, figures: [...previous.figures, { ...figure({ id: 'size.c', label: 'a | b', value: 3 }), verdict: '' }] };
    const markdown = formatMarkdown(results, ['size', 'flood']);
    expect(markdown.indexOf('## size')).toBeLessThan(markdown.indexOf('## flood'));
    expect(markdown).toContain('| a \\| b | 3 B |  |  | `size.c` |');
    expect(markdown).toContain('| x | 9 | ≤ 50 | OK | `flood.a` |');
  });
});

describe('command line', () => {
  it('runs everything by default, a subset with --only, and refuses unknown names', () => {
    expect(parseArgs([])).toEqual({ only: ['size', 'extraction', 'pageviews', 'pictures', 'cache', 'flood', 'client', 'index', 'indexbrowser', 'indexmulti', 'crossseed', 'checkend', 'job', 'pieces', 'rename'], build: true });
    expect(parseArgs(['--only', 'indexfull'])).toEqual({ only: ['indexfull'], build: true });
    expect(parseArgs(['--only', 'indexmultifull,indexmulti'])).toEqual({ only: ['indexmulti', 'indexmultifull'], build: true });
    expect(parseArgs(['--only', 'extraction,size'])).toEqual({ only: ['size', 'extraction'], build: true });
    expect(parseArgs(['--only=flood', '--no-build'])).toEqual({ only: ['flood'], build: false });
    expect(() => parseArgs(['--only', 'sizes'])).toThrow(/unknown: sizes/);
    expect(() => parseArgs(['--only'])).toThrow(/comma-separated/);
    expect(() => parseArgs(['--fast'])).toThrow(/unknown argument --fast/);
  });
});

describe('measuredOrNoted', () => {
  it('hands back a build\'s measurement, or notes a build that could not be measured as a failed check naming it', async () => {
    const outcome = { problems: [] as string[], report: [] as string[] };
    expect(await measuredOrNoted('Deluge 2.2 (current)', async () => 42, outcome)).toBe(42);
    expect(outcome).toEqual({ problems: [], report: [] });
    expect(await measuredOrNoted('Deluge 2.0 (bookworm)', () => Promise.reject(new Error('timed out waiting\nstack')), outcome)).toBeUndefined();
    expect(outcome).toEqual({ problems: ['Deluge 2.0 (bookworm): not measured: timed out waiting'], report: ['  Deluge 2.0 (bookworm): not measured'] });
  });
});
