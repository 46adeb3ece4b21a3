/**
 * Where a torrent client may be reached without asking: the user's own machine. Read by the
 * manifest (wxt.config.ts: required host permissions) and by the background (which origins need
 * the optional permission asked within the Save click). The build config loads it: it imports
 * only permission-pattern.ts, which imports nothing.
 */
import { permissionPattern } from '../permission-pattern';

/** Loopback names a client's web UI is usually opened at; a match pattern without a port matches every port. */
export const LOOPBACK_CLIENT_HOSTS = ['127.0.0.1', 'localhost'] as const;

/** The manifest's required host permissions for clients on this machine (http and https). */
export const LOOPBACK_CLIENT_HOST_PERMISSIONS = LOOPBACK_CLIENT_HOSTS.flatMap((host) => [`http://${host}/*`, `https://${host}/*`]);

/** Whether a client address is on this machine (then the manifest already grants it). */
export function isLoopbackClient(url: string): boolean {
  try {
    return (LOOPBACK_CLIENT_HOSTS as readonly string[]).includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The host-permission pattern for a client address (permission-pattern.ts); undefined when it is not http(s). */
export function clientHostPattern(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? permissionPattern(url) : undefined;
  } catch {
    return undefined;
  }
}
