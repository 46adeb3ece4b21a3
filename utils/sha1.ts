/**
 * SHA-1 as 40 lowercase hex, of bytes or of text.
 *
 * Bytes (a .torrent's info dictionary): crypto.subtle only exists in secure contexts, and some
 * trackers still serve plain http, where a content script has no crypto.subtle: then a small
 * JavaScript SHA-1 (FIPS 180-4) does the work.
 *
 * Text (the service's signatures and site report): through Web Crypto only, as the background and
 * Node tests both have it; where it is missing the call fails, for the caller to say so.
 */

const encoder = new TextEncoder();

/** SHA-1 of `bytes`: Web Crypto where it is, else the script version (plain-http content scripts). */
export async function sha1HexOfBytes(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    try {
      return toHex(new Uint8Array(await subtle.digest('SHA-1', bytes as Uint8Array<ArrayBuffer>)));
    } catch {
      // fall through to the script version
    }
  }
  return sha1HexScript(bytes);
}

/** SHA-1 of `text` as UTF-8, through Web Crypto only (rejects where crypto.subtle is missing). */
export async function sha1HexOfText(text: string): Promise<string> {
  return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-1', encoder.encode(text))));
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function sha1HexScript(bytes: Uint8Array): string {
  // pad: 0x80, zeros, then the bit length as a 64-bit big-endian number
  const blocks = Math.ceil((bytes.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);

  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + w[t]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  return h.map((word) => word.toString(16).padStart(8, '0')).join('');
}
