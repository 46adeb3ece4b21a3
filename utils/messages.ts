/**
 * The one typed protocol between the extension's contexts. Types only (no zod): the content
 * script imports this file too. The background validates every incoming message with
 * utils/message-schemas.ts before acting on it.
 */
import type { ClientFailure } from './clients/client-errors';
import type { ClientInfo, ClientKind, ClientTorrent } from './clients/client-types';
import type { CrossSeedResult } from './cross-seed-engine/cross-seed';
import type { FoundHash, ListRow, PageKind, PageReading } from './pages/page-types';
import type { ServiceFailure } from './iyuu/service-errors';
import type { Settings, SettingsField } from './settings';

/** One candidate, resolved for display: everything the UI needs, no secret. */
export interface CandidateView {
  sid: number;
  torrentId: number;
  infoHash: string;
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

export interface SiteChoice {
  sid: number;
  site: string;
  nickname: string;
  host?: string;
}

export interface RecommendedSiteView {
  sid: number;
  site: string;
  nickname: string;
  homeUrl?: string;
}

/** Messages to the background, with the type of their answer. */
export interface BackgroundProtocol {
  /** Content script → background: this page's reading. Answer: the view for the panel. */
  'page:reading': { request: { url: string; reading: PageReading | null }; response: PageView };
  /** Popup → background. */
  'view:get': { request: { tabId: number }; response: TabView };
  'view:refresh': { request: { tabId: number }; response: TabView };
  /** The .torrent fallback, on the user's click: the tab's content script hashes its download link. */
  'view:hash-from-torrent': { request: { tabId: number }; response: TabView };
  'recommended:get': {
    request: { refresh?: boolean };
    response: { sites: RecommendedSiteView[]; count: number; fetchedAt?: number; error?: ServiceFailure };
  };
  /** Options page: calls the recommended-site list with these (unsaved) values, or the saved ones. */
  'connection:test': {
    request: { baseUrl?: string; token?: string };
    response: { ok: boolean; siteCount?: number; error?: ServiceFailure };
  };
  /** Popup, on the toolbar click: read this tab once (activeTab) where no content script runs. */
  'view:read-once': { request: { tabId: number }; response: TabView };
  /** Popup "Use on this site" (after the permission was granted) and the options page's removal. */
  'site:enable': { request: { host: string }; response: { customHosts: string[] } };
  'site:disable': { request: { host: string }; response: { customHosts: string[] } };
  'settings:get': { request: Record<string, never>; response: SettingsView };
  /** The settings as a JSON document to save; the credentials only when asked. */
  'settings:export': { request: { includeCredentials: boolean }; response: { json: string } };
  /**
   * A previously exported document, read field by field; what could not be read is named. Without
   * `apply` nothing changes: the answer previews the changes for the user to confirm.
   */
  'settings:import': { request: { data: unknown; apply?: boolean; keepCredentials?: boolean; confirmSiteHosts?: number[] }; response: ImportAnswer };
  /** Every site the user may pick as their own (the service's list, else the catalog), and the ones seen. */
  'sites:list': {
    request: { refresh?: boolean };
    response: { sites: SiteChoice[]; seen: number[]; fromService: boolean; error?: ServiceFailure };
  };
  'profile:get': { request: Record<string, never>; response: { profile?: ProfileView; error?: ServiceFailure } };
  /** Binding: the raw passkey goes only as far as the background, which sends its SHA-1. */
  'account:bind': {
    request: { sid: number; site: string; userId: string; passkey: string };
    response: { ok: boolean; message?: string; profile?: ProfileView; error?: ServiceFailure };
  };
  /**
   * A partial update; the answer is the new settings, the field that was refused, or a question:
   * the update moves the service to another address with the saved credentials (resend with
   * `keepCredentials` once the user said yes).
   */
  'settings:save': { request: { update: Partial<Settings>; keepCredentials?: boolean }; response: SaveAnswer };

