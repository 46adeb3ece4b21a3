/** Loads a page fixture into a happy-dom document, as a content script would see it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import type { PageReading, ReadContext } from '../../../utils/pages/page-types';

export const pagesFolder = join(__dirname, '../../fixtures/pages');

export interface PageFixture {
  url: string;
  about: string;
  /** The page's HTML fixture when it is not <name>.html (several answers for one page). */
  html?: string;
  /** The engine the site catalog would name for this host. */
  hint?: string;
  /** The site's own JSON answers, by path and query (Gazelle's ajax.php). */
  ajax?: Record<string, string | { status: number; body?: string }>;
  expect: PageReading | null;
}

export function fixture(name: string): PageFixture {
  return JSON.parse(readFileSync(join(pagesFolder, `${name}.json`), 'utf8')) as PageFixture;
}

export function documentFrom(html: string, url: string): Document {
  const window = new Window({ url, settings: { disableJavaScriptEvaluation: true, disableCSSFileLoading: true } });
  return new window.DOMParser().parseFromString(html, 'text/html') as unknown as Document;
}

/** A fetch that answers only from the fixture's ajax table and records what was asked. */
export function siteFetch(page: PageFixture, asked: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    asked.push(`${url.origin}${url.pathname}${url.search} ${JSON.stringify(init ?? {})}`);
    const entry = page.ajax?.[`${url.pathname}${url.search}`];
    if (entry === undefined) return new Response('not found', { status: 404 });
    const { status, body } = typeof entry === 'string' ? { status: 200, body: entry } : entry;
    const text = body === undefined ? '' : readFileSync(join(pagesFolder, body), 'utf8');
    return new Response(text, { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

export function contextFor(name: string, asked?: string[]): { page: PageFixture; context: ReadContext } {
  const page = fixture(name);
  const html = readFileSync(join(pagesFolder, `${page.html ?? name}.html`), 'utf8');
  const context: ReadContext = { url: new URL(page.url), document: documentFrom(html, page.url), fetch: siteFetch(page, asked) };
  return { page, context };
}
