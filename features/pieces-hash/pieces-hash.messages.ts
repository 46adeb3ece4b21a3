/**
 * Asking sites by pieces hash (issue 18): the options page's "Test" of one site's pieces-hash API.
 * Extension pages only: the request may carry the passkey the user just typed, and no content
 * script ever hears of passkeys.
 */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import { sid } from '../../utils/messaging/fields';
import { siteOverrideSchema } from '../../utils/settings';

/**
 * What one test of a site came to, in kinds and numbers only: never the site's text (its error
 * bodies echo the passkey), never the passkey.
 * - `works`: the site took the passkey and answered (`ret: 0`);
 * - `wrong-passkey`: 401; `no-api`: no such API at that address (404, an HTML page, a redirect);
 * - `rate-limited`: 429, with Retry-After's seconds when it said any;
 * - `needs-passkey`: none typed or saved; `bad-passkey`: not a NexusPHP passkey (nothing sent);
 * - `bad-path`: the path is no address; `other-host`: it is on `host`, not the site's own;
 * - `no-permission`: the browser does not let the extension reach `origin` (the page asks, then tests again);
 * - `not-nexusphp`: the site is unknown, or has no such API by its engine or definition;
 * - `unreachable`, `site-error` (another HTTP status), `refused` (another `ret`).
 */
export type PiecesHashTestView =
  | { kind: 'works' }
  | { kind: 'wrong-passkey' }
  | { kind: 'no-api' }
  | { kind: 'rate-limited'; retryAfterSeconds?: number }
  | { kind: 'needs-passkey' }
  | { kind: 'bad-passkey' }
  | { kind: 'bad-path' }
  | { kind: 'other-host'; host: string }
  | { kind: 'no-permission'; origin: string }
  | { kind: 'not-nexusphp' }
  | { kind: 'unreachable' }
  | { kind: 'site-error'; status: number }
  | { kind: 'refused'; ret: number };

export const piecesHashTestRequest = z.object({
  sid,
  /** The path as typed (maybe unsaved); absent: the saved one, else the site definition's. */
  path: z.string().max(2000).optional(),
  /** The passkey as typed (maybe unsaved); absent: the saved one. */
  passkey: z.string().max(256).optional(),
  /**
   * The site's address as its fieldset shows it (maybe unsaved, maybe saved a moment ago and not
   * yet in the background's settings): host, scheme and the user's yes to a mirror; null: none
   * (the site's own address); absent: the saved one.
   */
  override: siteOverrideSchema.nullable().optional(),
});
export type PiecesHashTestRequest = z.infer<typeof piecesHashTestRequest>;

export const piecesHashMessages = {
  /** "Test" beside a site's pieces-hash switch: one request with one random pieces hash, nothing of the user's client. */
  'pieces:test': message<PiecesHashTestView>()('extension', piecesHashTestRequest),
};
