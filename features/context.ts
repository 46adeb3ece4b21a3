/**
 * What every background feature shares: the settings (only writer), each tab's view, the
 * service's site lists and the one way to the service (Lookup). Features get this object and
 * nothing else; they never reach into each other's storage keys.
 */
import { Lookup } from '../utils/lookup/lookup';
import { SettingsStore } from './settings/settings-store';
import { SiteDirectory } from './sites/site-directory';
import { TabViews } from './tabs';
import type { Handlers } from '../utils/messaging/protocol';
import type { Protocol } from './protocol';

export interface BackgroundOptions {
  /** The `version` sent to the service; SERVICE_CLIENT_VERSION when absent. */
  version?: string;
  fetch?: typeof fetch;
  now?: () => number;
  minIntervalMs?: number;
  maxCallsPerMinute?: number;
  batchWindowMs?: number;
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  maxCachedAnswers?: number;
  /** The fetch torrent clients are called with (tests: a cookie jar); the browser's own when absent. */
  clientFetch?: typeof fetch;
  /** Per request to a torrent client; the library's 15 s when absent. */
  clientTimeoutMs?: number;
  /** The fetch a cross-seed downloads .torrent files from trackers with (tests: a cookie jar); the browser's own when absent. */
  siteFetch?: typeof fetch;
  /** The client index's pause between two batches of a sync (2 s when absent); tests and benches give 0. */
  indexPauseMs?: number;
  /** Hashes per lookup of an index sync (200, the service's batch, when absent); tests give fewer to have several batches. */
  indexBatchSize?: number;
  /** The pace per site asked by pieces hash (2 s when absent); tests give less. */
  piecesPaceMs?: number;
}

/** A job the background repeats on a browser alarm (it survives the worker's restarts). */
export interface RepeatedJob {
  periodInMinutes: number;
  run(): Promise<unknown>;
}

export interface Shared {
  readonly settings: SettingsStore;
  readonly tabs: TabViews;
  readonly directory: SiteDirectory;
  readonly lookup: Lookup;
  readonly now: () => number;
}

/**
 * A feature as the background sees it: the handlers of the messages it declared in its
 * `<feature>.messages.ts` (BackgroundApp registers each feature in one line).
 */
export interface Feature {
  readonly handlers: Partial<Handlers<Protocol>>;
}

