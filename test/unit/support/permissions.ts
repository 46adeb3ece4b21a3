/**
 * The fake browser has no permissions API: install one kept in memory, which answers as a browser
 * does for host permissions: the manifest's own hosts (IYUU's, loopback for torrent clients, the
 * catalogued trackers the content script runs on) always, other origins once granted.
 * Granted origins are forgotten on fakeBrowser.reset(), like a fresh profile.
 */
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { LOOPBACK_CLIENT_HOSTS } from '../../../utils/clients/client-hosts';
import { KNOWN_SERVICE_HOSTS } from '../../../utils/settings';
import { siteKeyForHost } from '../../../utils/sites/hosts';

/** Granted `scheme://host`, without a port: a browser's host permission covers every port. */
const granted = new Set<string>();

/** `http://127.0.0.1:5000/*` or `*://host/*` → the scheme://host pairs it stands for. */
function origins(pattern: string): string[] {
  const match = /^(\*|https?):\/\/([^/]+)\/\*$/.exec(pattern);
  if (!match) return [pattern];
  const [, scheme, hostAndPort] = match;
  const host = hostAndPort!.replace(/:\d+$/, '');
  return scheme === '*' ? [`http://${host}`, `https://${host}`] : [`${scheme}://${host}`];
}

function held(origin: string): boolean {
  const host = origin.replace(/^https?:\/\//, '');
  return (
    granted.has(origin) ||
    (KNOWN_SERVICE_HOSTS as readonly string[]).includes(host) ||
    (LOOPBACK_CLIENT_HOSTS as readonly string[]).includes(host) ||
    // wxt.config.ts: every catalogued tracker host (and its subdomains), as the content script's matches.
    siteKeyForHost(host) !== undefined
  );
}

/** Grants the origin of this URL, as a user accepting the browser's prompt would. */
export function grantOrigin(url: string): void {
  const { protocol, hostname } = new URL(url);
  granted.add(`${protocol}//${hostname}`);
}

export function installPermissions(): void {
  Object.assign(fakeBrowser.permissions, {
    contains: async ({ origins: patterns = [] }: { origins?: string[] }) => patterns.flatMap(origins).every(held),
    request: async ({ origins: patterns = [] }: { origins?: string[] }) => {
      for (const origin of patterns.flatMap(origins)) granted.add(origin);
      return true;
    },
    remove: async ({ origins: patterns = [] }: { origins?: string[] }) => {
      for (const origin of patterns.flatMap(origins)) granted.delete(origin);
      return true;
    },
    resetState: () => granted.clear(),
  });
}
