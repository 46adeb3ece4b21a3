#!/usr/bin/env node
// `npm test`: install the Debian packages the tests need when missing (scripts/system-packages.mjs),
// build (the first time) or check the root holding today's torrent clients
// (scripts/clients/install-current-clients.sh), build both browsers' extensions, lint the Firefox
// build, run every Vitest project, and end with
// one plain line "N passed, N failed" that counts Vitest tests, the lint check, and the package
// step, the clients root and builds when they fail. Exit code 1 when anything failed.
//
//   npm test                         everything
//   npm test -- --no-build           reuse .output/ as it is (no build, no copy)
//   npm test -- test/e2e/smoke       extra arguments go to Vitest (file filters, --project e2e, ...)
//
// Plain Node ESM with no dependencies beyond what the project installs.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killBrowserProcesses } from '../test/e2e/harness/strays.mjs';
import { killClientProcesses } from '../test/clients/processes.mjs';
import { ensureSystemPackages } from './system-packages.mjs';
import { currentClientsDir, ensureCurrentClients } from './clients/current-clients.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
process.chdir(root);

const args = process.argv.slice(2);
const skipBuild = args.includes('--no-build');
const vitestArgs = args.filter((arg) => arg !== '--no-build');

const runId = `run-${process.pid}-${Date.now()}`;
const runDir = join(tmpdir(), 'reseed-lens-e2e', runId);
mkdirSync(runDir, { recursive: true });

/**
 * The lint counts as one test either way; the system packages and a build count only when they
 * fail (they are not tests, but a broken one must not pass silently).
 * @type {{ name: string, ok: boolean, countedWhenOk: boolean, detail?: string }[]}
 */
const checks = [];
/** @type {string[]} */
const failedNames = [];
const timings = [];

function bin(name) {
  const local = join(root, 'node_modules/.bin', name);
  return existsSync(local) ? [local] : ['npx', name];
}

