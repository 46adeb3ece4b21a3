/**
 * The service's answers as the specification (and, where it is silent, service-notes.md) states
 * them, read as tolerantly as the real clients read them (REAL-ANSWERS.md): a null or missing
 * optional field takes its default for that field alone, a bad entry of a list is skipped alone,
 * PHP's key-preserving arrays (`{"0":…,"1":…}`) are lists. Strict only where safety needs it: ids
 * are numeric safe integers, hashes 40 hex, hosts bare host names, path templates relative.
 * These schemas are the single source of truth: the types below are inferred from them.
 * They are used in the background only (zod stays out of the content script).
 */
import { z } from 'zod';

/** A 40-hex info-hash; normalised to lowercase. */
export const infoHashSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{40}$/, 'not a 40-hex info-hash')
  .transform((hash) => hash.toLowerCase());

/** An integer id. The spec says Integer; PHP services sometimes send digit strings, taken as numbers. */
export const idSchema = z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .regex(/^\d{1,15}$/, 'not a numeric id')
    .transform(Number),
]);

/**
 * The envelope's `msg`: human text, never data. A null or missing one is an empty text and a very
 * long one is cut, so an odd message never costs an otherwise valid answer.
 */
export const messageSchema = z
  .union([z.string(), z.null()])
  .optional()
  .transform((msg) => (msg ?? '').slice(0, 2000));

/**
 * A PHP array as JSON: a list, or an object keyed "0", "1", … (json_encode keeps the keys of an
 * array that is not a plain list, e.g. after array_filter). Anything else is not a list.
 */
export function phpList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([key]) => /^(0|[1-9]\d{0,8})$/.test(key))) return undefined;
  // Integer-like keys already come in ascending order; sorting says so and costs nothing.
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
}

/** "Nothing here" as PHP writes it: null, false, "", [] or {}. */
export function isPhpEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The entries of a list that passed `schema`, and how many did not. */
export interface Skimmed<T> {
  items: T[];
  skipped: number;
}

/** Keeps the entries that pass, skips (and counts) the rest: one bad entry never costs the list. */
export function skim<T>(entries: readonly unknown[], schema: z.ZodType<T>, max = 5000): Skimmed<T> {
  const items: T[] = [];
  let skipped = Math.max(0, entries.length - max);
  for (const entry of entries.slice(0, max)) {
    const parsed = schema.safeParse(entry);
    if (parsed.success) items.push(parsed.data);
    else skipped += 1;
  }
  return { items, skipped };
}

/** Spec 2.1: one reseed candidate. `group` is optional (service-notes) and dropped when odd; other extra fields are ignored. */
export const candidateSchema = z.object({
  sid: idSchema,
  torrent_id: idSchema,
  info_hash: infoHashSchema,
  group: idSchema.optional().catch(undefined),
});
export type Candidate = z.infer<typeof candidateSchema>;

const looksLikeCandidate = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && ('sid' in value || 'info_hash' in value || 'torrent_id' in value);

/** What one hash's entry of an answer held: its usable candidates, and whether anything usable was there at all. */
export interface CandidateReading {
  candidates: Candidate[];
  skipped: number;
  /** False when the entry held something, but nothing usable (a wholly broken entry). */
  usable: boolean;
}

/**
 * A `torrent` value: a list of candidates, the same as a PHP key-preserving object, or a single
 * candidate object (MoviePilot wraps a non-list the same way). Bad items are skipped alone.
 */
export function readCandidates(value: unknown): CandidateReading {
  if (isPhpEmpty(value)) return { candidates: [], skipped: 0, usable: true };
  const list = looksLikeCandidate(value) ? [value] : phpList(value);
  if (!list) return { candidates: [], skipped: 1, usable: false };
  const { items, skipped } = skim(list, candidateSchema);
  return { candidates: items, skipped, usable: items.length > 0 || skipped === 0 };
}

/**
 * Spec 4.1: the value under one queried hash, `{ torrent: [...] }`. Null or an empty PHP array is
 * "no candidates"; a bare list of candidates is taken as the torrent list (as userscripts do); an
 * object with neither `torrent` nor candidates is a broken entry.
 */
