/**
 * One cross-seed, on the user's click: the page's torrent must be complete in the user's client;
 * the candidate's .torrent is downloaded from its site with the user's session (one file, paced
 * per site), checked to be the torrent the service named, its files compared byte for byte with
 * the page's torrent's files in the client, and only when they are the same added beside them (the
 * source's save path, its own layout, the source's category and tags plus `reseed-lens`).
 *
 * It is added STOPPED, so it can never download from the other site: the client checks the data
 * on disk, every client asked to (qBittorrent and Deluge do not check one added stopped, and
 * Transmission 4 may take one as complete from its files' sizes and dates: checkThenStart):
 * qBittorrent 4.5 and later as soon as it lists the add, others once the add has settled. Only a
 * check that ends at 100 % starts it (its end read live where the client's list lags it:
 * qBittorrent's and Deluge's liveState). Anything
 * less is left stopped, tagged `reseed-lens-incomplete` where the client has tags, and the result
 * says how much was found. A torrent the client took under another hash than the one checked
 * (Transmission 3.00 re-encodes a non-canonical info dictionary) is removed again, data kept.
 * Every outcome is a value with a kind the UI maps to a sentence (messages.ts); nothing here
 * throws for an expected failure.
 *
 * `crossSeedAll` does the same for the candidates on the user's sites, at most 20 per click, one
 * after another.
 */
import { isClientError, toClientFailure, type ClientFailure } from '../clients/client-errors';
import type { AddOptions, AddResult, ClientFile, ClientKind, ClientTorrent, RenameReach, TorrentClient, TorrentState } from '../clients/client-types';
import { isTransientClientError } from '../clients/steady';
import { askSiteApi, downloadFromSite, readSitePage, problemOfPage, sitePace, type SitePace, type SiteProblem } from './site-queue';
import { downloadAddressOf, downloadLinkFromPage, downloadSource, type SiteSettings } from './source';
import type { UnsafeElement } from '../torrent/files';
import { checkCandidateFile, compareFiles, type FileDifference, type TorrentFileProblem } from './verify';
import { matchCopy, stepsExpressible, type RenamePlan } from './renamed-copy';
import { piecesHashFromTorrent } from '../torrent/pieces-hash';
import { originOf } from '../url';

/** The tag every cross-seed gets, so the user can find what Reseed Lens added. */
export const CROSS_SEED_TAG = 'reseed-lens';
/** The tag of a cross-seed left stopped because the check did not find all its data on disk. */
export const INCOMPLETE_TAG = 'reseed-lens-incomplete';
/** "Cross-seed all" downloads at most this many .torrent files per click. */
export const MAX_PER_CROSS_SEED_ALL = 20;

export interface CrossSeedCandidate {
  /** The candidate's site (IYUU sid). */
  sid: number;
  /** Its torrent id on that site. */
  torrentId: number;
  /**
   * Its info-hash as the service gives it; '' for a candidate found by a site's pieces-hash API,
   * whose info-hash is learnt from its .torrent (which must then carry `piecesHash`).
   */
  infoHash: string;
  /** The pieces hash its .torrent must carry (a candidate found by pieces hash). */
  piecesHash?: string;
}

/** A client a copy goes into: its library client and the user's choices for it. */
export interface CrossSeedTarget {
  client: TorrentClient;
  /** The client setting "Skip the check when every file matches" (default off). */
  skipCheckWhenFilesMatch: boolean;
  /** "Cross-seed copies whose names differ" (on when absent): a renamed copy is added and renamed to the names on disk. */
  renameCopies?: boolean;
  /** The client's address, for the permission check. */
  url?: string;
  /** The client's Name, for the outcome's words ("Added to NAS"). Absent: its product name. */
  name?: string;
  /** The saved client's id, kept with the outcome (the index notes the add in that client's). */
  id?: string;
}

/** A torrent one of the user's clients holds, and which client. */
export interface HeldBy {
  torrent: ClientTorrent;
  /** The holding client's Name. */
  clientName?: string;
  clientId?: string;
}

/**
 * Where one cross-seed's copy comes from and goes (features/clients/placement.ts decides it over
 * every client the user saved): the client holding the complete source, whose files are compared;
 * the client the copy is added to, and at which save path (the source's own, or the source's as
 * that client sees it through a folder pair); and the candidates any client holds already.
 */
export interface CopyPlan {
  source: { client: TorrentClient; torrent: ClientTorrent; name?: string };
  target: CrossSeedTarget;
  /** Where the copy is added: the source's save path, or (`viaPair`) that path through a folder pair. */
  savePath: string;
  /** The target is another client than the source's ("Copies go to"): it sees the data through a folder pair. */
  viaPair: boolean;
  /** Candidates' hashes held by any client, with the torrent and the client. */
  held: Map<string, HeldBy>;
}

/** The user's clients as a cross-seed sees them: where a copy goes, and who holds a hash. */
export interface CrossSeedClients {
  /**
   * The source `pageHash` and its candidates over every client: a plan, or why none (no client,
   * the source missing or incomplete, a client that failed, a source that can send its copy nowhere,
   * one candidate already held).
   */
  plan(pageHash: string, candidateHashes: readonly string[]): Promise<CopyPlan | CrossSeedResult>;
  /** Which client holds `hash` (a candidate found by pieces hash learns its hash from its .torrent). */
  holder(hash: string): Promise<HeldBy | undefined>;
}

export interface CrossSeedEnvironment {
  /**
   * The user's clients (every saved one: the background's). Absent: `target` alone is the one
   * client the source is in and the copy goes to (Node tests of one client).
   */
  clients?: CrossSeedClients;
  /** One client, where `clients` is absent; undefined with no `clients` either: no client set up. */
  target?: CrossSeedTarget | undefined;
  sites: SiteSettings;
  /** The fetch that carries the user's site sessions: the browser's own in the background, a cookie jar in Node tests. */
  fetch?: typeof fetch;
  /**
   * Whether the extension may read answers from an origin (its host permission). The background
   * passes `(origin) => permissions.contains({ origins: [permissionPattern(origin)] })`; absent
   * means yes (Node tests).
   */
  originAllowed?: (origin: string) => Promise<boolean>;
  /** Default: the background's one shared pace (sitePace). */
  pace?: SitePace;
  /**
   * "Cross-seed all": asked before each candidate is tried (after the site checks of the run). A
   * result (the site's "Downloads per day" reached) is that candidate's, and nothing is asked of
   * its site; undefined tries it.
   */
  beforeCandidate?: (candidate: CrossSeedCandidate) => Promise<CrossSeedResult | undefined>;
  signal?: AbortSignal;
  /**
   * Called (and awaited) once the torrent is in the client STOPPED: downloaded, its info-hash and
   * files checked, the add confirmed. What follows (the client's check, the start at 100 % or the
   * torrent left stopped and tagged) is the same whoever asks and ends the run; a caller that need
   * not wait for it (the whole-client job, whose site goes on to its next download) hears the first
   * phase's end here. Not called when nothing was added, nor on the skip-the-check path (started at once).
   * A renamed copy is announced before its rename (the client settles an add for about 1.5 s before
   * it can rename, and the site need not wait for that), with the plan, for finishAddedStopped.
   * `clientId`: the saved client it was added to (the placement's target), to finish it there.
   */
  onAddedStopped?: (added: { hash: string; savePath: string; rename?: RenamePlan; clientId?: string }) => Promise<void>;
}

