/**
 * Extraction benchmark, run inside a browser page (bundled for it: see bench/extraction.chromium.ts).
 * Loads a generated ~2 MB NexusPHP details page, then the 100-row list page, into the given
 * document (as the browser's parser would build them) and times on each:
 *  - readPage, as the content script calls it;
 *  - the naive alternative: a whole-document 40-hex regex over outerHTML.
 * Budget: readPage under 2 ms median on the 2 MB page.
 */
import { readPage } from '../utils/pages';
import type { PageReading } from '../utils/pages/page-types';
import { nexusDetailsPage, nexusListPage } from '../test/fixtures/pages/generate';

export interface PageFigures {
  page: 'details-2mb' | 'list-100';
  htmlBytes: number;
  elements: number;
  readPageMedianMs: number;
  regexMedianMs: number;
  /** regex time / readPage time: how many times faster reading the engine's block is. */
  ratio: number;
  /** What readPage found (and whether it is the page's own hash / the expected rows). */
  hashesFound: number;
  correct: boolean;
  /** What the regex found: every 40-hex string in the markup, scripts and quotes included. */
  regexMatches: number;
}

export interface ExtractionFigures {
  userAgent: string;
  samples: number;
  pages: PageFigures[];
}

/** Median per-call time of `call`, sampled `samples` times in batches sized to beat the coarse clock. */
async function medianMs(call: () => unknown, samples: number): Promise<number> {
  for (let i = 0; i < 5; i++) await call(); // warm up the JIT
  const started = performance.now();
  await call();
  const once = Math.max(performance.now() - started, 0.001);
  const batch = Math.max(1, Math.min(200, Math.ceil(2 / once))); // ≥ ~2 ms per sample
  const perCall: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) await call();
    perCall.push((performance.now() - t0) / batch);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)]!;
}

function load(doc: Document, html: string): void {
  doc.open();
  doc.write(html);
  doc.close();
}

async function measure(
  doc: Document,
  page: PageFigures['page'],
  html: string,
  url: string,
  isCorrect: (reading: PageReading | null) => boolean,
  samples: number,
): Promise<PageFigures> {
  load(doc, html);
  const context = { url: new URL(url), document: doc, fetch: (() => Promise.reject(new Error('no network'))) as typeof fetch };
  const reading = await readPage(context, { engine: 'nexusphp' });
  const readPageMedianMs = await medianMs(() => readPage(context, { engine: 'nexusphp' }), samples);
  let regexMatches = 0;
  const regexMedianMs = await medianMs(() => {
    regexMatches = doc.documentElement.outerHTML.match(/[0-9a-f]{40}/gi)?.length ?? 0;
  }, samples);
  return {
    page,
    htmlBytes: new TextEncoder().encode(html).length,
    elements: doc.getElementsByTagName('*').length,
    readPageMedianMs,
    regexMedianMs,
    ratio: regexMedianMs / readPageMedianMs,
    hashesFound: reading?.hashes.length ?? 0,
    correct: isCorrect(reading),
    regexMatches,
  };
}

/**
 * Run in the page: `measureExtraction()` uses the page's own document (its content is replaced).
 * Returns median milliseconds per call and the regex/readPage ratio for both generated pages.
 */
export async function measureExtraction(doc: Document = document, options: { samples?: number } = {}): Promise<ExtractionFigures> {
  const samples = options.samples ?? 31;
  const details = nexusDetailsPage({ targetBytes: 2_000_000 });
  const list = nexusListPage({ rows: 100 });
  const pages = [
    await measure(doc, 'details-2mb', details.html, details.url, (r) => r?.hashes.length === 1 && r.hashes[0]!.hash === details.hash, samples),
    await measure(
      doc,
      'list-100',
      list.html,
      list.url,
      (r) => JSON.stringify(r?.hashes.map((h) => [h.row, h.hash])) === JSON.stringify(list.expect.map((h) => [h.row, h.hash])),
      samples,
    ),
  ];
  return { userAgent: navigator.userAgent, samples, pages };
}
