// Plain JS so scripts/test.mjs (no TypeScript loader) can share it with the harness.
// Browsers are found by the unique temp profile directory on their command line, never by name,
// so other people's browsers on the same machine are left alone.
import { readdirSync, readFileSync } from 'node:fs';

function ownProcessGroup() {
  try {
    return Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ')[2]);
  } catch {
    return NaN;
  }
}

/**
 * Every other process `matches` accepts, by its pid and command line (matches may read more of
 * /proc itself). Nothing at all off Linux.
 * @param {(pid: number, command: string) => boolean} matches
 * @returns {{ pid: number, pgid: number, command: string }[]}
 */
export function findProcesses(matches) {
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
      if (!matches(Number(entry), command)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      found.push({ pid: Number(entry), pgid, command: command.trim() });
    } catch {
      // the process ended while we looked, or is not ours to read
    }
  }
  return found;
}

/**
 * Processes whose command line mentions `marker` (an absolute profile or run directory).
 * @param {string} marker
 */
export function findBrowserProcesses(marker) {
  return findProcesses((_pid, command) => command.includes(marker));
}

/**
 * SIGKILLs every process mentioning `marker`, and its whole process group when it leads one
 * (Playwright and Puppeteer start browsers detached, so renderers share the browser's group).
 * Synchronous so it can run from a process 'exit' handler.
 * @param {string} marker
 * @returns {number} how many processes were signalled
 */
export function killBrowserProcesses(marker) {
  if (!marker || marker.length < 8) throw new Error(`refusing to sweep processes by a short marker: ${JSON.stringify(marker)}`);
  const own = ownProcessGroup();
  let count = 0;
  for (const proc of findBrowserProcesses(marker)) {
    try {
      if (proc.pgid === proc.pid && proc.pgid !== own) process.kill(-proc.pgid, 'SIGKILL');
      else process.kill(proc.pid, 'SIGKILL');
      count++;
    } catch {
      // already gone
    }
  }
  return count;
}
