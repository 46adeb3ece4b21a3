/**
 * Parts of an address, read tolerantly: undefined (or false) when the text does not parse as a
 * URL, never a throw. Small and free of zod: the content script bundles it too.
 */

/** The origin (`scheme://host[:port]`), or undefined when `url` is empty or does not parse. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The host name, lowercased and without its port, or undefined when `url` is empty or does not parse. */
export function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The host with its port when it has one (`example.org:8080`), as the browser writes it; undefined when `url` does not parse. */
export function hostAndPortOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** Whether both addresses parse and share one origin. */
export function sameOrigin(a: string, b: string): boolean {
  const origin = originOf(a);
  return origin !== undefined && origin === originOf(b);
}
