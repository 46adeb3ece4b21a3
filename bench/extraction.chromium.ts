/**
 * Measures extraction in headless Chromium and prints the figures (bench/extraction.ts does the
 * work inside the page).
 *
 *   npx tsx bench/extraction.chromium.ts
 */
import { runInChromium } from './browser';
import type { ExtractionFigures } from './extraction';

const figures = await runInChromium<ExtractionFigures>('bench/extraction.ts', { exportName: 'measureExtraction' });
console.log(figures.userAgent);
for (const page of figures.pages) {
  console.log(
    `${page.page.padEnd(12)} ${(page.htmlBytes / 1e6).toFixed(2)} MB, ${page.elements} elements: ` +
      `readPage ${page.readPageMedianMs.toFixed(3)} ms median (${page.hashesFound} hash${page.hashesFound === 1 ? '' : 'es'}, ${page.correct ? 'correct' : 'WRONG'}); ` +
      `outerHTML regex ${page.regexMedianMs.toFixed(2)} ms (${page.regexMatches} matches); ratio ${page.ratio.toFixed(0)}×`,
  );
}
const details = figures.pages.find((page) => page.page === 'details-2mb');
if (!details || !details.correct || details.readPageMedianMs >= 2) process.exitCode = 1;
