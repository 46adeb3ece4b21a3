/**
 * M-Team's own engine (a React app over an API): pages at `detail/N`; .torrent files only through
 * its API, with an API key and a per-download token: nothing a browser session can fetch.
 */
import type { EngineSchema } from '../site-types';

export const mteamSchema = {
  detailsPage: 'detail/{}',
  download: { unsupported: 'needs-api' },
} satisfies EngineSchema;
