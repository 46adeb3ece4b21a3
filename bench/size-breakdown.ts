/**
 * What the content script's gzipped bytes are made of, module by module, so its owner knows what to
 * cut. The built tracker.js carries no module boundaries, so the script is bundled again here with
 * esbuild the way WXT bundles it (its content-script wrapper, its aliases: wxt/browser →
 * webextension-polyfill, `?inline` CSS as a minified string, the defineContentScript auto-import,
 * import.meta.env, IIFE, minified, ascii charset, Vite's default target) with a metafile and a
 * source map. The total is printed beside the real build's, so a drift in this imitation shows.
 *
 * Gzip share per module: the minified output is cut into runs of bytes from one source (source
 * map), and each run is charged what it adds to the gzip size of everything before it, in output
 * order. The shares add up to the whole gzip size exactly; a module's share depends on what came
 * before it (repeated identifiers compress), which is how it costs in the real file too.
 *
 *   npx tsx bench/size-breakdown.ts [path/to/build/content-scripts/tracker.js]
 */
import { build, transform, type Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './build';
import { gzipSize } from './size';

const CONTENT_ENTRY = 'entrypoints/tracker.content/index.ts';
const WXT_WRAPPER = 'node_modules/wxt/dist/virtual/content-script-isolated-world-entrypoint.mjs';
/** Vite's default build target ('baseline-widely-available' in Vite 8), which WXT keeps. */
const VITE_TARGET = ['chrome111', 'edge111', 'firefox114', 'safari16.4', 'ios16.4'];

export interface ModuleShare {
  /** Repo-relative source path, or '(bundler glue)' for bytes no source maps to. */
  module: string;
  /** Minified bytes in the output (esbuild's metafile). */
  bytes: number;
  /** This module's share of the gzip size (see above). */
  gzipBytes: number;
}

export interface Breakdown {
  /** esbuild's imitation of the build: minified bytes and gzip -9. */
  bytes: number;
  gzipBytes: number;
  modules: ModuleShare[];
  /** The same shares summed per package (node_modules) or folder (project code). */
  groups: ModuleShare[];
}

function wxtLikePlugin(): Plugin {
  return {
    name: 'wxt-like',
    setup(bundler) {
      bundler.onResolve({ filter: /^virtual:user-content-script-isolated-world-entrypoint$/ }, () => ({ path: resolve(REPO_ROOT, CONTENT_ENTRY) }));
      // The project's only WXT module (webextension-polyfill) adds no runtime plugin.
      bundler.onResolve({ filter: /^virtual:wxt-plugins$/ }, () => ({ path: 'wxt-plugins', namespace: 'stub' }));
      bundler.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export function initPlugins() {}', loader: 'js' }));
      bundler.onResolve({ filter: /^wxt\/browser$/ }, (args) =>
        bundler.resolve('@wxt-dev/webextension-polyfill/browser', { kind: args.kind, resolveDir: args.resolveDir }),
      );
      bundler.onResolve({ filter: /\?inline$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.replace(/\?inline$/, '')), namespace: 'inline-css' }));
      bundler.onLoad({ filter: /.*/, namespace: 'inline-css' }, async (args) => {
        const css = (await transform(readFileSync(args.path, 'utf8'), { loader: 'css', minify: true, target: VITE_TARGET })).code;
        return { contents: `export default ${JSON.stringify(css)};`, loader: 'js', resolveDir: REPO_ROOT };
      });
      // Packages ship source maps of their own; without their link the shares stay per file
      // (preact.module.js), as the metafile counts them, instead of per original source.
      bundler.onLoad({ filter: /node_modules[\\/].*\.m?js$/ }, (args) => ({
        contents: readFileSync(args.path, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, ''),
        loader: 'js',
      }));
      // WXT auto-imports defineContentScript into entrypoints.
      bundler.onLoad({ filter: /entrypoints[\\/]tracker\.content[\\/]index\.ts$/ }, (args) => ({
        contents: `import { defineContentScript } from 'wxt/utils/define-content-script';\n${readFileSync(args.path, 'utf8')}`,
        loader: 'ts',
        resolveDir: resolve(REPO_ROOT, 'entrypoints/tracker.content'),
      }));
    },
  };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes source-map "mappings": per generated line, [column, source index] at each segment start. */
