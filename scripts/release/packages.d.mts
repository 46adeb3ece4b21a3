// Types of packages.mjs for the TypeScript tests that use it.
export function packageNames(version: string): [string, string, string];
export function changelogEntry(changelog: string): { version: string; date: string; notes: string } | undefined;
export function zipEntries(file: string): Promise<Map<string, Buffer>>;
export function buildEnvironment(): NodeJS.ProcessEnv;
export function makePackages(
  root: string,
  outDir: string,
  options?: { lock?: string },
): Promise<{ version: string; chrome: string; firefox: string; files: { name: string; size: number }[] }>;
export function unpackZip(file: string, dir: string): Promise<void>;
