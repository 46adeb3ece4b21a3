/**
 * The user's settings: one zod schema per field is the source of truth. Stored as one versioned
 * record (the item is features/settings/settings.storage.ts); older versions are migrated step by
 * step, and a field that is corrupt or foreign falls back to its default alone (the others are
 * kept) and is reported.
 */
import { z } from 'zod';
import { upgrade, type Migrations, type Upgraded } from './stored-item';

// Extension pages forbid eval by their CSP: zod must not try to compile validators with Function.
z.config({ jitless: true });

/** The service's current address (service-notes): the default of a setting, since the host has changed before. */
export const DEFAULT_SERVICE_BASE_URL = 'https://2025.iyuu.cn';
export const SETTINGS_VERSION = 1;

/** The service hosts the manifest already holds permissions for. */
export const KNOWN_SERVICE_HOSTS = ['2025.iyuu.cn', 'vip.iyuu.cn', 'api.iyuu.cn'] as const;

/** An http(s) origin with an optional path prefix, no query, no credentials, no trailing slash. */
export const baseUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .transform((value, ctx) => {
    const normalised = normaliseBaseUrl(value);
    if (!normalised) {
      ctx.addIssue({ code: 'custom', message: 'not an http(s) address' });
      return z.NEVER;
    }
    return normalised;
  });

export function normaliseBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * A host as the browser gives it for a page (URL.hostname): a domain, a single-label intranet name,
 * an IPv4 address or a bracketed IPv6 one. Anything the browser would read differently is refused.
 */
export function isPageHost(value: string): boolean {
  if (!value || value.length > 253 || /[^a-z0-9.\-[\]:]/.test(value)) return false;
  try {
    return new URL(`http://${value}/`).hostname === value;
  } catch {
    return false;
  }
}

/** A tracker page's host (panel hidden on it, reader enabled on it). */
const pageHostSchema = z.string().trim().toLowerCase().refine(isPageHost, 'not a host');

/** A host links may go to: a domain name only (utils/sites/links.ts builds only on those). */
const linkHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/);

/**
 * A stored list where one bad entry is dropped alone, not the whole list: the same schema reads
 * the store and checks every save, so what is saved is always what will be read back.
 */
function listOf<T>(item: z.ZodType<T>, max: number) {
  return z.array(z.unknown()).transform((entries) => {
    const kept: T[] = [];
    for (const entry of entries) {
      const parsed = item.safeParse(entry);
      if (parsed.success && !kept.includes(parsed.data)) kept.push(parsed.data);
    }
    return kept.slice(0, max);
  });
}

/**
 * A per-site override: a mirror domain and/or the scheme to link with. Links follow the mirror; a
 * site's passkey and the user's session go to it only when it is one of that site's catalogued
 * hosts, or the user confirmed that exact host for that site (`confirmedHost`, honoured only while
 * it equals `host`, never for another catalogued site's host, never taken from a settings file:
 * utils/cross-seed-engine/source.ts and features/settings/settings.feature.ts).
 */
export const siteOverrideSchema = z.object({
  host: linkHostSchema.optional(),
  scheme: z.enum(['http', 'https']).optional(),
  confirmedHost: linkHostSchema.optional(),
});
export type SiteOverride = z.infer<typeof siteOverrideSchema>;

/** Credentials are plain printable text without spaces; anything else is a paste accident. */
const credentialSchema = z
  .string()
  .trim()
  .max(256)
  .regex(/^[\x21-\x7e]*$/, 'unexpected characters');

/**
 * A site's pieces-hash API path as the user typed it (utils/sites/pieces-hash-address.ts reads it
 * against the site's hosts): a path on the site, or an http(s) address; printable, no spaces.
 */
export const piecesHashPathSchema = z
  .string()
  .trim()
  .max(300)
  .regex(/^[\x21-\x7e]*$/, 'unexpected characters')
  .refine((path) => path === '' || /^\/(?!\/)/.test(path) || /^https?:\/\/[^/]/i.test(path), 'neither a path nor an http(s) address');

/**
 * Whether a site is asked by pieces hash (issue 18), and where when the user moved its API: `on` off
 * until the user turns it on for that site, knowingly (it sends the pieces hashes of all the client's
 * torrents to that site, signed with their passkey); an empty path is dropped (the definition's).
 */
export const piecesHashSiteSchema = z
  .object({ on: z.boolean(), path: piecesHashPathSchema.optional() })
  .transform(({ on, path }) => (path ? { on, path } : { on }));
export type PiecesHashSite = z.infer<typeof piecesHashSiteSchema>;

