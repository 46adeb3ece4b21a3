/**
 * HTTP Digest authentication (RFC 7616, qop "auth"), for web servers that mount rTorrent's XML-RPC
 * behind Digest rather than Basic. MD5 is what nearly every server asks for and WebCrypto does not
 * have it, so it is computed here (RFC 1321); SHA-256 goes through WebCrypto. Runs in an MV3 worker,
 * an MV2 page and Node alike.
 */

/** A Digest challenge from WWW-Authenticate. */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: 'MD5' | 'SHA-256';
  /** Whether the server offers qop=auth (else the RFC 2069 form without it). */
  qopAuth: boolean;
  /** The server says the nonce expired, not that the password is wrong. */
  stale: boolean;
}

/** The Digest challenge in a WWW-Authenticate header, or undefined when it offers none we can answer. */
export function digestChallenge(header: string | null): DigestChallenge | undefined {
  if (!header) return undefined;
  const at = header.search(/(^|,\s*)Digest\s/i);
  if (at < 0) return undefined;
  const params = new Map<string, string>();
  const pattern = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/gy;
  const text = header.slice(header.indexOf('Digest', at) + 'Digest'.length).trimStart();
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    params.set(match[1]!.toLowerCase(), match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!);
    const comma = /\s*,\s*/y;
    comma.lastIndex = pattern.lastIndex;
    if (!comma.exec(text)) break;
    pattern.lastIndex = comma.lastIndex;
  }
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || !nonce || (algorithm !== 'MD5' && algorithm !== 'SHA-256')) return undefined;
  const qop = params.get('qop');
  if (qop !== undefined && !qop.split(',').some((one) => one.trim().toLowerCase() === 'auth')) return undefined;
  const challenge: DigestChallenge = { realm, nonce, algorithm, qopAuth: qop !== undefined, stale: params.get('stale')?.toLowerCase() === 'true' };
  const opaque = params.get('opaque');
  if (opaque !== undefined) challenge.opaque = opaque;
  return challenge;
}

const utf8 = new TextEncoder();

function hex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** MD5 of bytes (RFC 1321), as 16 bytes. */
export function md5(input: Uint8Array): Uint8Array {
  const shifts = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
  const constants = Array.from({ length: 64 }, (_, index) => Math.floor(Math.abs(Math.sin(index + 1)) * 2 ** 32) >>> 0);
  const length = ((input.length + 8) >>> 6) * 64 + 64;
  const padded = new Uint8Array(length);
  padded.set(input);
  padded[input.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(length - 8, (input.length * 8) >>> 0, true);
  view.setUint32(length - 4, Math.floor(input.length / 2 ** 29), true);
  let [a0, b0, c0, d0] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  for (let block = 0; block < length; block += 64) {
    let [a, b, c, d] = [a0, b0, c0, d0];
    for (let step = 0; step < 64; step++) {
      const round = step >>> 4;
      const mixed = round === 0 ? (b & c) | (~b & d) : round === 1 ? (d & b) | (~d & c) : round === 2 ? b ^ c ^ d : c ^ (b | ~d);
      const word = round === 0 ? step : round === 1 ? (5 * step + 1) % 16 : round === 2 ? (3 * step + 5) % 16 : (7 * step) % 16;
      const sum = (a + mixed + constants[step]! + view.getUint32(block + word * 4, true)) >>> 0;
      const shift = shifts[round * 4 + (step % 4)]!;
      [a, d, c] = [d, c, b];
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) >>> 0;
    }
    [a0, b0, c0, d0] = [(a0 + a) >>> 0, (b0 + b) >>> 0, (c0 + c) >>> 0, (d0 + d) >>> 0];
  }
  const digest = new DataView(new ArrayBuffer(16));
  [a0, b0, c0, d0].forEach((word, index) => digest.setUint32(index * 4, word, true));
  return new Uint8Array(digest.buffer);
}

async function hashHex(algorithm: DigestChallenge['algorithm'], text: string): Promise<string> {
  const bytes = utf8.encode(text);
  return hex(algorithm === 'MD5' ? md5(bytes) : new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

function quotedString(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/**
 * The Authorization header answering `challenge` for one request. `count` is how many requests
 * this nonce has answered (nc), `cnonce` the client's own random nonce.
 */
export async function digestAuthorization(
  challenge: DigestChallenge,
  request: { method: string; uri: string; username: string; password: string; count: number; cnonce: string },
): Promise<string> {
  const { algorithm, realm, nonce } = challenge;
  const ha1 = await hashHex(algorithm, `${request.username}:${realm}:${request.password}`);
  const ha2 = await hashHex(algorithm, `${request.method}:${request.uri}`);
  const nc = request.count.toString(16).padStart(8, '0');
  const response = challenge.qopAuth ? await hashHex(algorithm, `${ha1}:${nonce}:${nc}:${request.cnonce}:auth:${ha2}`) : await hashHex(algorithm, `${ha1}:${nonce}:${ha2}`);
  const parts = [
    `username=${quotedString(request.username)}`,
    `realm=${quotedString(realm)}`,
    `nonce=${quotedString(nonce)}`,
    `uri=${quotedString(request.uri)}`,
    `algorithm=${algorithm}`,
    `response=${quotedString(response)}`,
  ];
  if (challenge.qopAuth) parts.push('qop=auth', `nc=${nc}`, `cnonce=${quotedString(request.cnonce)}`);
  if (challenge.opaque !== undefined) parts.push(`opaque=${quotedString(challenge.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}
