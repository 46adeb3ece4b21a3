/**
 * The user's settings: one zod schema per field is the source of truth. Stored under one key in
 * storage.local with a version; older versions are migrated step by step, and a field that is
 * corrupt or foreign falls back to its default alone (the others are kept) and is reported.
 */
import { z } from 'zod';

// Extension pages forbid eval by their CSP: zod must not try to compile validators with Function.
z.config({ jitless: true });

export const DEFAULT_BASE_URL = 'https://2025.iyuu.cn';
export const SETTINGS_KEY = 'settings';
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

const hostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/);

/** A per-site override: a mirror domain and/or the scheme to link with. */
export const siteOverrideSchema = z.object({
  host: hostSchema.optional(),
  scheme: z.enum(['http', 'https']).optional(),
});
export type SiteOverride = z.infer<typeof siteOverrideSchema>;

/** Credentials are plain printable text without spaces; anything else is a paste accident. */
const credentialSchema = z
  .string()
  .trim()
  .max(256)
  .regex(/^[\x21-\x7e]*$/, 'unexpected characters');

export const settingsFields = {
  baseUrl: baseUrlSchema.default(DEFAULT_BASE_URL),
  token: credentialSchema.default(''),
  appId: credentialSchema.default(''),
  secret: credentialSchema.default(''),
  /** The in-page panel, globally and per tracker host. */
  panelEnabled: z.boolean().default(true),
  panelDisabledHosts: z.array(hostSchema).max(1000).default([]),
  /** The sids of the sites the user holds an account on; null until they pick. */
  heldSites: z.array(z.number().int().nonnegative()).max(2000).nullable().default(null),
  /** Whether we already asked the user to pick their sites. */
  askedForSites: z.boolean().default(false),
  /** Keyed by sid. */
  siteOverrides: z.record(z.string().regex(/^\d+$/), siteOverrideSchema).default({}),
  /** Hosts the user enabled the extension on from the popup ("Use on this site"). */
  customHosts: z.array(hostSchema).max(500).default([]),
} as const;

export const settingsSchema = z.object(settingsFields);
export type Settings = z.infer<typeof settingsSchema>;
export type SettingsField = keyof Settings;

export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/** Migrations from version N to N+1, applied in order to the raw stored object. */
export const MIGRATIONS: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>> = {
  // Version 0 is what a hand-edited or pre-release store looks like: no version field, `apiBase`
  // instead of `baseUrl`. Kept as the first step so the chain is exercised by tests from day one.
  0: (raw) => {
    const { apiBase, ...rest } = raw;
    return rest.baseUrl === undefined && typeof apiBase === 'string' ? { ...rest, baseUrl: apiBase } : rest;
  },
};

export interface LoadedSettings {
  settings: Settings;
  /** Fields whose stored value could not be read and fell back to the default. */
  resetFields: SettingsField[];
  /** True when the stored value came from an older version and was migrated. */
  migrated: boolean;
  /** True when something was stored but it was not a settings object at all. */
  unreadable: boolean;
}

/** Reads any stored value into valid settings: migrates, then validates field by field. */
export function readSettings(stored: unknown): LoadedSettings {
  let raw: Record<string, unknown> =
    stored && typeof stored === 'object' && !Array.isArray(stored) ? { ...(stored as Record<string, unknown>) } : {};
  // A negative version is foreign: counting up from it to SETTINGS_VERSION would never end.
  const storedVersion = typeof raw.version === 'number' && Number.isInteger(raw.version) && raw.version >= 0 ? raw.version : 0;
  let migrated = false;
  const resetFields: SettingsField[] = [];
  if (storedVersion > SETTINGS_VERSION) {
    // Written by a newer build: read what we understand, do not downgrade the rest.
  } else {
    for (let version = storedVersion; version < SETTINGS_VERSION; version++) {
      const step = MIGRATIONS[version];
      if (step) {
        raw = step(raw);
        migrated = true;
      }
    }
  }
  const settings = { ...DEFAULT_SETTINGS } as Record<string, unknown>;
  for (const [field, schema] of Object.entries(settingsFields) as [SettingsField, z.ZodType][]) {
    if (raw[field] === undefined) continue;
    const parsed = schema.safeParse(raw[field]);
    if (parsed.success) settings[field] = parsed.data;
    else resetFields.push(field);
  }
  const unreadable = stored !== undefined && stored !== null && (typeof stored !== 'object' || Array.isArray(stored));
  return { settings: settings as Settings, resetFields, migrated: migrated && stored !== undefined, unreadable };
}

/** What is written to storage. */
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

/** The fields safe to export; the credentials only when asked for. */
export function exportSettings(settings: Settings, includeCredentials: boolean): Record<string, unknown> {
  const { token, secret, appId, ...rest } = settings;
  return {
    app: 'reseed-lens',
    version: SETTINGS_VERSION,
    ...rest,
    ...(includeCredentials ? { token, appId, secret } : {}),
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