export type CrossSeedResult =
  /**
   * In the client and started. `checked`: the client's check found every byte on disk (false only
   * when the user chose to skip the check and every file matched exactly).
   */
  | { kind: 'added'; hash: string; savePath: string; client: ClientKind; checked: boolean; state: TorrentState; progress: number; renamed?: RenamedFiles; clientName?: string; clientId?: string }
  /**
   * In the client but left stopped: its check found only `progress` (0..1) of the data on disk, or
   * (`checkFinished` false) had not ended within the wait. Started it would download the rest from
   * the other site. `tagged`: it carries INCOMPLETE_TAG (false for a client without tags: Deluge).
   */
  | {
      kind: 'left-stopped';
      hash: string;
      savePath: string;
      client: ClientKind;
      progress: number;
      checkFinished: boolean;
      tagged: boolean;
      renamed?: RenamedFiles;
      clientName?: string;
      clientId?: string;
      /** Added to a "Copies go to" client at the source's path through a folder pair (`savePath`): less than 100 % says the pair is wrong. */
      viaPair?: boolean;
    }
  /** Held by one of the user's clients already (`clientName`: which); nothing downloaded, nothing added. */
  | { kind: 'already-in-client'; hash: string; savePath: string; clientName?: string; clientId?: string }
  | { kind: 'no-client' }
  /** The source's client only reads and sends its copies nowhere ("Only read this client" without "Copies go to"). */
  | { kind: 'read-only'; clientName: string }
  /** The source's path is under none of its client's folder pairs: the copy is not sent to its "Copies go to" client. */
  | { kind: 'no-folder-pair'; path: string; clientName: string; targetName: string }
  /** The source's client sends its copies to a client no longer saved. */
  | { kind: 'target-missing'; clientName: string }
  /** The extension lacks host permission for the site (the UI asks for it on the click, then retries) or the client. */
  | { kind: 'no-permission'; for: 'site' | 'client'; origin: string }
  | { kind: 'bad-request'; detail: string }
  /** The page's own torrent is not in the client. */
  | { kind: 'source-missing'; pageHash: string }
  /** The page's own torrent is in the client but not complete (0 ≤ progress < 1). */
  | { kind: 'source-incomplete'; pageHash: string; progress: number }
  | { kind: 'unsupported-site'; reason: 'unknown-site' | 'needs-api' | 'no-address' }
  /**
   * The site gives .torrent files only through its API, with the user's API key for it (M-Team):
   * none entered, or (`refused`, with the HTTP status) the site refused the one entered.
   */
  | { kind: 'needs-api-key'; refused?: number }
  /** The user's address for the site is another catalogued site's host (`owner`): its passkey and session never go there. */
  | { kind: 'other-site-host'; host: string; owner: string }
  /** The site gives .torrent files by passkey only, and the user entered none for it. */
  | { kind: 'needs-passkey' }
  /** The candidate's details page showed no download link of the expected shape. */
  | { kind: 'no-download-link' }
  | SiteProblem
  /** The site's file is not a usable .torrent. */
  | { kind: 'not-a-torrent'; problem: TorrentFileProblem }
  /** A file of the candidate the client would store under another name or outside its folder (named, with the refused element). */
  | { kind: 'unsafe-file'; path: string; element: string; reason: UnsafeElement }
  /**
   * The client took the file as another torrent (`clientHash`) than the one checked (`hash`):
   * `removed` again (its data untouched), `already-held` (that torrent was the user's before: left
   * alone), or `remove-failed`.
   */
  | { kind: 'client-other-hash'; hash: string; clientHash: string; stray: 'removed' | 'already-held' | 'remove-failed' }
  /** "This site gave another torrent": its info-hash is not the candidate's. */
  | { kind: 'other-torrent'; hash: string }
  /** Not added: the first differences (at most 5), and how many more. */
  | {
      kind: 'files-differ';
      differences: FileDifference[];
      more: number;
      /** The client whose torrent was compared (the job's words name it: no page is involved there). */
      client?: ClientKind;
      /** That client's Name. */
      clientName?: string;
      /** The same bytes under other names, not taken: why (the client cannot rename so, an unsafe or colliding name, other pieces, the setting off). */
      copy?: CopyRefusal;
    }
  /** The client refused the add, in its own words (text only). */
  | { kind: 'client-refused'; clientMessage?: string; clientName?: string; clientId?: string }
  /** The client could not be used (wrong password, stopped, CSRF, …): its failure, for the clients feature's messages; which client where several are saved. */
  | { kind: 'client-failed'; failure: ClientFailure; clientName?: string; clientId?: string }
  /** The client accepted the file but does not list the torrent afterwards. */
  | { kind: 'not-confirmed'; hash: string }
  /** Cross-seed all: not tried, because this site failed just before in this run. */
  | { kind: 'site-skipped'; after: SiteStopper }
  /** Not tried: the site's "Downloads per day" (a rolling 24 hours, one-click and the job's together) is reached. */
  | { kind: 'daily-cap'; perDay: number };

export type CrossSeedResultKind = CrossSeedResult['kind'];

/** A renamed copy's files: each file's name in the candidate and the name it took in the client (old → new). */
export type RenamedFiles = RenamePlan['files'];

/** Why a copy with the same bytes under other names was not added. */
export type CopyRefusal =
  /** `renames`: what the client can rename ('none': nothing; absent in results kept from before it was said: a last element). */
  | { kind: 'client-cannot'; client: ClientKind; renames?: RenameReach | 'none' }
  | { kind: 'unsafe-target'; path: string; element: string; reason: UnsafeElement }
  | { kind: 'colliding-targets'; path: string }
  | { kind: 'setting-off' };
