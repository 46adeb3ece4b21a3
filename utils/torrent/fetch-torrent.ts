/**
 * Downloading one .torrent with the user's session, on the user's click: from the given origin
 * only (a redirect anywhere is refused, so the request never lands elsewhere with cookies), and
 * read no further than MAX_TORRENT_BYTES (a real .torrent is kilobytes; a huge answer is not one).
 * No zod and no browser APIs beyond fetch: the content script uses it too.
 */
import { readCapped } from '../read-capped';

export const MAX_TORRENT_BYTES = 10 * 1024 * 1024;

export type TorrentDownload =
  | { bytes: Uint8Array; contentType: string }
  /** `headers`: the answer's own (a redirect's Location where the fetch shows it; a challenge's marks), for the caller to read. */
  | { problem: 'redirected' | 'too-large' | 'http-status' | 'network'; status?: number; retryAfterSeconds?: number; headers?: Headers };

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
    return { problem: 'redirected', status: response.status, headers: response.headers };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    // A site limiting downloads (429/503) may say when to come back, in seconds (dates are not read).
    const retryAfter = /^\s*(\d{1,6})\s*$/.exec(response.headers.get('retry-after') ?? '');
    const { status, headers } = response;
    return retryAfter ? { problem: 'http-status', status, retryAfterSeconds: Number(retryAfter[1]), headers } : { problem: 'http-status', status, headers };
  }
  const contentType = response.headers.get('content-type') ?? '';
  let bytes: Uint8Array | null;
  try {
    bytes = await readCapped(response, maxBytes);
  } catch {
    return { problem: 'network' };
  }
  if (!bytes) return { problem: 'too-large' };
  return { bytes, contentType };
}
