/** Cross-seed: the popup's buttons, the panel's (through the confirmation window), and what each tab shows of them. */
import { z } from 'zod';
import { event, message } from '../../utils/messaging/protocol';
import type { CrossSeedResult } from '../../utils/cross-seed-engine/cross-seed';
import { hash, sid, tabId, torrentId } from '../../utils/messaging/fields';

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

export const crossSeedMessages = {
  /** Popup: this tab's cross-seeds so far (a reopened popup shows them). */
  'crossseed:get': message<TabCrossSeeds>()('extension', z.object({ tabId })),
  /**
   * Popup "Cross-seed" on one candidate of the tab's current view (found there again by site,
   * torrent id and info-hash: the message's own values are not trusted). A command: answered with
   * nothing once it is done (a second click while it runs joins it); the tab's cross-seeds come once,
   * as `crossseed:changed`. So does "Cross-seed all".
   */
  'crossseed:one': message<void>()('extension', z.object({ tabId, sid, torrentId, infoHash: hash.or(z.literal('')) })),
  /** Popup "Cross-seed all": the candidates on the user's sites, at most 20, paced; progress is announced (CrossSeedsChanged). */
  'crossseed:all': message<void>()('extension', z.object({ tabId })),
  /**
   * Content script, on a trusted click of the panel's "Cross-seed" (the tab comes from the sender):
   * opens the extension's confirmation window for that candidate, nothing more. No answer.
   */
  'page:cross-seed': message<void>()('page', z.object({ sid, torrentId })),
};

export const crossSeedEvents = {
  'crossseed:changed': event<CrossSeedsChanged>()('extension'),
};
export const crossSeedTabEvents = {
  /** Every cross-seed outcome for the tab's page, as its panel shows them. */
  'crossseed:changed': event<PageCrossSeedsChanged>()('tab'),
};