export const settingsFields = {
  baseUrl: baseUrlSchema.default(DEFAULT_SERVICE_BASE_URL),
  token: credentialSchema.default(''),
  appId: credentialSchema.default(''),
  secret: credentialSchema.default(''),
  /** The in-page panel, globally and per tracker host. */
  panelEnabled: z.boolean().default(true),
  panelDisabledHosts: listOf(pageHostSchema, 1000).default([]),
  /** The sids of the sites the user holds an account on; null until they pick. */
  heldSites: listOf(z.number().int().nonnegative(), 2000).nullable().default(null),
  /** Whether we already asked the user to pick their sites. */
  askedForSites: z.boolean().default(false),
  /** Keyed by sid; an unreadable entry is dropped alone. */
  siteOverrides: z
    .record(z.string(), z.unknown())
    .transform((entries) => {
      const kept: Record<string, SiteOverride> = {};
      for (const [sid, value] of Object.entries(entries)) {
        const parsed = siteOverrideSchema.safeParse(value);
        if (/^\d{1,12}$/.test(sid) && parsed.success) kept[sid] = parsed.data;
      }
      return kept;
    })
    .default({}),
  /** Per site (keyed by sid), asked by pieces hash or not; not a credential. An unreadable entry is dropped alone. */
  piecesHashSites: z
    .record(z.string(), z.unknown())
    .transform((entries) => {
      const kept: Record<string, PiecesHashSite> = {};
      for (const [sid, value] of Object.entries(entries)) {
        const parsed = piecesHashSiteSchema.safeParse(value);
        if (/^\d{1,12}$/.test(sid) && parsed.success) kept[sid] = parsed.data;
      }
      return kept;
    })
    .default({}),
  /** Hosts the user enabled the extension on from the popup ("Use on this site"). */
  customHosts: listOf(pageHostSchema, 500).default([]),
  /** The user has read what leaves the browser (the first-run notice). */
  privacyNoticeSeen: z.boolean().default(false),
  /**
   * The index of the user's default torrent client (utils/client-index): opt-in, because it sends
   * the hash of every torrent in the client to the lookup service. Turning it off deletes the index.
   */
  clientIndexEnabled: z.boolean().default(false),
  /**
   * "Cross-seed copies whose names differ" (issue 25): a candidate with the same bytes under other
   * names (a renamed folder or file) is added and renamed in the client to the names on disk. On by
   * default: every cross-seed is still checked and started only at 100 %.
   */
  crossSeedRenamedCopies: z.boolean().default(true),
  /**
   * Tracker hosts where the user asked for marks on list rows ("In your client", "Can cross-seed"):
   * the site's own scripts can read them, so they are off until turned on for a site, knowingly.
   */
  indexMarkHosts: listOf(pageHostSchema, 1000).default([]),
  /**
   * The user's passkey (or RSS key) per site, keyed by sid: a credential, sent only to that site
   * inside its own download address (utils/cross-seed-engine/source.ts), kept out of exports unless asked.
   * An unreadable entry is dropped alone.
   */
  sitePasskeys: z
    .record(z.string(), z.unknown())
    .transform((entries) => {
      const kept: Record<string, string> = {};
      for (const [sid, value] of Object.entries(entries)) {
        const key = typeof value === 'string' ? value.trim() : undefined;
        if (/^\d{1,12}$/.test(sid) && key && /^[A-Za-z0-9_-]{8,128}$/.test(key)) kept[sid] = key;
      }
      return kept;
    })
    .default({}),
  /**
   * The user's API key per site, keyed by sid (M-Team gives .torrent files only through its API): a
   * credential, sent only to that site's own API host (utils/cross-seed-engine/source.ts), kept out of
   * exports unless asked. An unreadable entry is dropped alone.
   */
  siteApiKeys: z
    .record(z.string(), z.unknown())
    .transform((entries) => {
      const kept: Record<string, string> = {};
      for (const [sid, value] of Object.entries(entries)) {
        const key = typeof value === 'string' ? value.trim() : undefined;
        if (/^\d{1,12}$/.test(sid) && key && /^[A-Za-z0-9_-]{8,256}$/.test(key)) kept[sid] = key;
      }
      return kept;
    })
    .default({}),
} as const;

export const settingsSchema = z.object(settingsFields);
export type Settings = z.infer<typeof settingsSchema>;
export type SettingsField = keyof Settings;

export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/**
 * The steps up to SETTINGS_VERSION, keyed by the version each produces (utils/stored-item.ts).
 * Version 0 is what a hand-edited or pre-release store looks like: no version field, `apiBase`
 * instead of `baseUrl`. Kept as the first step so the chain is exercised by tests from day one.
 */
