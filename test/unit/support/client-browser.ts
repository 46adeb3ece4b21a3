/**
 * What a browser does around the background's requests to a torrent client, kept in memory for
 * unit tests:
 * - declarativeNetRequest session rules (getSessionRules / updateSessionRules), which the fake
 *   browser leaves unimplemented;
 * - a fetch that behaves as the extension's own fetch does: a cookie jar per host (the browser's
 *   jar), and an Origin header that is the extension's own origin — which qBittorrent's CSRF
 *   protection refuses — unless a session rule for the request's URL, made for this extension,
 *   sets another. So a test passes only if the background really installed the rule.
 */
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { OriginRule } from '../../../utils/clients/csrf';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';

let sessionRules: OriginRule[] = [];

/** The session rules as the browser holds them now. */
export function currentSessionRules(): OriginRule[] {
  return sessionRules.map((rule) => structuredClone(rule));
}

export function installSessionRules(): void {
  sessionRules = [];
  Object.assign(fakeBrowser.declarativeNetRequest, {
    getSessionRules: async () => currentSessionRules(),
    updateSessionRules: async ({ removeRuleIds = [], addRules = [] }: { removeRuleIds?: number[]; addRules?: OriginRule[] }) => {
      const kept = sessionRules.filter((rule) => !removeRuleIds.includes(rule.id));
      for (const rule of addRules) {
        if (kept.some((other) => other.id === rule.id)) throw new Error(`a rule with id ${rule.id} already exists`);
      }
      sessionRules = [...kept, ...addRules.map((rule) => structuredClone(rule))];
    },
  });
}

/** The `|origin/` urlFilter of csrf.ts's rules, as the browser matches it: anchored at the URL's start. */
function matches(rule: OriginRule, url: string, initiatorHost: string): boolean {
  const filter = rule.condition.urlFilter;
  const prefix = filter.startsWith('|') ? filter.slice(1) : undefined;
  if (prefix === undefined || !url.startsWith(prefix)) return false;
  return rule.condition.initiatorDomains.includes(initiatorHost);
}

/**
 * The extension's fetch to a client: Origin is the extension's own origin (what Chromium sends
 * from a service worker) unless a session rule sets it. `sent` counts every request. `inner` sends
 * it on (Node's fetch by default, or a replay of recorded answers); `ruleHeaders` limits which of a
 * rule's headers are applied (a recording made with Origin alone compares headers exactly).
 */
export function extensionClientFetch(inner: typeof fetch = (input, init) => globalThis.fetch(input, init), ruleHeaders?: string[]): JarFetch {
  const extensionUrl = fakeBrowser.runtime.getURL('/');
  const extensionOrigin = extensionUrl.replace(/\/$/, '');
  const initiatorHost = new URL(extensionUrl).host;
  const withOrigin: typeof fetch = (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    const headers = new Headers(init.headers);
    headers.set('Origin', extensionOrigin);
    for (const rule of sessionRules) {
      if (!matches(rule, url, initiatorHost)) continue;
      for (const header of rule.action.requestHeaders) if (!ruleHeaders || ruleHeaders.includes(header.header)) headers.set(header.header, header.value);
    }
    return inner(input, { ...init, headers });
  };
  return nodeClientFetch({ inner: withOrigin });
}
