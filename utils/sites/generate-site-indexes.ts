/**
 * Writes the content script's compact views of the site definitions:
 * `npx tsx utils/sites/generate-site-indexes.ts`.
 *  - utils/sites/host-index.ts: "which site is this host" (and the manifest's match patterns),
 *    without the rest of the catalog;
 *  - utils/pages/nexusphp-paths.ts: the paths of the sites whose NexusPHP-like pages live elsewhere
 *    (TTG, HDCity), for the NexusPHP page engine.
 * The content script must stay small, so it never imports the definitions. A unit test fails when
 * either file is stale.
 */
import type { CatalogSite, NexusphpPaths, SiteDefinition } from './site-types';

const GENERATED = 'Generated from utils/sites/definitions/ by utils/sites/generate-site-indexes.ts: do not edit by hand.';

/** The text of host-index.ts for a catalog. */
export function renderHostIndex(catalog: readonly CatalogSite[]): string {
  const rows = catalog.map((entry) => {
    const hosts = [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])];
    return `  [${JSON.stringify(entry.site)}, ${JSON.stringify(entry.engine)}, ${JSON.stringify(hosts.join(' '))}],`;
  });
  return [
    `// ${GENERATED}`,
    "import type { Engine } from './site-types';",
    '',
    '/** [short name, engine, every host the site is recognised by (current, old, API), space-separated]. */',
    'export const HOST_INDEX: readonly (readonly [string, Engine, string])[] = [',
    ...rows,
    '];',
    '',
  ].join('\n');
}

/** One regex of the sites' alternatives, or one that never matches when no site has any. */
function alternatives(parts: readonly RegExp[]): string {
  return parts.length ? `/${parts.map((part) => part.source).join('|')}/` : '/(?!)/';
}

/** The text of utils/pages/nexusphp-paths.ts for the definitions. */
export function renderNexusphpPaths(definitions: readonly SiteDefinition[]): string {
  const sites = definitions.filter((definition): definition is SiteDefinition & { pages: NexusphpPaths } => !!definition.pages);
  const pick = (field: 'torrentPage' | 'downloadLink' | 'listPage') => sites.flatMap(({ pages }) => (pages[field] ? [pages[field]] : []));
  const links = sites.map(({ pages }) => pages.torrentLinks).join(', ') || 'a:not(a)';
  return [
    `// ${GENERATED}`,
    `// The sites whose NexusPHP-like pages live at paths of their own: ${sites.map(({ site }) => site).join(', ') || 'none'}.`,
    '',
    '/** Their torrent pages\' paths after the leading `/`, the id in one group per site. */',
    `export const SITE_TORRENT_PAGES = ${alternatives(pick('torrentPage'))};`,
    '/** Links to those pages in a list row. */',
    `export const SITE_TORRENT_LINKS = ${JSON.stringify(links)};`,
    "/** Their download links' paths before the id. */",
    `export const SITE_DOWNLOAD_LINKS = ${alternatives(pick('downloadLink'))};`,
    "/** Their list pages' paths after the leading `/`. */",
    `export const SITE_LIST_PAGES = ${alternatives(pick('listPage'))};`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  const { catalog } = await import('./catalog');
  const { definitions } = await import('./definitions');
  await writeFile(new URL('host-index.ts', import.meta.url), renderHostIndex(catalog));
  await writeFile(new URL('../pages/nexusphp-paths.ts', import.meta.url), renderNexusphpPaths(definitions));
}

// Run only as a script, never when imported (the test imports the renderers).
if (typeof process !== 'undefined' && process.argv[1]?.endsWith('generate-site-indexes.ts')) {
  void main();
}
