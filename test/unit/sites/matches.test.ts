import { MatchPattern } from '@webext-core/match-patterns';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../utils/sites/catalog';
import { contentScriptMatches } from '../../../utils/sites/hosts';

/**
 * The match-pattern grammar both Chrome and Firefox accept, restricted to what a content script
 * for trackers needs: `<scheme>://<host>/<path>`, scheme `*`, `http` or `https`; host `*`,
 * `*.` + a host name, or a host name (no port, no other `*`); a path starting with `/`.
 */
const GRAMMAR = /^(\*|https?):\/\/(\*|(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+)\/.*$/;

describe('contentScriptMatches', () => {
  const patterns = contentScriptMatches();
  const compiled = patterns.map((pattern) => new MatchPattern(pattern));
  const matchedBy = (url: string) => compiled.some((pattern) => pattern.includes(url));

  it('only yields valid, narrow patterns', () => {
    expect(patterns.length).toBeGreaterThan(100);
    for (const pattern of patterns) {
      expect(pattern, pattern).toMatch(GRAMMAR);
      expect(pattern, pattern).toMatch(/^\*:\/\/(\*\.)?[^*/]+\/\*$/);
      expect(() => new MatchPattern(pattern), pattern).not.toThrow();
    }
    expect(new Set(patterns).size).toBe(patterns.length);
    expect(patterns).not.toContain('<all_urls>');
    expect(patterns.some((p) => p.startsWith('*://*/'))).toBe(false);
  });

  it('the grammar check itself rejects bad patterns', () => {
    for (const bad of ['hdsky.me/*', '*://hdsky.me', '*://hdsky.me:8080/*', '*://*hdsky.me/*', '*://hd*.me/*', 'ftp://hdsky.me/*', '*://*.*.me/*']) {
      expect(bad, bad).not.toMatch(GRAMMAR);
    }
  });

  it('covers every catalog host, its subdomains, over http and https', () => {
    for (const entry of catalog) {
      for (const host of [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])]) {
        for (const url of [`https://${host}/details.php?id=1`, `http://${host}/`, `https://www.${host}/torrents.php`]) {
          expect(matchedBy(url), url).toBe(true);
        }
      }
    }
  });

  it('leaves look-alike and unrelated hosts alone', () => {
    for (const url of ['https://hdsky.me.evil.com/', 'https://nothdsky.me/', 'https://share.dmhy.org/', 'https://example.com/', 'https://m-team.cc.evil.com/']) {
      expect(matchedBy(url), url).toBe(false);
    }
  });
});
