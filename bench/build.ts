/**
 * Builds both targets once under the shared build lock and copies each result, still holding the
 * lock, to a directory of this run: the sizes and the browser benchmarks then measure exactly this
 * build even if another engineer rebuilds .output/ meanwhile.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

export type Target = 'chrome-mv3' | 'firefox-mv2';
export const TARGETS: readonly Target[] = ['chrome-mv3', 'firefox-mv2'];

export interface Builds {
  dirs: Record<Target, string>;
  /** Seconds per target (0 when reused). */
  seconds: Record<Target, number>;
  /** Removes the copies (nothing for reused .output/ dirs). */
  dispose(): void;
}

const hasFlock = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => done({ code: 127, output: error.message }));
    child.on('exit', (code) => done({ code: code ?? 1, output }));
  });
}

/** Builds (or, with `reuse`, takes .output/ as it is) and returns where each target's copy lives. */
export async function buildOnce(options: { reuse?: boolean; log?: (line: string) => void } = {}): Promise<Builds> {
  const log = options.log ?? (() => undefined);
  if (options.reuse) {
    const dirs = { 'chrome-mv3': join(REPO_ROOT, '.output/chrome-mv3'), 'firefox-mv2': join(REPO_ROOT, '.output/firefox-mv2') };
    for (const dir of Object.values(dirs)) {
      if (!existsSync(join(dir, 'manifest.json'))) throw new Error(`--no-build: ${dir} holds no build`);
    }
    return { dirs, seconds: { 'chrome-mv3': 0, 'firefox-mv2': 0 }, dispose() {} };
  }
  const root = mkdtempSync(join(tmpdir(), 'reseed-bench-'));
  const dirs = {} as Record<Target, string>;
  const seconds = {} as Record<Target, number>;
  const wxt = existsSync(join(REPO_ROOT, 'node_modules/.bin/wxt')) ? join(REPO_ROOT, 'node_modules/.bin/wxt') : 'wxt';
  try {
    for (const target of TARGETS) {
      const copy = join(root, target);
      const extra = target === 'firefox-mv2' ? ' -b firefox' : '';
      const script = `'${wxt}' build${extra} && cp -R '.output/${target}' '${copy}'`;
      log(`building ${target} (under /tmp/build.lock)…`);
      const started = Date.now();
      const { code, output } = hasFlock ? await run('flock', ['/tmp/build.lock', 'sh', '-c', script]) : await run('sh', ['-c', script]);
      seconds[target] = (Date.now() - started) / 1000;
      if (code !== 0 || !existsSync(join(copy, 'manifest.json'))) {
        throw new Error(`the ${target} build failed (exit code ${code}):\n${output.slice(-3000)}`);
      }
      dirs[target] = copy;
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return { dirs, seconds, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
