/** Reading the values a download link carries, for the engines' and sites' link shapes. */

/** A value a download link may carry (passkey, sign, authkey): letters, digits, `-` and `_`, nothing to escape. */
const SAFE_VALUE = /^[A-Za-z0-9_-]{1,128}$/;

/** The query's values, when every name is allowed, appears once, and every value has the safe shape. */
export function strictQuery(url: URL, allowed: readonly string[]): Map<string, string> | undefined {
  const values = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name) || values.has(name) || !SAFE_VALUE.test(value)) return undefined;
    values.set(name, value);
  }
  return values;
}
