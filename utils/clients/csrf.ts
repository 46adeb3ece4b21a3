/**
 * qBittorrent's CSRF protection, left on. qBittorrent refuses (401) any request whose Origin — or,
 * without one, Referer — is not its own host:port. A browser extension's requests carry the
 * extension's origin (chrome-extension://…, moz-extension://…), and fetch cannot change Origin, so
 * the extension asks the browser to: one declarativeNetRequest SESSION rule per qBittorrent address
 * sets Origin and Referer to that address's own origin, only
 * - for requests to that exact origin (scheme, host and port: `urlFilter` anchored at its start),
 * - made by this extension itself (`initiatorDomains`: the extension's own host — the extension id
 *   in Chromium, the per-install UUID in Firefox, both read from runtime.getURL('')),
 * - of fetch/XHR types (`xmlhttprequest`, `other`).
 * A web page cannot match it (its initiator is its own site), and no other address is touched.
 * qBittorrent 5.2 API keys need no rule: requests with `Authorization: Bearer` skip the CSRF check.
 *
 * Permissions (manifest; wiring is the background's job): "declarativeNetRequestWithHostAccess"
 * plus host permission for the client's address (which the extension needs anyway to reach it).
 * Firefox also checks host permission for the initiator; an extension's own pages are its own.
 * Session rules live until the browser closes or the extension reloads: the background calls
 * syncClientOriginRules() at start-up and whenever the client settings change.
 */

/** Session-rule ids this module owns; it never touches others. */
export const CLIENT_ORIGIN_RULE_IDS = { first: 9100, last: 9199 } as const;

/** The parts of a declarativeNetRequest rule this module writes (a subset of both browsers' Rule type). */
export interface OriginRule {
  id: number;
  priority: number;
  action: {
    type: 'modifyHeaders';
    requestHeaders: { header: string; operation: 'set'; value: string }[];
  };
  condition: {
    urlFilter: string;
    initiatorDomains: string[];
    resourceTypes: ('xmlhttprequest' | 'other')[];
  };
}

/** What this module needs of browser.declarativeNetRequest (Chromium MV3 and Firefox MV2 both have it). */
export interface SessionRulesApi {
  getSessionRules(): Promise<{ id: number }[]>;
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: OriginRule[] }): Promise<void>;
}

/** The origin (scheme://host[:port]) of a client address, or undefined when it is not http(s). */
export function clientOrigin(clientUrl: string): string | undefined {
  try {
    const url = new URL(clientUrl.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rule that makes this extension's requests to `clientUrl` carry the client's own origin.
 * `extensionUrl` is runtime.getURL('') (e.g. chrome-extension://<id>/ or moz-extension://<uuid>/).
 */
export function clientOriginRule(clientUrl: string, extensionUrl: string, id: number = CLIENT_ORIGIN_RULE_IDS.first): OriginRule {
  const origin = clientOrigin(clientUrl);
  if (!origin) throw new Error(`not an http(s) client address: ${clientUrl.slice(0, 100)}`);
  const extensionHost = new URL(extensionUrl).host;
  if (!extensionHost) throw new Error(`not an extension address: ${extensionUrl.slice(0, 100)}`);
  if (id < CLIENT_ORIGIN_RULE_IDS.first || id > CLIENT_ORIGIN_RULE_IDS.last) throw new Error(`rule id ${id} is outside this module's range`);
  return {
    id,
    priority: 1,
    action: {
      type: 'modifyHeaders',
      requestHeaders: [
        { header: 'Origin', operation: 'set', value: origin },
        { header: 'Referer', operation: 'set', value: `${origin}/` },
      ],
    },
    condition: {
      // `|` anchors at the start of the URL and the trailing `/` ends the authority, so
      // http://127.0.0.1:8080 matches neither http://127.0.0.1:80801/ nor https://127.0.0.1:8080/.
      urlFilter: `|${origin}/`,
      initiatorDomains: [extensionHost],
      resourceTypes: ['xmlhttprequest', 'other'],
    },
  };
}

/** One rule per distinct origin among `clientUrls` (at most 100); addresses that are not http(s) are left out. */
export function clientOriginRules(clientUrls: readonly string[], extensionUrl: string): OriginRule[] {
  const origins = [...new Set(clientUrls.map(clientOrigin).filter((origin): origin is string => origin !== undefined))];
  const capacity = CLIENT_ORIGIN_RULE_IDS.last - CLIENT_ORIGIN_RULE_IDS.first + 1;
  return origins.slice(0, capacity).map((origin, index) => clientOriginRule(origin, extensionUrl, CLIENT_ORIGIN_RULE_IDS.first + index));
}

/**
 * Makes the session rules say exactly `clientUrls` (the qBittorrent addresses configured with a
 * password): this module's old rules go, the new ones come, in one update.
 */
export async function syncClientOriginRules(api: SessionRulesApi, clientUrls: readonly string[], extensionUrl: string): Promise<OriginRule[]> {
  const rules = clientOriginRules(clientUrls, extensionUrl);
  const existing = await api.getSessionRules();
  const removeRuleIds = existing.map((rule) => rule.id).filter((id) => id >= CLIENT_ORIGIN_RULE_IDS.first && id <= CLIENT_ORIGIN_RULE_IDS.last);
  await api.updateSessionRules({ removeRuleIds, addRules: rules });
  return rules;
}
