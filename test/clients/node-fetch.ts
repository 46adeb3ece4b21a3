/**
 * A fetch for Node that behaves as the extension's background does towards a client: a cookie jar
 * per host (the browser's own jar in the extension), honouring `credentials: 'omit'`, and
 * optionally the Origin header a browser adds:
 * - `origin: 'chrome-extension://…'`: what Chromium sends from an extension, which qBittorrent's
 *   CSRF protection refuses;
 * - `origin: 'same'`: the request's own origin, which is what csrf.ts's declarativeNetRequest rule
 *   makes the browser send.
 */
export interface NodeClientFetchOptions {
  origin?: 'same' | string;
  inner?: typeof fetch;
}

export type JarFetch = typeof fetch & {
  /** Cookies by host, name → value. */
  jar: Map<string, Map<string, string>>;
  /** Every request sent (method and URL), for counting requests. */
  sent: { method: string; url: string }[];
};

export function nodeClientFetch(options: NodeClientFetchOptions = {}): JarFetch {
  const inner = options.inner ?? globalThis.fetch;
  const jar = new Map<string, Map<string, string>>();
  const sent: { method: string; url: string }[] = [];
  const jarFetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init.headers);
    const useCookies = init.credentials !== 'omit';
    const cookies = jar.get(url.host);
    if (useCookies && cookies && cookies.size > 0) headers.set('Cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    if (options.origin) headers.set('Origin', options.origin === 'same' ? url.origin : options.origin);
    sent.push({ method: init.method ?? 'GET', url: url.href });
    const response = await inner(url, { ...init, headers });
    if (useCookies) {
      for (const line of response.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const at = pair.indexOf('=');
        if (at <= 0) continue;
        const name = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute)) || value === '';
        const hostJar = jar.get(url.host) ?? new Map<string, string>();
        if (expired) hostJar.delete(name);
        else hostJar.set(name, value);
        jar.set(url.host, hostJar);
      }
    }
    return response;
  };
  return Object.assign(jarFetch, { jar, sent }) as JarFetch;
}