/** The results after which "Cross-seed all" tries nothing more on that site in the run. */
export type SiteStopper = 'not-logged-in' | 'site-notice' | 'site-challenge' | 'site-limit' | 'no-permission' | 'needs-api-key';

const HASH = /^[0-9a-f]{40}$/;

export { permissionPattern } from '../permission-pattern';

/** The page's torrent in a client, ready to be cross-seeded from (or why not). */
interface PreparedSource {
  plan: CopyPlan;
  files: ClientFile[];
  clients: CrossSeedClients;
}

/** Which client an outcome is about, for its words. */
function named(target: Pick<CrossSeedTarget, 'name' | 'id'> | undefined): { clientName?: string; clientId?: string } {
  return { ...(target?.name && { clientName: target.name }), ...(target?.id && { clientId: target.id }) };
}

function heldResult(hash: string, held: HeldBy): CrossSeedResult {
  return { kind: 'already-in-client', hash, savePath: held.torrent.savePath, ...(held.clientName && { clientName: held.clientName }), ...(held.clientId && { clientId: held.clientId }) };
}

function clientFailed(error: unknown, target?: Pick<CrossSeedTarget, 'name' | 'id'>): CrossSeedResult {
  return { kind: 'client-failed', failure: toClientFailure(error), ...named(target) };
}

/**
 * One client as the user's only one (Node tests of a client, and any caller that names one): the
 * source is looked for there and the copy goes there, at the source's path.
 */
export function oneClient(target: CrossSeedTarget, originAllowed?: (origin: string) => Promise<boolean>): CrossSeedClients {
  const holderOf = (torrent: ClientTorrent): HeldBy => ({ torrent, ...named(target) });
  return {
    async plan(pageHash, candidateHashes) {
      const clientOrigin = target.url ? originOf(target.url) : undefined;
      if (clientOrigin && originAllowed && !(await originAllowed(clientOrigin))) return { kind: 'no-permission', for: 'client', origin: clientOrigin };
      let found: Map<string, ClientTorrent>;
      try {
        found = await target.client.lookup([pageHash, ...candidateHashes]);
      } catch (error) {
        return clientFailed(error, target);
      }
      const [only] = candidateHashes;
      const existing = candidateHashes.length === 1 && only ? found.get(only) : undefined;
      if (existing) return heldResult(existing.hash, holderOf(existing));
      const torrent = found.get(pageHash);
      if (!torrent) return { kind: 'source-missing', pageHash };
      if (torrent.progress < 1) return { kind: 'source-incomplete', pageHash, progress: torrent.progress };
      found.delete(pageHash);
      const held = new Map([...found].map(([hash, entry]) => [hash, holderOf(entry)]));
      return { source: { client: target.client, torrent, ...(target.name && { name: target.name }) }, target, savePath: torrent.savePath, viaPair: false, held };
    },
    async holder(hash) {
      const torrent = await lookupOne(target.client, hash);
      return torrent && holderOf(torrent);
    },
  };
}

/** Lowercase 40-hex, or undefined. */
function hashOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hash = value.trim().toLowerCase();
  return HASH.test(hash) ? hash : undefined;
}

/** The user's clients for this run: every saved one (the background's), or the one `target` names. */
function clientsOf(env: CrossSeedEnvironment): CrossSeedClients | undefined {
  return env.clients ?? (env.target && oneClient(env.target, env.originAllowed));
}

/**
 * Where the copy comes from and goes (CrossSeedClients.plan), and the source's files read from its
 * client. One candidate a client already holds needs nothing more, whatever the page's torrent's state.
 */
async function prepare(pageHash: string, candidateHashes: string[], env: CrossSeedEnvironment): Promise<PreparedSource | CrossSeedResult> {
  const clients = clientsOf(env);
  if (!clients) return { kind: 'no-client' };
  const plan = await clients.plan(pageHash, candidateHashes);
  if ('kind' in plan) return plan;
  let files: ClientFile[];
  try {
    files = await plan.source.client.files(pageHash);
  } catch (error) {
    if (isClientError(error) && error.kind === 'not-found') return { kind: 'source-missing', pageHash };
    return clientFailed(error, { name: plan.source.name });
  }
  return { plan, files, clients };
}

/** The candidate's .torrent bytes from its site, or what went wrong. */
async function fetchCandidate(candidate: CrossSeedCandidate, env: CrossSeedEnvironment): Promise<{ bytes: Uint8Array } | CrossSeedResult> {
  const source = downloadSource(candidate, env.sites);
  if (source.way === 'unsupported') {
    if (source.reason === 'other-site-host') return { kind: 'other-site-host', host: source.host, owner: source.owner };
    if (source.reason === 'needs-api-key') return { kind: 'needs-api-key' };
    return source.reason === 'needs-passkey' ? { kind: 'needs-passkey' } : { kind: 'unsupported-site', reason: source.reason };
  }
  // A login page from a mirror the user set is that host's: the message names it, not the site's own address.
  const asked = <T extends CrossSeedResult>(problem: T): T | CrossSeedResult =>
    problem.kind === 'not-logged-in' && source.mirror ? { ...problem, host: source.mirror } : problem;
  if (env.originAllowed && !(await env.originAllowed(source.origin))) return { kind: 'no-permission', for: 'site', origin: source.origin };
  const request = { siteKey: source.siteKey, fetch: env.fetch, pace: env.pace ?? sitePace, signal: env.signal };
  let url: string;
  if (source.way === 'details-page') {
    const page = await readSitePage(source.detailsUrl, request);
    if (!page.ok) return asked(page.problem);
    const link = downloadLinkFromPage(page.html, source.detailsUrl, source.shape, candidate.torrentId);
    if (!link) {
      const problem = problemOfPage(page.html);
      return problem.kind === 'not-logged-in' || problem.kind === 'site-challenge' ? asked(problem) : { kind: 'no-download-link' };
    }
    url = link;
  } else if (source.way === 'api-token') {
    const { tokenUrl, keyHeader, apiKey, idField } = source;
    const answer = await askSiteApi({ url: tokenUrl, keyHeader, key: apiKey, idField, torrentId: candidate.torrentId }, request);
    if (!answer.ok) return answer.keyRefused ? { kind: 'needs-api-key', refused: answer.status } : answer.problem;
    // The address came from an answer: fetched only when it is on the same site's own hosts.
    const address = downloadAddressOf(answer.address, tokenUrl);
    if (!address) return { kind: 'no-download-link' };
    if (env.originAllowed && !(await env.originAllowed(originOf(address)!))) return { kind: 'no-permission', for: 'site', origin: originOf(address)! };
    url = address;
  } else url = source.url;
  const answer = await downloadFromSite(url, request);
  if (answer.ok) return { bytes: answer.bytes };
  // A browser does not show where a redirect leads. For a user the site knows (its details page was
  // read logged in just before, or is read now, once), download.php sending elsewhere is a notice
  // to confirm (NexusPHP's first-download, client or ratio notice), not its login.
  if (answer.problem.kind === 'not-logged-in' && answer.problem.evidence === 'redirect') {
    const knows = source.way === 'details-page' || (source.way === 'cookie' && source.detailsUrl !== undefined && (await loggedInAt(source.detailsUrl, request)));
    if (knows) return { kind: 'site-notice', evidence: 'redirect' };
  }
  return asked(answer.problem);
}

