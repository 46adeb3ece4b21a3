/**
 * Lookup on a page: what a tracker page's content script reports and is told, and what the popup
 * asks of a tab. The content script imports this file's types only (`import type`): zod stays
 * out of the page's bundle.
 */
import { z } from 'zod';
import { event, message } from '../../utils/messaging/protocol';
import type { FoundHash, ListRow, PageKind, PageReading } from '../../utils/pages/page-types';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';
import { hash, tabId } from '../../utils/messaging/fields';

/** One candidate, resolved for display: everything the UI needs, no secret. */
export interface CandidateView {
  sid: number;
  torrentId: number;
  /** '' for a candidate only a site's pieces-hash API found (popup only: never sent to a page). */
  infoHash: string;
  /** Found by pieces hash: what its .torrent must carry. */
  piecesHash?: string;
  /** Who found it (popup only): the lookup service, a site asked by pieces hash, or both. */
  foundBy?: 'iyuu' | 'pieces' | 'both';
  /** The hash on this page it answers. */
  forHash: string;
  /** Display name of its site (nickname, else short name, else "Site #sid"). */
  siteName: string;
  /** The site's short name, if known. */
  siteKey?: string;
  /** The candidate's details page, built only from the numeric id and the site list's template. */
  detailsUrl?: string;
  /** The candidate is on the site this page belongs to. */
  isCurrentSite: boolean;
  /** The user holds an account on that site (undefined until they pick their sites). */
  held?: boolean;
}

export type TabStatus =
  | 'not-a-tracker' // no content script ran here and nothing was read
  | 'reading' // the page is being read
  | 'no-hash' // the page was read and holds no hash
  | 'no-credentials' // hashes found, but no token / app id configured
  | 'looking-up'
  | 'done'
  | 'error'
  // the page changed its torrent more often than its lookup budget allows: waits for the user's "Look up again"
  | 'waiting-for-user';

export interface TabView {
  tabId: number;
  url?: string;
  host?: string;
  /** The catalogued site this tab is on (display name), if recognised. */
  siteName?: string;
  status: TabStatus;
  /**
   * The status the service alone gives, when the candidates of sites asked by pieces hash changed
   * it (no token: 'no-credentials', though those sites named some): what the page is told.
   */
  serviceStatus?: TabStatus;
  engine?: string;
  /** Why no hash could be had on a page the engine knows. */
  problem?: PageReading['problem'];
  torrentFileUrl?: string;
  hashes: FoundHash[];
  candidates: CandidateView[];
  error?: ServiceFailure;
  /** When the answer shown was fetched from the service (ms); the oldest among the hashes. */
  fetchedAt?: number;
  /** True when every hash was answered from the cache. */
  fromCache?: boolean;
  /** When a rate limit lifts (ms), if one is in force. */
  retryAt?: number;
  /** Seconds the service's clock is ahead of ours, when it told us (we correct for it). */
  clockSkewSeconds?: number;
  /** How the extension reads this site: catalogued, enabled by the user, or once on a toolbar click. */
  access?: 'catalog' | 'custom' | 'once';
  /** Whether the in-page panel is wanted on this page (global and per-site settings). */
  panel?: boolean;
  /** A details page or a list page (as the engine read it). */
  kind?: PageKind;
  /**
   * A list page's torrent rows (ids, and hashes and titles where the rows show them), in page order:
   * what the index of the client answers for (client-index.ts). Popup only, like everything here.
   */
  rows?: ListRow[];
  /** Why "Get hash from the .torrent file" gave nothing. */
  torrentFileProblem?: 'no-link' | 'download-failed' | 'not-a-torrent' | 'v2-only' | 'malformed';
}

/**
 * What a tracker page's own content script is sent about its tab (issue #8): only what the panel
 * shows, and nothing of which sites the user holds. The page can measure the panel (its text
 * through window.find, its size, when it changes), so the panel must be the same for every user
 * who sees the same answer. Made by features/lookup/panel-view.ts; the popup gets the whole TabView.
 */
export type PageCandidate = Omit<CandidateView, 'held'>;

export interface PageView
  extends Pick<TabView, 'url' | 'status' | 'problem' | 'torrentFileUrl' | 'hashes' | 'error' | 'fetchedAt' | 'panel' | 'torrentFileProblem'> {
  candidates: PageCandidate[];
}

/** Background → extension pages: a tab's view changed. */
export interface ViewChanged {
  type: 'view:changed';
  view: TabView;
}

/** Background → the tab's own content script: its page view changed (see PageView). */
export interface PageViewChanged {
  type: 'view:changed';
  view: PageView;
}

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

export const lookupMessages = {
  /**
   * Content script → background: this page's reading (the tab and URL come from the sender). A
   * command, as are all of the page's own: the view for the panel comes once, as the tab's
   * `view:changed`; the answer only says which URL the reading was filed under (after an in-page
   * navigation, the views for that URL are this page's).
   */
  'page:reading': message<{ filedUnder: string }>()('page', z.object({ url: z.string().max(4000), reading: pageReadingSchema.nullable() })),
  /** The panel's "Look up again". */
  'page:refresh': message<void>()('page', z.object({})),
  /** The panel's "Hide on this site". */
  'panel:hide-on-site': message<{ hidden: boolean }>()('page', z.object({})),
  /** The page's own .torrent, downloaded by the content script on the user's click (base64). Answer: its info-hash, when it had one. */
  'page:torrent-file': message<{ hash?: string }>()(
    'page',
    z.object({
      data: z.string().max(14_000_000).regex(/^[A-Za-z0-9+/]*={0,2}$/).optional(),
      problem: z.enum(['no-link', 'download-failed']).optional(),
    }),
  ),
  /** Popup: the tab's view. */
  'view:get': message<TabView>()('extension', z.object({ tabId })),
  /**
   * Popup "Look up again". A command, as are the two below: answered when done, with nothing; the
   * view it changed comes once, as `view:changed`.
   */
  'view:refresh': message<void>()('extension', z.object({ tabId })),
  /** The .torrent fallback, on the user's click: the tab's content script hashes its download link. */
  'view:hash-from-torrent': message<void>()('extension', z.object({ tabId })),
  /** Popup, on the toolbar click: read this tab once (activeTab) where no content script runs. */
  'view:read-once': message<void>()('extension', z.object({ tabId })),
};

/** What the background announces of a tab's view: the whole view to the extension's pages, the page's view to its own content script. */
export const lookupEvents = {
  'view:changed': event<ViewChanged>()('extension'),
};
export const lookupTabEvents = {
  'view:changed': event<PageViewChanged>()('tab'),
  /** The popup's "Get hash from the .torrent file": the tab's content script downloads its own link (it answers once done). */
  'content:hash-from-torrent': event<{ type: 'content:hash-from-torrent' }>()('tab'),
};
