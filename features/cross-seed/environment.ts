/**
 * What one cross-seed needs from the background, built fresh for each run: the user's default
 * client (as the run was keyed by it), the service's site list (links and download templates), the
 * user's overrides, passkeys and API keys, and the host-permission check (a site's session cookies reach the
 * background only for origins the extension holds). Built only by CrossSeeds.run and "Cross-seed
 * all" (cross-seed.feature.ts), so every cross-seed goes through one client, one pace per site and
 * one set of rules.
 */
import type { CrossSeedEnvironment } from '../../utils/cross-seed-engine';
import { originAllowed } from '../../utils/permission-pattern';
import type { Clients } from '../clients/clients.feature';
import type { Shared } from '../context';

/** The default client as the clients feature hands it out (undefined: none set up). */
export type ChosenClient = Awaited<ReturnType<Clients['defaultClient']>>;

export async function crossSeedEnvironment(shared: Shared, chosen: ChosenClient, signal?: AbortSignal): Promise<CrossSeedEnvironment> {
  const settings = await shared.settings.get();
  const sites = await shared.directory.sites.get(settings.baseUrl, (operation) => shared.lookup.call(operation, settings));
  return {
    target: chosen && { client: chosen.client, skipCheckWhenFilesMatch: chosen.config.skipCheckWhenFilesMatch, renameCopies: settings.crossSeedRenamedCopies, url: chosen.config.url },
    sites: { list: sites.value, overrides: settings.siteOverrides, passkeys: settings.sitePasskeys, apiKeys: settings.siteApiKeys },
    originAllowed,
    signal,
  };
}
