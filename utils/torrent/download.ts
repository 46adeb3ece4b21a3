/**
 * Downloading one .torrent with the user's session, on the user's click: from the given origin
 * only (a redirect anywhere is refused, so the request never lands elsewhere with cookies), and
 * read no further than MAX_TORRENT_BYTES (a real .torrent is kilobytes; a huge answer is not one).
 * No zod and no browser APIs beyond fetch: the content script uses it too.
 */

export const MAX_TORRENT_BYTES = 10 * 1024 * 1024;

export type TorrentDownload =
  | { bytes: Uint8Array; contentType: string }
  | { problem: 'redirected' | 'too-large' | 'http-status' | 'network'; status?: number; retryAfterSeconds?: number };

export async function downloadTorrent(
  url: URL,
  options: { fetch?: typeof fetch; maxBytes?: number; signal?: AbortSignal } = {},
): Promise<TorrentDownload> {
  const maxBytes = options.maxBytes ?? MAX_TORRENT_BYTES;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { credentials: 'include', redirect: 'manual', cache: 'no-store', signal: options.signal });
  } catch {
    return { problem: 'network' };
  }
  // `manual`: a redirect comes back opaque (status 0) or as 3xx, and is never followed.
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel().catch(() => undefined);
    return { problem: 'redirected', status: response.status };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    // A site limiting downloads (429/503) may say when to come back, in seconds (dates are not read).
    const retryAfter = /^\s*(\d{1,6})\s*$/.exec(response.headers.get('retry-after') ?? '');
    return retryAfter ? { problem: 'http-status', status: response.status, retryAfterSeconds: Number(retryAfter[1]) } : { problem: 'http-status', status: response.status };
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { problem: 'too-large' };
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (!response.body) return { bytes: new Uint8Array(await response.arrayBuffer()), contentType };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      // Stop reading at once: the rest of a huge answer is never fetched into memory.
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { problem: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    return { problem: 'network' };
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, contentType };
}
