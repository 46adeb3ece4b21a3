/**
 * "Cross-seed your clients" (cross-seed.html): the preview of what the user's clients can cross-seed
 * from their indexes, and the background job that does it, site by site at each site's pace, each
 * torrent into the client that holds its data (or that client's "Copies go to" client). The job's
 * state reaches the page as `job:status` (the whole view) and then once per change as `job:changed`
 * (what changed since the previous revision: features/cross-seed-job/job-change.ts); commands
 * answer nothing of it.
 */
import { z } from 'zod';
import type { FoundBy } from '../../utils/client-index/model';
import { event, message } from '../../utils/messaging/protocol';
import type { CrossSeedResult } from '../../utils/cross-seed-engine/cross-seed';
import type { ClientSummary, ClientProblem } from '../clients/clients.messages';
import { sid } from '../../utils/messaging/fields';
import type { RenamePlan } from '../../utils/cross-seed-engine';

/** Why a site cannot be downloaded from now (named in the preview, never found out later). */
export type SiteReadiness =
  | { state: 'ready' }
  /** A passkey site and the user entered none ("Your sites" → the site's passkey). */
  | { state: 'needs-passkey' }
  /** The site answered with its login page (or sent us to it): the user must log in there. */
  | { state: 'needs-login'; loginUrl?: string }
  /** The site needs an API key the user has not entered (M-Team). */
  | { state: 'needs-api-key' }
  /** The extension may not reach the site yet (its host permission). */
  | { state: 'needs-permission'; origin: string }
  /** A site Reseed Lens cannot download from yet (reason named). */
  | { state: 'unsupported'; reason: string }
  /** Could not be told now (the site did not answer); the job will try. */
  | { state: 'unknown' };

/** Torrents going from one client's data into one client (the same, or its "Copies go to" client): "NAS → Seedbox: 120". */
export interface JobRoute {
  sourceId: string;
  sourceName: string;
  targetId: string;
  targetName: string;
  count: number;
  /** Their total size in bytes. */
  bytes: number;
}

/** Why a client's finds go nowhere (features/clients/placement.ts whereCopyGoes), in the engine's words. */
export type JobRefusal = Extract<CrossSeedResult, { kind: 'read-only' | 'no-folder-pair' | 'target-missing' }>;

/** Finds of one client whose copies can go nowhere: counted and said, not queued. */
export interface JobRefused {
  clientId: string;
  clientName: string;
  kind: JobRefusal['kind'];
  count: number;
  /** The first of them, in the engine's words (a path under no folder pair is that torrent's). */
  example: JobRefusal;
}

/** One site of the preview: what the clients could add from it, and whether it can be had now. */
export interface JobSitePreview {
  sid: number;
  siteName: string;
  /** The site's home (links open it). */
  homeUrl?: string;
  /** Torrents that could be added: on this site, in none of the clients, their source complete in one, not decided before. */
  count: number;
  /** `count` by where each goes (the user's order of clients). */
  routes?: JobRoute[];
  /** Finds whose copy can go nowhere (a client that only reads without "Copies go to", a path under no folder pair): not counted in `count`. */
  refused?: number;
  /** Their total size in bytes (the source torrents' sizes). */
  bytes: number;
  /** Decided before (remembered outcomes), not counted in `count`; "Try again" forgets them. */
  decided: number;
  readiness: SiteReadiness;
  /** The site's pace: seconds between two downloads (default 5) and downloads in a rolling 24 hours (default 20, shared with one-click cross-seeds). */
  secondsBetween: number;
  perDay: number;
  /** Downloads from this site in the last 24 hours (successes and failures, one-click ones included). */
  usedToday: number;
}

export interface JobPreview {
  /** The index is off: the page says why it needs it and offers to turn it on. */
  indexOff?: boolean;
  /** No client set up, or the user has not picked their sites ("Your sites"). */
  problem?: 'no-client' | 'no-sites' | 'index-empty';
  client?: ClientSummary;
  sites: JobSitePreview[];
  /** Over every site: what each client will do ("NAS → Seedbox: 120"), in the user's order. */
  routes?: JobRoute[];
  /** Over every site: finds a client can send nowhere, by client and why. */
  refused?: JobRefused[];
  /** When the preview was computed (ms). */
  at: number;
}

/** One torrent of a site's list (preview) or of the job. */
export interface JobTorrent {
  sid: number;
  torrentId: number;
  /** '' for a torrent a site's pieces-hash API found: its info-hash is learnt from its .torrent. */
  infoHash: string;
  /** Found by pieces hash: what its .torrent must carry. */
  piecesHash?: string;
  /** Who found it: the lookup service, a site asked by pieces hash, or both. */
  foundBy?: FoundBy;
  /** Once added stopped: the info-hash the client holds it under (a torrent found by pieces hash learns it then). */
  addedHash?: string;
  /** Once added stopped as a renamed copy: its rename, for a restart to finish (finishAddedStopped). */
  rename?: RenamePlan;
  /** The client torrent holding its data. */
  sourceHash: string;
  /** The saved client holding that torrent complete (its id). Absent in a job stored before several clients: read as the first client's. */
  sourceClientId?: string;
  /** The client its copy goes to (its source's own, or its "Copies go to" client); once added, the client it was added to. */
  targetClientId?: string;
  /** A third client it waits for too: a run found its source nowhere and could not ask that client. */
  waitsFor?: string;
  name: string;
  bytes: number;
  /** The candidate's details page on its site. */
  detailsUrl?: string;
}

