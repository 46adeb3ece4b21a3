/**
 * `npm run bench`: every figure with its budget, as a table, and the same figures in
 * bench/results.json (committed: the README cites it, the next run compares with it).
 *
 *   npm run bench                             everything (builds both targets once)
 *   npm run bench -- --only size,extraction   a subset: size, extraction, pageviews, pictures, cache, flood, client, index, indexbrowser, indexfull, indexmulti, indexmultifull, crossseed, job, pieces, rename
 *                                             (indexfull, the 100,000-torrent first sync in Chromium, and indexmultifull, 100,000 over three
 *                                             clients in Chromium and Firefox, run only when named)
 *   npm run bench -- --no-build               measure .output/ as it is instead of building
 *
 * Exits 1 when a figure is over its budget or a benchmark could not measure (it says why).
 * The flood scenarios spend their time waiting on the lookup's pacing gate, so they run in their
 * own processes alongside the others; the cache benchmark runs before them, alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, REPO_ROOT, TARGETS, type Builds } from './build';
import { extractionOutcome, measureExtractionInChromium } from './extraction.chromium';
import { formatMarkdown, formatTable, mergeResults, overBudget, type BenchOutcome, type BenchRecord, type Figure, type Results } from './figures';
import { measureCrossSeedClicks } from './crossseed-browser';
import { FLOOD_SCENARIOS, type NodeBenchOutput } from './lookup-node';
import { measureListPage } from './list-page-browser';
import { INDEX_BROWSER_PLANS, INDEX_FULL_PLANS, measureIndexInBrowser } from './index-browser';
import { INDEX_MULTI_FULL_PLAN, INDEX_MULTI_PLAN, measureIndexMulti, planWords } from './index-multi-browser';
import { BENCHES, NEEDS_BUILD, parseArgs, type BenchName, type Options } from './command-line';
import { measurePageViews } from './page-views';
import { measureSlowPictures } from './slow-pictures';
import { contentScriptBreakdown, formatBreakdown } from './size-breakdown';
import { describeFiles, gzipSize, measureBuild, sizeFigures } from './size';

const RESULTS_FILE = join(REPO_ROOT, 'bench/results.json');
const RESULTS_MARKDOWN = join(REPO_ROOT, 'bench/results.md');

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Others share this machine: a load above the core count makes every timing noisier. */
const startLoad = loadavg()[0] ?? 0;
const children = new Set<ChildProcess>();

/** Runs a Node benchmark (bench/lookup-node.ts unless named) in a process of its own; its last stdout line is the result. */
function nodeBench(args: string[], script = 'bench/lookup-node.ts'): Promise<NodeBenchOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      children.delete(child);
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        resolve(JSON.parse(last) as NodeBenchOutput);
      } catch (error) {
        reject(new Error(`${script} ${args.join(' ')} failed (${String(error)}):\n${(stderr || stdout).slice(-2000)}`));
      }
    });
  });
}

async function sizeBench(builds: Builds): Promise<BenchOutcome> {
  const figures: Figure[] = [];
  const report: string[] = [];
  const details: Record<string, unknown> = {};
  for (const target of TARGETS) {
    const sizes = measureBuild(builds.dirs[target]);
    figures.push(...sizeFigures(target, sizes));
    details[target] = sizes;
    report.push(`sizes, ${target} (each file gzipped -9 on its own, summed):`);
    for (const size of sizes) report.push(`  ${size.name}: ${size.gzipBytes} B gzip, ${size.bytes} B raw`, ...describeFiles(size));
  }
  const breakdown = await contentScriptBreakdown('chrome');
  const builtPath = join(builds.dirs['chrome-mv3'], 'content-scripts/tracker.js');
  const built = { path: 'chrome-mv3/content-scripts/tracker.js', gzipBytes: gzipSize(readFileSync(builtPath)) };
  report.push(formatBreakdown(breakdown, built));
  details.breakdown = { ...breakdown, modules: breakdown.modules.slice(0, 40) };
  return { figures, report, details };
}

