/**
 * Feature: "Cross-seed" and "Cross-seed all" (issue #9), the only way a cross-seed starts. Every
 * cross-seed goes through `CrossSeeds.run` (or, for "Cross-seed all", through the same runs under
 * way, environment and record): one de-duplication of identical requests at once, one pace per
 * site (the engine's sitePace), one site fetch, one record of outcomes where there is a tab.
 *
 * Its callers, all on the extension's own pages: the popup's (and the panel's confirmation
 * window's) `crossseed:one` and the popup's `crossseed:all` name a candidate; the candidate itself
 * — its info-hash and the page hash it answers — is taken from the tab's current view, never from
 * the message. The panel's `page:cross-seed` only opens that confirmation (issue 15: a page can
 * steer a click onto its panel). A list row's "Cross-seed" (features/client-index/list-pages.ts)
 * takes its candidate from the index. The engine (utils/cross-seed-engine) downloads one .torrent
 * per candidate, paced per site.
 *
 * One run per candidate, source and client at a time: a second click while it runs (from the
 * popup, the panel, a list row, or a "Cross-seed all" that will reach it) joins it. Outcomes shown
 * in a tab are kept per tab and page (and mirrored to storage.session, so a reopened popup shows
 * them after the service worker slept) and announced: to the popup whole, to the tab's panel only
 * as sentences it shows as generated content.
 */
import { browser } from 'wxt/browser';
import { crossSeed, crossSeedAll, finishAddedStopped, MAX_PER_CROSS_SEED_ALL, sitePace, type CrossSeedCandidate, type CrossSeedEnvironment, type CrossSeedResult, type RenamePlan } from '../../utils/cross-seed-engine';
import { crossSeedText } from '../../utils/cross-seed-engine/result-text';
import { t } from '../../utils/i18n';
import type { CandidateView, TabView } from '../lookup/lookup.messages';
import type { CrossSeedAllView, CrossSeedItem, CrossSeedsChanged, PageCrossSeed, PageCrossSeedsChanged, TabCrossSeeds } from './cross-seed.messages';
import type { Clients } from '../clients/clients.feature';
import { ConfirmWindows } from './confirm-windows';
import { crossSeedEnvironment } from './environment';
import type { Shared } from '../context';
import type { PageOrigin } from '../../utils/messaging/protocol';
import type { Handlers } from '../../utils/messaging/protocol';
import type { crossSeedMessages } from './cross-seed.messages';
import { announceToPages, announceToTab } from '../announce';
import { tabCrossSeedItems } from './cross-seed.storage';
import { originOf, sameOrigin } from '../../utils/url';
import { downloadSource } from '../../utils/cross-seed-engine/source';
import { SiteBudget } from './site-budget';

export interface CrossSeedOptions {
  /** The fetch .torrent files are downloaded with (tests: a cookie jar through the router); the browser's own when absent. */
  siteFetch?: typeof fetch;
  /** Where the panel's clicks open their confirmation (tests: a recorder); browser windows when absent. */
  confirmations?: ConfirmWindows;
}

/** One cross-seed, wherever it was asked from: what the one way in (CrossSeeds.run) takes. */
export interface CrossSeedRequest {
  /** The torrent in the client the candidate is a copy of: a page's own hash, a list row's torrent in the client. */
  sourceHash: string;
  candidate: CrossSeedCandidate;
  /** The candidate's site as the user knows it, kept with the outcome. */
  siteName: string;
  /**
   * The tab and page whose record keeps and announces the outcome (the popup's list and the
   * panel's sentences). Absent for a caller that shows the outcome itself: a list row (its answer
   * goes to the popup alone, as a list page hears nothing of the index) or a job with no tab.
   */
  tab?: { tabId: number; url: string };
  /**
   * Called (and awaited) once, just before the run's first request to the candidate's site leaves
   * (after the daily cap was checked and the download counted): the job marks its item as
   * downloaded there, so a worker stopped after it never downloads it again.
   */
  onSiteRequest?: () => Promise<void>;
  /**
   * Called (and awaited) once the torrent is in the client STOPPED (downloaded, info-hash and files
   * checked, the add confirmed), before the client's check and the start at 100 % that end the run:
   * the job records it and lets its site go on. The run's outcome is still the whole result.
   */
  onAddedStopped?: (added: { hash: string; savePath: string; rename?: RenamePlan; clientId?: string }) => Promise<void>;
}