/** Whether the site shows this page to the user as someone logged in (not its login page, not a redirect). */
async function loggedInAt(url: string, request: Parameters<typeof readSitePage>[1]): Promise<boolean> {
  const page = await readSitePage(url, request);
  return page.ok && problemOfPage(page.html).kind !== 'not-logged-in';
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long an add may take to show in the client's list before it is judged not confirmed. */
const READ_BACK_MS = 4_000;
/**
 * How long an add whose answer was lost is looked for: a client that gave no answer in time may be
 * busy with it still (Deluge's daemon takes an add on its only thread, which a check on a slow disk
 * can hold for longer than the 15 s a request waits).
 */
const LOST_ADD_READ_BACK_MS = 30_000;

/**
 * Polls the client until it lists `hash` (qBittorrent adds asynchronously: within a few ms on
 * loopback, tens of ms while it checks others): every 5 ms for the first 100 ms, then growing by
 * half up to every 500 ms, for `withinMs` (READ_BACK_MS unless told).
 */
async function readBack(client: TorrentClient, hash: string, withinMs = READ_BACK_MS): Promise<ClientTorrent | undefined> {
  const started = Date.now();
  const deadline = started + withinMs;
  for (let wait = 5; ; wait = Date.now() - started < 100 ? 5 : Math.min(Math.round(wait * 1.5), 500)) {
    const torrent = await lookupOne(client, hash);
    if (torrent) return torrent;
    if (Date.now() >= deadline) return undefined;
    await delay(wait);
  }
}

/** How long a check may take: a floor, plus the data at a slow disk's pace (a NAS's HDD). */
export const CHECK_WAIT = { baseMs: 60_000, bytesPerMs: 20_000 } as const;
/**
 * The clients report a torrent's state as of their last refresh (qBittorrent every 1.5 s, Deluge
 * every 1 s): a start asked for may take this long to show.
 */
export const STALE_STATE_MS = 5_000;

/**
 * The pauses between two readings of a check or a start: 100 ms, growing by half up to 500 ms, so a
 * check's end is seen within half a second of the client knowing it, and a long check is asked
 * about twice a second at most.
 */
const nextPause = (wait: number) => Math.min(Math.round(wait * 1.5), 500);

/** States in which the client is still at the check (or waiting to start it). */
export const CHECKING: ReadonlySet<TorrentState> = new Set(['checking', 'queued', 'moving']);

interface CheckOutcome {
  torrent: ClientTorrent;
  finished: boolean;
}

/**
 * Polls the client until the check of `hash` has ended, as far as its state can tell: out of the
 * checking states with some data found (only a check finds data for a torrent added stopped), or
 * after having been seen checking. A stopped torrent at 0 % may not have been checked yet (the state
 * lags, and a busy client starts the check late), so that is no answer before CHECK_WAIT for `size`
 * bytes runs out; a clock of a few seconds once judged a complete candidate "0 %" on a busy machine.
 * `undefined` when the torrent is gone.
 */
async function untilChecked(client: TorrentClient, hash: string, size: number, signal?: AbortSignal): Promise<CheckOutcome | undefined> {
  const asked = Date.now();
  const deadline = asked + CHECK_WAIT.baseMs + size / CHECK_WAIT.bytesPerMs;
  let sawChecking = false;
  let first: number | undefined;
  for (let wait = 100; ; wait = nextPause(wait)) {
    const torrent = await lookupOne(client, hash);
    if (!torrent) return undefined;
    first ??= torrent.progress;
    if (CHECKING.has(torrent.state)) sawChecking = true;
    else if (sawChecking || torrent.progress > 0 || torrent.progress !== first) return { torrent, finished: true };
    if (Date.now() >= deadline || signal?.aborted) return { torrent, finished: false };
    await delay(wait);
  }
}

/** How long an add may take to settle (what forty growing pauses up to 1 s came to). */
const SETTLE_MS = 37_500;

/**
 * Until the client is done with what it does on an add (qBittorrent reads resume data first, and
 * lists it so until its next 1.5 s refresh), briefly; asked at most every 500 ms, so the refresh is
 * seen within half a second. Before a rename (qBittorrent renames a settled add), before a check
 * where the client does not take it at once (rechecksAtOnce), and after a restart.
 */
async function untilSettled(client: TorrentClient, hash: string): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  for (let wait = 100; ; wait = nextPause(wait)) {
    const torrent = await lookupOne(client, hash);
    if (!torrent || !CHECKING.has(torrent.state) || Date.now() >= deadline) return;
    await delay(wait);
  }
}

/**
 * The torrent as the client reports it once its state shows what was asked (its status lags by a
 * refresh), or as it is STALE_STATE_MS after asking. `askAgain` runs once, halfway, if it does not
 * show yet. `undefined` when the torrent is gone.
 */
async function untilShown(client: TorrentClient, hash: string, shown: (state: TorrentState) => boolean, askAgain?: () => Promise<void>): Promise<ClientTorrent | undefined> {
  return untilRead(() => lookupOne(client, hash), (torrent) => shown(torrent.state), askAgain);
}

async function lookupOne(client: TorrentClient, hash: string): Promise<ClientTorrent | undefined> {
  return (await client.lookup([hash])).get(hash);
}

/** `read` until what it reads is `shown`, or as it is STALE_STATE_MS after asking (see untilShown). */
async function untilRead<T>(read: () => Promise<T | undefined>, shown: (value: T) => boolean, askAgain?: () => Promise<void>): Promise<T | undefined> {
  const asked = Date.now();
  let again = askAgain;
  for (let wait = 100; ; wait = nextPause(wait)) {
    const torrent = await read();
    if (!torrent || shown(torrent) || Date.now() - asked >= STALE_STATE_MS) return torrent;
    if (again && Date.now() - asked >= STALE_STATE_MS / 2) {
      await again();
      again = undefined;
    }
    await delay(wait);
  }
}

