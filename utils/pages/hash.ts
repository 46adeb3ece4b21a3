/**
 * Hash helpers shared by every engine: normalising, magnet links, finding a hash in a label's text.
 * Plain string work, no DOM.
 */

const HEX40 = /^[0-9a-f]{40}$/;
const ANY_HEX40 = /^[0-9a-fA-F]{40}$/;
const BASE32_32 = /^[A-Za-z2-7]{32}$/;
/** A 40-hex run not touching other hex characters (a 41- or 64-hex run is something else). */
const HEX40_TOKEN = /(?<![0-9a-fA-F])[0-9a-fA-F]{40}(?![0-9a-fA-F])/g;
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 40 lowercase hex characters, and not one character repeated (placeholders like `000…0`). */
export function isInfoHash(value: string): boolean {
  return HEX40.test(value) && !isOneRepeatedCharacter(value);
}

function isOneRepeatedCharacter(value: string): boolean {
  for (let i = 1; i < value.length; i++) if (value.charCodeAt(i) !== value.charCodeAt(0)) return false;
  return true;
}

/** RFC 4648 base32 (32 characters = 160 bits) to 40 lowercase hex. */
export function base32ToHex(value: string): string | null {
  if (!BASE32_32.test(value)) return null;
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const character of value.toUpperCase()) {
    buffer = (buffer << 5) | BASE32_ALPHABET.indexOf(character);
    bits += 5;
    while (bits >= 4) {
      bits -= 4;
      out += ((buffer >> bits) & 15).toString(16);
    }
    buffer &= (1 << bits) - 1; // keep the buffer small: only the unread bits matter
  }
  return out;
}

/**
 * A hash as users and sites write it (any case, 40 hex or 32 base32, blanks around it) to 40
 * lowercase hex; null when it is not a usable info-hash.
 */
export function normaliseHash(raw: string): string | null {
  const value = raw.length === 40 || raw.length === 32 ? raw : raw.replace(/^[\s\u00a0\u200b\ufeff]+|[\s\u00a0\u200b\ufeff]+$/g, '');
  let hash: string | null = null;
  if (ANY_HEX40.test(value)) hash = value.toLowerCase();
  else if (BASE32_32.test(value)) hash = base32ToHex(value);
  return hash !== null && isInfoHash(hash) ? hash : null;
}

/** `xt` (or numbered `xt.1`) holding a btih URN, its colons possibly percent-encoded. */
const XT_BTIH = /[?&]xt(?:\.\d+)?=urn(?::|%3a)btih(?::|%3a)([0-9a-z]+)(?=[&#]|$)/gi;

/** The v1 info-hash of a magnet link (`xt=urn:btih:` with 40 hex or 32 base32), else null. */
export function hashFromMagnet(href: string): string | null {
  if (!/^\s*magnet:/i.test(href)) return null;
  // one regex pass over the link: list pages hold a hundred of these
  for (const match of href.trim().matchAll(XT_BTIH)) {
    const hash = normaliseHash(match[1]!);
    if (hash) return hash;
  }
  return null;
}

/**
 * The first info-hash in a label's value text. Accepts one standalone 40-hex run; failing that,
 * a value that is nothing but a hash broken by blanks (some sites group it in fours).
 */
export function hashInText(text: string): string | null {
  for (const match of text.matchAll(HEX40_TOKEN)) {
    const hash = match[0].toLowerCase();
    if (isInfoHash(hash)) return hash;
  }
  const squeezed = text.replace(/[\s\u00a0\u200b]+/g, '');
  return ANY_HEX40.test(squeezed) ? normaliseHash(squeezed) : null;
}
