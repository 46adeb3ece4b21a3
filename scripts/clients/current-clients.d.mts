export function currentClientsDir(env?: Record<string, string | undefined>): string;
export function ensureCurrentClients(options?: { checkOnly?: boolean; log?: (line: string) => void }): { ok: boolean; output: string };