/**
 * The client added the torrent as `clientHash`, not as the `hash` that was checked: what it added is
 * not what was checked, so it goes again (without its data). One it held before is the user's.
 */
async function strayRemoved(client: TorrentClient, hash: string, clientHash: string, status: 'added' | 'duplicate'): Promise<CrossSeedResult> {
  if (status === 'duplicate') return { kind: 'client-other-hash', hash, clientHash, stray: 'already-held' };
  try {
    await client.remove(clientHash);
    const left = await client.lookup([clientHash]);
    return { kind: 'client-other-hash', hash, clientHash, stray: left.has(clientHash) ? 'remove-failed' : 'removed' };
  } catch {
    return { kind: 'client-other-hash', hash, clientHash, stray: 'remove-failed' };
  }
}

/**
 * Clients that cannot take data as complete: Transmission has no "skip the check" to give, rTorrent a
 * torrent when it starts (added running, a damaged copy would download what the check missed), and
 * Flood takes no "skip the check" from us (flood.ts), whichever client it drives.
 */
const CHECKS_ANYWAY: ReadonlySet<ClientKind> = new Set(['transmission', 'rtorrent', 'flood']);

/**
 * Added stopped (and listed): the client checks it; 100 % starts it, anything less leaves it
 * stopped and tagged.
 */
async function checkThenStart(client: TorrentClient, hash: string, added: ClientTorrent, signal?: AbortSignal): Promise<CrossSeedResult> {
  // Every client is asked for the check. libtorrent's clients leave a torrent added stopped
  // unchecked. Transmission 4 takes a new torrent as complete WITHOUT checking it when every file is
  // there at its size, none was modified at or after the second it was added, and the first piece
  // checks (tr_torrent::is_new_torrent_a_seed, unless the user's torrent-added-verify-mode is "full"):
  // a copy whose other files hold other bytes of the same sizes was once started at "100 %" so, when
  // its add fell in the second after the data's last write. Its own check, asked here once the add
  // has settled, reads every piece. A renamed copy is checked again too: its first check looked
  // under the old names.
  // The check is asked at once where the client takes it while it settles the add (qBittorrent 4.5
  // and later: rechecksAtOnce); elsewhere once the add has settled (~1.5 s on older qBittorrent).
  if (!(await checksAtOnce(client))) await untilSettled(client, hash);
  await client.recheck(hash);
  return startIfComplete(client, hash, added, signal);
}

/** Whether `client` takes a recheck of a stopped add it lists while it still settles it (TorrentClient.rechecksAtOnce); no answer is no. */
async function checksAtOnce(client: TorrentClient): Promise<boolean> {
  return (await client.rechecksAtOnce?.().catch(() => false)) === true;
}

/**
 * How long a check's end is read every 100 ms before the pauses grow: a small copy's check
 * usually ends within it (qBittorrent starts it at libtorrent's next auto-manage tick, every 0.5 s),
 * and its end is then seen within 100 ms, not within the 225–500 ms the growing pauses reach by
 * then. Two requests a reading on qBittorrent: 20 a second for at most 2 s a copy.
 */
const QUICK_CHECK_MS = 2_000;

/**
 * The recheck just asked for of a stopped torrent, read live (liveState: the client runs it for the
 * check and stops it at the check's end): `complete` once it is stopped again with every piece
 * verified; `incomplete` stopped with data missing; `gone`; `unfinished` when CHECK_WAIT ran out.
 */
async function untilCheckedLive(client: TorrentClient, live: NonNullable<TorrentClient['liveState']>, hash: string, size: number, signal?: AbortSignal): Promise<'complete' | 'incomplete' | 'gone' | 'unfinished'> {
  const asked = Date.now();
  const deadline = asked + CHECK_WAIT.baseMs + size / CHECK_WAIT.bytesPerMs;
  for (let wait = 100; ; wait = Date.now() - asked < QUICK_CHECK_MS ? 100 : nextPause(wait)) {
    const state = await live.call(client, hash);
    if (!state) return 'gone';
    if (state.stopped) return state.complete ? 'complete' : 'incomplete';
    if (Date.now() >= deadline || signal?.aborted) return 'unfinished';
    await delay(wait);
  }
}

/**
 * Starts a torrent whose check found 100 %, and says so once the client shows it running: in its
 * list (whose state may lag by a refresh), or where the client reads it live (liveState) as soon
 * as it runs: running at 100 % is seeding.
 */
async function startChecked(client: TorrentClient, hash: string, checked: ClientTorrent): Promise<CrossSeedResult> {
  await client.start(hash);
  let shown: ClientTorrent | undefined;
  const live = client.liveState;
  if (live) {
    const running = await untilRead(() => live.call(client, hash), (state) => !state.stopped);
    if (running && !running.stopped) shown = { ...checked, state: 'seeding', progress: 1 };
  }
  shown ??= (await untilShown(client, hash, (state) => state !== 'paused')) ?? checked;
  return { kind: 'added', hash, savePath: shown.savePath, client: client.kind, checked: true, state: shown.state, progress: shown.progress };
}

/** The client's check under way (or asked for): once it has ended, 100 % starts the torrent, anything less leaves it stopped and tagged. */
async function startIfComplete(client: TorrentClient, hash: string, added: ClientTorrent, signal?: AbortSignal): Promise<CrossSeedResult> {
  if (client.liveState) {
    // A client whose list lags tells the check's end sooner live: a complete copy is started at once.
    const checked = await untilCheckedLive(client, client.liveState, hash, added.size, signal);
    if (checked === 'gone') return { kind: 'not-confirmed', hash };
    if (checked === 'complete') return startChecked(client, hash, added);
    // Data missing: the share found is the list's, once it shows the check's end (a refresh later at most).
    const torrent = await untilRead(() => lookupOne(client, hash), (listed) => listed.progress > 0 && !CHECKING.has(listed.state));
    return torrent ? leftStopped(client, hash, torrent, checked === 'incomplete') : { kind: 'not-confirmed', hash };
  }
  const outcome = await untilChecked(client, hash, added.size, signal);
  if (!outcome) return { kind: 'not-confirmed', hash };
  const { torrent, finished } = outcome;
  if (finished && torrent.progress === 1) return startChecked(client, hash, torrent);
  return leftStopped(client, hash, torrent, finished);
}

/**
 * Never running with data missing: stopped and tagged. qBittorrent and Deluge resume a torrent for
 * its recheck and stop it after; Deluge 2.2 shows it "Downloading" for a moment between the two, and
 * its pause is a no-op while its cached status still says paused. So the stop is asked for whatever
 * the state read, and the result waits until the client shows the torrent stopped (asking once more).
 */
