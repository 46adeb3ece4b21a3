// Plain JS (like test/e2e/harness/strays.mjs) so a plain Node script can share it.
// Client daemons are found by their unique profile folder: on their command line, as their
// working folder, or in their environment (RESEED_CLIENT_PROFILE). deluge-web renames itself
// ("deluge-web", via setproctitle), which rewrites both its command line and its environment, but
// it keeps the working folder the harness started it in. Other people's daemons are never touched.
import { readFileSync, readlinkSync } from 'node:fs';
import { findProcesses } from '../e2e/harness/strays.mjs';

/**
 * Processes whose command line, working folder or environment mentions `marker` (an absolute
 * profile folder, or a folder above profiles, such as scripts/test.mjs's run folder).
 * @param {string} marker
 * @returns {{ pid: number, command: string }[]}
 */
export function findClientProcesses(marker) {
  return findProcesses((pid, command) => {
    if (command.includes(marker)) return true;
    // Every daemon is started in its profile folder; renaming itself does not move it.
    if (readlinkSync(`/proc/${pid}/cwd`).startsWith(marker)) return true;
    // The profile folder, or any folder above it (a test run's folder sweeps all its daemons).
    const environment = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return environment.split('\0').some((entry) => entry.startsWith('RESEED_CLIENT_PROFILE=') && entry.includes(marker));
  }).map(({ pid, command }) => ({ pid, command }));
}

/**
 * SIGKILLs every process mentioning `marker`. Synchronous, so it can run from an 'exit' handler.
 * @param {string} marker
 * @returns {number} how many processes were signalled
 */
export function killClientProcesses(marker) {
  if (!marker || marker.length < 12) throw new Error(`refusing to sweep processes by a short marker: ${JSON.stringify(marker)}`);
  let count = 0;
  for (const proc of findClientProcesses(marker)) {
    try {
      process.kill(proc.pid, 'SIGKILL');
      count++;
    } catch {
      // already gone
    }
  }
  return count;
}
