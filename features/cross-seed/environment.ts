/**
 * What one cross-seed needs from the background, built fresh for each run: every client the user
 * saved (which holds the source and where its copy goes: features/clients/placement.ts), the
 * service's site list (links and download templates), the user's overrides, passkeys and API keys,
 * and the host-permission check (a site's session cookies reach the background only for origins the
 * extension holds). Built only by CrossSeeds (cross-seed.feature.ts), so every cross-seed goes
 * through one placement, one pace per site and one set of rules.
 */
import type { CrossSeedEnvironment } from '../../utils/cross-seed-engine';
import { originAllowed } from '../../utils/permission-pattern';
import type { Clients } from '../clients/clients.feature';
import { clientPlacement } from '../clients/placement';
import type { Shared } from '../context';

export async function crossSeedEnvironment(shared: Shared, clients: Clients, signal?: AbortSignal): Promise<CrossSeedEnvironment> {
  const settings = await shared.settings.get();
  const sites = await shared.directory.sites.get(settings.baseUrl, (operation) => shared.lookup.call(operation, settings));
  const handles = await clients.handles();
  return {
    clients: handles.length
      ? clientPlacement(handles, {
          reachable: (config) => clients.reachable(config),
          renameCopies: settings.crossSeedRenamedCopies,
          ...(clients.lastKnownHeld && { lastKnownHeld: clients.lastKnownHeld }),
        })
      : undefined,
    sites: { list: sites.value, overrides: settings.siteOverrides, passkeys: settings.sitePasskeys, apiKeys: settings.siteApiKeys },
    originAllowed,
    signal,
  };
}