async function leftStopped(client: TorrentClient, hash: string, torrent: ClientTorrent, checkFinished: boolean): Promise<CrossSeedResult> {
  if (torrent.state !== 'paused') await client.stop(hash);
  await untilShown(client, hash, (state) => state === 'paused', () => client.stop(hash));
  const tagged = await client.addTags(hash, [INCOMPLETE_TAG]);
  return { kind: 'left-stopped', hash, savePath: torrent.savePath, client: client.kind, progress: torrent.progress, checkFinished, tagged };
}

/**
 * The second phase of a cross-seed whose first (download, checks, add stopped: onAddedStopped)
 * ended in a background that has since stopped: the torrent is found in the client and its
 * check-then-start finished from where the client shows it. Nothing is downloaded or added, and it
 * is started only at 100 %, as checkThenStart does: at a check → its end awaited first; stopped →
 * its check asked for (again: a check cut short by the restart proves nothing) and awaited; already
 * running at 100 % → started before (only a check at 100 % starts one); running with data missing →
 * stopped and tagged. Gone from the client (the user removed it): not-confirmed.
 */
export async function finishAddedStopped(client: TorrentClient, hash: string, signal?: AbortSignal, rename?: RenamePlan): Promise<CrossSeedResult> {
  try {
    let torrent = await lookupOne(client, hash);
    // The list may lag what the stopped background last asked (a start at 100 %, read live; a check,
    // which runs the torrent until its end): running live but stopped in the list, the list is
    // awaited until it shows the torrent running or checking, not asked to check a running torrent
    // (qBittorrent would not stop that one at the check's end).
    if (torrent?.state === 'paused' && (await client.liveState?.(hash))?.stopped === false) torrent = await untilShown(client, hash, (state) => state !== 'paused');
    // At a check, or at what a client does on an add (qBittorrent reads resume data: a "checking" state
    // that is no check of the data): whichever, its end is awaited and the torrent read again.
    if (torrent && CHECKING.has(torrent.state)) {
      await untilSettled(client, hash);
      torrent = await lookupOne(client, hash);
    }
    if (!torrent) return { kind: 'not-confirmed', hash };
    if (rename) return withRenamed(await finishRenamed(client, hash, torrent, rename, signal), rename);
    return await finishFrom(client, hash, torrent, signal);
  } catch (error) {
    return clientFailed(error);
  }
}

/**
 * A renamed copy found again after a restart: still under the candidate's names → renamed now and
 * checked; under the names on disk → checked (again: a check cut short proves nothing) unless it is
 * already running at 100 %; under neither (a rename of several steps cut short) → removed, as a
 * refused rename is: it is ours, stopped, and nothing of it was downloaded.
 */
async function finishRenamed(client: TorrentClient, hash: string, torrent: ClientTorrent, plan: RenamePlan, signal?: AbortSignal): Promise<CrossSeedResult> {
  const paths = (await client.files(hash)).map((file) => file.path).join('\n');
  if (paths === plan.files.map((file) => file.from).join('\n')) return renameThenCheck(client, hash, torrent, plan, signal);
  if (paths !== plan.files.map((file) => file.to).join('\n')) {
    await client.remove(hash).catch(() => undefined);
    return { kind: 'not-confirmed', hash };
  }
  return finishFrom(client, hash, torrent, signal);
}

/**
 * Where a restart finds an add it made stopped, after its check if one was under way: stopped →
 * checked (again) and started at 100 %; running at 100 % → it was started
 * by a check at 100 %; running with data missing → stopped and tagged.
 */
function finishFrom(client: TorrentClient, hash: string, torrent: ClientTorrent, signal?: AbortSignal): Promise<CrossSeedResult> {
  if (torrent.state === 'paused') return checkThenStart(client, hash, torrent, signal);
  if (torrent.progress === 1) return Promise.resolve({ kind: 'added', hash, savePath: torrent.savePath, client: client.kind, checked: true, state: torrent.state, progress: 1 });
  return leftStopped(client, hash, torrent, true);
}

/** The rename in the client once it has settled the add, then the check: 100 % starts it. A refused rename removes the add. */
async function renameThenCheck(client: TorrentClient, hash: string, added: ClientTorrent, plan: RenamePlan, signal?: AbortSignal): Promise<CrossSeedResult> {
  await untilSettled(client, hash);
  try {
    await client.rename!(hash, plan.steps);
  } catch (error) {
    await client.remove(hash).catch(() => undefined);
    return clientFailed(error);
  }
  return checkThenStart(client, hash, added, signal);
}

function withRenamed(result: CrossSeedResult, plan: RenamePlan): CrossSeedResult {
  return result.kind === 'added' || result.kind === 'left-stopped' ? { ...result, renamed: plan.files } : result;
}

/**
 * What happened in the target client, said of it: its Name and id on the outcomes it ends with,
 * and whether it saw the data through a folder pair (a copy left stopped then says the pair is wrong).
 */
function ofTarget(result: CrossSeedResult, plan: CopyPlan): CrossSeedResult {
  switch (result.kind) {
    case 'added':
    case 'client-refused':
    case 'client-failed':
      return result.clientName ? result : { ...result, ...named(plan.target) };
    case 'left-stopped':
      return { ...result, ...named(plan.target), ...(plan.viaPair && { viaPair: true }) };
    case 'already-in-client':
      return result.clientName ? result : { ...result, ...named(plan.target) };
    default:
      return result;
  }
}

async function crossSeedPrepared(prepared: PreparedSource, candidate: CrossSeedCandidate, known: string | undefined, env: CrossSeedEnvironment): Promise<CrossSeedResult> {
  const { plan } = prepared;
  const existing = known && plan.held.get(known);
  if (existing) return heldResult(known, existing);
  return ofTarget(await downloadAndAdd(prepared, candidate, known, env), plan);
}

