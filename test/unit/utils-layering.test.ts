/**
 * utils/ holds the pure libraries the features stand on: nothing there imports a feature or the
 * background's plumbing (not even a type), so each library stays testable in Node on its own and
 * the dependencies run one way (issue 16).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const UTILS = join(ROOT, 'utils');

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

describe('utils/ imports no feature', () => {
  it('no file under utils/ names a module under features/ or entrypoints/', () => {
    const upward: string[] = [];
    const files = sourceFiles(UTILS);
    for (const file of files) {
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        const target = specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier)) : specifier.replace(/^[@~]\//, '');
        if (/^(features|entrypoints)(\/|$)/.test(target)) upward.push(`${relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(files.length).toBeGreaterThan(20);
    expect(upward).toEqual([]);
  });
});
