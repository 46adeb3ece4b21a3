/**
 * Every message the background accepts, as zod schemas: anything else is refused. Runs in the
 * background only (zod stays out of the content script).
 */
import { z } from 'zod';
import { CLIENT_KINDS } from '../../utils/clients/client-types';

const hash = z.string().regex(/^[0-9a-f]{40}$/);
const tabId = z.number().int().nonnegative();
/** A saved client's id (clients.ts makes them). */
const clientId = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);
/** An IYUU site id and a torrent id there: whole numbers, as the service gives them. */
const sid = z.number().int().nonnegative().max(1_000_000);
const torrentId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * The client form as the options page sends it. Only its shape and sizes here: clients.ts checks
 * the values (the address above all) and says which field it refuses.
 */
export const clientFormSchema = z.object({
  id: clientId.optional(),
  type: z.enum(CLIENT_KINDS),
  url: z.string().max(2000),
  username: z.string().max(500),
  password: z.string().max(2000),
  skipCheckWhenFilesMatch: z.boolean().optional(),
});

export const foundHashSchema = z.object({
  hash,
  source: z.enum(['info-row', 'magnet', 'site-api', 'torrent-file', 'label']),
  row: z.string().max(100).optional(),
  title: z.string().max(500).optional(),
});

/** A list page's torrent row: the site's torrent id (digits), and its hash and name when the row shows them. */
export const listRowSchema = z.object({
  id: z.string().regex(/^\d{1,12}$/),
  hash: hash.optional(),
  title: z.string().max(500).optional(),
});

export const pageReadingSchema = z.object({
  engine: z.string().max(40),
  kind: z.enum(['details', 'list']),
  hashes: z.array(foundHashSchema).max(1000),
  problem: z.enum(['site-gives-no-hash', 'needs-login', 'not-loaded-yet', 'site-error']).optional(),
  torrentFileUrl: z.string().max(2000).optional(),
  rows: z.array(listRowSchema).max(500).optional(),
});

/** Messages a content script may send (from a tracker page). The tab and URL come from the sender. */
export const contentMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('page:reading'), url: z.string().max(4000), reading: pageReadingSchema.nullable() }),
  z.object({ type: z.literal('page:refresh') }),
  z.object({ type: z.literal('panel:hide-on-site') }),
  /** The page's own .torrent, downloaded by the content script on the user's click (base64). */
  z.object({
    type: z.literal('page:torrent-file'),
    data: z.string().max(14_000_000).regex(/^[A-Za-z0-9+/]*={0,2}$/).optional(),
    problem: z.enum(['no-link', 'download-failed']).optional(),
  }),
  /** The panel's "Cross-seed", on a trusted click: which candidate of the tab's current view. */
  z.object({ type: z.literal('page:cross-seed'), sid, torrentId }),
]);
export type ContentMessage = z.infer<typeof contentMessageSchema>;

/** Messages the extension's own pages (popup, options) may send. */
export const pageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('view:get'), tabId }),
  z.object({ type: z.literal('view:refresh'), tabId }),
  z.object({ type: z.literal('view:hash-from-torrent'), tabId }),
  z.object({ type: z.literal('recommended:get'), refresh: z.boolean().optional() }),
  z.object({
    type: z.literal('connection:test'),
    baseUrl: z.string().max(300).optional(),
    token: z.string().max(256).optional(),
  }),
  z.object({ type: z.literal('view:read-once'), tabId }),
  z.object({ type: z.literal('site:enable'), host: z.string().max(253) }),
  z.object({ type: z.literal('site:disable'), host: z.string().max(253) }),
  z.object({ type: z.literal('settings:get') }),
  z.object({ type: z.literal('settings:export'), includeCredentials: z.boolean() }),
  z.object({
    type: z.literal('settings:import'),
    data: z.unknown(),
    apply: z.boolean().optional(),
    keepCredentials: z.boolean().optional(),
    confirmSiteHosts: z.array(z.number().int().nonnegative()).max(2000).optional(),
  }),
  z.object({ type: z.literal('sites:list'), refresh: z.boolean().optional() }),
  z.object({ type: z.literal('profile:get') }),
  z.object({
    type: z.literal('account:bind'),
    sid: z.number().int().nonnegative(),
    site: z.string().min(1).max(100),
    userId: z.string().trim().regex(/^\d{1,12}$/),
    passkey: z.string().trim().min(1).max(200),
  }),
  z.object({ type: z.literal('settings:save'), update: z.record(z.string(), z.unknown()), keepCredentials: z.boolean().optional() }),
  z.object({ type: z.literal('clients:list') }),
  z.object({ type: z.literal('clients:save'), client: clientFormSchema }),
  z.object({ type: z.literal('clients:remove'), id: clientId }),
  z.object({ type: z.literal('clients:set-default'), id: clientId }),
  z.object({ type: z.literal('clients:test'), id: clientId.optional(), client: clientFormSchema.optional() }),
  z.object({ type: z.literal('client:status'), tabId }),
  z.object({ type: z.literal('crossseed:get'), tabId }),
  z.object({ type: z.literal('crossseed:one'), tabId, sid, torrentId, infoHash: hash }),
  z.object({ type: z.literal('crossseed:all'), tabId }),
  z.object({ type: z.literal('index:status') }),
  z.object({ type: z.literal('index:sync') }),
  z.object({ type: z.literal('index:place') }),
  z.object({ type: z.literal('index:cancel') }),
  z.object({ type: z.literal('index:page'), tabId }),
  /** A row is named by its id only: the candidate comes from the index, never from the message. */
  z.object({ type: z.literal('index:cross-seed'), tabId, rowId: z.string().regex(/^\d{1,12}$/) }),
  z.object({ type: z.literal('index:row-marks'), tabId, on: z.boolean() }),
]);
export type PageMessage = z.infer<typeof pageMessageSchema>;
