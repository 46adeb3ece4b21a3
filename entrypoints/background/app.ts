/**
 * The background, assembled: the shared parts (settings, tab views, site lists, the lookup) and
 * one object per feature, each registered in one line below and answering the messages it declared
 * in its own `features/<feature>/<feature>.messages.ts`. entrypoints/background/index.ts registers
 * the browser's listeners; tests build this directly.
 */
import { browser } from 'wxt/browser';
import { Lookup } from '../../utils/lookup/lookup';
import { ServiceError } from '../../utils/iyuu/service-errors';
import type { ServiceConfig } from '../../utils/iyuu/operations';
import { Account } from '../../features/account/account.feature';
import { ClientIndexFeature, INDEX_JOB } from '../../features/client-index/client-index.feature';
import { Clients } from '../../features/clients/clients.feature';
import { CrossSeeds } from '../../features/cross-seed/cross-seed.feature';
import { CrossSeedJob, JOB_ALARM, JOB_ALARM_MINUTES } from '../../features/cross-seed-job/cross-seed-job.feature';
import { GetStarted } from '../../features/get-started/get-started.feature';
import { CustomSites } from '../../features/sites/sites.feature';
import { PageViews } from '../../features/lookup/lookup.feature';
import { PiecesHash } from '../../features/pieces-hash/pieces-hash.feature';
import { Preferences } from '../../features/settings/settings.feature';
import { SettingsStore } from '../../features/settings/settings-store';
import type { BackgroundOptions, Feature, RepeatedJob, Shared } from '../../features/context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { Protocol } from '../../features/protocol';
import { SiteDirectory } from '../../features/sites/site-directory';
import { TabViews } from '../../features/tabs';

export type { BackgroundOptions } from '../../features/context';

/**
 * storage.local holds the token and client passwords: only the extension's own pages and the
 * background may read it, not a content script (whose renderer a tracker page shares). Chromium
 * supports this for storage.local; Firefox only for storage.session, so there it stays as it is.
 */
export async function restrictStorage(): Promise<boolean> {
  const local = browser.storage.local as unknown as { setAccessLevel?: (options: { accessLevel: string }) => Promise<void> };
  if (typeof local.setAccessLevel !== 'function') return false;
  return local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' }).then(
    () => true,
    () => false,
  );
}

/** How often old answers are pruned (the cache also keeps its bound as it writes). */
export const PRUNE_EVERY_MINUTES = 6 * 60;

export class BackgroundApp implements Shared {
  // A full storage.local never blocks the settings: the answer cache makes room first, then the
  // indexes of clients other than the default one.
  readonly settings = new SettingsStore(async () => {
    await this.lookup.cache.shrink();
    await this.index.indexes.makeRoom().catch(() => undefined);
  });
  readonly tabs = new TabViews();
  readonly directory: SiteDirectory;
  readonly lookup: Lookup;
  readonly now: () => number;

  readonly pages: PageViews;
  readonly account: Account;
  readonly preferences: Preferences;
  readonly customSites: CustomSites;
  readonly clients: Clients;
  readonly crossSeeds: CrossSeeds;
  readonly crossSeedJob: CrossSeedJob;
  readonly index: ClientIndexFeature;
  readonly piecesHash: PiecesHash;
  readonly getStarted: GetStarted;

  /** Every message's handler, from the features registered below (the router checks the message first). */
  readonly handlers: Handlers<Protocol>;
  private readonly features: Feature[] = [];
  /** Jobs on browser alarms, by alarm name (entrypoints/background/index.ts creates and routes them). */
  readonly repeatedJobs: Record<string, RepeatedJob>;