/** What one run gave: its result, and the id of the client it is in now (added, left stopped, or held already), if any. */
export interface CrossSeedOutcome {
  result: CrossSeedResult;
  clientId?: string;
}

/** The client a result says the torrent is in now: added to, left stopped in, or found held by. */
export function clientIdOf(result: CrossSeedResult): string | undefined {
  return result.kind === 'added' || result.kind === 'left-stopped' || result.kind === 'already-in-client' ? result.clientId : undefined;
}

/** One candidate answering one source: what runs are de-duplicated by (which client it goes to is the placement's, decided in the run). */
function runKey(sourceHash: string, candidate: Pick<CrossSeedCandidate, 'sid' | 'torrentId' | 'infoHash'>): string {
  return `${sourceHash}:${candidate.sid}:${candidate.torrentId}:${candidate.infoHash}`;
}

/** One candidate answering one page hash: what a tab's record keeps one item for. */
function itemKey(item: Pick<CrossSeedItem, 'forHash' | 'sid' | 'torrentId' | 'infoHash'>): string {
  return `${item.forHash}:${item.sid}:${item.torrentId}:${item.infoHash}`;
}

function outcomeOf(result: CrossSeedResult): CrossSeedOutcome {
  const clientId = clientIdOf(result);
  return clientId ? { result, clientId } : { result };
}

/** In the client now: added, or found already there. */
function inClient(result: CrossSeedResult | undefined): boolean {
  return result?.kind === 'added' || result?.kind === 'already-in-client';
}

/** A failure no candidate survives, as the engine's own error values (never a thrown error to the UI). */
function unexpected(error: unknown): CrossSeedResult {
  return { kind: 'bad-request', detail: error instanceof Error ? error.message : String(error) };
}

/** The panel's share: sentences only (the popup gets the result values). */
export function pageOutcomes(state: TabCrossSeeds): PageCrossSeed[] {
  return state.items.map((item) => ({
    sid: item.sid,
    torrentId: item.torrentId,
    running: item.state === 'running',
    ok: inClient(item.result),
    lines: item.result ? crossSeedText(item.result, item.siteName) : [t('crossSeedWorking')],
  }));
}

export class CrossSeeds {
  private readonly tabs = new Map<number, TabCrossSeeds>();
  /** Runs under way, by runKey: each resolves with its outcome, or undefined when it was not tried (a "Cross-seed all" that stopped first). */
  private readonly running = new Map<string, Promise<CrossSeedOutcome | undefined>>();
  /** "Cross-seed all" under way, by tab. */
  private readonly allRuns = new Map<number, Promise<TabCrossSeeds>>();
  /** Writes of one tab's state, in order. */
  private writes: Promise<unknown> = Promise.resolve();

