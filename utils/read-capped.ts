/**
 * An answer's body, read no further than a limit: by its Content-Length when it states one, else
 * chunk by chunk, cancelling the stream the moment the limit is passed (the rest is never fetched
 * into memory). One reader for every answer the extension takes in: the service's, a torrent
 * client's, a .torrent file. No browser APIs beyond fetch's: the content script uses it too.
 * Throws what the stream throws (a broken connection); the caller names it.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The same, as UTF-8 text (null past the limit). */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | null> {
  const bytes = await readCapped(response, maxBytes);
  return bytes && new TextDecoder().decode(bytes);
}
