/**
 * PHP's behaviour where the search answerers (unit3d-site.ts, gazelle-site.ts,
 * nexusphp-search-site.ts) must give the same bytes as the PHP code they stand for: json_encode's
 * escaping, intval, number_format's rounding, rawurlencode, strnatcasecmp, reading a query string
 * into $_GET. Each says which PHP function it follows; none is more than the answerers need.
 */

export interface PhpJsonOptions {
  /** JSON_UNESCAPED_SLASHES (default false: `/` is written `\/`). */
  unescapedSlashes?: boolean;
  /** JSON_UNESCAPED_UNICODE (default false: every non-ASCII character is written `\uXXXX`). */
  unescapedUnicode?: boolean;
  /** JSON_PRETTY_PRINT: four spaces, `"key": value`. */
  pretty?: boolean;
}

/**
 * json_encode: what PHP writes by default escapes `/` as `\/` and every non-ASCII character as
 * `\uXXXX` (surrogate pairs for those above U+FFFF), which JSON.stringify does not.
 */
export function phpJson(value: unknown, options: PhpJsonOptions = {}): string {
  let text = JSON.stringify(value, null, options.pretty ? 4 : undefined);
  if (!options.unescapedSlashes) text = text.replaceAll('/', '\\/');
  if (!options.unescapedUnicode) text = text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text;
}

/** intval() of a request parameter: leading blanks, a sign, digits; anything else is 0 (absent too). */
export function intval(value: string | null | undefined): number {
  const match = /^[ \t\n\r\v\f]*([+-]?\d+)/.exec(value ?? '');
  return match ? Number.parseInt(match[1]!, 10) : 0;
}

/**
 * round($value, $places) as number_format uses it: half away from zero on the value's decimal form
 * at 15 significant digits, which is what PHP's pre-rounding (5.3-8.3) and its 8.4 rewrite both
 * give for the values number_format sees (1.005 → 1.01 and 0.285 → 0.29, where toFixed says 1.00
 * and 0.28). Returned as the decimal string with exactly `places` decimals.
 */
export function phpRoundToString(value: number, places: number): string {
  if (!Number.isFinite(value)) return String(value);
  const negative = value < 0;
  const [mantissa, exponentText] = Math.abs(value).toExponential(14).split('e');
  const exponent = Number(exponentText);
  const digits = mantissa!.replace('.', '');
  // digits × 10^(exponent − 14) is the value at 15 significant digits; keep `places` decimals.
  const scale = exponent - 14 + places;
  let integer: bigint;
  if (scale >= 0) integer = BigInt(digits) * 10n ** BigInt(scale);
  else {
    const divisor = 10n ** BigInt(-scale);
    const whole = BigInt(digits);
    integer = whole / divisor;
    if ((whole % divisor) * 2n >= divisor) integer += 1n;
  }
  const text = integer.toString().padStart(places + 1, '0');
  const result = places > 0 ? `${text.slice(0, -places)}.${text.slice(-places)}` : text;
  return negative && integer !== 0n ? `-${result}` : result;
}

/** number_format($number, $decimals): rounded as PHP rounds, `,` between thousands, `.` before the decimals. */
export function numberFormat(value: number, decimals: number): string {
  const rounded = phpRoundToString(value, decimals);
  const negative = rounded.startsWith('-');
  const [whole, fraction] = rounded.replace('-', '').split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** rawurlencode (RFC 3986): everything but letters, digits and `-_.~` is %XX of its UTF-8 bytes. */
export function rawurlencode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** urlencode: rawurlencode with spaces as `+` and `~` encoded (what http_build_query writes by default). */
export function urlencode(text: string): string {
  return rawurlencode(text).replaceAll('%20', '+').replaceAll('~', '%7E');
}

/**
 * $_GET as PHP reads a query string: a name given twice keeps its first place and its last value;
 * `name[]` is kept as written (the answerers read no array parameters). Spaces and dots in names
 * become `_`, as PHP does.
 */
export function phpQuery(search: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(search)) query.set(name.replace(/[ .]/g, '_'), value);
  return query;
}

/** http_build_query($_GET) (PHP_QUERY_RFC1738). */
export function httpBuildQuery(query: Map<string, string>): string {
  return [...query].map(([name, value]) => `${urlencode(name)}=${urlencode(value)}`).join('&');
}

/**
 * strnatcasecmp: PHP's strnatcmp_ex (ext/standard/strnatcmp.c) ported byte for byte over UTF-8:
 * leading zeros skipped at the start, blanks skipped, runs of digits compared as numbers (or
 * left-aligned when one starts with 0), letters compared upper-cased (so `_` sorts after letters).
 * Gazelle orders a torrent's file list with it.
 */
export function strnatcasecmp(left: string, right: string): number {
  const a = Buffer.from(left, 'utf8');
  const b = Buffer.from(right, 'utf8');
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length > b.length ? 1 : -1;
  const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;
  const isSpace = (byte: number | undefined) => byte !== undefined && (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d));
  const upper = (byte: number) => (byte >= 0x61 && byte <= 0x7a ? byte - 0x20 : byte);
  let ap = 0;
  let bp = 0;
  let leading = true;
  // compare_right: the longer run of digits wins, else the first differing digit (its "bias").
  const compareRight = (): number => {
    let bias = 0;
    for (; ; ap++, bp++) {
      const da = isDigit(a[ap]);
      const db = isDigit(b[bp]);
      if (!da && !db) return bias;
      if (!da) return -1;
      if (!db) return 1;
      if (a[ap]! < b[bp]! && !bias) bias = -1;
      else if (a[ap]! > b[bp]! && !bias) bias = 1;
    }
  };
  // compare_left: left-aligned (fractional) runs: the first differing digit wins.
  const compareLeft = (): number => {
    for (; ; ap++, bp++) {
      const da = isDigit(a[ap]);
      const db = isDigit(b[bp]);
      if (!da && !db) return 0;
      if (!da) return -1;
      if (!db) return 1;
      if (a[ap]! < b[bp]!) return -1;
      if (a[ap]! > b[bp]!) return 1;
    }
  };
  while (true) {
    if (leading) {
      while (a[ap] === 0x30 && ap + 1 < a.length && isDigit(a[ap + 1])) ap++;
      while (b[bp] === 0x30 && bp + 1 < b.length && isDigit(b[bp + 1])) bp++;
      leading = false;
    }
    while (isSpace(a[ap])) ap++;
    while (isSpace(b[bp])) bp++;
    if (isDigit(a[ap]) && isDigit(b[bp])) {
      const result = a[ap] === 0x30 || b[bp] === 0x30 ? compareLeft() : compareRight();
      if (result !== 0) return result;
      if (ap >= a.length && bp >= b.length) return 0;
      if (ap >= a.length) return -1;
      if (bp >= b.length) return 1;
    }
    const ca = upper(a[ap] ?? 0);
    const cb = upper(b[bp] ?? 0);
    if (ca < cb) return -1;
    if (ca > cb) return 1;
    ap++;
    bp++;
    if (ap >= a.length && bp >= b.length) return 0;
    if (ap >= a.length) return -1;
    if (bp >= b.length) return 1;
  }
}

/** The cookies of a Cookie header, by name. */
export function cookiesOf(header: string | string[] | undefined): Map<string, string> {
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  return new Map(
    text
      .split(/;\s*/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1)] as const),
  );
}

/** A header value holding UTF-8 bytes as PHP sends them (Node writes header strings as Latin-1). */
export function rawUtf8Header(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}
