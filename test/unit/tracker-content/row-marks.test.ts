// @vitest-environment happy-dom
/**
 * The content script's row marks (entrypoints/tracker.content/row-marks.ts) on the list page fixtures
 * of every engine (built from the real templates): the named rows get a mark beside their own title
 * link, in the user's language; nothing else in the page changes; an empty set takes every mark
 * away and leaves the page as it was; and the page reads the same with marks in it (a mark never
 * makes the reader see another page, which would read again and again).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { markRows } from '../../../entrypoints/tracker.content/row-marks';
import { listRowElements, readPage } from '../../../utils/pages';
import { installI18n } from '../support/i18n';
import { fixture, pagesFolder } from '../pages/load';

const LISTS = [
  ['nexusphp-list', 'nexusphp'],
  ['nexusphp-search', 'nexusphp'],
  ['ttg-browse', 'nexusphp'],
  ['unit3d-list', 'unit3d'],
  ['gazelle-browse', 'gazelle'],
  ['mteam-browse', 'mteam'],
] as const;

function load(name: string): { html: string; url: string; ids: string[] } {
  const page = fixture(name);
  const html = readFileSync(join(pagesFolder, `${page.html ?? name}.html`), 'utf8');
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(page.url);
  document.documentElement.innerHTML = /<html[^>]*>([\s\S]*)<\/html>/i.exec(html)?.[1] ?? html;
  return { html: document.documentElement.outerHTML, url: page.url, ids: page.expect!.rows!.map((row) => row.id) };
}

const context = () => ({ url: new URL(location.href), document, fetch: (() => Promise.reject(new Error('no network'))) as typeof fetch });

beforeEach(() => installI18n('en'));

describe.each(LISTS)('%s', (name, engine) => {
  it('marks exactly the named rows beside their title, and takes every mark away again', async () => {
    const { html, ids } = load(name);
    const before = await readPage(context());
    const [first, second] = [ids[0]!, ids.at(-1)!];
    markRows({ [first]: 'c', [second]: 'i', '999999999': 'c' }, engine);

    const marks = [...document.querySelectorAll('reseed-lens-mark')];
    expect(marks.map((mark) => mark.textContent)).toEqual(['Can cross-seed', 'In your client']);
    const rows = new Map(listRowElements(context(), engine).map((row) => [row.id, row]));
    for (const [mark, id] of [
      [marks[0]!, first],
      [marks[1]!, second],
    ] as const) {
      // Right after the row's own details link, inside that row.
      expect(mark.previousElementSibling).toBe(rows.get(id)!.link);
      expect(rows.get(id)!.element.contains(mark)).toBe(true);
    }
    expect((marks[0] as HTMLElement).style.cssText).toContain('var(--reseed-lens-can-cross-seed');
    expect((marks[1] as HTMLElement).style.cssText).toContain('var(--reseed-lens-in-client');
    // The page reads the same with its marks: same rows, same titles, same hashes.
    expect(await readPage(context())).toEqual(before);

    // New marks replace the old ones.
    markRows({ [second]: 'c' }, engine);
    expect([...document.querySelectorAll('reseed-lens-mark')].map((mark) => [mark.textContent, rows.get(second)!.element.contains(mark)])).toEqual([['Can cross-seed', true]]);
    markRows({}, engine);
    expect(document.querySelectorAll('reseed-lens-mark')).toHaveLength(0);
    expect(document.documentElement.outerHTML).toBe(html);
  });
});

describe('in Chinese', () => {
  it('says 可辅种 and 已在下载器中', () => {
    installI18n('zh_CN');
    const { ids } = load('nexusphp-search');
    markRows({ [ids[0]!]: 'c', [ids[1]!]: 'i' }, 'nexusphp');
    expect([...document.querySelectorAll('reseed-lens-mark')].map((mark) => mark.textContent)).toEqual(['可辅种', '已在下载器中']);
  });

  it('an engine that reads no list here marks nothing', () => {
    const { ids } = load('gazelle-browse');
    markRows({ [ids[0]!]: 'c' }, 'nexusphp');
    markRows({ [ids[0]!]: 'c' }, 'no-such-engine');
    expect(document.querySelectorAll('reseed-lens-mark')).toHaveLength(0);
  });
});