export function decodeMappings(mappings: string): [number, number][][] {
  const lines: [number, number][][] = [];
  let source = 0;
  for (const lineText of mappings.split(';')) {
    const segments: [number, number][] = [];
    let column = 0;
    for (const segment of lineText.split(',')) {
      if (!segment) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        if (digit < 0) throw new Error(`bad source-map character ${char}`);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length >= 4) {
        source += fields[1]!;
        segments.push([column, source]);
      } else segments.push([column, -1]);
    }
    lines.push(segments);
  }
  return lines;
}

/**
 * Cuts `code` into runs of one source each (−1: unmapped) using the decoded mappings. Columns are
 * UTF-16 offsets within each line, as source maps count them.
 */
export function sourceRuns(code: string, lines: [number, number][][]): { source: number; text: string }[] {
  const runs: { source: number; text: string }[] = [];
  const push = (source: number, text: string) => {
    if (!text) return;
    const last = runs[runs.length - 1];
    if (last && last.source === source) last.text += text;
    else runs.push({ source, text });
  };
  const codeLines = code.split('\n');
  codeLines.forEach((lineText, index) => {
    const segments = lines[index] ?? [];
    let at = 0;
    let source = runs[runs.length - 1]?.source ?? -1;
    for (const [column, segmentSource] of segments) {
      push(source, lineText.slice(at, column));
      at = column;
      source = segmentSource;
    }
    push(source, lineText.slice(at) + (index < codeLines.length - 1 ? '\n' : ''));
  });
  return runs;
}

/** Charges each run the gzip bytes it adds to everything before it. */
export function gzipShares(runs: { source: number; text: string }[]): Map<number, number> {
  const shares = new Map<number, number>();
  let prefix = '';
  let before = gzipSize('');
  for (const run of runs) {
    prefix += run.text;
    const after = gzipSize(prefix);
    shares.set(run.source, (shares.get(run.source) ?? 0) + after - before);
    before = after;
  }
  return shares;
}

/** node_modules/preact/hooks/dist/x.mjs → preact; utils/pages/nexusphp.ts → utils/pages. */
export function groupOf(module: string): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (inModules) return inModules[1]!;
  const parts = module.split('/');
  return parts.length > 1 ? parts.slice(0, -1).join('/') : module;
}

/** One name per module for both the metafile (paths from the repo) and the map (from the output). */
function moduleName(path: string, from: string): string {
  const namespaced = /^([a-z-]+):(.*)$/.exec(path);
  if (namespaced) {
    const [, namespace, rest] = namespaced as unknown as [string, string, string];
    const name = rest.startsWith('/') ? relative(REPO_ROOT, rest) : rest;
    return namespace === 'inline-css' ? `${name} (inline)` : `${name} (${namespace})`;
  }
  return relative(REPO_ROOT, resolve(from, path));
}

