/**
 * Memory of Firefox's extension process (Linux /proc): the process Firefox names "WebExtensions"
 * (its remote type `extension`, where an MV2 background page and the extension's pages run), a
 * descendant of the browser started on `profileDir`. Read from smaps_rollup: RSS (what ps and top
 * show), PSS and USS (its private pages: what ending it would give back).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessMemory {
  pid: number;
  rssBytes: number;
  pssBytes: number;
  ussBytes: number;
}

function statOf(pid: number): { ppid: number; comm: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), ppid: Number(stat.slice(close + 2).split(' ')[1]) };
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The named process (default Firefox's "WebExtensions") under the browser of this profile; with every descendant's name for the report. */
export function findProfileChild(profileDir: string, name = 'WebExtensions'): { pid?: number; children: string[] } {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number);
  const stats = new Map(pids.map((pid) => [pid, statOf(pid)] as const));
  const roots = new Set(pids.filter((pid) => commandOf(pid).includes(profileDir) && !commandOf(pid).includes('-contentproc')));
  const under = (pid: number): boolean => {
    for (let at = pid, hops = 0; at > 1 && hops < 20; hops++) {
      if (roots.has(at)) return true;
      at = stats.get(at)?.ppid ?? 0;
    }
    return false;
  };
  const children = pids.filter((pid) => !roots.has(pid) && under(pid));
  return { pid: children.find((pid) => stats.get(pid)?.comm === name), children: children.map((pid) => `${pid} ${stats.get(pid)?.comm ?? '?'}`) };
}

export function processMemory(pid: number): ProcessMemory {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
  return { pid, rssBytes: kb('Rss'), pssBytes: kb('Pss'), ussBytes: kb('Private_Clean') + kb('Private_Dirty') };
}
