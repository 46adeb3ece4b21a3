/**
 * Writes utils/sites/host-index.ts from catalog.json: `npx tsx utils/sites/generate-host-index.ts`.
 * The content script needs only "which site is this host", not the whole catalog, so it gets this
 * compact index instead. A unit test fails when the index is stale.
 */
import type { CatalogSite } from './site-types';

/** The text of host-index.ts for a catalog. */
export function renderHostIndex(catalog: readonly CatalogSite[]): string {
  const rows = catalog.map((entry) => {
    const hosts = [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])];
    return `  [${JSON.stringify(entry.site)}, ${JSON.stringify(entry.engine)}, ${JSON.stringify(hosts.join(' '))}],`;
  });
  return [
    '// Generated from catalog.json by utils/sites/generate-host-index.ts: do not edit by hand.',
    "import type { Engine } from './site-types';",
    '',
    '/** [short name, engine, every host the site is recognised by (current, old, API), space-separated]. */',
    'export const HOST_INDEX: readonly (readonly [string, Engine, string])[] = [',
    ...rows,
    '];',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const here = new URL('.', import.meta.url);
  const catalog = JSON.parse(await readFile(new URL('catalog.json', here), 'utf8')) as CatalogSite[];
  await writeFile(new URL('host-index.ts', here), renderHostIndex(catalog));
}

// Run only as a script, never when imported (the test imports renderHostIndex).
if (typeof process !== 'undefined' && process.argv[1]?.endsWith('generate-host-index.ts')) {
  void main();
}
