/**
 * The XML-RPC codec rTorrent is spoken through (utils/clients/xmlrpc.ts): what it sends reads back
 * as sent, rTorrent's recorded answers read (a top-level fault is read in rtorrent-live.test.ts:
 * remove() of a torrent it no longer holds), and anything that is not an
 * XML-RPC answer (a page, JSON, a broken document) is refused rather than half-read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotXmlRpc, XmlRpcBase64, decodeResponse, encodeCall, type XmlRpcParam } from '../../../utils/clients/xmlrpc';
import { recordings } from './support';

/** A call's params re-labelled as an answer: the value encoding is the same both ways. */
function asResponse(value: XmlRpcParam): string {
  return encodeCall('echo', [value]).replace('<methodCall><methodName>echo</methodName><params>', '<methodResponse><params>').replace('</params></methodCall>', '</params></methodResponse>');
}

// Text XML can carry (no control characters other than tab and line feed) and no lone surrogates.
const xmlText = fc.string({ unit: 'grapheme' }).filter((text) => !/[\u0000-\u0008\u000b-\u001f\ufffe\uffff]/.test(text));
const { value: anyValue } = fc.letrec<{ value: XmlRpcParam }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    xmlText,
    fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(xmlText.filter((key) => key !== '__proto__'), tie('value'), { maxKeys: 4 }),
  ),
}));

describe('XML-RPC codec', () => {
  it('reads back every value it writes (strings with <, & and any script; i4 and i8 numbers; arrays; structs)', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(decodeResponse(asResponse(value))).toEqual(value);
      }),
    );
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    expect(decodeResponse(asResponse(new XmlRpcBase64(bytes)))).toEqual(bytes);
  });

  it('reads every answer rTorrent gave in the recordings, a failed call inside system.multicall as its fault struct', () => {
    const answers = recordings('rtorrent').flatMap((recording) =>
      Object.values(recording.scenarios).flatMap((scenario) => scenario.exchanges.filter((exchange) => exchange.response?.status === 200).map((exchange) => exchange.response!.body)),
    );
    expect(answers.length).toBeGreaterThan(10);
    for (const answer of answers) expect(() => decodeResponse(answer)).not.toThrow();
    // Each release's own fault for a torrent it does not hold (0.9.8 and 0.16 word it differently).
    const faults: Record<string, { faultCode: number; faultString: string }> = {
      '0.9.8': { faultCode: -501, faultString: 'Could not find info-hash.' },
      '0.16.17': { faultCode: -503, faultString: 'invalid parameters: info-hash not found' },
    };
    expect(recordings('rtorrent').map((recording) => recording.version).sort()).toEqual(Object.keys(faults).sort());
    for (const recording of recordings('rtorrent')) {
      const absent = recording.scenarios['files-absent']!.exchanges[0]!.response!.body;
      expect(decodeResponse(absent)).toContainEqual(faults[recording.version]);
    }
  });

  it('resolves entities and character references, and keeps a bare <value>text</value> as a string', () => {
    const answer = '<?xml version="1.0"?>\n<!-- hi --><methodResponse><params><param><value>a&lt;b&amp;&#x4e2d;&#25991;</value></param></params></methodResponse>\n';
    expect(decodeResponse(answer)).toBe('a<b&中文');
  });

  it.each([
    ['an HTML page', '<!doctype html><html><body><p>Welcome</p></body></html>'],
    ['JSON', '{"result": 1}'],
    ['another root element', '<methodCall><methodName>x</methodName><params/></methodCall>'],
    ['a document cut short', '<methodResponse><params><param><value><i4>1</i4></value>'],
    ['a number that is not one', '<methodResponse><params><param><value><i8>12ab</i8></value></param></params></methodResponse>'],
    ['an unknown type', '<methodResponse><params><param><value><bigint>1</bigint></value></param></params></methodResponse>'],
    ['mismatched tags', '<methodResponse><params><param><value><string>a</value></string></param></params></methodResponse>'],
    ['a bare ampersand', '<methodResponse><params><param><value><string>a & b</string></value></param></params></methodResponse>'],
    ['attributes', '<methodResponse a="1"><params><param><value><i4>1</i4></value></param></params></methodResponse>'],
    ['text beside a typed value', '<methodResponse><params><param><value>x<i4>1</i4></value></param></params></methodResponse>'],
  ])('refuses %s as not XML-RPC', (_, text) => {
    expect(() => decodeResponse(text)).toThrow(NotXmlRpc);
  });
});
