/**
 * A small, strict XML-RPC codec for rTorrent (its xmlrpc-c server). Hand-written because the MV3
 * background is a service worker, where DOMParser does not exist: the reader below takes exactly the
 * XML an XML-RPC answer is made of (elements, text, the five named entities and character
 * references, an XML declaration, comments) and refuses anything else, so a web page or an error
 * page at the address is told apart from an answer.
 *
 * Values: int/i4/i8 → number (rTorrent sizes are i8; past 2^53 they do not occur), string (also a
 * bare <value>text</value>) → string, boolean → boolean, double → number, base64 → Uint8Array,
 * array → unknown[], struct → Record, nil → null.
 */

/** Base64 bytes for a call's parameter (a .torrent for load.raw). */
export class XmlRpcBase64 {
  constructor(readonly bytes: Uint8Array) {}
}

export type XmlRpcParam = string | number | boolean | XmlRpcBase64 | XmlRpcParam[] | { [name: string]: XmlRpcParam };

/** A fault answer: the server understood the call and refused it. */
export class XmlRpcFault extends Error {
  constructor(
    readonly code: number,
    readonly faultString: string,
  ) {
    super(`fault ${code}: ${faultString}`);
    this.name = 'XmlRpcFault';
  }
}

/** The answer is not XML-RPC at all (an HTML page, JSON, a truncated body). */
export class NotXmlRpc extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'NotXmlRpc';
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

function encodeValue(value: XmlRpcParam): string {
  if (typeof value === 'string') return `<value><string>${escapeText(value)}</string></value>`;
  if (typeof value === 'boolean') return `<value><boolean>${value ? 1 : 0}</boolean></value>`;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`XML-RPC: only whole numbers are sent (${value})`);
    // i8 is an extension xmlrpc-c (rTorrent) reads; plain servers know only i4.
    return Math.abs(value) < 2 ** 31 ? `<value><i4>${value}</i4></value>` : `<value><i8>${value}</i8></value>`;
  }
  if (value instanceof XmlRpcBase64) return `<value><base64>${bytesToBase64(value.bytes)}</base64></value>`;
  if (Array.isArray(value)) return `<value><array><data>${value.map(encodeValue).join('')}</data></array></value>`;
  const members = Object.entries(value).map(([name, member]) => `<member><name>${escapeText(name)}</name>${encodeValue(member)}</member>`);
  return `<value><struct>${members.join('')}</struct></value>`;
}

/** The body of a methodCall. */
export function encodeCall(method: string, params: readonly XmlRpcParam[]): string {
  if (!/^[\w.:/]+$/.test(method)) throw new TypeError(`XML-RPC: not a method name: ${method}`);
  const encoded = params.map((param) => `<param>${encodeValue(param)}</param>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><methodCall><methodName>${method}</methodName><params>${encoded}</params></methodCall>`;
}

// ---------------------------------------------------------------------------------------------
// Reading XML (only what XML-RPC uses)

interface XmlElement {
  name: string;
  children: XmlElement[];
  /** The element's text (its character data joined; entities resolved). */
  text: string;
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(?:([^;&<\s]{1,10});)?/g, (whole, entity: string | undefined) => {
    if (entity === undefined) throw new NotXmlRpc('a bare & in the text');
    if (entity in NAMED_ENTITIES) return NAMED_ENTITIES[entity]!;
    const code = /^#x[0-9a-f]+$/i.test(entity) ? parseInt(entity.slice(2), 16) : /^#\d+$/.test(entity) ? parseInt(entity.slice(1), 10) : NaN;
    if (!Number.isFinite(code) || code > 0x10ffff) throw new NotXmlRpc(`unknown entity ${whole}`);
    return String.fromCodePoint(code);
  });
}

