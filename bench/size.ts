/**
 * Packed size of each entrypoint as the browser loads it: the files named by the manifest (or the
 * HTML page it names), plus every JS/CSS file those load, found by following <script>, <link
 * rel=stylesheet|modulepreload>, static and dynamic imports and CSS @import. Each file is gzipped
 * on its own at level 9 (the browser reads files, not one archive) and the sizes are summed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Figure } from './figures';

export const CONTENT_BUDGET_BYTES = 20 * 1024;
export const POPUP_BUDGET_BYTES = 40 * 1024;

export type EntrypointName = 'content' | 'popup' | 'options' | 'background';

export interface LoadedFile {
  /** Path inside the build, with a leading slash. */
  path: string;
  bytes: number;
  gzipBytes: number;
  /** How it is reached: 'entry', 'static', 'dynamic' (import() / preload on demand). */
  via: 'entry' | 'static' | 'dynamic';
}

export interface EntrypointSize {
  name: EntrypointName;
  files: LoadedFile[];
  bytes: number;
  gzipBytes: number;
}

export const gzipSize = (data: Uint8Array | string): number => gzipSync(data, { level: 9 }).length;

/** Specifiers this file loads, split into what loads with it and what loads on demand. */
export function referencesOf(path: string, text: string): { static: string[]; dynamic: string[] } {
  const found = { static: [] as string[], dynamic: [] as string[] };
  if (path.endsWith('.html')) {
    for (const match of text.matchAll(/<script\b[^>]*\bsrc=["']([^"']+)["']/gi)) found.static.push(match[1]!);
    for (const match of text.matchAll(/<link\b[^>]*>/gi)) {
      const tag = match[0];
      const rel = /\brel=["']?([^"'\s>]+)/i.exec(tag)?.[1]?.toLowerCase();
      const href = /\bhref=["']([^"']+)["']/i.exec(tag)?.[1];
      if (href && (rel === 'stylesheet' || rel === 'modulepreload')) found.static.push(href);
    }
  } else if (path.endsWith('.css')) {
    for (const match of text.matchAll(/@import\s+(?:url\()?\s*["']?([^"')\s;]+)/g)) found.static.push(match[1]!);
  } else {
    // Minified ES modules: import{a as b}from"./x.js" / import"./x.js" / export{a}from"./x.js".
    for (const match of text.matchAll(/\b(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["']([^"']+\.(?:js|mjs|css))["']/g)) {
      found.static.push(match[1]!);
    }
    for (const match of text.matchAll(/\bimport\s*\(\s*["']([^"']+\.(?:js|mjs|css))["']\s*\)/g)) found.dynamic.push(match[1]!);
  }
  return found;
}

/** Resolves a reference to a file of the build ('/chunks/x.js'), or undefined when it is not one. */
function resolveInBuild(buildDir: string, from: string, specifier: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) || specifier.startsWith('//')) return undefined;
  const clean = specifier.replace(/[?#].*$/, '');
  const inBuild = clean.startsWith('/') ? posix.normalize(clean) : posix.normalize(posix.join(posix.dirname(from), clean));
  return existsSync(join(buildDir, inBuild)) ? inBuild : undefined;
}

/** Every file loaded starting from `entries` (paths inside the build, leading slash). */
export function loadedFiles(buildDir: string, entries: string[]): LoadedFile[] {
  const seen = new Map<string, LoadedFile>();
  const queue: { path: string; via: LoadedFile['via'] }[] = entries.map((path) => ({ path, via: 'entry' }));
  while (queue.length) {
    const { path, via } = queue.shift()!;
    const known = seen.get(path);
    if (known) {
      // Reached on demand first and statically later: it loads with the page after all.
      if (known.via === 'dynamic' && via !== 'dynamic') known.via = via;
      continue;
    }
    const data = readFileSync(join(buildDir, path));
    seen.set(path, { path, bytes: data.length, gzipBytes: gzipSize(data), via });
    const refs = referencesOf(path, data.toString('utf8'));
    const next = (list: string[], kind: LoadedFile['via']) => {
      for (const specifier of list) {
        const target = resolveInBuild(buildDir, path, specifier);
        if (target) queue.push({ path: target, via: via === 'dynamic' ? 'dynamic' : kind });
      }
    };
    next(refs.static, 'static');
    next(refs.dynamic, 'dynamic');
  }
  return [...seen.values()];
}

interface Manifest {
  manifest_version: number;
  content_scripts?: { js?: string[]; css?: string[] }[];
  background?: { service_worker?: string; scripts?: string[]; page?: string };
  action?: { default_popup?: string };
  browser_action?: { default_popup?: string };
  options_ui?: { page?: string };
  options_page?: string;
}

const slash = (path: string) => (path.startsWith('/') ? path : `/${path}`);

/** The entry files of each entrypoint, as the manifest names them. */
export function entrypointsOf(buildDir: string): Record<EntrypointName, string[]> {
  const manifest = JSON.parse(readFileSync(join(buildDir, 'manifest.json'), 'utf8')) as Manifest;
  const tracker = manifest.content_scripts?.find((script) => script.js?.some((file) => file.includes('tracker')));
  const background = manifest.background;
  const popup = (manifest.action ?? manifest.browser_action)?.default_popup;
  const options = manifest.options_ui?.page ?? manifest.options_page;
  return {
    content: [...(tracker?.js ?? []), ...(tracker?.css ?? [])].map(slash),
    popup: popup ? [slash(popup)] : [],
    options: options ? [slash(options)] : [],
    background: (background?.service_worker ? [background.service_worker] : background?.page ? [background.page] : background?.scripts ?? []).map(slash),
  };
}

/**
 * The size of each entrypoint of one build. Files reached only through import() are listed but not
 * counted: they load only when that code runs (none exist today; they would show up here).
 */
export function measureBuild(buildDir: string): EntrypointSize[] {
  const entries = entrypointsOf(buildDir);
  return (Object.keys(entries) as EntrypointName[]).map((name) => {
    if (!entries[name].length) throw new Error(`${relative(process.cwd(), buildDir) || buildDir}: the manifest names no ${name} entrypoint`);
    const files = loadedFiles(buildDir, entries[name]);
    const counted = files.filter((file) => file.via !== 'dynamic');
    return {
      name,
      files,
      bytes: counted.reduce((sum, file) => sum + file.bytes, 0),
      gzipBytes: counted.reduce((sum, file) => sum + file.gzipBytes, 0),
    };
  });
}

const BUDGETS: Partial<Record<EntrypointName, number>> = { content: CONTENT_BUDGET_BYTES, popup: POPUP_BUDGET_BYTES };
const LABELS: Record<EntrypointName, string> = {
  content: 'content script',
  popup: 'popup',
  options: 'options page',
  background: 'background',
};

export function sizeFigures(target: string, sizes: EntrypointSize[]): Figure[] {
  return sizes.map((size) => {
    const limit = BUDGETS[size.name];
    const dynamic = size.files.filter((file) => file.via === 'dynamic');
    return {
      id: `size.${target}.${size.name}`,
      bench: 'size',
      label: `${LABELS[size.name]} (${target}), gzip -9, ${size.files.length - dynamic.length} file${size.files.length - dynamic.length === 1 ? '' : 's'}`,
      value: size.gzipBytes,
      unit: 'bytes',
      budget: limit === undefined ? undefined : { op: '<=', limit },
      note: `${size.files.filter((file) => file.via !== 'dynamic').map((file) => file.path).join(' + ')}; ${size.bytes} B raw` +
        (dynamic.length ? `; on demand, not counted: ${dynamic.map((file) => file.path).join(', ')}` : ''),
    };
  });
}

/** One line per file, for the printed report. */
export function describeFiles(size: EntrypointSize): string[] {
  return size.files.map(
    (file) => `    ${file.path.padEnd(40)} ${String(file.bytes).padStart(7)} B raw ${String(file.gzipBytes).padStart(7)} B gzip${file.via === 'dynamic' ? '  (on demand, not counted)' : ''}`,
  );
}
