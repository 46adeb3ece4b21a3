// Plain JS (like test/e2e/harness/strays.mjs) so a plain Node script can share it.
// Client daemons are found by their unique profile folder: on their command line, as their
// working folder, or in their environment (RESEED_CLIENT_PROFILE). deluge-web renames itself
// ("deluge-web", via setproctitle), which rewrites both its command line and its environment, but
// it keeps the working folder the harness started it in. Other people's daemons are never touched.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Processes whose command line or environment mentions `marker` (an absolute profile folder, or a
 * folder above profiles, such as scripts/test.mjs's run folder).
 * @param {string} marker
 * @returns {{ pid: number, command: string }[]}
 */
export function findClientProcesses(marker) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // not Linux: nothing to sweep
  }
  const found = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let mentions = command.includes(marker);
      if (!mentions) {
        // Every daemon is started in its profile folder; renaming itself does not move it.
        mentions = readlinkSync(`/proc/${entry}/cwd`).startsWith(marker);
      }
      if (!mentions) {
        const environment = readFileSync(`/proc/${entry}/environ`, 'utf8');
        // The profile folder, or any folder above it (a test run's folder sweeps all its daemons).
        mentions = environment.split('\0').some((entry) => entry.startsWith('RESEED_CLIENT_PROFILE=') && entry.includes(marker));
      }
      if (mentions) found.push({ pid: Number(entry), command: command.trim() });
    } catch {
      // the process ended while we looked, or is not ours to read
    }
  }
  return found;
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
