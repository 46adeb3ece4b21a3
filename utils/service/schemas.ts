/**
 * The service's answers as the specification (and, where it is silent, service-notes.md) states
 * them. These schemas are the single source of truth: the types below are inferred from them.
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

/** Spec 2.1: one reseed candidate. `group` is optional (service-notes) and dropped when odd. */
export const candidateSchema = z.object({
  sid: idSchema,
  torrent_id: idSchema,
  info_hash: infoHashSchema,
  group: idSchema.optional().catch(undefined),
});
export type Candidate = z.infer<typeof candidateSchema>;

const envelopeBase = { code: z.number().int(), msg: messageSchema };

/** Spec 4.1: the value under one queried hash. */
export const lookupEntrySchema = z.object({ torrent: z.array(candidateSchema).max(5000) });

/**
 * Spec 4.1 success: `data` keyed by queried hash, each `{ torrent: Candidate[] }`.
 * Entries are checked per hash by the client against the hashes it asked for (lookupEntrySchema),
 * so keys the service invents cannot spoil or extend a result. An empty PHP array (`[]`) is an
 * empty object.
 */
export const listLookupSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.union([z.record(z.string(), z.unknown()), z.tuple([]).transform(() => ({}) as Record<string, unknown>)]),
});

/** Spec 4.2 success: `data` an array of `{ hash, torrent }`. */
export const signedLookupSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(200),
  data: z.array(z.object({ hash: infoHashSchema, torrent: z.array(candidateSchema).max(5000) })).max(1000),
});

/** Spec 2.2: one recommended site. */
export const recommendedSiteSchema = z.object({
  id: idSchema,
  site: z.string().min(1).max(200),
  nickname: z.string().max(200),
  bind_check: z.string().max(2000).optional(),
  reseed_check: z.string().max(2000).optional(),
});
export type RecommendedSite = z.infer<typeof recommendedSiteSchema>;

/** Spec 4.3 success. `count` may exceed the number listed. */
export const recommendSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.object({
    count: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    list: z.array(recommendedSiteSchema).max(2000),
  }),
});

/** A bare host name (no scheme, path, port or user info): the only part of a link the service decides. */
export const hostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, 'not a host name');

/** A details/download path template relative to the site root, e.g. `details.php?id={}`. */
export const pathTemplateSchema = z
  .string()
  .trim()
  .max(300)
  .refine((path) => !/[\s"'<>\\`]|^\/\/|^[a-z][a-z0-9+.-]*:/i.test(path), 'not a relative path template');

/** service-notes: one site of `GET /reseed/sites/index`. */
export const serviceSiteSchema = z.object({
  id: idSchema,
  site: z.string().min(1).max(200),
  nickname: z.string().max(200).optional().default(''),
  base_url: hostSchema,
  details_page: pathTemplateSchema.optional().default(''),
  download_page: pathTemplateSchema.optional().default(''),
  is_https: z.union([z.literal(0), z.literal(1), z.literal(2), z.enum(['0', '1', '2']).transform(Number)]).optional().default(1),
  cookie_required: z.union([z.number(), z.string().max(50), z.boolean()]).optional(),
});
export type ServiceSite = z.infer<typeof serviceSiteSchema>;

/** `GET /reseed/sites/index`: sites are checked one by one, so one odd entry does not cost the list. */
export const siteListSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.object({ sites: z.array(z.unknown()).max(5000) }),
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

/** `GET /reseed/users/profile`. */
export const profileSuccessSchema = z.object({
  ...envelopeBase,
  code: z.literal(0),
  data: z.looseObject({
    state: z.union([z.number(), z.boolean(), z.string().max(100)]).optional(),
    overdue_time: z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,15}$/).transform(Number)]).optional(),
    is_ever_level: z.union([z.number(), z.boolean(), z.string().max(100)]).optional(),
  }),
});
export type Profile = z.infer<typeof profileSuccessSchema>['data'];

/** `POST /reseed/users/bind`. */
export const bindSuccessSchema = z.object({ ...envelopeBase, code: z.literal(0) });

/** Any error envelope: a code and a message; `data` may be absent, an empty array or an object. */
export const errorEnvelopeSchema = z.looseObject({
  code: z.number().int(),
  msg: z.unknown().transform((msg) => (typeof msg === 'string' ? msg.slice(0, 2000) : '')),
  data: z.unknown().optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
