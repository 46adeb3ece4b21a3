/**
 * Host → site, from the compact generated index only: safe for the content script (no catalog
 * data, no zod). The background and views use `siteForHost` from ./catalog for the full entry.
 */
import { HOST_INDEX } from './host-index';
import type { Engine } from './site-types';

export interface SiteKey {
  /** IYUU's short name. */
  site: string;
  engine: Engine;
}

/** A bare DNS host name: letters, digits and hyphens in dot-separated labels, at least two labels. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isHostName(host: string): boolean {
  return HOST_NAME.test(host);
}

/**
 * A host as pages report it (`location.host`, a URL's host, a service base_url) in one form:
 * lowercase, without a port or a trailing dot. Undefined when it is not a plain host name.
 */
export function normalizeHost(host: string): string | undefined {
  let value = host.trim().toLowerCase();
  const port = /:\d{1,5}$/.exec(value);
  if (port) value = value.slice(0, port.index);
  if (value.endsWith('.')) value = value.slice(0, -1);
  return isHostName(value) ? value : undefined;
}

let byHost: Map<string, SiteKey> | undefined;

/** Built on first use, so that importing this module costs nothing until a host is looked up. */
function hostMap(): Map<string, SiteKey> {
  if (!byHost) {
    byHost = new Map();
    for (const [site, engine, hosts] of HOST_INDEX) {
      for (const host of hosts.split(' ')) byHost.set(host, { site, engine });
    }
  }
  return byHost;
}

/**
 * The catalog site a host belongs to: the host itself or any parent domain must be a catalog
 * host (current, old or API). Parents are tried label by label (never the bare TLD), so
 * `www.hdsky.me` matches and `hdsky.me.evil.com` or `nothdsky.me` do not.
 */
export function siteKeyForHost(host: string): SiteKey | undefined {
  const normalized = normalizeHost(host);
  if (!normalized) return undefined;
  const map = hostMap();
  for (const candidate of [normalized, ...parentDomains(normalized)]) {
    const found = map.get(candidate);
    if (found) return found;
  }
  return undefined;
}

/** True when `host` is `base` or a subdomain of it. */
export function isSameOrSubdomain(host: string, base: string): boolean {
  return host === base || host.endsWith(`.${base}`);
}

/**
 * Match patterns for the content script's manifest entry: `*://host/*` and `*://*.host/*` for
 * every host the catalog recognises (current, old and API hosts). A host under another recognised
 * host (kp.m-team.cc under m-team.cc) is already covered by that host's `*.` pattern.
 */
export function contentScriptMatches(): string[] {
  const all = new Set(HOST_INDEX.flatMap(([, , hosts]) => hosts.split(' ')));
  const patterns: string[] = [];
  for (const host of all) {
    if (parentDomains(host).some((parent) => all.has(parent))) continue;
    patterns.push(`*://${host}/*`, `*://*.${host}/*`);
  }
  return patterns;
}

/** `a.b.c.d` → `b.c.d`, `c.d` (never the bare TLD). */
function parentDomains(host: string): string[] {
  const labels = host.split('.');
  const parents: string[] = [];
  for (let i = 1; i < labels.length - 1; i++) parents.push(labels.slice(i).join('.'));
  return parents;
}
