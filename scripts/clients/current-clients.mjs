#!/usr/bin/env node
// Today's torrent clients for the tests (scripts/clients/install-current-clients.sh): where their
// Debian root lives, and a step for `npm test` that builds it the first time (2-4 minutes, ~380 MB,
// needs root) and afterwards only checks it (well under a second).
//
//   node scripts/clients/current-clients.mjs           install when missing, print the versions
//   node scripts/clients/current-clients.mjs --check   only say whether the root is complete
//
// Plain Node ESM without dependencies, like scripts/system-packages.mjs.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INSTALLER = join(dirname(fileURLToPath(import.meta.url)), 'install-current-clients.sh');

/** The folder holding root/ and bin/: RESEED_CLIENTS_DIR, else ${XDG_CACHE_HOME:-~/.cache}/reseed-lens/clients-trixie. */
export function currentClientsDir(env = process.env) {
  if (env.RESEED_CLIENTS_DIR) return env.RESEED_CLIENTS_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'reseed-lens', 'clients-trixie');
}

/**
 * Runs the installer (as root, or through `sudo -n`); with `checkOnly`, only its --check.
 * Resolves to { ok, output } and never throws: the caller counts a failure.
 * @param {{ checkOnly?: boolean, log?: (line: string) => void }} [options]
 */
export function ensureCurrentClients({ checkOnly = false, log = (line) => console.log(line) } = {}) {
  const dir = currentClientsDir();
  const args = [INSTALLER, ...(checkOnly ? ['--check'] : []), dir];
  let command = 'bash';
  let commandArgs = args;
  if (!checkOnly && process.getuid?.() !== 0) {
    const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
    if (sudo.error || sudo.status !== 0) {
      log(`current torrent clients: the installer needs root (debootstrap and chroot). Run once: sudo bash ${INSTALLER} ${dir}`);
      return { ok: false, output: 'not root' };
    }
    command = 'sudo';
    commandArgs = ['-n', 'bash', ...args];
  }
  // Output passes through: the first build says what it is doing for a few minutes.
  const result = spawnSync(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const output = result.stdout ?? '';
  if (output) log(output.trimEnd());
  if (result.error) log(`current torrent clients: cannot run the installer: ${result.error.message}`);
  return { ok: !result.error && result.status === 0, output };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ok } = ensureCurrentClients({ checkOnly: process.argv.includes('--check') });
  process.exitCode = ok ? 0 : 1;
}