  /** Options page: the user's torrent clients, never with their passwords. */
  'clients:list': { request: Record<string, never>; response: ClientsAnswer };
  /**
   * Adds (no id) or updates a client. An empty password on an update keeps the saved one, as long
   * as the address stays on the same origin. The page asked for the origin's permission first.
   */
  'clients:save': { request: { client: ClientForm }; response: ClientsAnswer | { problem: ClientProblem } };
  'clients:remove': { request: { id: string }; response: ClientsAnswer };
  'clients:set-default': { request: { id: string }; response: ClientsAnswer };
  /** "Test client": a saved client (`id`), or the form's unsaved values (`client`, with `id` when editing one). */
  'clients:test': { request: { id?: string; client?: ClientForm }; response: { info: ClientInfo } | { problem: ClientProblem } };
  /** Options page: the index of the user's default client (issue #10), its counts, last sync and any sync under way. */
  'index:status': { request: Record<string, never>; response: IndexStatusView };
  /** "Sync now": starts a sync of the index (or joins the one under way); the answer comes at once, progress as `index:changed`. */
  'index:sync': { request: Record<string, never>; response: IndexStatusView };
  /** "Find them now": finds the pages of the client's torrents held from one site only (lookups of their copies' hashes). */
  'index:place': { request: Record<string, never>; response: IndexStatusView };
  /** Stops the run under way before its next batch (what was answered is kept). */
  'index:cancel': { request: Record<string, never>; response: IndexStatusView };
  /** Popup on a list page: its rows the client holds and those it can cross-seed, from the index alone (no service request). */
  'index:page': { request: { tabId: number }; response: IndexPageAnswer };
  /**
   * Popup "Cross-seed" on a list row: the row is taken from the tab's view and its candidate from
   * the index (never from the message), then cross-seeded from the client torrent holding its data.
   */
  'index:cross-seed': { request: { tabId: number; rowId: string }; response: IndexCrossSeedAnswer };
  /** Popup: row marks on or off for the tab's site (the host comes from the tab, not the message). */
  'index:row-marks': { request: { tabId: number; on: boolean }; response: IndexPageAnswer };
  /** Popup: what the default client holds of this tab's torrents and their candidates (one request to it). */
  'client:status': { request: { tabId: number }; response: ClientStatus };