/** Parses one XML document into its root element; anything outside this small grammar is NotXmlRpc. */
export function parseXml(text: string): XmlElement {
  let at = 0;
  const space = /\s*/y;
  const skipMisc = () => {
    for (;;) {
      space.lastIndex = at;
      space.exec(text);
      at = space.lastIndex;
      if (text.startsWith('<?', at) || text.startsWith('<!--', at)) {
        const end = text.indexOf(text.startsWith('<?', at) ? '?>' : '-->', at);
        if (end < 0) throw new NotXmlRpc('an unclosed declaration or comment');
        at = end + (text.startsWith('<?', at) ? 2 : 3);
        continue;
      }
      return;
    }
  };
  const tagPattern = /<(\/?)([A-Za-z_][\w.:-]*)\s*(\/?)>/y;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  skipMisc();
  if (text[at] !== '<') throw new NotXmlRpc('the answer does not start with an XML element');
  while (at < text.length) {
    if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at);
      if (end < 0) throw new NotXmlRpc('an unclosed comment');
      at = end + 3;
      continue;
    }
    if (text[at] === '<') {
      tagPattern.lastIndex = at;
      const tag = tagPattern.exec(text);
      if (!tag) throw new NotXmlRpc(`not an XML-RPC element at ${text.slice(at, at + 40)}`);
      at = tagPattern.lastIndex;
      const [, closing, name, selfClosing] = tag;
      if (closing) {
        if (selfClosing) throw new NotXmlRpc(`malformed tag </${name}/>`);
        const open = stack.pop();
        if (open?.name !== name) throw new NotXmlRpc(`</${name}> closes <${open?.name ?? 'nothing'}>`);
        if (!stack.length) {
          root = open;
          break;
        }
        continue;
      }
      const element: XmlElement = { name: name!, children: [], text: '' };
      if (stack.length) stack[stack.length - 1]!.children.push(element);
      else if (selfClosing) {
        root = element;
        break;
      }
      if (!selfClosing) stack.push(element);
      continue;
    }
    const end = text.indexOf('<', at);
    const chunk = text.slice(at, end < 0 ? text.length : end);
    if (!stack.length) throw new NotXmlRpc('text outside the root element');
    stack[stack.length - 1]!.text += decodeEntities(chunk);
    at = end < 0 ? text.length : end;
  }
  if (!root) throw new NotXmlRpc('the answer ends before its root element does');
  skipMisc();
  if (at < text.length) throw new NotXmlRpc('more after the root element');
  return root;
}

// ---------------------------------------------------------------------------------------------
// Decoding

function only(element: XmlElement, name: string): XmlElement {
  const [child, ...more] = element.children;
  if (!child || more.length || child.name !== name) throw new NotXmlRpc(`<${element.name}> should hold one <${name}>`);
  return child;
}

function base64ToBytes(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ''));
  } catch {
    throw new NotXmlRpc('a <base64> value is not base64');
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function decodeValue(value: XmlElement): unknown {
  if (value.name !== 'value') throw new NotXmlRpc(`<${value.name}> where a <value> should be`);
  if (!value.children.length) return value.text; // <value>text</value> is a string
  if (value.text.trim()) throw new NotXmlRpc('a <value> holds both text and a typed value');
  const typed = only(value, value.children[0]!.name);
  const text = typed.text.trim();
  switch (typed.name) {
    case 'i4':
    case 'i8':
    case 'int': {
      if (!/^[+-]?\d+$/.test(text)) throw new NotXmlRpc(`<${typed.name}>${text.slice(0, 30)}</${typed.name}> is not a whole number`);
      return Number(text);
    }
    case 'boolean':
      if (text !== '0' && text !== '1') throw new NotXmlRpc(`<boolean>${text.slice(0, 30)}</boolean>`);
      return text === '1';
    case 'double': {
      const number = Number(text);
      if (!text || !Number.isFinite(number)) throw new NotXmlRpc(`<double>${text.slice(0, 30)}</double>`);
      return number;
    }
    case 'string':
      return typed.text;
    case 'base64':
      return base64ToBytes(typed.text);
    case 'nil':
      return null;
    case 'array':
      return only(typed, 'data').children.map(decodeValue);
    case 'struct': {
      const struct: Record<string, unknown> = {};
      for (const member of typed.children) {
        const name = member.children.find((child) => child.name === 'name');
        const memberValue = member.children.find((child) => child.name === 'value');
        if (member.name !== 'member' || !name || !memberValue || member.children.length !== 2) throw new NotXmlRpc('a <struct> member without its name and value');
        struct[name.text] = decodeValue(memberValue);
      }
      return struct;
    }
    default:
      throw new NotXmlRpc(`unknown XML-RPC type <${typed.name}>`);
  }
}

/**
 * The value a methodResponse carries; a fault becomes an XmlRpcFault, anything that is not a
 * methodResponse a NotXmlRpc.
 */
export function decodeResponse(text: string): unknown {
  const root = parseXml(text);
  if (root.name !== 'methodResponse') throw new NotXmlRpc(`the answer is <${root.name}>, not an XML-RPC methodResponse`);
  const body = root.children[0];
  if (!body || root.children.length !== 1) throw new NotXmlRpc('a methodResponse should hold params or a fault');
  if (body.name === 'fault') throw faultFrom(decodeValue(only(body, 'value')));
  if (body.name !== 'params') throw new NotXmlRpc(`<${body.name}> in a methodResponse`);
  return decodeValue(only(only(body, 'param'), 'value'));
}

/** A fault struct ({faultCode, faultString}) as an XmlRpcFault (also what system.multicall puts in place of a failed call's result). */
export function faultFrom(value: unknown): XmlRpcFault {
  const struct = value as { faultCode?: unknown; faultString?: unknown } | null;
  if (typeof struct !== 'object' || struct === null || typeof struct.faultCode !== 'number') throw new NotXmlRpc('a fault without its faultCode');
  return new XmlRpcFault(struct.faultCode, typeof struct.faultString === 'string' ? struct.faultString : '');
}
