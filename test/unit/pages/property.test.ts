/**
 * Random pages: whatever the markup, readPage never throws, only ever answers 40 lowercase hex
 * hashes that are not one repeated character, and never a hash that appeared only where page
 * text never is (scripts, styles, templates, textareas, comments, attributes other than a
 * magnet's href).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPage } from '../../../utils/pages';
import { forgetGazelleAnswers } from '../../../utils/pages/gazelle';
import { hexToBase32 } from '../../fixtures/pages/generate';
import { documentFrom } from './load';

const hex40 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
const LABELS = ['Hash码:', 'Hash碼', 'Info hash', 'Info Hash:', 'hash', '种子哈希', '特征码：', 'Hash值', 'InfoHash', '種子HASH', 'Hash (v1)'];
const URLS: [string, string | undefined][] = [
  ['https://pt.example.org/details.php?id=1', undefined],
  ['https://pt.example.org/torrents.php', undefined],
  ['https://u3d.example.com/torrents/1', undefined],
  ['https://u3d.example.com/torrents', undefined],
  ['https://gz.example.net/torrents.php?torrentid=1', undefined],
  ['https://kp.m-team.cc/detail/1', 'mteam'],
  ['https://ttg.example.net/t/1/', 'nexusphp'],
  ['https://anything.example/page', undefined],
];

/** A piece of page: either visible (its hashes may be read) or hidden (they must never be). */
type Piece = { html: string; hidden: string[] };

function pieceArbitrary(): fc.Arbitrary<Piece> {
  const label = fc.constantFrom(...LABELS);
  const visibleValue = fc.oneof(
    hex40,
    hex40.map((h) => h.toUpperCase()),
    hex40.map((h) => `\u00a0${h}\n`),
    hex40.map((h) => `${h.slice(0, 17)}<span>${h.slice(17)}</span>`),
    hex40.map((h) => `${h}a`), // 41 hex
    fc.constantFrom('a'.repeat(40), '0'.repeat(40), 'F'.repeat(40)),
    fc.string({ maxLength: 50 }).map((s) => s.replace(/[<&]/g, '')),
  );
  const visible = fc.oneof(
    fc.tuple(label, visibleValue).map(([l, v]) => ({ html: `<b>${l}</b>&nbsp;${v}`, hidden: [] })),
    fc.tuple(label, visibleValue).map(([l, v]) => ({ html: `<tr><td class="rowhead">${l}</td><td class="rowfollow">${v}</td></tr>`, hidden: [] })),
    fc.tuple(label, visibleValue).map(([l, v]) => ({ html: `<dl><dt>${l}</dt><dd>${v}</dd></dl>`, hidden: [] })),
    fc.tuple(label, visibleValue).map(([l, v]) => ({ html: `<div class="dialog__action">${l} ${v}</div>`, hidden: [] })),
    hex40.map((h) => ({ html: `<a href="magnet:?xt=urn:btih:${h}&amp;dn=x">m</a>`, hidden: [] })),
    hex40.map((h) => ({ html: `<a href="magnet:?xt=urn:btih:${hexToBase32(h)}">m</a>`, hidden: [] })),
    fc.string({ maxLength: 30 }).map((s) => ({ html: `<a href="magnet:?xt=urn:btih:${encodeURIComponent(s)}">bad</a>`, hidden: [] })),
    fc.constantFrom('<table>', '</table>', '<tr>', '</td>', '<td class="rowhead">', '<h1 id="top">T</h1>', '<table class="torrents">', '<menu class="torrent__buttons">', '<div class="detail-view">', '<blockquote>', '</div>', '<br>', '<p>', '<b>').map((html) => ({ html, hidden: [] })),
  );
  const hidden = fc.oneof(
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<script>var x = "${l} ${h}";</script>`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<style>/* ${l} ${h} */</style>`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<template><b>${l}</b> ${h}</template>`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<textarea>${l} ${h}</textarea>`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<!-- ${l} ${h} -->`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<td class="rowhead">${l}</td><td class="rowfollow"><script>document.write("${h}")</script></td>`, hidden: [h] })),
    fc.tuple(label, hex40).map(([l, h]) => ({ html: `<span title="${l} ${h}" data-hash="${h}">${l}</span>`, hidden: [h] })),
    hex40.map((h) => ({ html: `<img alt="magnet:?xt=urn:btih:${h}" src="magnet:?xt=urn:btih:${h}">`, hidden: [h] })),
  );
  return fc.oneof({ weight: 3, arbitrary: visible }, { weight: 2, arbitrary: hidden });
}

/** All text of the parsed document outside script, style, template, textarea and noscript. */
function textOutsideCode(document: Document): string {
  let text = '';
  const visit = (node: Node) => {
    if (node.nodeType === 3) text += (node as Text).data;
    if (node.nodeType !== 1 && node.nodeType !== 9) return;
    if (node.nodeType === 1 && ['script', 'style', 'template', 'textarea', 'noscript'].includes((node as Element).localName)) return;
    node.childNodes.forEach(visit);
  };
  visit(document);
  return text;
}

describe('readPage on random pages', () => {
  it('never throws and answers only well-formed hashes that were visible on the page', async () => {
    let withHashes = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(pieceArbitrary(), { maxLength: 25 }), fc.constantFrom(...URLS), async (pieces, [url, hint]) => {
        forgetGazelleAnswers();
        const html = `<!DOCTYPE html><html><head><title>t</title></head><body>${pieces.map((p) => p.html).join('\n')}</body></html>`;
        const hidden = new Set(pieces.flatMap((p) => p.hidden));
        const visibleMarkup = pieces.filter((p) => !p.hidden.length).map((p) => p.html).join('\n').toLowerCase().replace(/<[^>]*>/g, '');
        const fetch = (() => Promise.reject(new Error('offline'))) as typeof globalThis.fetch;
        const document = documentFrom(html, url);
        // happy-dom's parser is not the browser's: in table context it moves a <style>'s text out
        // into the table. Text it put in the open is visible text, whatever the markup said.
        const shownText = textOutsideCode(document).toLowerCase();
        const reading = await readPage({ url: new URL(url), document, fetch }, hint ? { engine: hint } : undefined);
        if (reading?.hashes.length) withHashes++;
        for (const found of reading?.hashes ?? []) {
          expect(found.hash).toMatch(/^[0-9a-f]{40}$/);
          expect(found.hash).not.toMatch(/^(.)\1{39}$/);
          const seenVisibly =
            shownText.includes(found.hash) || visibleMarkup.includes(found.hash) || visibleMarkup.includes(hexToBase32(found.hash).toLowerCase());
          if (hidden.has(found.hash)) expect(seenVisibly, `${found.hash} came from a hidden place`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    // not vacuous: many random pages do carry a readable hash
    expect(withHashes).toBeGreaterThan(30);
  }, 120_000);
});