  /** Popup: this tab's cross-seeds so far (a reopened popup shows them). */
  'crossseed:get': { request: { tabId: number }; response: TabCrossSeeds };
  /**
   * Popup "Cross-seed" on one candidate of the tab's current view (found there again by site,
   * torrent id and info-hash: the message's own values are not trusted). Answered when it is done;
   * a second click while it runs joins it.
   */
  'crossseed:one': { request: { tabId: number; sid: number; torrentId: number; infoHash: string }; response: TabCrossSeeds };
  /** Popup "Cross-seed all": the candidates on the user's sites, at most 20, paced; progress is announced (CrossSeedsChanged). */
  'crossseed:all': { request: { tabId: number }; response: TabCrossSeeds };
  /**
   * Content script, on a trusted click of the panel's "Cross-seed" (the tab comes from the sender):
   * opens the extension's confirmation window for that candidate, nothing more (issue 15). No answer.
   */
  'page:cross-seed': { request: { sid: number; torrentId: number }; response: undefined };
}

/** One candidate's cross-seed in a tab, as the popup shows it: running, or how it ended. */
export interface CrossSeedItem {
  sid: number;
  torrentId: number;
  infoHash: string;
  /** The page's hash it answers (its files are the ones compared). */
  forHash: string;
  siteName: string;
  state: 'running' | 'done';
  result?: CrossSeedResult;
}

/** "Cross-seed all" in a tab: its plan, how far it got, and why it stopped early if it did. */
export interface CrossSeedAllView {
  state: 'running' | 'done';
  /** How many this click tries (at most 20); undefined until the client was asked. */
  total?: number;
  /** How many have an outcome so far, and how many of those were added. */
  done: number;
  added: number;
  /** False when the user has not chosen their sites: nothing was tried. */
  sitesChosen: boolean;
  notYourSites: number;
  alreadyInClient: number;
  /** Left for the next click (beyond the `limit` of this one). */
  overLimit: number;
  /** At most this many per click (20). */
  limit: number;
  /** A failure of the client or the page's torrent that ended the run. */
  stopped?: CrossSeedResult;
}

/** A tab's cross-seeds, for the popup (kept per tab and page, announced as they change). */
export interface TabCrossSeeds {
  tabId: number;
  /** The page they belong to. */
  url?: string;
  items: CrossSeedItem[];
  all?: CrossSeedAllView;
}

/** Background → extension pages: a tab's cross-seeds changed. */
export interface CrossSeedsChanged {
  type: 'crossseed:changed';
  crossSeeds: TabCrossSeeds;
}

/**
 * What the tab's own panel is told of a cross-seed: its sentence(s) only, shown as generated
 * content inside the panel's fixed-size list (nothing a page script can measure).
 */
export interface PageCrossSeed {
  sid: number;
  torrentId: number;
  running: boolean;
  /** In the client now (added, or already there). */
  ok: boolean;
  lines: string[];
}

/** Background → the tab's content script: every cross-seed outcome for its page. */
export interface PageCrossSeedsChanged {
  type: 'crossseed:changed';
  outcomes: PageCrossSeed[];
}

/** A saved torrent client as the extension's pages see it: everything but the password. */
export interface ClientView {
  id: string;
  type: ClientKind;
  url: string;
  username: string;
  hasPassword: boolean;
  isDefault: boolean;
  /** A cross-seed whose every file matches the client's torrent is added without the client's hash check. */
  skipCheckWhenFilesMatch: boolean;
}

export interface ClientsAnswer {
  clients: ClientView[];
  /** The id of the client just saved. */
  savedId?: string;
}

/** The client form's values. */
export interface ClientForm {
  id?: string;
  type: ClientKind;
  url: string;
  username: string;
  password: string;
  skipCheckWhenFilesMatch?: boolean;
}

/**
 * Why a client could not be used, for the UI to say in words: the library's failure kinds, plus
 * - `no-permission`: the browser has not granted the client's address (`origin`);
 * - `password-needed`: the address moved to another origin, so the saved password is not sent there;
 * - `unknown-client`: the client was removed meanwhile.
 */
export interface ClientProblem extends Omit<ClientFailure, 'kind'> {
  kind: ClientFailure['kind'] | 'no-permission' | 'password-needed' | 'unknown-client';
  /** The client's origin (no-permission, password-needed). */
  origin?: string;
  /** The form field at fault (bad-config, password-needed): type, url, username or password. */
  field?: string;
}

/** A torrent the client holds, as the popup shows it. */
export type HeldTorrent = Pick<ClientTorrent, 'hash' | 'name' | 'savePath' | 'state' | 'progress' | 'size'>;

/** The client a status is about (no credentials). */
export interface ClientSummary {
  id: string;
  type: ClientKind;
  url: string;
}

/**
 * What the default client holds for a tab, for the popup only (never the page: see page-view.ts).
 * - `no-hashes`: nothing on this page to ask about (not a tracker page, or no hash yet);
 * - `no-client`: no client set up;
 * - `problem`: the client could not be asked (its failure in `problem`);
 * - `answered`: `held` has every hash among `asked` (the page's and its candidates') the client holds.
 */
export type ClientStatus =
  | { state: 'no-hashes' }
  | { state: 'no-client' }
  | { state: 'problem'; client: ClientSummary; problem: ClientProblem }
  | { state: 'answered'; client: ClientSummary; asked: string[]; held: Record<string, HeldTorrent> };

/** Why the index could not be synced, for the options page to say in words. */
export type IndexProblem =
  | { kind: 'no-client' }
  /** App ID lookups ask one hash per request: indexing a client needs a token. */
  | { kind: 'needs-token' }
  | { kind: 'client'; problem: ClientProblem }
  | { kind: 'service'; failure: ServiceFailure };

/** One run of the index: a sync (the client's own hashes) or placing (finding the pages of torrents held from one site only). */
export type IndexJob = 'sync' | 'place';

/** A run under way. */
export interface IndexProgressView {
  job: IndexJob;
  phase: 'reading-client' | 'asking' | 'locating' | 'done';
  /** Hashes done of `total` in this phase. */
  done: number;
  total: number;
  /** Requests to the lookup service so far in this run. */
  requests: number;
}

/** A finished run. */
export interface IndexRunView {
  job: IndexJob;
  at: number;
  outcome: 'done' | 'cancelled' | 'failed';
  /** Torrents in the client (as many as the index keeps). */
  torrents: number;
  /** Hashes sent to the lookup service. */
  asked: number;
  requests: number;
  /** Torrents of the client beyond what the index keeps. */
  leftOut?: number;
  /** Placing: the client's torrents whose own page was found. */
  located?: number;
  problem?: IndexProblem;
}

export interface IndexCounts {
  /** Torrents of the client in the index. */
  torrents: number;
  /** Of which the lookup service has answered. */
  answered: number;
  /** Places (a torrent on a site) the index knows. */
  places: number;
  /** Places whose torrent is in the client. */
  inClient: number;
  /** Places the client can cross-seed (it holds their data, complete, under another torrent). */
  canCrossSeed: number;
  /** The client's torrents held from one site only whose own page is not known yet (placing finds it). */
  toPlace: number;
}

/** The index as the options page shows it. */
export interface IndexStatusView {
  enabled: boolean;
  /** The default client, which the index is of. */
  client?: ClientSummary;
  /** Why no sync can run now (no client set up), when known without trying. */
  problem?: IndexProblem;
  counts?: IndexCounts;
  /** Whether the index could be stored in IndexedDB (no room on the disk or in the quota, or refused: it lives in memory until the browser restarts; the settings are elsewhere). */
  storage?: 'ok' | 'full' | 'failed';
  running?: IndexProgressView;
  lastSync?: IndexRunView;
  lastPlacing?: IndexRunView;
  /** Hosts with row marks on. */
  markHosts: string[];
  /** Increases with every status the background gives: the higher one is the newer. */
  revision?: number;
}

/** A list row the index knows, with the client torrent it is about. */
export interface IndexRowView {
  /** The site's torrent id of the row. */
  id: string;
  /** The row's title, where the page shows one. */
  title?: string;
  /** in-client: the row's torrent itself; can-cross-seed: the complete client torrent holding its data. */
  clientTorrent: HeldTorrent;
}

/**
 * What the index says about a list page, for the popup only:
 * - `not-a-list`: the tab shows no list page;
 * - `off`: the user has not turned the index on;
 * - `no-client`: no client set up;
 * - `unknown-site`: the page's site has no IYUU site id to ask the index with;
 * - `answered`: the page's rows the client holds, and those it can cross-seed.
 */
export type IndexPageAnswer =
  | { state: 'not-a-list' }
  | { state: 'off' }
  | { state: 'no-client' }
  | { state: 'unknown-site'; host?: string }
  | {
      state: 'answered';
      host: string;
      siteName?: string;
      /** How many rows the page has (what was asked). */
      rows: number;
      inClient: IndexRowView[];
      canCrossSeed: IndexRowView[];
      /** Row marks are on for this site. */
      marks: boolean;
      /** The index holds no answer from the service yet: a first sync is needed (or under way). */
      empty: boolean;
    };

export interface IndexCrossSeedAnswer {
  result: CrossSeedResult;
  /** The row's site, for the result's words. */
  siteName: string;
  /** The page as the index sees it afterwards (the row among those in the client once added). */
  page: IndexPageAnswer;
}

/** Background → extension pages: the index changed (a run's progress or end, turned on or off). */
export interface IndexChanged {
  type: 'index:changed';
  status: IndexStatusView;
}

/**
 * Background → a tracker page's content script, ONLY on a site where the user turned row marks on,
 * and only while the index is on: which rows to mark, by torrent id. Any other page gets nothing.
 */
export interface IndexMarks {
  type: 'index:marks';
  /** The page the marks are for (another page ignores them). */
  url: string;
  /** Row id → 'i' (in your client) or 'c' (can cross-seed); empty: every mark goes. */
  marks: Record<string, 'i' | 'c'>;
}

export type SaveAnswer = SettingsView | { refused: string } | { confirm: 'credentials'; origin: string; fields: SettingsField[] };

/** A settings value as an import preview shows it; credentials only as set or not. */
export type PreviewValue = string | number | boolean | null | string[] | number[] | Record<string, unknown> | { credential: boolean } | ClientPreview[];

/** A torrent client as an import preview shows it: the password only as set or not. */
export interface ClientPreview {
  type: ClientKind;
  url: string;
  username: string;
  hasPassword: boolean;
  isDefault: boolean;
}

/** What an import may change: a settings field, or the list of torrent clients (stored apart). */
export type ImportField = SettingsField | 'clients';

export interface ImportPreview {
  changes: { field: ImportField; before: PreviewValue; after: PreviewValue }[];
  /** Set when the document moves the service to another address. */
  service?: { baseUrl: string; known: boolean; granted: boolean; plainHttp: boolean };
  /** Saved credentials the document would carry to that other address (kept only when the user says so). */
  carriedCredentials: SettingsField[];
  /**
   * Sites the document moves to a host that is not one of their catalogued hosts: each its own
   * change, applied only for the sids the user confirms (`confirmSiteHosts`); `changes` shows the
   * rest of the document as it would be applied without them.
   */
  siteHosts?: SiteHostMove[];
  /**
   * Client addresses in the document the browser has not granted: asked for within the Apply click
   * (as patterns for permissions.request).
   */
  clientPermissions?: string[];
}

/** A site's new address in an import: "SpringSunday: springsunday.net → tjupt.org". */
export interface SiteHostMove {
  sid: number;
  /** The site's name as the user knows it. */
  name: string;
  /** Where its links (and downloads) go now. */
  from: string;
  to: string;
  /** `to` is this other catalogued site's host: downloads for this site are never sent there. */
  owner?: string;
}

export interface ImportAnswer {
  preview?: ImportPreview;
  /** After applying: the new settings. */
  view?: SettingsView;
  imported: string[];
  skipped: string[];
  error?: 'not-ours' | 'unreadable';
}

export interface ProfileView {
  /** The token is activated (bound to a recommended site). */
  activated: boolean;
  /** When the token's service period ends (ms), if the service said. */
  expiresAt?: number;
  /** A lifetime membership (is_ever_level). */
  lifetime: boolean;
}

export interface SettingsView {
  settings: Settings;
  /** Fields that could not be read from storage and were reset to their default. */
  resetFields: string[];
  /** List fields read without some of their stored entries (those could not be read). */
  repairedFields?: string[];
  /** Storage held something that was not settings at all: every field is back to its default. */
  unreadable?: boolean;
  /** Whether the extension holds the host permission for the configured service origin. */
  serviceOriginGranted: boolean;
}

export type BackgroundMessage = {
  [K in keyof BackgroundProtocol]: { type: K } & BackgroundProtocol[K]['request'];
}[keyof BackgroundProtocol];

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