const hasFlock = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs a command with inherited output; resolves with its exit code. */
function run(command, commandArgs, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: 'inherit', ...options });
    child.on('error', (error) => {
      console.error(`cannot start ${command}: ${error.message}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Runs a command and collects its stdout (stderr passes through). */
function capture(command, commandArgs) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', (error) => resolve({ code: 127, stdout: error.message }));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

function heading(text) {
  console.log(`\n=== ${text} ===`);
}

async function timed(label, work) {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }
}

/**
 * Builds one target under the shared build lock and, still holding it, copies the result to this
 * run's own directory, so the lint and the e2e tests see exactly this build.
 */
async function build(target, outputName, extraArgs) {
  heading(`build ${target}`);
  const copy = join(runDir, 'builds', outputName);
  const wxt = bin('wxt');
  const script = `${[...wxt, 'build', ...extraArgs].map((part) => `'${part}'`).join(' ')} && rm -rf '${copy}' && mkdir -p '${dirname(copy)}' && cp -R '.output/${outputName}' '${copy}'`;
  const code = await timed(`build ${target}`, () =>
    hasFlock ? run('flock', ['/tmp/build.lock', 'sh', '-c', script]) : run('sh', ['-c', script]),
  );
  const ok = code === 0 && existsSync(join(copy, 'manifest.json'));
  checks.push({ name: `build ${target}`, ok, countedWhenOk: false, detail: ok ? undefined : `exit code ${code}` });
  return ok ? copy : undefined;
}

async function lintFirefox(sourceDir) {
  heading('web-ext lint (Firefox build)');
  if (!sourceDir || !existsSync(join(sourceDir, 'manifest.json'))) {
    console.log('web-ext lint: not run, there is no Firefox build');
    checks.push({ name: 'web-ext lint', ok: false, countedWhenOk: true, detail: 'no Firefox build to lint' });
    return;
  }
  const { code, stdout } = await timed('lint', () =>
    capture(bin('web-ext')[0], [...bin('web-ext').slice(1), 'lint', '--source-dir', sourceDir, '--output', 'json', '--no-config-discovery']),
  );
  let report;
  try {
    report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  } catch {
    console.log(stdout);
    checks.push({ name: 'web-ext lint', ok: false, countedWhenOk: true, detail: `unreadable output (exit code ${code})` });
    return;
  }
  const { errors = 0, warnings = 0, notices = 0 } = report.summary ?? {};
  console.log(`web-ext lint: ${errors} errors, ${warnings} warnings, ${notices} notices`);
  for (const kind of ['errors', 'warnings', 'notices']) {
    for (const item of report[kind] ?? []) {
      const where = item.file ? ` ${item.file}${item.line ? `:${item.line}` : ''}` : '';
      console.log(`  ${kind.slice(0, -1).toUpperCase()} ${item.code}${where}: ${item.message}`);
    }
  }
  checks.push({ name: 'web-ext lint', ok: errors === 0, countedWhenOk: true, detail: errors === 0 ? undefined : `${errors} errors` });
}

/** Runs Vitest for all projects; returns counts read from its JSON report. */
async function vitest(env) {
  heading('vitest (all projects)');
  const reportFile = join(runDir, 'vitest.json');
  const code = await timed('vitest', () =>
    run(bin('vitest')[0], [...bin('vitest').slice(1), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...vitestArgs], {
      env: { ...process.env, ...env },
    }),
  );
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let report;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8'));
  } catch {
    failedNames.push(`vitest: no JSON report (exit code ${code})`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  // Keep the report for CI artifacts (the run directory is deleted at the end).
  mkdirSync(join(root, 'test-results'), { recursive: true });
  cpSync(reportFile, join(root, 'test-results/vitest.json'));
  console.log('(the JSON report is kept as test-results/vitest.json)');
  for (const file of report.testResults ?? []) {
    const relative = file.name?.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const results = file.assertionResults ?? [];
    for (const test of results) {
      if (test.status === 'passed') passed++;
      else if (test.status === 'failed') {
        failed++;
        failedNames.push(`${relative} > ${test.fullName}`);
      } else skipped++;
    }
    // A file that failed before running any test (syntax error, failing import, failing beforeAll
    // with no test recorded) still counts as one failure.
    if (file.status === 'failed' && !results.some((test) => test.status === 'failed')) {
      failed++;
      const reason = String(file.message ?? '').split('\n')[0] || 'a hook or the file itself failed; see the error above';
      failedNames.push(`${relative} (${reason})`);
    }
  }
  // Errors outside any test (unhandled rejections...) make Vitest exit non-zero without a failed test.
  if (code !== 0 && failed === 0) {
    failed++;
    failedNames.push(`vitest exited with code ${code} without a failed test (unhandled error?)`);
  }
  return { passed, failed, skipped };
}

function sweep() {
  const killed = killBrowserProcesses(runDir);
  if (killed > 0) console.log(`killed ${killed} browser process(es) left behind by the tests`);
  // Torrent clients the tests started keep their profile folders (and so this run's) in sight.
  const daemons = killClientProcesses(runDir);
  if (daemons > 0) console.log(`killed ${daemons} torrent client process(es) left behind by the tests`);
  rmSync(runDir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    sweep();
    process.exit(130);
  });
}

// Vitest and the browsers get a temp directory inside the run directory, so whatever a killed
// worker leaves (Playwright artifacts, browser temp files) is deleted with it at the end.
const runTmp = join(runDir, 'tmp');
mkdirSync(runTmp, { recursive: true });
const env = { RESEED_E2E_RUN_ID: runId, RESEED_E2E_RUN_DIR: runDir, TMPDIR: runTmp };

// Browsers, language packs and torrent clients first: what npm cannot bring. The tests still run
// when this fails (most need none of it), and the failed step is counted.
heading('system packages');
const packages = await timed('system packages', async () => ensureSystemPackages('test'));
checks.push({ name: 'system packages', ok: packages.ok, countedWhenOk: false, detail: packages.ok ? undefined : `missing ${packages.missing.join(', ')}` });
// Today's torrent-client releases, beside Debian 12's own: the client tests start both
// generations, so a missing root fails here (counted) and again in every test that needs it.
heading('current torrent clients');
const currentClients = await timed('current clients', async () => ensureCurrentClients());
checks.push({ name: 'current torrent clients', ok: currentClients.ok, countedWhenOk: false, detail: currentClients.ok ? undefined : `no complete root at ${currentClientsDir()}` });
if (skipBuild) {
  console.log('--no-build: testing .output/ as it is');
} else {
  const chrome = await build('chrome-mv3', 'chrome-mv3', []);
  const firefox = await build('firefox-mv2', 'firefox-mv2', ['-b', 'firefox']);
  // Point the e2e harness at this run's copies; a missing build makes the e2e tests fail loudly.
  env.RESEED_E2E_CHROME_DIR = chrome ?? join(runDir, 'builds/missing-chrome-mv3');
  env.RESEED_E2E_FIREFOX_DIR = firefox ?? join(runDir, 'builds/missing-firefox-mv2');
}
await lintFirefox(env.RESEED_E2E_FIREFOX_DIR ?? join(root, '.output/firefox-mv2'));
const tests = await vitest(env);
sweep();

const checkPassed = checks.filter((check) => check.ok && check.countedWhenOk).length;
const checkFailed = checks.filter((check) => !check.ok).length;
for (const check of checks) if (!check.ok) failedNames.unshift(`${check.name}: ${check.detail ?? 'failed'}`);

heading('summary');
console.log(`checks: ${checks.map((check) => `${check.name} ${check.ok ? 'ok' : 'FAILED'}`).join(', ')}`);
console.log(`vitest: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped`);
console.log(`time: ${timings.join(', ')}`);
if (failedNames.length > 0) {
  console.log('failed:');
  for (const name of failedNames) console.log(`  - ${name}`);
}
const passed = tests.passed + checkPassed;
const failed = tests.failed + checkFailed;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