/** How one torrent of the job ended (the report's groups). */
export type JobOutcomeGroup = 'added' | 'left-stopped' | 'files-differ' | 'site-problem' | 'waiting-for-tomorrow' | 'other';

export interface JobOutcome extends JobTorrent {
  group: JobOutcomeGroup;
  result?: CrossSeedResult;
  at: number;
}

export type JobSiteState = 'waiting' | 'running' | 'done' | 'stopped' | 'capped';

export interface JobSiteView {
  sid: number;
  siteName: string;
  total: number;
  done: number;
  state: JobSiteState;
  /** Why the site stopped (login page, first-download notice, rate limit, challenge), in the result's terms, and where to fix it. */
  problem?: CrossSeedResult;
  openUrl?: string;
  /** A 429's Retry-After or the pace: when the next download from this site may start (ms). */
  nextAt?: number;
  /** Time left from the pacing, in ms (this site's remaining × its seconds between downloads). */
  msLeft: number;
}

/** Why one client's torrents wait: it stopped answering, or it answers listing none of its sources (just started, still loading them). */
export type JobClientPause = { kind: 'client'; problem: ClientProblem } | { kind: 'sources-missing' };

/** A client the job cross-seeds from or into, and whether its torrents wait for it ("Resume" for it). */
export interface JobClientView {
  id: string;
  name: string;
  paused?: JobClientPause;
}

export interface JobView {
  state: 'idle' | 'running' | 'paused' | 'done' | 'cancelled';
  /**
   * Why a running job paused by itself: the client stopped answering; the client answers but lists
   * none of the job's sources (`sources-missing`: a client just restarted that has not loaded its
   * torrents yet); after a restart. "Resume" is offered.
   */
  pausedBecause?: JobClientPause | { kind: 'restart' };
  /**
   * The clients of the job, in the user's order, each with why its torrents wait, if they do: a
   * client that goes down pauses only its own torrents (the job goes on with the others', and
   * pauses whole only once nothing else is left).
   */
  clients?: JobClientView[];
  startedAt?: number;
  total: number;
  done: number;
  sites: JobSiteView[];
  /** The report so far, newest last. */
  outcomes: JobOutcome[];
  /** Increases with every change (the newest wins on the page). */
  revision: number;
}

/** Switches of the page (stored with the settings). */
export interface JobSwitches {
  /** "Tell me when there is something new to cross-seed" (off by default). */
  notifyNewFinds: boolean;
  /** New finds start by themselves under the same caps (off by default). */
  autoStartNewFinds: boolean;
}

const siteIds = z.array(sid).max(2000);

export const crossSeedJobMessages = {
  /** "Find what I can cross-seed": the preview, from the index alone (and one request per site to tell readiness). */
  'job:preview': message<JobPreview>()('extension', z.object({})),
  /** One site's torrents of the preview (a page of them). */
  'job:site-torrents': message<{ torrents: JobTorrent[]; total: number }>()(
    'extension',
    z.object({ sid, offset: z.number().int().nonnegative().max(1_000_000).default(0), limit: z.number().int().min(1).max(500).default(100) }),
  ),
  /** A site's pace ("Seconds between downloads", "Downloads per day"). */
  'job:site-pace': message<JobPreview>()(
    'extension',
    z.object({ sid, secondsBetween: z.number().int().min(0).max(3600), perDay: z.number().int().min(0).max(1000) }),
  ),
  /** "Start cross-seeding" the ticked sites. Command: the job's state comes as `job:changed`. */
  'job:start': message<void>()('extension', z.object({ sids: siteIds.min(1) })),
  'job:pause': message<void>()('extension', z.object({})),
  /** "Resume": the job and every client's torrents; with `clientId`, that client's torrents only. */
  'job:resume': message<void>()('extension', z.object({ clientId: z.string().min(1).max(200).optional() })),
  'job:cancel': message<void>()('extension', z.object({})),
  /** The job as it is now (query). */
  'job:status': message<JobView>()('extension', z.object({})),
  /** "Try again": forget the remembered outcomes of these sites (all when absent), so a next run tries them. */
  'job:try-again': message<JobPreview>()('extension', z.object({ sids: siteIds.optional() })),
  'job:switches': message<JobSwitches>()(
    'extension',
    z.object({ notifyNewFinds: z.boolean().optional(), autoStartNewFinds: z.boolean().optional() }),
  ),
};

/**
 * One change of the job (`job:changed`): its header as it is now, the sites whose view changed, the
 * outcomes added. It follows revision `since`: a page holding another revision missed one and asks
 * `job:status` (applyJobChange in job-change.ts). `whole`: sites and outcomes are the whole job (a
 * new job): it replaces whatever the page held.
 */
export interface JobChange extends Omit<JobView, 'sites' | 'outcomes'> {
  since: number;
  whole?: true;
  /** With `whole`, every site; else only those whose view changed. */
  sites: JobSiteView[];
  /** With `whole`, every outcome; else those added since `since`, newest last. */
  outcomes: JobOutcome[];
  /** How many outcomes the job has with this change (a page holding fewer before it missed some). */
  outcomeCount: number;
}

export interface JobChanged {
  type: 'job:changed';
  change: JobChange;
}

export const crossSeedJobEvents = {
  'job:changed': event<JobChanged>()('extension'),
};
