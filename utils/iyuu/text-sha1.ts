/**
 * SHA-1 as lowercase hex, through Web Crypto only: the same code runs in the MV3 service worker,
 * the MV2 background page and Node tests (no node:crypto).
 */
const encoder = new TextEncoder();

export async function sha1Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-1', encoder.encode(text));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
