import { browser } from 'wxt/browser';

/**
 * The host-permission match pattern for an origin: `scheme://host/*`, without the port (Firefox
 * refuses a port in a match pattern, Chromium ignores it: either way a pattern covers every port).
 */
export function permissionPattern(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//${url.hostname}/*`;
}

/** Whether the extension holds the host permission for this origin (false when the browser cannot say). */
export function originAllowed(origin: string): Promise<boolean> {
  return browser.permissions.contains({ origins: [permissionPattern(origin)] }).catch(() => false);
}