function environment(): Results['environment'] {
  const git = (args: string[]) => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).stdout?.trim() || undefined;
  const chromium = spawnSync(process.env.RESEED_CHROMIUM_PATH ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).stdout?.trim();
  return {
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirtyFiles: git(['status', '--porcelain', '--untracked-files=no'])?.split('\n').length ?? 0,
    node: process.version,
    chromium: chromium || undefined,
    os: `${platform()} ${release()}`,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    loadAverageAtStart: Math.round(startLoad * 10) / 10,
  };
}

function readPrevious(): Results | undefined {
  if (!existsSync(RESULTS_FILE)) return undefined;
  try {
    return JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const started = Date.now();
  const at = new Date().toISOString();
  const previous = readPrevious();
  const outcomes = new Map<BenchName, BenchOutcome>();
  const records: Record<string, BenchRecord> = {};
  const failures: string[] = [];

  const record = async (name: BenchName, work: () => Promise<BenchOutcome>) => {
    const benchStarted = Date.now();
    try {
      const outcome = await work();
      outcomes.set(name, outcome);
      records[name] = { measuredAt: new Date(benchStarted).toISOString(), seconds: (Date.now() - benchStarted) / 1000, details: outcome.details };
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push(`${name}: could not measure: ${message.split('\n').slice(0, 6).join('\n    ')}`);
      records[name] = { measuredAt: new Date(benchStarted).toISOString(), seconds: (Date.now() - benchStarted) / 1000, error: message };
    }
  };
  const wants = (name: BenchName) => options.only.includes(name);

  // Alone first: its timings are in microseconds.
  if (wants('cache')) {
    log('cache: 10,000 answers in the real Lookup (Node)…');
    await record('cache', async () => nodeBench(['memory']));
  }
  // Alone too: its query time is in microseconds and its heap is measured.
  if (wants('index')) {
    log('index: 10,000 client torrents in the client index (Node, reference service)…');
    await record('index', async () => {
      const base = await nodeBench([], 'bench/client-index-node.ts');
      log('index: 1,000, 10,000 and 100,000 long-named torrents (Node, IndexedDB engine, reference service)…');
      const scaled = await nodeBench(['--scale'], 'bench/client-index-node.ts');
      return {
        figures: [...base.figures, ...scaled.figures],
        report: [...(base.report ?? []), ...(scaled.report ?? [])],
        problems: [...(base.problems ?? []), ...(scaled.problems ?? [])],
        details: { base: base.details, scale: scaled.details },
      };
    });
  }
  let flood: Promise<void> | undefined;
  if (wants('flood')) {
    log(`flood: ${FLOOD_SCENARIOS.join(', ')} (each ~30 s, in the background)…`);
    const floodStarted = Date.now();
    flood = record('flood', async () => {
      const parts = await Promise.all(FLOOD_SCENARIOS.map((scenario) => nodeBench(['flood', scenario])));
      return {
        figures: parts.flatMap((part) => part.figures),
        report: [
          `flood (the real Lookup in Node against the reference service: default rate limit 60 requests/min/token, paced as the background paces (200 ms apart, ≤ 55 a minute); ${FLOOD_SCENARIOS.length} scenarios in parallel, ${((Date.now() - floodStarted) / 1000).toFixed(0)} s):`,
          ...parts.flatMap((part) => part.report),
        ],
        problems: parts.flatMap((part) => part.problems),
        details: Object.fromEntries(FLOOD_SCENARIOS.map((scenario, index) => [scenario, parts[index]!.details])),
      };
    });
  }

  if (wants('client')) {
    log('client: "In your client" on a qBittorrent holding 5,000 torrents (real daemon, Node)…');
    await record('client', async () => nodeBench([], 'bench/client-node.ts'));
  }

  if (wants('crossseed')) {
    log('crossseed: the "Cross-seed" click until the torrent is in qBittorrent / Transmission (real daemons, test trackers, Node)…');
    await record('crossseed', async () => nodeBench([], 'bench/crossseed-node.ts'));
  }

  if (wants('checkend')) {
    log('checkend: a one-click cross-seed until its result, and after the client\'s check ended, on every client build (real daemons, test trackers, Node)…');
    await record('checkend', async () => nodeBench([], 'bench/check-end-node.ts'));
  }

  if (wants('job')) {
    log('job: "Cross-seed your client": the job\'s per-torrent overhead at pace 0 (real qBittorrent, test trackers; then every candidate a renamed copy), the preview of a 100,000-torrent index, the job state at 1,000 and 10,000 (Node)…');
    await record('job', async () => {
      const parts: NodeBenchOutput[] = [];
      for (const mode of ['overhead', 'overhead-renamed', 'preview', 'state']) parts.push(await nodeBench([mode], 'bench/crossseed-job-node.ts'));
      return {
        figures: parts.flatMap((part) => part.figures),
        report: parts.flatMap((part) => part.report ?? []),
        problems: parts.flatMap((part) => part.problems ?? []),
        details: { overhead: parts[0]!.details, overheadRenamed: parts[1]!.details, preview: parts[2]!.details, state: parts[3]!.details },
      };
    });
  }

  if (wants('rename')) {
    log('rename: a renamed copy\'s rename step on every client build (real daemons, Node)…');
    await record('rename', async () => nodeBench([], 'bench/rename-node.ts'));
  }

  if (wants('pieces')) {
    log('pieces: 10,000 client torrents asked of one test NexusPHP site at the 2 s pace (simulated clock), pieces hashes read from a real qBittorrent 4.5 holding 1,000 torrents (Node)…');
    await record('pieces', async () => {
      const parts: NodeBenchOutput[] = [];
      for (const mode of ['site', 'client']) parts.push(await nodeBench([mode], 'bench/pieces-hash-node.ts'));
      return {
        figures: parts.flatMap((part) => part.figures),
        report: parts.flatMap((part) => part.report ?? []),
        problems: parts.flatMap((part) => part.problems ?? []),
        details: { site: parts[0]!.details, client: parts[1]!.details },
      };
    });
  }

  let builds: Builds | undefined;
  if (options.only.some((name) => NEEDS_BUILD.includes(name))) {
    try {
      builds = await buildOnce({ reuse: !options.build, log });
      if (options.build) log(`built in ${builds.seconds['chrome-mv3'].toFixed(1)} s + ${builds.seconds['firefox-mv2'].toFixed(1)} s`);
    } catch (error) {
      failures.push(`build: ${(error as Error).message}`);
    }
  }
  try {
    if (wants('size')) {
      if (builds) {
        log('size: entrypoints of both builds, content-script breakdown…');
        await record('size', () => sizeBench(builds!));
      } else failures.push('size: not measured, there is no build');
    }
    if (wants('extraction')) {
      log('extraction: readPage in headless Chromium…');
      await record('extraction', async () => extractionOutcome(await measureExtractionInChromium()));
    }
    if (wants('pageviews')) {
      if (builds) {
        log('pageviews: the built extension in Chromium…');
        await record('pageviews', () => measurePageViews({ extensionDir: builds!.dirs['chrome-mv3'], log }));
      } else failures.push('pageviews: not measured, there is no build');
    }
    if (wants('index')) {
      // The list page in a real browser joins the index's figures (they need the build).
      const index = outcomes.get('index');
      if (builds && index) {
        log('index: a 100-row list page with a warm index, in Chromium…');
        try {
          const inBrowser = await measureListPage({ extensionDir: builds.dirs['chrome-mv3'], log });
          index.figures.push(...inBrowser.figures);
          index.report = [...(index.report ?? []), ...(inBrowser.report ?? [])];
          index.problems = [...(index.problems ?? []), ...(inBrowser.problems ?? [])];
        } catch (error) {
          failures.push(`index: the list page in Chromium could not be measured: ${error instanceof Error ? error.message : String(error)}`);
        }
      } else if (!builds) failures.push('index: the list page in Chromium not measured, there is no build');
    }
    for (const [name, plans] of [['indexbrowser', INDEX_BROWSER_PLANS], ['indexfull', INDEX_FULL_PLANS]] as const) {
      if (!wants(name)) continue;
      if (builds) {
        log(`${name}: the built extension's index of a loopback qBittorrent WebUI (recorded entries multiplied) in Chromium, first sync paced…`);
        await record(name, () => measureIndexInBrowser({ extensionDir: builds!.dirs['chrome-mv3'], plans, log }));
      } else failures.push(`${name}: not measured, there is no build`);
    }
    for (const plan of [INDEX_MULTI_PLAN, INDEX_MULTI_FULL_PLAN]) {
      if (!wants(plan.bench)) continue;
      if (builds) {
        log(`${plan.bench}: the built extension's indexes of ${planWords(plan)} on loopback (recorded entries multiplied) in Chromium and Firefox, first syncs paced…`);
        await record(plan.bench, () => measureIndexMulti({ extensionDirs: { chromium: builds!.dirs['chrome-mv3'], firefox: builds!.dirs['firefox-mv2'] }, plan, log }));
      } else failures.push(`${plan.bench}: not measured, there is no build`);
    }
    if (wants('crossseed')) {
      // The click in a real browser, for every client build, joins the Node figures (it needs the build).
      if (builds) {
        log('crossseed: the popup\'s "Cross-seed" clicked in Chromium, every client build…');
        try {
          const inBrowser = await measureCrossSeedClicks({ extensionDir: builds.dirs['chrome-mv3'], log });
          const node = outcomes.get('crossseed');
          if (node) {
            node.figures.push(...inBrowser.figures);
            node.report = [...(node.report ?? []), ...(inBrowser.report ?? [])];
            node.problems = [...(node.problems ?? []), ...(inBrowser.problems ?? [])];
            node.details = { ...(node.details as Record<string, unknown> | undefined), browser: inBrowser.details };
            const kept = records.crossseed;
            if (kept) kept.details = node.details;
          } else outcomes.set('crossseed', inBrowser);
        } catch (error) {
          failures.push(`crossseed: the click in Chromium could not be measured: ${error instanceof Error ? error.message : String(error)}`);
        }
      } else failures.push('crossseed: the click in Chromium not measured, there is no build');
    }
    if (wants('pictures')) {
      if (builds) {
        log('pictures: a page whose pictures are slow, in Chromium and Firefox…');
        await record('pictures', () => measureSlowPictures({ extensionDirs: { chromium: builds!.dirs['chrome-mv3'], firefox: builds!.dirs['firefox-mv2'] }, log }));
      } else failures.push('pictures: not measured, there is no build');
    }
    if (flood) {
      log('waiting for the flood scenarios…');
      await flood;
    }
  } finally {
    builds?.dispose();
  }

  const ran = options.only.filter((name) => outcomes.has(name) || records[name]);
  const figures = BENCHES.flatMap((name) => outcomes.get(name)?.figures ?? []);
  const previousValues = previous ? new Map(previous.figures.map((figure) => [figure.id, figure.value])) : undefined;

  console.log(`\nReseed Lens benchmarks, ${at}`);
  for (const name of BENCHES) {
    const report = outcomes.get(name)?.report;
    if (report?.length) console.log(`\n${report.join('\n')}`);
  }
  console.log(`\n${formatTable(figures, previousValues)}`);
  if (startLoad > cpus().length) {
    console.log(`\nnote: the load average was ${startLoad.toFixed(1)} on ${cpus().length} cores when this run started: timings are noisier than usual`);
  }

  const results = mergeResults(previous, { ran, figures, benches: records, environment: environment(), at });
  results.figures.sort((a, b) => BENCHES.indexOf(a.bench as BenchName) - BENCHES.indexOf(b.bench as BenchName));
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(RESULTS_MARKDOWN, formatMarkdown(results, BENCHES));

  const problems = BENCHES.flatMap((name) => (outcomes.get(name)?.problems ?? []).map((problem) => `${name}: ${problem}`));
  const over = overBudget(figures);
  console.log(`\n${figures.length} figures in ${((Date.now() - started) / 1000).toFixed(0)} s; written to bench/results.json and bench/results.md`);
  if (!over.length && !problems.length && !failures.length) {
    console.log('every figure within its budget');
    return 0;
  }
  if (over.length) console.log(`\nOVER BUDGET (${over.length}):\n${over.map((line) => `  - ${line}`).join('\n')}`);
  if (problems.length) console.log(`\nFAILED CHECKS (${problems.length}):\n${problems.map((line) => `  - ${line}`).join('\n')}`);
  if (failures.length) console.log(`\nNOT MEASURED (${failures.length}):\n${failures.map((line) => `  - ${line}`).join('\n')}`);
  return 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const child of children) child.kill('SIGTERM');
      process.exit(130);
    });
  }
  process.exitCode = await main();
}
