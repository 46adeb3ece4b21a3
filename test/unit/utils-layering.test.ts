/**
 * utils/ holds the pure libraries the features stand on: nothing there imports a feature or the
 * background's plumbing (not even a type), so each library stays testable in Node on its own and
 * the dependencies run one way (issue 16). Likewise no feature imports from entrypoints/: what the
 * features share (context.ts, announce.ts, tabs.ts) sits beside features/protocol.ts (issue 33).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const UTILS = join(ROOT, 'utils');
const FEATURES = join(ROOT, 'features');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file names: static imports and re-exports (types too), dynamic imports. */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)];
  return found.map((match) => (match[1] ?? match[2])!);
}

/** Every import of a file under `dir` that names a module under one of `forbidden` (top-level folders). */
function importsInto(dir: string, forbidden: RegExp): { files: number; upward: string[] } {
  const upward: string[] = [];
  const files = sourceFiles(dir);
  for (const file of files) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      const target = specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier)) : specifier.replace(/^[@~]\//, '');
      if (forbidden.test(target)) upward.push(`${relative(ROOT, file)} → ${specifier}`);
    }
  }
  return { files: files.length, upward };
}

describe('the dependencies run one way', () => {
  it('no file under utils/ names a module under features/ or entrypoints/', () => {
    const { files, upward } = importsInto(UTILS, /^(features|entrypoints)(\/|$)/);
    expect(files).toBeGreaterThan(20);
    expect(upward).toEqual([]);
  });

  it('no file under features/ names a module under entrypoints/', () => {
    const { files, upward } = importsInto(FEATURES, /^entrypoints(\/|$)/);
    expect(files).toBeGreaterThan(20);
    expect(upward).toEqual([]);
  });
});
