/**
 * What leaves the browser, as Firefox's data-collection consent names it (wxt.config.ts declares
 * the same): the lookups (hashes of tracker pages visited, the user's site list) are the
 * extension's purpose and required; binding a token sends the user's id on a site and a SHA-1 of
 * its passkey, which the user allows when they first bind. Chromium has no such consent: there the
 * checks below always pass (its store listing declares the same).
 */
import { browser } from 'wxt/browser';

export const REQUIRED_DATA = ['browsingActivity'] as const;
export const BINDING_DATA = ['authenticationInfo', 'personallyIdentifyingInfo'] as const;

type DataPermissions = { data_collection?: string[] };
type PermissionsApi = {
  contains(permissions: DataPermissions): Promise<boolean>;
  request(permissions: DataPermissions): Promise<boolean>;
};

/** True in a build whose manifest declares data collection (Firefox). */
export function declaresDataCollection(): boolean {
  try {
    const manifest = browser.runtime.getManifest() as { browser_specific_settings?: { gecko?: { data_collection_permissions?: unknown } } };
    return !!manifest.browser_specific_settings?.gecko?.data_collection_permissions;
  } catch {
    return false;
  }
}

const permissions = () => browser.permissions as unknown as PermissionsApi;

/** Whether binding may send its data (always, where the browser asks no such consent). */
export async function bindingAllowed(): Promise<boolean> {
  if (!declaresDataCollection()) return true;
  return permissions()
    .contains({ data_collection: [...BINDING_DATA] })
    .catch(() => false);
}

/** Asks for binding's data consent; call within the user's click, before any await. */
export function askForBinding(): Promise<boolean> {
  if (!declaresDataCollection()) return Promise.resolve(true);
  return permissions()
    .request({ data_collection: [...BINDING_DATA] })
    .catch(() => false);
}
