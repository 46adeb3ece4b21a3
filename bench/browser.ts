/**
 * Runs benchmark code inside headless Chromium (no extension), for figures that depend on a real
 * browser DOM rather than happy-dom/linkedom.
 *
 * ```ts
 * // bench/extract-page.ts (runs in the page; bundled with esbuild, so it may import project code)
 * import { readPage } from '../utils/pages';
 * export function run(html: string) { ... return { hashes: n }; }
 *
 * // bench/run.ts
 * import { runInChromium, withChromiumPage } from './browser.ts';
 * const figures = await runInChromium('bench/extract-page.ts', { html: page, exportName: 'run', arg: page });
 *
 * await withChromiumPage(async (bench) => {
 *   await bench.setHtml(trackerPageHtml);
 *   await bench.loadModule('bench/extract-page.ts');          // → window.benchModule
 *   const stats = await bench.time(() => (window as any).benchModule.run(document), { iterations: 200, batch: 10 });
 *   console.log(`readPage: median ${stats.medianMs.toFixed(3)} ms`);
 * });
 * ```
 * Functions handed to `evaluate`/`time` are sent as source text: they may only use the page's
 * globals and their JSON argument, not variables from the Node side.
 */
import { build } from 'esbuild';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
export const CHROMIUM_PATH = process.env.RESEED_CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TimeOptions {
  /** Measured samples. Default 50. */
  iterations?: number;
  /** Unmeasured runs first, to let the JIT settle. Default 5. */
  warmup?: number;
  /** Calls per sample; raise it for fast functions (the page clock is coarse, ~0.1 ms). Default 1. */
  batch?: number;
}

export interface TimeStats {
  samples: number;
  callsPerSample: number;
  /** Per call, in milliseconds. */
  meanMs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  /** Calls per second from the mean (the median can round to 0 for very fast calls). */
  opsPerSecond: number;
}

export interface BenchPage {
  /** The Playwright page, for anything not covered here. */
  readonly page: Page;
  /** Replaces the document with this HTML (an about:blank document; no network). */
  setHtml(html: string): Promise<void>;
  /**
   * Bundles a TS/JS module (path relative to the repo root, or absolute) for the browser with
   * esbuild and defines its exports as `window[globalName]` (default `benchModule`).
   */
  loadModule(entry: string, globalName?: string): Promise<void>;
  /** Runs `fn(arg)` in the page and returns its awaited, JSON-serialisable result. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  /** Times `fn(arg)` in the page (the loop runs in the page, not over the protocol). */
  time<A = undefined>(fn: (arg: A) => unknown, options?: TimeOptions & { arg?: A }): Promise<TimeStats>;
}

const DEFAULT_HTML = '<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body></body></html>';

/** Source text calling `fn` with JSON args; `__name` covers helpers tsx/esbuild may insert. */
function callSource(fn: (...args: never[]) => unknown, args: unknown[]): string {
  const list = args.map((arg) => (arg === undefined ? 'undefined' : JSON.stringify(arg))).join(', ');
  return `(async () => { const __name = (target) => target; return await (${fn.toString()})(${list}); })()`;
}

/** Bundles one module for the page as an IIFE assigning its exports to `globalThis[globalName]`. */
export async function bundleForPage(entry: string, globalName = 'benchModule'): Promise<string> {
  const result = await build({
    entryPoints: [isAbsolute(entry) ? entry : resolve(REPO_ROOT, entry)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    format: 'iife',
    globalName,
    platform: 'browser',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"', 'import.meta.env.DEV': 'false' },
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.text;
}

function stats(samples: number[], batch: number): TimeStats {
  const perCall = samples.map((ms) => ms / batch).sort((a, b) => a - b);
  const at = (q: number) => perCall[Math.min(perCall.length - 1, Math.floor(q * perCall.length))]!;
  const mean = perCall.reduce((sum, ms) => sum + ms, 0) / perCall.length;
  const median = at(0.5);
  return {
    samples: perCall.length,
    callsPerSample: batch,
    meanMs: mean,
    medianMs: median,
    p95Ms: at(0.95),
    minMs: perCall[0]!,
    maxMs: perCall[perCall.length - 1]!,
    opsPerSecond: mean > 0 ? 1000 / mean : Number.POSITIVE_INFINITY,
  };
}

/** Launches headless Chromium, hands `fn` a fresh page, and always closes the browser. */
export async function withChromiumPage<T>(fn: (bench: BenchPage) => Promise<T>, options: { html?: string } = {}): Promise<T> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    // No network for benchmarks: a page asking for something would only add noise.
    await page.route('**/*', (route) => route.abort());
    const bench: BenchPage = {
      page,
      async setHtml(html) {
        await page.setContent(html, { waitUntil: 'load' });
      },
      async loadModule(entry, globalName = 'benchModule') {
        await page.addScriptTag({ content: await bundleForPage(entry, globalName) });
      },
      async evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>> {
        return (await page.evaluate(callSource(fn, [arg]))) as Awaited<R>;
      },
      async time<A = undefined>(fn: (arg: A) => unknown, timeOptions: TimeOptions & { arg?: A } = {}) {
        const { iterations = 50, warmup = 5, batch = 1, arg } = timeOptions;
        const loop = async (target: (value: unknown) => unknown, value: unknown, plan: { iterations: number; warmup: number; batch: number }) => {
          for (let i = 0; i < plan.warmup * plan.batch; i++) await target(value);
          const samples: number[] = [];
          for (let i = 0; i < plan.iterations; i++) {
            const started = performance.now();
            for (let j = 0; j < plan.batch; j++) await target(value);
            samples.push(performance.now() - started);
          }
          return samples;
        };
        const source = `(async () => { const __name = (target) => target; return await (${loop.toString()})((${fn.toString()}), ${
          arg === undefined ? 'undefined' : JSON.stringify(arg)
        }, ${JSON.stringify({ iterations, warmup, batch })}); })()`;
        return stats((await page.evaluate(source)) as number[], batch);
      },
    };
    await bench.setHtml(options.html ?? DEFAULT_HTML);
    return await fn(bench);
  } finally {
    await browser.close();
  }
}

/**
 * One-shot: load `html`, then either run `entry` (a function, in the page) or bundle the module at
 * `entry` and call its export `exportName` (default 'default') with `arg`. Returns the result.
 */
export async function runInChromium<R, A = undefined>(
  entry: string | ((arg: A) => R | Promise<R>),
  options: { html?: string; exportName?: string; arg?: A } = {},
): Promise<Awaited<R>> {
  return withChromiumPage(async (bench): Promise<Awaited<R>> => {
    if (typeof entry === 'function') return bench.evaluate<R, A>(entry, options.arg);
    await bench.loadModule(entry, 'benchModule');
    const call = (input: { exportName: string; arg: unknown }) => {
      const exported = (globalThis as unknown as { benchModule: Record<string, unknown> }).benchModule[input.exportName];
      if (typeof exported !== 'function') throw new Error(`the bench module has no exported function "${input.exportName}"`);
      return (exported as (arg: unknown) => unknown)(input.arg);
    };
    return (await bench.evaluate(call, { exportName: options.exportName ?? 'default', arg: options.arg })) as Awaited<R>;
  }, { html: options.html });
}
