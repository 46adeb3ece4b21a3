/**
 * Where a torrent client may be reached without asking: the user's own machine. Read by the
 * manifest (wxt.config.ts: required host permissions) and by the background (which origins need
 * the optional permission asked within the Save click). No imports: the build config loads it.
 */

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

/**
 * The host-permission pattern for a client address: its scheme and host, without the port.
 * Firefox refuses match patterns with a port (bug 1362809); Chromium reads a missing port as any port.
 * Undefined when the address is not http(s).
 */
export function clientHostPattern(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return `${parsed.protocol}//${parsed.hostname}/*`;
  } catch {
    return undefined;
  }
}