  constructor(options: BackgroundOptions = {}) {
    this.now = options.now ?? Date.now;
    this.directory = new SiteDirectory(this.now);
    this.lookup = new Lookup({
      settings: () => this.settings.get(),
      sitesToReport: (config) => this.sitesToReport(config),
      version: options.version,
      fetch: options.fetch,
      now: options.now,
      minIntervalMs: options.minIntervalMs,
      maxCallsPerMinute: options.maxCallsPerMinute,
      batchWindowMs: options.batchWindowMs,
      retryDelaysMs: options.retryDelaysMs,
      timeoutMs: options.timeoutMs,
      maxCachedAnswers: options.maxCachedAnswers,
    });
    this.settings.onChange(async (next, previous) => {
      // What the service knows of us (site report, clock, rate limit) belongs to one address and token.
      if (next.baseUrl !== previous.baseUrl || next.token !== previous.token || next.heldSites?.join() !== previous.heldSites?.join()) {
        await this.lookup.forgetServiceState();
      }
      if (next.baseUrl !== previous.baseUrl) await this.directory.forget();
    });

    // Each feature registers itself in one line: its messages' handlers (and its jobs) join the background's.
    this.pages = this.register(new PageViews(this));
    this.account = this.register(new Account(this));
    this.clients = this.register(new Clients(this, { fetch: options.clientFetch, timeoutMs: options.clientTimeoutMs }));
    this.preferences = this.register(new Preferences(this, this.clients));
    this.crossSeeds = this.register(new CrossSeeds(this, this.clients, { siteFetch: options.siteFetch }));
    this.piecesHash = this.register(new PiecesHash(this, { fetch: options.siteFetch, paceMs: options.piecesPaceMs }));
    this.index = this.register(new ClientIndexFeature(this, this.clients, this.crossSeeds, { pauseMs: options.indexPauseMs, batchSize: options.indexBatchSize, pieces: this.piecesHash }));
    this.pages.piecesPlaces = (hashes) => this.index.piecesPlaces(hashes);
    this.customSites = this.register(new CustomSites(this));
    this.crossSeedJob = this.register(new CrossSeedJob(this, this.clients, this.crossSeeds, this.index));
    this.getStarted = this.register(new GetStarted(this, this.clients));
    this.handlers = Object.assign({}, ...this.features.map((feature) => feature.handlers)) as Handlers<Protocol>;
    this.repeatedJobs = {
      'prune-answers': { periodInMinutes: PRUNE_EVERY_MINUTES, run: () => this.lookup.cache.prune() },
      [INDEX_JOB]: this.index.repeatedJob,
      // Wakes a stopped worker for work a restart left running: a cross-seed job (its paced sites), a sync of the index.
      [JOB_ALARM]: {
        periodInMinutes: JOB_ALARM_MINUTES,
        run: async () => {
          await this.crossSeedJob.wake();
          await this.index.wake();
        },
      },
    };
  }

  private register<F extends Feature>(feature: F): F {
    this.features.push(feature);
    return feature;
  }

  /**
   * At every start: storage closed to content scripts, the user's own sites get their content
   * script again, the client addresses their session rules; old answers are pruned.
   */
  async start(): Promise<void> {
    // The client rules are queued first, in this very turn: a message that woke the background is
    // handled after it, and a client call waits for them (Clients.defaultClient).
    const clientRules = this.clients.start();
    void this.index.warm();
    await restrictStorage();
    await Promise.all([clientRules, this.customSites.start()]);
    await this.lookup.cache.prune().catch(() => undefined);
    // A cross-seed job that was running when the worker or the browser stopped goes on where it was.
    await this.crossSeedJob.wake().catch(() => undefined);
    // So does a sync of the client index (a first sync of a large client takes minutes).
    await this.index.wake().catch(() => undefined);
  }

  /** The sids reported for sid_sha1: the user's own sites once picked, else every listed site. */
  private async sitesToReport(config: ServiceConfig): Promise<number[]> {
    const settings = await this.settings.get();
    if (settings.heldSites?.length) return settings.heldSites;
    const { value, error } = await this.directory.sites.get(config.baseUrl, (operation) => this.lookup.call(operation, settings));
    if (!value?.length) {
      throw new ServiceError(error ?? { kind: 'bad-answer', detail: 'the service listed no sites to report' });
    }
    return value.map((site) => site.id);
  }
}
