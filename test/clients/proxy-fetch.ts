/**
 * A fetch for Node that sends every request through the e2e router (test/e2e/harness/host-router.ts) as
 * a browser does through its HTTP proxy: in absolute form (`GET https://ourbits.club/x HTTP/1.1`
 * to 127.0.0.1:PORT), so tracker host names reach the test trackers with no DNS and the router
 * records each request. https:// addresses travel as plain HTTP to the proxy (the router answers
 * them like http ones): the catalogued scheme can stay as it is in Node tests.
 *
 * Redirects are never followed (as `redirect: 'manual'` asks), the body streams (so a size cap can
 * stop reading), an abort signal cancels the request. Wrap it in nodeClientFetch for a cookie jar.
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';

export function proxiedFetch(proxyPort: number): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = { host: url.host };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    // As a browser's fetch does: a FormData (or URLSearchParams) body brings its own content type, with its boundary.
    const encoded = init.body === undefined || init.body === null ? undefined : new Response(init.body);
    const body = encoded ? Buffer.from(await encoded.arrayBuffer()) : undefined;
    const bodyType = encoded?.headers.get('content-type');
    if (bodyType && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = bodyType;
    if (body) headers['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port: proxyPort, method: init.method ?? 'GET', path: url.href, headers, signal: init.signal ?? undefined }, (answer) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          if (Array.isArray(value)) for (const one of value) responseHeaders.append(name, one);
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        const status = answer.statusCode ?? 502;
        const empty = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
        if (empty) answer.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), { status, headers: responseHeaders }));
      });
      outgoing.on('error', (error) => reject(new TypeError(`fetch failed: ${error.message}`)));
      outgoing.end(body);
    });
  }) as typeof fetch;
}