async function downloadAndAdd(prepared: PreparedSource, candidate: CrossSeedCandidate, known: string | undefined, env: CrossSeedEnvironment): Promise<CrossSeedResult> {
  const { plan } = prepared;
  const { target, source } = plan;
  const fetched = await fetchCandidate(candidate, env);
  if (!('bytes' in fetched)) return fetched;
  const pieces = hashOf(candidate.piecesHash);
  const checked = await checkCandidateFile(fetched.bytes, known ?? { piecesHash: pieces ?? '' });
  if (!checked.ok) {
    if (checked.kind === 'other-torrent') return { kind: 'other-torrent', hash: checked.hash };
    if (checked.kind === 'unsafe-file') return { kind: 'unsafe-file', path: checked.path, element: checked.element, reason: checked.reason };
    return { kind: 'not-a-torrent', problem: checked.problem };
  }
  const hash = checked.hash;
  if (!known) {
    // Found by pieces hash: only now is its info-hash known, and a client may hold it already.
    if (hash === source.torrent.hash) return heldResult(hash, { torrent: source.torrent, ...(source.name && { clientName: source.name }) });
    try {
      const held = await prepared.clients.holder(hash);
      if (held) return heldResult(hash, held);
    } catch (error) {
      return clientFailed(error);
    }
  }
  const { client } = target;
  const comparison = compareFiles(checked.files, prepared.files);
  let rename: RenamePlan | undefined;
  if (!comparison.same) {
    const copy = await renamedCopy(fetched.bytes, checked.files, prepared.files, candidate, target, source.name);
    if (!('plan' in copy)) return copy;
    rename = copy.plan;
  }
  if (rename) return addRenamed(client, hash, fetched.bytes, plan, rename, env);

  // Every file matched exactly: only then may the check be skipped, and only if the user said so,
  // and only where the copy goes into the client whose files were compared (another client sees
  // the data through a folder pair: its own check says whether it does). Clients that cannot skip
  // it take the stopped path.
  const skipCheck = !plan.viaPair && target.skipCheckWhenFilesMatch && !CHECKS_ANYWAY.has(client.kind);
  try {
    const added = await addedOrTaken(client, hash, fetched.bytes, {
      savePath: plan.savePath,
      paused: !skipCheck,
      skipCheck,
      ...copyLabels(source.torrent),
      contentLayoutOriginal: true,
    });
    if (added.hash !== hash) return await strayRemoved(client, hash, added.hash, added.status);
    if (added.status === 'duplicate') return { kind: 'already-in-client', hash, savePath: plan.savePath };
    const present = await readBack(client, hash);
    if (!present) return { kind: 'not-confirmed', hash };
    if (skipCheck) return { kind: 'added', hash, savePath: present.savePath, client: client.kind, checked: false, state: present.state, progress: present.progress };
    // In the client, stopped: whoever goes on now (the job's next download) may; the check-then-start is the same for everyone.
    await env.onAddedStopped?.({ hash, savePath: present.savePath, ...(target.id && { clientId: target.id }) }).catch(() => undefined);
    return await checkThenStart(client, hash, present, env.signal);
  } catch (error) {
    return addFailed(error);
  }
}

/** A copy's category and tags: the source's, and the tag every cross-seed gets. */
function copyLabels(source: ClientTorrent): Pick<AddOptions, 'category' | 'tags'> {
  return { category: source.category, tags: [...new Set([...(source.tags ?? []), CROSS_SEED_TAG])] };
}

/** An add the client refused (in its words), or a client that failed during it. */
function addFailed(error: unknown): CrossSeedResult {
  if (isClientError(error) && error.kind === 'refused') return error.clientMessage ? { kind: 'client-refused', clientMessage: error.clientMessage } : { kind: 'client-refused' };
  return clientFailed(error);
}

/**
 * The candidate's files differ by name from the client's: a renamed copy to add and rename (the
 * plan), or "not the same files" with the differences by position and, where the same bytes under
 * other names are not taken, why.
 */
async function renamedCopy(
  bytes: Uint8Array,
  candidateFiles: readonly { path: string; size: number }[],
  clientFiles: readonly ClientFile[],
  candidate: CrossSeedCandidate,
  target: CrossSeedTarget,
  sourceName?: string,
): Promise<{ plan: RenamePlan } | CrossSeedResult> {
  const pieces = await piecesHashFromTorrent(bytes);
  // The client's pieces hash is known where the candidate was found by it (the index read it from the client).
  const match = matchCopy(
    { files: candidateFiles, ...('piecesHash' in pieces && { piecesHash: pieces.piecesHash }) },
    { files: clientFiles, ...(hashOf(candidate.piecesHash) && { piecesHash: hashOf(candidate.piecesHash) }) },
  );
  const pathDifferences = compareFiles(candidateFiles, clientFiles);
  const differ = (copy?: CopyRefusal, differences = pathDifferences): CrossSeedResult => {
    const listed = differences.same ? { differences: [], more: 0 } : { differences: differences.differences, more: differences.more };
    return { kind: 'files-differ', ...listed, client: target.client.kind, ...(sourceName && { clientName: sourceName }), ...(copy && { copy }) };
  };
  switch (match.kind) {
    case 'renamed': {
      if (target.renameCopies === false) return differ({ kind: 'setting-off' });
      // What the client can rename: nothing without a rename(), whatever it says it reaches.
      const reach = target.client.rename ? target.client.renames : undefined;
      if (!reach || !stepsExpressible(match.plan.steps, reach)) return differ({ kind: 'client-cannot', client: target.client.kind, renames: reach ?? 'none' });
      return { plan: match.plan };
    }
    case 'different': {
      // Named by path where the two share names; by position where none is shared (a renamed copy's shape).
      const clientPaths = new Set(clientFiles.map((file) => file.path));
      if (candidateFiles.some((file) => clientPaths.has(file.path))) return differ();
      return differ(undefined, { same: false, differences: match.differences, more: match.more });
    }
    case 'unsafe-target':
      return differ({ kind: 'unsafe-target', path: match.path, element: match.element, reason: match.reason });
    case 'colliding-targets':
      return differ({ kind: 'colliding-targets', path: match.path });
    default:
      return differ();
  }
}

/**
 * A renamed copy: added stopped at the source's save path (through a folder pair where it goes to
 * another client), its files renamed in the client to the names on disk, then checked; started
 * only at 100 %, as every cross-seed. A rename the client refuses takes the torrent out again
 * (nothing of it was checked); the source is never touched.
 */
async function addRenamed(client: TorrentClient, hash: string, bytes: Uint8Array, copy: CopyPlan, plan: RenamePlan, env: CrossSeedEnvironment): Promise<CrossSeedResult> {
  try {
    const added = await addedOrTaken(client, hash, bytes, { savePath: copy.savePath, paused: true, skipCheck: false, ...copyLabels(copy.source.torrent), contentLayoutOriginal: true });
    if (added.hash !== hash) return await strayRemoved(client, hash, added.hash, added.status);
    if (added.status === 'duplicate') return { kind: 'already-in-client', hash, savePath: copy.savePath };
    const present = await readBack(client, hash);
    if (!present) return { kind: 'not-confirmed', hash };
    await env.onAddedStopped?.({ hash, savePath: present.savePath, rename: plan, ...(copy.target.id && { clientId: copy.target.id }) }).catch(() => undefined);
    return withRenamed(await renameThenCheck(client, hash, present, plan, env.signal), plan);
  } catch (error) {
    return addFailed(error);
  }
}