export function readLookupEntry(entry: unknown): CandidateReading {
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    if ('torrent' in entry) return readCandidates((entry as { torrent: unknown }).torrent);
    // `{}` is no PHP "nothing" (that is `[]`): an entry that lost its torrent list.
    if (Object.keys(entry).length === 0) return { candidates: [], skipped: 1, usable: false };
  }
  return readCandidates(entry);
}

const envelopeBase = { code: z.number().int(), msg: messageSchema };

/**
 * Spec 4.1 success: `data` keyed by queried hash, each `{ torrent: Candidate[] }`.
 * Entries are read per hash by the client against the hashes it asked for (readLookupEntry),
 * so keys the service invents cannot spoil or extend a result. An empty PHP array (`[]`) or null is
 * an empty object.
 */
export const listLookupSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.union([
    z.record(z.string(), z.unknown()),
    z.tuple([]).transform(() => ({}) as Record<string, unknown>),
    z.null().transform(() => ({}) as Record<string, unknown>),
  ]),
});

/** Spec 4.2 success: `data` a list of `{ hash, torrent }`, read entry by entry by the client. */
export const signedLookupSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(200),
  data: z.unknown().transform((data, context) => {
    if (isPhpEmpty(data)) return [];
    const list = phpList(data);
    if (!list) {
      context.addIssue({ code: 'custom', message: 'not a list of {hash, torrent}' });
      return z.NEVER;
    }
    return list.slice(0, 1000);
  }),
});

/** One `{ hash, torrent }` of the signed lookup; the torrent list is read by readCandidates. */
export const signedEntrySchema = z.object({ hash: infoHashSchema, torrent: z.unknown() });

/** An optional text: null, missing or not text is `''` (for that field alone). */
const optionalText = (max: number) => z.string().max(max).catch('');

/** Spec 2.2: one recommended site. Only `id` and `site` are needed; the rest takes defaults. */
export const recommendedSiteSchema = z.object({
  id: idSchema,
  site: z.string().min(1).max(200),
  nickname: optionalText(200),
  bind_check: z.string().max(2000).optional().catch(undefined),
  reseed_check: z.string().max(2000).optional().catch(undefined),
});
export type RecommendedSite = z.infer<typeof recommendedSiteSchema>;

const countSchema = z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,15}$/).transform(Number)]);

/**
 * Spec 4.3 success. `count` may exceed the number listed; a null or missing one is the number
 * listed. Entries are checked one by one: a bad one is skipped, but a list of nothing but bad
 * entries is a bad answer (binding would offer nothing while the service offers sites).
 */
export const recommendSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z
    .object({
      count: countSchema.optional().catch(undefined),
      list: z.unknown().transform((list, context) => {
        if (list === null) return [];
        const entries = phpList(list);
        if (!entries) {
          context.addIssue({ code: 'custom', message: 'no list of recommended sites' });
          return z.NEVER;
        }
        const { items, skipped } = skim(entries, recommendedSiteSchema, 2000);
        if (items.length === 0 && skipped > 0) {
          context.addIssue({ code: 'custom', message: `none of the ${skipped} recommended sites is usable` });
          return z.NEVER;
        }
        return items;
      }),
    })
    .transform(({ count, list }) => ({ count: count ?? list.length, list })),
});

/** A bare host name (no scheme, path, port or user info): the only part of a link the service decides. */
export const hostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, 'not a host name');

/**
 * The service's base_url as clients read it: some carry a trailing `/` (ptool adds one only when
 * there is none) or an `http(s)://` prefix (stripped by a MoviePilot-based client). Those are
 * trimmed; what is left must still be a bare host.
 */
export const siteBaseUrlSchema = z
  .string()
  .transform((value) => value.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, ''))
  .pipe(hostSchema);

