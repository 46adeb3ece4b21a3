/** Reading what a person types as a site's address override, checked by the settings' own schema. */
import { siteOverrideSchema, type SiteOverride } from '../../../utils/settings';
import { siteForHost } from '../../../utils/sites/catalog';
import type { CatalogSite } from '../../../utils/sites/site-types';

export interface OverrideDraft {
  host: string;
  scheme: '' | 'http' | 'https';
}

/**
 * The override to store, undefined when both fields are empty (no override), or 'invalid'.
 * A pasted address ("https://new.example.com/") gives its host, and its scheme when none is chosen.
 */
export function parseOverride(draft: OverrideDraft): SiteOverride | undefined | 'invalid' {
  let host = draft.host.trim();
  let scheme = draft.scheme || undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) {
    let url: URL;
    try {
      url = new URL(host);
    } catch {
      return 'invalid';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'invalid';
    // A port, a path or credentials cannot be kept: refuse rather than silently drop them.
    if (url.port || url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search) return 'invalid';
    host = url.hostname;
    scheme ??= url.protocol === 'http:' ? 'http' : 'https';
  } else {
    host = host.replace(/\/$/, '');
  }
  if (!host && !scheme) return undefined;
  const parsed = siteOverrideSchema.safeParse({ ...(host ? { host } : {}), ...(scheme ? { scheme } : {}) });
  return parsed.success ? parsed.data : 'invalid';
}

/**
 * What a typed host is to the site `entry`: none of its concern (empty, or one of the site's own
 * catalogued hosts), a mirror (downloads may follow it only on the user's yes), or another known
 * site's host (never for downloads).
 */
export function mirrorOf(host: string | undefined, entry: CatalogSite | undefined): { kind: 'mirror' | 'other-site'; host: string } | undefined {
  if (!host) return undefined;
  const owner = siteForHost(host);
  if (owner && owner === entry) return undefined;
  return { kind: owner ? 'other-site' : 'mirror', host };
}

/**
 * The address override a site's fieldset shows, as it would be stored: the typed host and scheme,
 * and the user's yes to a mirror (`confirm`) as `confirmedHost` for exactly that host. Save stores
 * it; Test asks at it, so a Test goes where the fieldset says, saved or not.
 */
export function shownOverride(draft: OverrideDraft & { confirm: boolean }, entry: CatalogSite | undefined): SiteOverride | undefined | 'invalid' {
  const parsed = parseOverride(draft);
  if (!parsed || parsed === 'invalid') return parsed;
  // Downloads follow a mirror only on the user's yes for that exact host (utils/cross-seed-engine/source.ts).
  const mirror = mirrorOf(parsed.host, entry);
  return mirror?.kind === 'mirror' && draft.confirm ? { ...parsed, confirmedHost: mirror.host } : parsed;
}
