export function findClientProcesses(marker: string): { pid: number; command: string }[];
export function killClientProcesses(marker: string): number;
