/**
 * What one cross-seed needs from the background, built fresh for each click: the user's default
 * client, the service's site list (links and download templates), the user's overrides and
 * passkeys, and the host-permission check (a site's session cookies reach the background only for
 * origins the extension holds). Shared by every feature that cross-seeds (a page's candidates, a
 * list page's rows), so they all go through one client, one pace per site and one set of rules.
 */
import { browser } from 'wxt/browser';
import type { CrossSeedEnvironment } from '../../utils/cross-seed-engine';
import { permissionPattern } from '../../utils/permission-pattern';
import type { Clients } from '../clients/clients.feature';
import type { Shared } from '../../entrypoints/background/context';

export async function crossSeedEnvironment(shared: Shared, clients: Clients, signal?: AbortSignal): Promise<CrossSeedEnvironment> {
  const settings = await shared.settings.get();
  const [chosen, sites] = await Promise.all([
    clients.defaultClient(),
    shared.directory.sites.get(settings.baseUrl, (operation) => shared.lookup.call(operation, settings)),
  ]);
  return {
    target: chosen && { client: chosen.client, skipCheckWhenFilesMatch: chosen.config.skipCheckWhenFilesMatch, url: chosen.config.url },
    sites: { list: sites.value, overrides: settings.siteOverrides, passkeys: settings.sitePasskeys },
    originAllowed: (origin) => browser.permissions.contains({ origins: [permissionPattern(origin)] }).catch(() => false),
    signal,
  };
}
