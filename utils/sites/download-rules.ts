/**
 * Each catalogued site's download rule: its engine's (utils/sites/engines/), with what its
 * definition says on top (utils/sites/definitions/). utils/cross-seed-engine/source.ts applies them.
 */
import { definitions } from './definitions';
import { engineSchemas } from './engines';
import type { CatalogSite, DetailsPageLink, DownloadRule } from './site-types';

let byName: Map<string, DownloadRule> | undefined;
let byShape: Map<string, DetailsPageLink> | undefined;

function rules(): Map<string, DownloadRule> {
  byName ??= new Map(definitions.map((definition) => [definition.site, { ...engineSchemas[definition.engine].download, ...definition.download }]));
  return byName;
}

/** How a catalogued site's .torrent is had. */
export function downloadRuleOf(entry: CatalogSite): DownloadRule {
  return rules().get(entry.site) ?? engineSchemas[entry.engine].download;
}

/** The download link shape of that name, as some site's rule reads it from a details page. */
export function detailsPageLinkOf(shape: string): DetailsPageLink | undefined {
  if (!byShape) {
    byShape = new Map();
    for (const rule of rules().values()) if (rule.detailsPageLink) byShape.set(rule.detailsPageLink.shape, rule.detailsPageLink);
  }
  return byShape.get(shape);
}
