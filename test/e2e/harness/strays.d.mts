export interface BrowserProcess {
  pid: number;
  pgid: number;
  command: string;
}
/** Every other process `matches` accepts, by its pid and command line. */
export function findProcesses(matches: (pid: number, command: string) => boolean): BrowserProcess[];
/** Processes whose command line mentions `marker` (an absolute profile or run directory). */
export function findBrowserProcesses(marker: string): BrowserProcess[];
/** SIGKILLs every process mentioning `marker` (and the process group it leads); returns how many. */
export function killBrowserProcesses(marker: string): number;