export async function contentScriptBreakdown(browser: 'chrome' | 'firefox' = 'chrome'): Promise<Breakdown> {
  const result = await build({
    entryPoints: [resolve(REPO_ROOT, WXT_WRAPPER)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    outfile: join(REPO_ROOT, 'breakdown/tracker.js'),
    format: 'iife',
    globalName: 'tracker',
    platform: 'browser',
    target: VITE_TARGET,
    minify: true,
    charset: 'ascii',
    metafile: true,
    sourcemap: 'external',
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: {
      'process.env.NODE_ENV': '"production"',
      'import.meta.env.MODE': '"production"',
      'import.meta.env.PROD': 'true',
      'import.meta.env.DEV': 'false',
      'import.meta.env.ENTRYPOINT': '"tracker"',
      'import.meta.env.BROWSER': JSON.stringify(browser),
      'import.meta.env.CHROME': String(browser === 'chrome'),
      'import.meta.env.FIREFOX': String(browser === 'firefox'),
      'import.meta.env.MANIFEST_VERSION': browser === 'chrome' ? '3' : '2',
      'import.meta.env.COMMAND': '"build"',
    },
    plugins: [wxtLikePlugin()],
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((file) => file.path.endsWith('.js'))!.text;
  const map = JSON.parse(result.outputFiles.find((file) => file.path.endsWith('.map'))!.text) as { sources: string[]; mappings: string };
  const mapDir = join(REPO_ROOT, 'breakdown');
  const sourceName = (index: number) => (index < 0 ? '(bundler glue)' : moduleName(map.sources[index]!, mapDir));
  const shares = gzipShares(sourceRuns(code, decodeMappings(map.mappings)));

  const output = Object.values(result.metafile.outputs).find((entry) => entry.entryPoint);
  const bytesByModule = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const name = moduleName(path, REPO_ROOT);
    bytesByModule.set(name, (bytesByModule.get(name) ?? 0) + input.bytesInOutput);
  }
  const modules = new Map<string, ModuleShare>();
  for (const [source, gzip] of shares) {
    const module = sourceName(source);
    const share = modules.get(module) ?? { module, bytes: bytesByModule.get(module) ?? 0, gzipBytes: 0 };
    share.gzipBytes += gzip;
    modules.set(module, share);
  }
  // Modules that emit bytes the map charges elsewhere (e.g. the inline CSS strings) still show.
  for (const [module, bytes] of bytesByModule) if (!modules.has(module) && bytes > 0) modules.set(module, { module, bytes, gzipBytes: 0 });
  const sorted = [...modules.values()].sort((a, b) => b.gzipBytes - a.gzipBytes);
  const groups = new Map<string, ModuleShare>();
  for (const share of sorted) {
    const name = share.module.startsWith('(') ? share.module : groupOf(share.module);
    const group = groups.get(name) ?? { module: name, bytes: 0, gzipBytes: 0 };
    group.bytes += share.bytes;
    group.gzipBytes += share.gzipBytes;
    groups.set(name, group);
  }
  return {
    bytes: Buffer.byteLength(code),
    gzipBytes: gzipSize(code),
    modules: sorted,
    groups: [...groups.values()].sort((a, b) => b.gzipBytes - a.gzipBytes),
  };
}

/** The printed report: groups, then the modules that make up most of it. */
export function formatBreakdown(breakdown: Breakdown, built?: { path: string; gzipBytes: number }, top = 25): string {
  const row = (share: ModuleShare) =>
    `  ${share.module.padEnd(58)} ${String(share.bytes).padStart(6)} B min ${String(share.gzipBytes).padStart(6)} B gzip ${((100 * share.gzipBytes) / breakdown.gzipBytes).toFixed(1).padStart(5)}%`;
  const lines = [
    `content script breakdown (esbuild imitation of the WXT build: ${breakdown.bytes} B minified, ${breakdown.gzipBytes} B gzip -9` +
      (built ? `; the real ${built.path}: ${built.gzipBytes} B gzip -9` : '') +
      ')',
    ' by package / folder:',
    ...breakdown.groups.map(row),
    ` largest modules (top ${Math.min(top, breakdown.modules.length)} of ${breakdown.modules.length}):`,
    ...breakdown.modules.slice(0, top).map(row),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const breakdown = await contentScriptBreakdown();
  const builtPath = process.argv[2];
  const built = builtPath ? { path: builtPath, gzipBytes: gzipSize(readFileSync(builtPath)) } : undefined;
  console.log(formatBreakdown(breakdown, built, 40));
}
