/**
 * Every page fixture read end to end: test/fixtures/pages/<name>.html with the exact reading its
 * <name>.json states. A fixture JSON is one with a "url"; the others are the site's ajax answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readPage } from '../../../utils/pages';
import { forgetGazelleAnswers } from '../../../utils/pages/gazelle';
import { contextFor, pagesFolder } from './load';

const files = readdirSync(pagesFolder);
const fixtures = files
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .filter((name) => 'url' in JSON.parse(readFileSync(join(pagesFolder, `${name}.json`), 'utf8')));

beforeEach(() => forgetGazelleAnswers());

describe('page fixtures', () => {
  it('every HTML fixture has a reading stated for it', () => {
    const stated = new Set(fixtures.map((name) => JSON.parse(readFileSync(join(pagesFolder, `${name}.json`), 'utf8')).html ?? name));
    const pages = files.filter((file) => file.endsWith('.html')).map((file) => file.slice(0, -'.html'.length));
    expect(pages.filter((page) => !stated.has(page))).toEqual([]);
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  for (const name of fixtures) {
    it(`${name}`, async () => {
      const asked: string[] = [];
      const { page, context } = contextFor(name, asked);
      const reading = await readPage(context, page.hint ? { engine: page.hint } : undefined);
      expect(reading).toEqual(page.expect);
      // the only request any engine may make is the site's own JSON API, never a .torrent
      for (const request of asked) {
        expect(request).toMatch(/^https:\/\/[^/]+\/ajax\.php\?action=torrent&id=\d+ /);
        expect(request).toContain('"credentials":"include"');
        expect(request).toContain('"Accept":"application/json"');
      }
      if (page.ajax) expect(asked).toHaveLength(1);
      else expect(asked).toEqual([]);
    });
  }

  it('reads the same with the site catalog naming the engine', async () => {
    for (const name of fixtures) {
      const { page, context } = contextFor(name);
      if (!page.expect || ['magnet', 'generic'].includes(page.expect.engine)) continue;
      forgetGazelleAnswers();
      expect(await readPage(context, { engine: page.expect.engine }), name).toEqual(page.expect);
    }
  }, 30_000); // every fixture parsed again: seconds on a busy machine
});
