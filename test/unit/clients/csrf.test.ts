/** The declarativeNetRequest rule that lets qBittorrent keep its CSRF protection on. */
import { describe, expect, it } from 'vitest';
import { CLIENT_ORIGIN_RULE_IDS, clientOrigin, clientOriginRule, clientOriginRules, syncClientOriginRules, type OriginRule } from '../../../utils/clients/csrf';

const CHROME = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const FIREFOX = 'moz-extension://1b2c3d4e-aaaa-bbbb-cccc-0123456789ab/';

/** Whether a rule's urlFilter (the `|…` prefix form this module writes) matches a URL. */
function filterMatches(rule: OriginRule, url: string): boolean {
  const prefix = rule.condition.urlFilter.replace(/^\|/, '');
  return url.toLowerCase().startsWith(prefix.toLowerCase());
}

describe('clientOriginRule', () => {
  it("sets Origin and Referer to the client's own origin, for this extension's fetches to that origin only", () => {
    expect(clientOriginRule('http://127.0.0.1:8080/', CHROME)).toEqual({
      id: CLIENT_ORIGIN_RULE_IDS.first,
      priority: 1,
      action: {
        type: 'modifyHeaders',
        requestHeaders: [
          { header: 'Origin', operation: 'set', value: 'http://127.0.0.1:8080' },
          { header: 'Referer', operation: 'set', value: 'http://127.0.0.1:8080/' },
        ],
      },
      condition: { urlFilter: '|http://127.0.0.1:8080/', initiatorDomains: ['abcdefghijklmnopabcdefghijklmnop'], resourceTypes: ['xmlhttprequest', 'other'] },
    });
  });

  it("uses Firefox's per-install host as the initiator", () => {
    expect(clientOriginRule('https://nas.local:8443/qbt/', FIREFOX).condition.initiatorDomains).toEqual(['1b2c3d4e-aaaa-bbbb-cccc-0123456789ab']);
  });

  it('matches the exact scheme, host and port, nothing else', () => {
    const rule = clientOriginRule('http://127.0.0.1:8080/qbt/', CHROME);
    expect(filterMatches(rule, 'http://127.0.0.1:8080/api/v2/auth/login')).toBe(true);
    expect(filterMatches(rule, 'http://127.0.0.1:8080/qbt/api/v2/torrents/info?hashes=a')).toBe(true);
    expect(filterMatches(rule, 'http://127.0.0.1:80801/api/v2/auth/login')).toBe(false);
    expect(filterMatches(rule, 'https://127.0.0.1:8080/api/v2/auth/login')).toBe(false);
    expect(filterMatches(rule, 'http://127.0.0.1/api/v2/auth/login')).toBe(false);
    expect(filterMatches(rule, 'http://evil.example/http://127.0.0.1:8080/')).toBe(false);
  });

  it('writes a default port the way browsers send Host (without it)', () => {
    expect(clientOriginRule('http://nas.local:80/', CHROME).action.requestHeaders[0]!.value).toBe('http://nas.local');
    expect(clientOriginRule('https://nas.local:443', CHROME).condition.urlFilter).toBe('|https://nas.local/');
  });

  it('refuses what is not an http(s) address or an extension address', () => {
    expect(() => clientOriginRule('ftp://127.0.0.1', CHROME)).toThrow();
    expect(() => clientOriginRule('http://127.0.0.1', 'not a url')).toThrow();
    expect(() => clientOriginRule('http://127.0.0.1', CHROME, 1)).toThrow(/outside/);
    expect(clientOrigin('garbage')).toBeUndefined();
  });
});

describe('clientOriginRules / syncClientOriginRules', () => {
  it('one rule per distinct origin, ids from this module’s range', () => {
    const rules = clientOriginRules(['http://127.0.0.1:8080', 'http://127.0.0.1:8080/other', 'https://seedbox.example/qbt', 'javascript:alert(1)'], CHROME);
    expect(rules.map((rule) => [rule.id, rule.action.requestHeaders[0]!.value])).toEqual([
      [9100, 'http://127.0.0.1:8080'],
      [9101, 'https://seedbox.example'],
    ]);
  });

  it("replaces this module's session rules in one update and leaves other rules alone", async () => {
    const updates: { removeRuleIds?: number[]; addRules?: OriginRule[] }[] = [];
    const api = {
      getSessionRules: async () => [{ id: 1 }, { id: 9100 }, { id: 9105 }, { id: 9200 }],
      updateSessionRules: async (options: { removeRuleIds?: number[]; addRules?: OriginRule[] }) => {
        updates.push(options);
      },
    };
    const rules = await syncClientOriginRules(api, ['http://10.0.0.2:8080'], FIREFOX);
    expect(updates).toEqual([{ removeRuleIds: [9100, 9105], addRules: rules }]);
    expect(rules).toHaveLength(1);
  });
});
