// Plain JS (like test/e2e/harness/strays.mjs) so a plain Node script can share it.
// Client daemons are found by their unique profile folder, on their command line or in their
// environment: deluge-web renames itself ("deluge-web", via setproctitle) and hides its command
// line, so the harness also puts the profile folder in each daemon's environment
// (RESEED_CLIENT_PROFILE). Other people's daemons on the same machine are never touched.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes whose command line or environment mentions `marker` (an absolute profile folder).
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
        const environment = readFileSync(`/proc/${entry}/environ`, 'utf8');
        mentions = environment.split('\0').includes(`RESEED_CLIENT_PROFILE=${marker}`);
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