/** A details/download path template relative to the site root, e.g. `details.php?id={}`. */
export const pathTemplateSchema = z
  .string()
  .trim()
  .max(300)
  .refine((path) => !/[\s"'<>\\`]|^\/\/|^[a-z][a-z0-9+.-]*:/i.test(path), 'not a relative path template');

/** A template that is absent (null, missing) is `''`; one that is present must be safe, or the site is skipped. */
const optionalTemplate = z.preprocess((value) => value ?? '', pathTemplateSchema);

/**
 * Flags that say a site is off (REAL-ANSWERS.md: the official client's own sites table uses
 * `disabled`; no client reads such a flag from the service, so the other names are a narrow guess).
 * A numeric `status` is not read: nothing says which number would mean "closed".
 */
function isClosed(entry: Record<string, unknown>): boolean {
  const on = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';
  const off = (value: unknown) => value === false || value === 0 || value === '0' || value === 'false';
  const closedWord = (value: unknown) => typeof value === 'string' && /^\s*(closed?|disabled|offline|dead|关站|已关站|关闭|已关闭|停用|已停用)\s*$/i.test(value);
  return on(entry.disabled) || on(entry.closed) || on(entry.is_closed) || off(entry.is_open) || off(entry.enabled) || closedWord(entry.status) || closedWord(entry.state);
}

/** service-notes: one site of `GET /reseed/sites/index`. A closed site is not a usable entry. */
export const serviceSiteSchema = z
  .looseObject({})
  .refine((entry) => !isClosed(entry), 'the site is closed')
  .pipe(
    z.object({
      id: idSchema,
      site: z.string().min(1).max(200),
      nickname: optionalText(200),
      base_url: siteBaseUrlSchema,
      details_page: optionalTemplate,
      download_page: optionalTemplate,
      is_https: z.union([z.literal(0), z.literal(1), z.literal(2), z.enum(['0', '1', '2']).transform(Number)]).catch(1),
      cookie_required: z.union([z.number(), z.string().max(50), z.boolean()]).catch(0),
    }),
  );
export type ServiceSite = z.infer<typeof serviceSiteSchema>;

/** `GET /reseed/sites/index`: sites are checked one by one (client.ts), so one odd entry does not cost the list. */
export const siteListSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.object({
    sites: z.unknown().transform((sites, context) => {
      const list = sites === null ? [] : phpList(sites);
      if (!list) {
        context.addIssue({ code: 'custom', message: 'no list of sites' });
        return z.NEVER;
      }
      return list.slice(0, 5000);
    }),
  }),
});

/** A 40-hex SHA-1 such as `sid_sha1`; normalised to lowercase. */
export const sha1HexSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{40}$/, 'not a 40-hex SHA-1')
  .transform((s) => s.toLowerCase());

/** `POST /reseed/sites/reportExisting`. */
export const reportExistingSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.object({ sid_sha1: sha1HexSchema }),
});

/** `GET /reseed/users/profile`: every field is optional, and a null or odd one is absent (for that field alone). */
export const profileSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.looseObject({
    state: z.union([z.number(), z.boolean(), z.string().max(100)]).optional().catch(undefined),
    overdue_time: z
      .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,15}$/).transform(Number)])
      .optional()
      .catch(undefined),
    is_ever_level: z.union([z.number(), z.boolean(), z.string().max(100)]).optional().catch(undefined),
  }),
});
export type Profile = z.infer<typeof profileSuccessSchema>['data'];

/** `POST /reseed/users/bind`. */
export const bindSuccessSchema = z.object({ ...envelopeBase, code: z.literal(0) });

/**
 * Any error envelope: a code and a message; `data` may be absent, an empty array or an object.
 * ThinkPHP renders an exception's text under `message` rather than `msg`: either is the message.
 */
export const errorEnvelopeSchema = z
  .looseObject({
    code: z.number().int(),
    msg: z.unknown().optional(),
    message: z.unknown().optional(),
    data: z.unknown().optional(),
  })
  .transform(({ msg, message, ...rest }) => {
    const text = typeof msg === 'string' && msg !== '' ? msg : typeof message === 'string' ? message : '';
    return { ...rest, msg: text.slice(0, 2000) };
  });
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
