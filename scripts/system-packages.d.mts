export type Purpose = 'test' | 'demo';
/** What each README command needs from Debian. */
export const SYSTEM_PACKAGES: Record<Purpose, string[]>;
/** Packages whose install enables and starts a system service (package → its services). */
export const PACKAGE_SERVICES: Record<string, string[]>;
/** The exact command a person runs to install these by hand. */
export function installCommand(packages: readonly string[]): string;
/** The packages of `wanted` dpkg does not have installed; undefined off Debian (no dpkg-query). */
export function missingPackages(wanted: readonly string[]): string[] | undefined;
/** Installs what `purpose` needs when it may; otherwise says exactly what to install (ok: false). */
export function ensureSystemPackages(
  purpose: Purpose,
  options?: { log?: (line: string) => void; checkOnly?: boolean },
): { ok: boolean; debian: boolean; missing: string[]; installed: string[] };