  /** The panel's confirmations, one window per tab at most. */
  readonly confirmations: ConfirmWindows;
  /** Each site's pace and rolling 24-hour count of downloads, shared by every cross-seed. */
  readonly budget: SiteBudget;

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly options: CrossSeedOptions = {},
  ) {
    this.confirmations = options.confirmations ?? new ConfirmWindows();
    this.budget = new SiteBudget(shared.now);
  }

  readonly handlers: Handlers<typeof crossSeedMessages> = {
    'crossseed:get': (message) => this.state(message.tabId),
    // Commands: the tab's cross-seeds reach the pages once, as `crossseed:changed`.
    'crossseed:one': async (message) => {
      await this.one(message.tabId, message);
    },
    'crossseed:all': async (message) => {
      await this.all(message.tabId);
    },
    // From the tab's content script (a trusted click of the panel's button).
    'page:cross-seed': (message, from) => this.fromPage(from, message),
  };


  /** The tab's cross-seeds for the page it shows now (none once it moved on). */
  async state(tabId: number): Promise<TabCrossSeeds> {
    const view = await this.shared.tabs.get(tabId);
    const known = await this.load(tabId);
    if (!known || !view?.url || known.url !== view.url) return { tabId, url: view?.url, items: [] };
    return known;
  }

  /** A new document in the tab (or the tab closed): its outcomes (and its confirmation) go with the old page. */
  async forget(tabId: number): Promise<void> {
    this.tabs.delete(tabId);
    await this.confirmations.close(tabId).catch(() => undefined);
    await tabCrossSeedItems.remove(tabId).catch(() => undefined);
  }

  // ----------------------------------------------------------------------------------------------
  // One candidate

  /** The popup's "Cross-seed": the candidate as the tab's view holds it, with this very info-hash. */
  async one(tabId: number, wanted: { sid: number; torrentId: number; infoHash: string }): Promise<TabCrossSeeds> {
    const view = await this.shared.tabs.get(tabId);
    const candidate = view && this.candidateIn(view, (entry) => entry.sid === wanted.sid && entry.torrentId === wanted.torrentId && entry.infoHash === wanted.infoHash);
    if (!view?.url || !candidate) return this.state(tabId);
    const { sid, torrentId, infoHash, piecesHash } = candidate;
    await this.run({ sourceHash: candidate.forHash, candidate: { sid, torrentId, infoHash, ...(piecesHash && { piecesHash }) }, siteName: candidate.siteName, tab: { tabId, url: view.url } });
    return this.state(tabId);
  }

  /**
   * The panel's "Cross-seed": never a cross-seed itself (issue 15). The page can place, hide or
   * cover the panel, so its click only opens the extension's own confirmation for that candidate
   * (confirm-windows.ts), whose click sends `crossseed:one` as the popup does. Opened for any
   * candidate the panel shows, whatever the client or the user's sites: the page learns nothing
   * from it, and it gets no answer.
   */
  async fromPage(from: PageOrigin, wanted: { sid: number; torrentId: number }): Promise<undefined> {
    const view = await this.shared.tabs.get(from.tabId);
    // The view of this tab's page (a single-page site may have moved on within its origin).
    if (!view?.url || !sameOrigin(view.url, from.url)) return undefined;
    // Only a candidate the page was shown: one only a site asked by pieces hash found is the popup's
    // (a window opening for a guessed place would tell the page what the client holds).
    const candidate = this.candidateIn(view, (entry) => entry.sid === wanted.sid && entry.torrentId === wanted.torrentId && entry.foundBy !== 'pieces');
    if (candidate) await this.confirmations.show(from.tabId, candidate).catch(() => undefined);
    return undefined;
  }

  /** A candidate of the view that answers one of the page's own hashes. */
  private candidateIn(view: TabView, match: (candidate: CandidateView) => boolean): CandidateView | undefined {
    const pageHashes = new Set(view.hashes.map((found) => found.hash));
    return view.candidates.find((candidate) => match(candidate) && pageHashes.has(candidate.forHash) && candidate.infoHash !== candidate.forHash);
  }

  /**
   * The one way a single cross-seed runs, whoever asks (the popup, the panel's confirmation, a list
   * row; a whole-client job with no tab): joined with an identical run under way, downloaded through
   * the background's one pace per site and site fetch, and kept in the tab's record when it has one.
   * The caller has checked the candidate (from the tab's view, or from the index).
   */
  async run(request: CrossSeedRequest): Promise<CrossSeedOutcome> {
    const outcome = this.runFor(runKey(request.sourceHash, request.candidate), request).then(async (done) => {
      await this.tellLanded(request.candidate, done);
      return done;
    });
    if (!request.tab) return outcome;
    const { tabId, url } = request.tab;
    const { sid, torrentId, infoHash } = request.candidate;
    const item: CrossSeedItem = { sid, torrentId, infoHash, forHash: request.sourceHash, siteName: request.siteName, state: 'running' };
    await this.record(tabId, url, item);
    const done = await outcome;
    await this.record(tabId, url, { ...item, state: 'done', result: done.result });
    return done;
  }

  /**
   * Told of every candidate now in the client (added, left stopped, or found there already), with
   * its place: the client index notes it at once, so its row and its place read "in your client"
   * before the next sync (a candidate found by pieces hash has its info-hash only now).
   */
  readonly landed = new Set<(landed: { candidate: CrossSeedCandidate; hash: string; clientId: string }) => Promise<void>>();

  private async tellLanded(candidate: CrossSeedCandidate, { result, clientId }: CrossSeedOutcome): Promise<void> {
    if (!clientId || (result.kind !== 'added' && result.kind !== 'left-stopped' && result.kind !== 'already-in-client')) return;
    for (const listener of this.landed) await listener({ candidate, hash: result.hash, clientId }).catch(() => undefined);
  }

  /**
   * The run for this key: the one under way if any (a click while it runs, or while it waits in a
   * "Cross-seed all", joins it), else a new one. Decided without waiting, so two clicks in the
   * same moment cannot both start one.
   */
  private runFor(key: string, request: CrossSeedRequest): Promise<CrossSeedOutcome> {
    const existing = this.running.get(key);
    // A "Cross-seed all" that stopped before this candidate hands it back untried (undefined).
    if (existing) return existing.then((outcome) => outcome ?? this.runFor(key, request));
    const sid = request.candidate.sid;
    const run = this.budget
      .capReached(sid)
      .then(async (cap): Promise<CrossSeedResult> => {
        // The site's "Downloads per day" reached (a rolling 24 hours): not tried.
        if (cap.reached) return { kind: 'daily-cap', perDay: cap.perDay };
        const env = await this.environment();
        const base = env.fetch ?? globalThis.fetch;
        let counted: Promise<void> | undefined;
        let loggedAt = 0;
        // Every request of this run goes to the candidate's site: the first counts one download, before it leaves;
        // each answer moves the download's time to when it came (the pace runs from there: site-budget.ts `answered`).
        const fetch: typeof globalThis.fetch = async (input, init) => {
          counted ??= this.budget.record(sid).then(async (at) => {
            loggedAt = at;
            await request.onSiteRequest?.();
          });
          await counted;
          try {
            return await base(input, init);
          } finally {
            loggedAt = await this.budget.answered(sid, loggedAt);
          }
        };
        const onAddedStopped = request.onAddedStopped;
        return crossSeed(request.sourceHash, request.candidate, { ...env, fetch, ...(onAddedStopped && { onAddedStopped: (added: { hash: string; savePath: string; rename?: RenamePlan; clientId?: string }) => onAddedStopped(added) }) });
      })
      .catch(unexpected)
      .then((result): CrossSeedOutcome => outcomeOf(result));
    this.running.set(key, run);
    void run.then(() => {
      if (this.running.get(key) === run) this.running.delete(key);
    });
    return run;
  }

  /**
   * A torrent a cross-seed added stopped in a background that has since stopped (the job keeps it
   * as checking): its check-then-start finished in the client it was added to (`clientId`; kept
   * from before several clients: the first that holds it). Downloads and adds nothing.
   */
  async finishAddedStopped(hash: string, rename?: RenamePlan, clientId?: string): Promise<CrossSeedResult> {
    const handles = await this.clients.handles();
    if (!handles.length) return { kind: 'no-client' };
    let handle = clientId ? handles.find((entry) => entry.config.id === clientId) : undefined;
    if (!handle && !clientId) {
      for (const entry of handles) {
        if ((await entry.client.lookup([hash]).catch(() => undefined))?.has(hash)) {
          handle = entry;
          break;
        }
      }
      handle ??= handles[0];
    }
    if (!handle) return { kind: 'not-confirmed', hash };
    const named = { clientName: handle.config.name, clientId: handle.config.id };
    const result = await finishAddedStopped(handle.client, hash, undefined, rename).catch(unexpected);
    return result.kind === 'added' || result.kind === 'left-stopped' || result.kind === 'client-failed' || result.kind === 'client-refused' ? { ...result, ...named } : result;
  }

  // ----------------------------------------------------------------------------------------------
  // Cross-seed all

  /** The popup's "Cross-seed all"; a second click while it runs joins it. */
  all(tabId: number): Promise<TabCrossSeeds> {
    const known = this.allRuns.get(tabId);
    if (known) return known;
    const run = this.runAll(tabId).finally(() => this.allRuns.delete(tabId));
    this.allRuns.set(tabId, run);
    return run;
  }

  private async runAll(tabId: number): Promise<TabCrossSeeds> {
    const view = await this.shared.tabs.get(tabId);
    if (!view?.url) return this.state(tabId);
    const url = view.url;
    const before = await this.state(tabId);
    const settled = new Set(before.items.filter((item) => item.state === 'running' || inClient(item.result)).map(itemKey));
    // Not again what runs now or is in the client already after a click on this page.
    const candidates = view.candidates.filter(
      (candidate) => view.hashes.some((found) => found.hash === candidate.forHash) && !settled.has(itemKey(candidate)) && !this.running.has(runKey(candidate.forHash, candidate)),
    );
    // Each candidate this run may try has a place in `running` (from this very turn), so a click on it meanwhile joins it.
    const waiting = new Map<string, (outcome: CrossSeedOutcome | undefined) => void>();
    for (const candidate of candidates) {
      const key = runKey(candidate.forHash, candidate);
      if (waiting.has(key)) continue;
      const promise = new Promise<CrossSeedOutcome | undefined>((resolve) => waiting.set(key, resolve));
      this.running.set(key, promise);
      void promise.then(() => {
        if (this.running.get(key) === promise) this.running.delete(key);
      });
    }
    const settle = (key: string, result: CrossSeedResult | undefined) => {
      waiting.get(key)?.(result && outcomeOf(result));
      waiting.delete(key);
    };
    const progress: CrossSeedAllView = { state: 'running', done: 0, added: 0, sitesChosen: true, notYourSites: 0, alreadyInClient: 0, overLimit: 0, limit: MAX_PER_CROSS_SEED_ALL };

    try {
      await this.recordAll(tabId, url, progress);
      const settings = await this.shared.settings.get();
      const env = await this.countedEnvironment(await this.environment(), candidates);
      // A site whose "Downloads per day" is reached gets no request: its candidates say so, untried.
      for (const sid of new Set(candidates.map((candidate) => candidate.sid))) {
        const cap = await this.budget.capReached(sid);
        if (!cap.reached) continue;
        for (const candidate of candidates.splice(0, candidates.length).filter((entry) => {
          if (entry.sid !== sid) return true;
          settle(runKey(entry.forHash, entry), { kind: 'daily-cap', perDay: cap.perDay });
          void this.record(tabId, url, { sid: entry.sid, torrentId: entry.torrentId, infoHash: entry.infoHash, forHash: entry.forHash, siteName: entry.siteName, state: 'done', result: { kind: 'daily-cap', perDay: cap.perDay } }, false);
          return false;
        })) candidates.push(candidate);
      }
      // One page hash at a time (a details page has one); at most 20 downloads for the whole click.
      const byHash = new Map<string, CandidateView[]>();
      for (const candidate of candidates) byHash.set(candidate.forHash, [...(byHash.get(candidate.forHash) ?? []), candidate]);
      let left = MAX_PER_CROSS_SEED_ALL;
      for (const [pageHash, group] of byHash) {
        const byKey = new Map(group.map((candidate) => [runKey(pageHash, candidate), candidate]));
        const refs: CrossSeedCandidate[] = group.map(({ sid, torrentId, infoHash, piecesHash }) => ({ sid, torrentId, infoHash, ...(piecesHash && { piecesHash }) }));
        for await (const event of crossSeedAll(pageHash, refs, settings.heldSites, env, left)) {
          if (event.type === 'plan') {
            progress.total = (progress.total ?? 0) + event.total;
            progress.sitesChosen = event.sitesChosen;
            progress.notYourSites += event.notYourSites;
            progress.alreadyInClient += event.alreadyInClient;
            progress.overLimit += event.overLimit;
            left -= event.total;
          } else if (event.type === 'result') {
            const key = runKey(pageHash, event.candidate);
            const candidate = byKey.get(key);
            progress.done += 1;
            if (event.result.kind === 'added') progress.added += 1;
            settle(key, event.result);
            // As a single cross-seed's: the index notes at once what is in the client now.
            await this.tellLanded(event.candidate, outcomeOf(event.result));
            if (candidate) {
              await this.record(tabId, url, { ...event.candidate, forHash: pageHash, siteName: candidate.siteName, state: 'done', result: event.result }, false);
            }
          } else progress.stopped = event.result;
          await this.recordAll(tabId, url, progress);
        }
        if (progress.stopped || !progress.sitesChosen) break;
      }
    } catch (error) {
      progress.stopped = unexpected(error);
    } finally {
      // What this run did not reach is free again for a click of its own.
      for (const key of [...waiting.keys()]) settle(key, undefined);
    }
    progress.state = 'done';
    await this.recordAll(tabId, url, progress);
    return this.state(tabId);
  }

  // ----------------------------------------------------------------------------------------------

  /**
   * "Cross-seed all"'s environment: before each candidate its site's daily cap is checked (reached:
   * that candidate is `daily-cap`, its site gets no request), and its first request to the site
   * counts one download before it leaves, as CrossSeeds.run counts one per run. Counted per
   * candidate, not per request: a details page and its download are one download, and a cap
   * reached mid-run is told as the cap (it used to throw from the fetch, which read as "site unreachable").
   */
  private async countedEnvironment(env: CrossSeedEnvironment, candidates: readonly CrossSeedCandidate[]): Promise<CrossSeedEnvironment> {
    const sidOf = new Map<string, number>();
    for (const candidate of candidates) {
      const source = downloadSource(candidate, env.sites);
      if (source.way !== 'unsupported') sidOf.set(source.origin, candidate.sid);
    }
    /** The site of the candidate being tried whose download is not counted yet. */
    let uncounted: number | undefined;
    const beforeCandidate = async (candidate: CrossSeedCandidate): Promise<CrossSeedResult | undefined> => {
      uncounted = undefined;
      const cap = await this.budget.capReached(candidate.sid);
      if (cap.reached) return { kind: 'daily-cap', perDay: cap.perDay };
      uncounted = candidate.sid;
      return undefined;
    };
    const base = env.fetch ?? globalThis.fetch;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const origin = originOf(url);
      const sid = origin === undefined ? undefined : sidOf.get(origin);
      if (sid !== undefined && sid === uncounted) {
        uncounted = undefined;
        await this.budget.record(sid);
      }
      return base(input, init);
    };
    return { ...env, fetch, beforeCandidate };
  }

  /** The environment a cross-seed of the job (or a preview's light request) runs in: every client, the one pace, the site fetch. */
  siteEnvironment(): Promise<CrossSeedEnvironment> {
    return this.environment();
  }

  /** Every cross-seed's environment: every client (placement.ts), the background's one pace per site, the site fetch. */
  private async environment(): Promise<CrossSeedEnvironment> {
    const env: CrossSeedEnvironment = { ...(await crossSeedEnvironment(this.shared, this.clients)), pace: sitePace };
    return this.options.siteFetch ? { ...env, fetch: this.options.siteFetch } : env;
  }

  private async load(tabId: number): Promise<TabCrossSeeds | undefined> {
    const known = this.tabs.get(tabId);
    if (known) return known;
    try {
      const stored = await tabCrossSeedItems.get(tabId);
      if (!stored || stored.tabId !== tabId) return undefined;
      // Kept by a service worker that has since stopped: what was running then ran no further.
      const items = stored.items.filter((item) => item.state === 'done');
      const restored: TabCrossSeeds = { ...stored, items, all: stored.all?.state === 'running' ? undefined : stored.all };
      this.tabs.set(tabId, restored);
      return restored;
    } catch {
      return undefined;
    }
  }

  /** The tab's state for `url`: what it held for that page, or a fresh one. */
  private async current(tabId: number, url: string): Promise<TabCrossSeeds> {
    const known = await this.load(tabId);
    return known?.url === url ? known : { tabId, url, items: [] };
  }

  /** Puts one candidate's item in the tab's state (replacing its earlier one) and announces it. */
  private record(tabId: number, url: string, item: CrossSeedItem, announce = true): Promise<void> {
    return this.write(tabId, url, (state) => ({ ...state, items: [...state.items.filter((other) => itemKey(other) !== itemKey(item)), item] }), announce);
  }

  private recordAll(tabId: number, url: string, all: CrossSeedAllView): Promise<void> {
    return this.write(tabId, url, (state) => ({ ...state, all: { ...all } }));
  }

  private write(tabId: number, url: string, change: (state: TabCrossSeeds) => TabCrossSeeds, announce = true): Promise<void> {
    const run = this.writes.then(async () => {
      // The tab moved on to another page meanwhile: the outcome belongs to a page no longer shown.
      const view = await this.shared.tabs.get(tabId);
      if (view?.url !== url) return;
      const next = change(await this.current(tabId, url));
      this.tabs.set(tabId, next);
      await tabCrossSeedItems.set(tabId, next).catch(() => undefined);
      if (announce) await this.announce(next);
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** The popup hears everything; the tab's panel only the sentences (see pageOutcomes). Nobody listening is fine. */
  private async announce(state: TabCrossSeeds): Promise<void> {
    const toPopup: CrossSeedsChanged = { type: 'crossseed:changed', crossSeeds: state };
    const toPage: PageCrossSeedsChanged = { type: 'crossseed:changed', outcomes: pageOutcomes(state) };
    await Promise.all([announceToPages(toPopup), announceToTab(state.tabId, toPage)]);
  }
}