export const SETTINGS_MIGRATIONS: Migrations = {
  1: (v0) => {
    const { apiBase, ...rest } = v0;
    return rest.baseUrl === undefined && typeof apiBase === 'string' ? { ...rest, baseUrl: apiBase } : rest;
  },
};

export interface LoadedSettings {
  settings: Settings;
  /** Fields whose stored value could not be read and fell back to the default. */
  resetFields: SettingsField[];
  /** List fields read without some of their stored entries (those could not be read). */
  repairedFields: SettingsField[];
  /** True when the stored value came from an older version and was migrated. */
  migrated: boolean;
  /** True when something was stored but it was not a settings object at all. */
  unreadable: boolean;
}

/** Reads any stored value into valid settings: migrates, then validates field by field. */
export function readSettings(stored: unknown): LoadedSettings {
  return readUpgradedSettings(upgrade(stored, SETTINGS_VERSION, SETTINGS_MIGRATIONS), stored);
}

/**
 * The settings from a stored record already brought up to SETTINGS_VERSION (one written by a newer
 * build is read for what this one understands, and not downgraded): field by field.
 */
export function readUpgradedSettings({ value: raw, migrated }: Upgraded, stored: unknown): LoadedSettings {
  const resetFields: SettingsField[] = [];
  const repairedFields: SettingsField[] = [];
  const settings = { ...DEFAULT_SETTINGS } as Record<string, unknown>;
  for (const [field, schema] of Object.entries(settingsFields) as [SettingsField, z.ZodType][]) {
    if (raw[field] === undefined) continue;
    const parsed = schema.safeParse(raw[field]);
    if (!parsed.success) resetFields.push(field);
    else {
      settings[field] = parsed.data;
      if (entryCount(raw[field]) > entryCount(parsed.data)) repairedFields.push(field);
    }
  }
  const unreadable = stored !== undefined && stored !== null && (typeof stored !== 'object' || Array.isArray(stored));
  return { settings: settings as Settings, resetFields, repairedFields, migrated: migrated && stored !== undefined, unreadable };
}

/** How many entries a list or record holds (0 for anything else). */
export function entryCount(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value && typeof value === 'object' ? Object.keys(value).length : 0;
}

/** Whole settings as they will be stored: checked by the same schemas that read them back. */
export function checkedSettings(settings: Settings): Settings {
  return settingsSchema.parse(settings);
}

/** The stored record: the settings with their version (what the settings item writes). */
export function storedSettings(settings: Settings): Settings & { version: number } {
  return { version: SETTINGS_VERSION, ...settings };
}

/** Validates a partial update (from the options page); throws a ZodError naming the bad field. */
export function applySettingsUpdate(current: Settings, update: unknown): Settings {
  const partial = settingsSchema.partial().strict().parse(update) as Partial<Settings>;
  // zod 4 fills in a field's default even under .partial(): keep only the fields the update names,
  // or saving one field would reset every other one (the token included).
  const named = Object.fromEntries(Object.entries(partial).filter(([field]) => Object.hasOwn(update as object, field)));
  return { ...current, ...named };
}

/** What identifies the user to the service: kept out of exports unless asked, tied to one service address. */
export const CREDENTIAL_FIELDS = ['token', 'appId', 'secret'] as const satisfies readonly SettingsField[];

/** Credentials for the user's sites (not tied to the service address): also kept out of exports unless asked. */
export const SITE_CREDENTIAL_FIELDS = ['sitePasskeys', 'siteApiKeys'] as const satisfies readonly SettingsField[];

/** The fields safe to export; the credentials only when asked for. */
export function exportSettings(settings: Settings, includeCredentials: boolean): Record<string, unknown> {
  const { token, secret, appId, sitePasskeys, siteApiKeys, ...rest } = settings;
  return {
    app: 'reseed-lens',
    version: SETTINGS_VERSION,
    ...rest,
    ...(includeCredentials ? { token, appId, secret, sitePasskeys, siteApiKeys } : {}),
  };
}

/** The mode lookups run in: token (spec 4.1), signed (spec 4.2), or none configured. */
export function lookupMode(settings: Settings): 'token' | 'signed' | 'none' {
  if (settings.token) return 'token';
  if (settings.appId && settings.secret) return 'signed';
  return 'none';
}

export function isKnownServiceOrigin(baseUrl: string): boolean {
  try {
    return (KNOWN_SERVICE_HOSTS as readonly string[]).includes(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}
