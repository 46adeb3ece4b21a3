/**
 * The service's own site list (names, hosts, link templates), kept for a day in storage.local.
 * When it cannot be had, links fall back to the bundled catalog (utils/sites).
 */
import { getRecommendedSites, getSites, type ServiceConfig } from '../../utils/iyuu/operations';
import type { RecommendedSite, ServiceSite } from '../../utils/iyuu/answer-schemas';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';
import { ServiceError, toFailure } from '../../utils/iyuu/service-errors';
import { renumberings, renumberingText } from '../../utils/sites/pinning';
import type { StoredItem } from '../../utils/stored-item';
import { recommendedSitesItem, siteListItem, type CachedListRecord as Stored } from './sites.storage';

export const SITE_LIST_FRESH_MS = 24 * 60 * 60 * 1000;

type Caller = <T>(operation: (config: ServiceConfig) => Promise<T>) => Promise<T>;

/** A list from the service, cached per service origin, refreshed when older than SITE_LIST_FRESH_MS. */
class CachedList<T> {
  private memory: Stored<T> | undefined;
  private pending: Promise<T> | undefined;

  constructor(
    private readonly item: StoredItem<Stored<T>, Stored<T> | undefined>,
    private readonly load: (config: ServiceConfig) => Promise<T>,
    private readonly now: () => number,
    /** An answer that fails this is not kept: it would stand in for the real list for a whole day. */
    private readonly usable: (value: T) => boolean = () => true,
    /** Told of each list newly had from the service. */
    private readonly received: (value: T) => void = () => undefined,
  ) {}

  async get(origin: string, call: Caller, options: { refresh?: boolean } = {}): Promise<{ value?: T; at?: number; error?: ServiceFailure }> {
    const stored = this.memory?.origin === origin ? this.memory : await this.read(origin);
    if (stored && !options.refresh && this.now() - stored.at < SITE_LIST_FRESH_MS) return { value: stored.value, at: stored.at };
    try {
      this.pending ??= call(this.load).finally(() => (this.pending = undefined));
      const value = await this.pending;
      if (!this.usable(value)) throw new ServiceError({ kind: 'bad-answer', detail: `${this.item.key}: the service listed nothing usable` });
      this.memory = { origin, at: this.now(), value };
      this.received(value);
      await this.item.set(this.memory);
      return { value, at: this.memory.at };
    } catch (error) {
      // An old list is better than none: keep showing it, and say why it is old.
      return { value: stored?.value, at: stored?.at, error: toFailure(error) };
    }
  }

  /** The list as stored for this origin, however old, without asking the service. */
  async peek(origin: string): Promise<T | undefined> {
    return (this.memory?.origin === origin ? this.memory : await this.read(origin))?.value;
  }

  async forget(): Promise<void> {
    this.memory = undefined;
    await this.item.remove();
  }

  private async read(origin: string): Promise<Stored<T> | undefined> {
    const stored = await this.item.get();
    if (!stored || stored.origin !== origin) return undefined;
    this.memory = stored;
    return stored;
  }
}

export class SiteDirectory {
  readonly sites: CachedList<ServiceSite[]>;
  readonly recommended: CachedList<{ count: number; list: RecommendedSite[] }>;

  constructor(now: () => number = Date.now) {
    // Every entry skipped (wrong types, string ids, markup in hosts) is a bad answer, not an empty list.
    this.sites = new CachedList(siteListItem, async (config) => (await getSites(config)).sites, now, (sites) => sites.length > 0, warnOfRenumberings);
    this.recommended = new CachedList(recommendedSitesItem, getRecommendedSites, now);
  }

  async forget(): Promise<void> {
    await Promise.all([this.sites.forget(), this.recommended.forget()]);
  }
}

/**
 * The service has renumbered sites before: where its list and the catalog pin a site differently,
 * links follow the list (utils/sites/pinning.ts), and the background's console says so, with both
 * ids and both names, once per list had.
 */
export function warnOfRenumberings(sites: readonly ServiceSite[]): void {
  for (const change of renumberings(sites)) console.warn(renumberingText(change));
}
