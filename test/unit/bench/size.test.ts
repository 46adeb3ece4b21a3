/** Entrypoint sizes: which files count for an entrypoint, and how they are summed. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { entrypointsOf, gzipSize, loadedFiles, measureBuild, referencesOf, sizeFigures } from '../../../bench/size';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function fakeBuild(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'bench-size-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('references', () => {
  it('reads scripts, stylesheets and module preloads from HTML, not other links', () => {
    const html = `<script type="module" crossorigin src="/chunks/popup-A.js"></script><link rel="modulepreload" crossorigin href="/chunks/base-B.js">
      <link rel="stylesheet" href="/assets/base-C.css"><link rel="icon" href="/icon/16.png">`;
    expect(referencesOf('/popup.html', html).static).toEqual(['/chunks/popup-A.js', '/chunks/base-B.js', '/assets/base-C.css']);
  });

  it('reads minified static and dynamic imports, and re-exports', () => {
    const js = 'import{a as b}from"./base-B.js";import"./side.js";export{c}from"./re.js";const x=()=>import("./lazy.js");const s="import me";';
    expect(referencesOf('/chunks/popup.js', js)).toEqual({ static: ['./base-B.js', './side.js', './re.js'], dynamic: ['./lazy.js'] });
  });

  it('reads CSS @import', () => {
    expect(referencesOf('/a.css', '@import url("./b.css");@import "c.css";').static).toEqual(['./b.css', 'c.css']);
  });
});

describe('entrypoint sizes', () => {
  const popupJs = 'import{h}from"./base.js";const l=()=>import("./lazy.js");h(l)';
  const files = {
    'manifest.json': JSON.stringify({
      manifest_version: 3,
      background: { service_worker: 'background.js' },
      action: { default_popup: 'popup.html' },
      options_ui: { page: 'options.html' },
      content_scripts: [{ matches: ['*://x/*'], js: ['content-scripts/tracker.js'], css: ['content-scripts/tracker.css'] }],
    }),
    'background.js': 'console.log(1)',
    'popup.html': '<script type="module" src="/chunks/popup.js"></script><link rel="stylesheet" href="/assets/popup.css"><script src="https://cdn.example/x.js"></script>',
    'options.html': '<script type="module" src="/chunks/options.js"></script>',
    'chunks/popup.js': popupJs,
    'chunks/options.js': 'import{h}from"./base.js";import"./missing.js";h()',
    'chunks/base.js': 'export const h=()=>1;'.repeat(20),
    'chunks/lazy.js': 'export default 1',
    'assets/popup.css': 'body{margin:0}',
    'content-scripts/tracker.js': '(function(){})()',
    'content-scripts/tracker.css': 'p{}',
  };

  it('names the entry files from an MV3 manifest, and from an MV2 one', () => {
    const build = fakeBuild(files);
    expect(entrypointsOf(build)).toEqual({
      content: ['/content-scripts/tracker.js', '/content-scripts/tracker.css'],
      popup: ['/popup.html'],
      options: ['/options.html'],
      background: ['/background.js'],
    });
    writeFileSync(
      join(build, 'manifest.json'),
      JSON.stringify({ manifest_version: 2, background: { scripts: ['background.js'] }, browser_action: { default_popup: 'popup.html' }, options_ui: { page: 'options.html' }, content_scripts: [{ js: ['content-scripts/tracker.js'] }] }),
    );
    expect(entrypointsOf(build).background).toEqual(['/background.js']);
    expect(entrypointsOf(build).popup).toEqual(['/popup.html']);
  });

  it('follows the popup to every file it loads, once each; on-demand chunks are listed, not counted', () => {
    const build = fakeBuild(files);
    const loaded = loadedFiles(build, ['/popup.html']);
    expect(loaded.map((file) => [file.path, file.via])).toEqual([
      ['/popup.html', 'entry'],
      ['/chunks/popup.js', 'static'],
      ['/assets/popup.css', 'static'],
      ['/chunks/base.js', 'static'],
      ['/chunks/lazy.js', 'dynamic'],
    ]);
    const popup = measureBuild(build).find((size) => size.name === 'popup')!;
    const counted = ['popup.html', 'chunks/popup.js', 'assets/popup.css', 'chunks/base.js'].map((path) => gzipSync(files[path as keyof typeof files], { level: 9 }).length);
    expect(popup.gzipBytes).toBe(counted.reduce((sum, bytes) => sum + bytes, 0));
    expect(popup.gzipBytes).toBeGreaterThan(gzipSize(files['chunks/base.js']));
  });

  it('gives the content script and popup their budgets, and notes on-demand files', () => {
    const build = fakeBuild(files);
    const figures = sizeFigures('chrome-mv3', measureBuild(build));
    expect(figures.map((figure) => [figure.id, figure.budget?.limit])).toEqual([
      ['size.chrome-mv3.content', 20 * 1024],
      ['size.chrome-mv3.popup', 40 * 1024],
      ['size.chrome-mv3.options', undefined],
      ['size.chrome-mv3.background', undefined],
    ]);
    expect(figures[1]!.note).toContain('on demand, not counted: /chunks/lazy.js');
    expect(figures[0]!.label).toContain('2 files');
  });

  it('fails loudly when the manifest names no entrypoint of a kind', () => {
    const build = fakeBuild({ ...files, 'manifest.json': JSON.stringify({ manifest_version: 3, background: { service_worker: 'background.js' } }) });
    expect(() => measureBuild(build)).toThrow(/no content entrypoint/);
  });
});
