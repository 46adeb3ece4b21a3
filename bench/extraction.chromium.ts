/**
 * Measures extraction in headless Chromium (bench/extraction.ts does the work inside the page) and
 * turns the result into figures for bench/run.ts; run directly, it prints them.
 *
 *   npx tsx bench/extraction.chromium.ts
 */
import { pathToFileURL } from 'node:url';
import { runInChromium } from './browser';
import type { ExtractionFigures } from './extraction';
import type { BenchOutcome, Figure } from './figures';

/** readPage's median on the 2 MB details page must stay under this (ms). */
export const DETAILS_BUDGET_MS = 2;

export function measureExtractionInChromium(): Promise<ExtractionFigures> {
  return runInChromium<ExtractionFigures>('bench/extraction.ts', { exportName: 'measureExtraction' });
}

const PAGE_NAMES = { 'details-2mb': '2 MB details page', 'list-100': '100-row list page' } as const;

export function extractionOutcome(result: ExtractionFigures): BenchOutcome {
  const figures: Figure[] = [];
  const problems: string[] = [];
  for (const page of result.pages) {
    const name = PAGE_NAMES[page.page];
    figures.push(
      {
        id: `extraction.${page.page}.readPage`,
        bench: 'extraction',
        label: `readPage on the ${name} (${(page.htmlBytes / 1e6).toFixed(2)} MB, ${page.elements} elements), median`,
        value: page.readPageMedianMs,
        unit: 'ms',
        budget: page.page === 'details-2mb' ? { op: '<', limit: DETAILS_BUDGET_MS } : undefined,
      },
      {
        id: `extraction.${page.page}.regex`,
        bench: 'extraction',
        label: `  … whole-document 40-hex regex over outerHTML, same run, median`,
        value: page.regexMedianMs,
        unit: 'ms',
        note: `${page.regexMatches} matches`,
      },
      {
        id: `extraction.${page.page}.ratio`,
        bench: 'extraction',
        label: `  … regex time / readPage time`,
        value: page.ratio,
        unit: 'ratio',
      },
    );
    if (!page.correct) problems.push(`extraction on the ${name}: readPage found ${page.hashesFound} hash(es), not the page's own`);
  }
  const report = [
    `extraction (${result.userAgent}; ${result.samples} samples per figure, each a batch of calls lasting ≥ 2 ms):`,
    ...result.pages.map(
      (page) =>
        `  ${page.page.padEnd(12)} ${(page.htmlBytes / 1e6).toFixed(2)} MB, ${page.elements} elements: readPage ${page.readPageMedianMs.toFixed(3)} ms ` +
        `(${page.hashesFound} hash${page.hashesFound === 1 ? '' : 'es'}, ${page.correct ? 'correct' : 'WRONG'}); regex ${page.regexMedianMs.toFixed(2)} ms (${page.regexMatches} matches); ${page.ratio.toFixed(0)}×`,
    ),
  ];
  return { figures, report, problems, details: result };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outcome = extractionOutcome(await measureExtractionInChromium());
  console.log(outcome.report!.join('\n'));
  const details = outcome.figures.find((figure) => figure.id === 'extraction.details-2mb.readPage');
  if (!details || details.value >= DETAILS_BUDGET_MS || outcome.problems?.length) process.exitCode = 1;
}