/**
 * Adds `bytes` (whose info-hash is `hash`, a torrent the client did not hold: looked for just before).
 * An add whose answer was lost (no answer in time, a dropped connection, a 5xx) may have been taken
 * all the same: the client is read back, and a torrent there now is this add's (it goes on to its
 * check as any other); none there, the add failed.
 */
async function addedOrTaken(client: TorrentClient, hash: string, bytes: Uint8Array, options: AddOptions): Promise<AddResult> {
  try {
    return await client.add(bytes, options);
  } catch (error) {
    if (!isTransientClientError(error)) throw error;
    const taken = await readBack(client, hash, LOST_ADD_READ_BACK_MS).catch(() => undefined);
    if (!taken) throw error;
    return { status: 'added', hash };
  }
}

/**
 * Cross-seeds one candidate of the page's torrent `pageHash` into the user's default client.
 * Downloads at most one .torrent, and only when the page's torrent is complete in the client and
 * the candidate is not there yet.
 */
export async function crossSeed(pageHash: string, candidate: CrossSeedCandidate, env: CrossSeedEnvironment): Promise<CrossSeedResult> {
  const page = hashOf(pageHash);
  const hash = hashOf(candidate.infoHash);
  // A candidate found by pieces hash comes with its pieces hash instead of an info-hash.
  const byPieces = !candidate.infoHash && hashOf(candidate.piecesHash) !== undefined;
  if (!page || (!hash && !byPieces)) return { kind: 'bad-request', detail: 'a hash is not 40 hex characters' };
  if (!Number.isSafeInteger(candidate.sid) || candidate.sid < 0) return { kind: 'bad-request', detail: 'the site id is not a number' };
  if (hash === page) return { kind: 'bad-request', detail: 'the candidate is the page’s own torrent' };
  const prepared = await prepare(page, hash ? [hash] : [], env);
  if (!('plan' in prepared)) return prepared;
  return crossSeedPrepared(prepared, candidate, hash, env);
}

export type CrossSeedAllEvent =
  /** First: how many will be tried, and why the others are not. */
  | {
      type: 'plan';
      total: number;
      /** False when the user has not said which sites are theirs: nothing is tried. */
      sitesChosen: boolean;
      notYourSites: number;
      alreadyInClient: number;
      /** Beyond the 20 of this click: left for the next one. */
      overLimit: number;
    }
  | { type: 'result'; index: number; total: number; candidate: CrossSeedCandidate; result: CrossSeedResult }
  /** A failure about the client or the page's torrent: nothing more can be added (the last event). */
  | { type: 'stopped'; result: CrossSeedResult };

/** Results after which no further candidate can succeed. */
const STOPS_EVERYTHING: ReadonlySet<CrossSeedResultKind> = new Set(['no-client', 'source-missing', 'source-incomplete', 'client-failed']);
/** Results after which the rest of that site's candidates in this run are skipped (not downloaded). */
/** A key the site refused is not tried again on its next torrent (each try would be one more refused call). */
const STOPS_SITE: ReadonlySet<CrossSeedResultKind> = new Set<SiteStopper>(['not-logged-in', 'site-notice', 'site-challenge', 'site-limit', 'no-permission', 'needs-api-key']);

/**
 * "Cross-seed all": the candidates on the user's sites (`heldSites`; null = not chosen yet) that
 * the client does not hold, at most `limit` (20), one after another in the given order, paced per
 * site. Yields a plan, then one result per candidate, or `stopped` when the client or the page's
 * torrent makes any further add impossible.
 */
export async function* crossSeedAll(
  pageHash: string,
  candidates: readonly CrossSeedCandidate[],
  heldSites: readonly number[] | null,
  env: CrossSeedEnvironment,
  limit = MAX_PER_CROSS_SEED_ALL,
): AsyncGenerator<CrossSeedAllEvent, void, undefined> {
  const page = hashOf(pageHash);
  if (!page) {
    yield { type: 'stopped', result: { kind: 'bad-request', detail: 'the page hash is not 40 hex characters' } };
    return;
  }
  if (heldSites === null) {
    yield { type: 'plan', total: 0, sitesChosen: false, notYourSites: candidates.length, alreadyInClient: 0, overLimit: 0 };
    return;
  }
  const held = new Set(heldSites);
  const seen = new Set<string>([page]);
  /** `hash` '': found by pieces hash (its info-hash is learnt from its .torrent). */
  const mine: (CrossSeedCandidate & { hash: string })[] = [];
  let notYourSites = 0;
  for (const candidate of candidates) {
    const hash = hashOf(candidate.infoHash);
    const place = `${candidate.sid}:${candidate.torrentId}`;
    // One place once: a place both sources named comes with its info-hash first (merged upstream).
    const key = hash ?? (!candidate.infoHash && hashOf(candidate.piecesHash) ? place : undefined);
    if (!key || seen.has(key) || seen.has(place)) continue;
    seen.add(key);
    seen.add(place);
    if (!held.has(candidate.sid)) notYourSites++;
    else mine.push({ ...candidate, hash: hash ?? '' });
  }
  const prepared = await prepare(
    page,
    mine.flatMap((candidate) => (candidate.hash ? [candidate.hash] : [])),
    env,
  );
  if (!('plan' in prepared)) {
    yield { type: 'stopped', result: prepared };
    return;
  }
  const wanted = mine.filter((candidate) => !prepared.plan.held.has(candidate.hash));
  const taken = wanted.slice(0, Math.max(0, limit));
  yield { type: 'plan', total: taken.length, sitesChosen: true, notYourSites, alreadyInClient: mine.length - wanted.length, overLimit: wanted.length - taken.length };

  const failedSites = new Map<number, SiteStopper>();
  for (const [index, { hash, ...candidate }] of taken.entries()) {
    if (env.signal?.aborted) return;
    const after = failedSites.get(candidate.sid);
    const result: CrossSeedResult = after
      ? { kind: 'site-skipped', after }
      : ((await env.beforeCandidate?.(candidate)) ?? (await crossSeedPrepared(prepared, candidate, hash || undefined, env)));
    yield { type: 'result', index, total: taken.length, candidate, result };
    if (STOPS_EVERYTHING.has(result.kind)) {
      yield { type: 'stopped', result };
      return;
    }
    // (A missing client permission was found before any candidate: here it can only be the site's.)
    if (STOPS_SITE.has(result.kind)) failedSites.set(candidate.sid, result.kind as SiteStopper);
  }
}
