/**
 * The state of each tab (hashes, candidates, status), kept in memory and mirrored to
 * storage.session so a restarted service worker still knows it. Every change updates the
 * tab's badge and tells open views (popup, panel) about it.
 */
import { browser } from 'wxt/browser';
import type { PageViewChanged, TabView, ViewChanged } from './lookup/lookup.messages';
import { pageView } from './lookup/panel-view';
import { announceToPages, announceToTab } from './announce';

import { tabViewItems } from './tabs.storage';

/** MV3 names it `action`, MV2 (Firefox build) `browserAction`. */
function toolbarAction() {
  const api = browser as unknown as { action?: typeof browser.action; browserAction?: typeof browser.action };
  return api.action ?? api.browserAction;
}

export function badgeFor(view: TabView): { text: string; color: string; title?: string } {
  switch (view.status) {
    case 'done': {
      const count = view.candidates.length;
      return { text: count > 999 ? '999+' : String(count), color: count ? '#1a7f37' : '#6e7781' };
    }
    case 'looking-up':
    case 'reading':
      return { text: '…', color: '#6e7781' };
    case 'error':
    case 'no-credentials':
      return { text: '!', color: '#cf222e' };
    case 'waiting-for-user':
      return { text: '?', color: '#9a6700' };
    default:
      return { text: '', color: '#6e7781' };
  }
}

/** What a feature may put on a tab's badge instead of badgeFor's (the index on a list page). */
export type BadgeSource = (view: TabView) => { text: string; color: string } | undefined;

export class TabViews {
  private readonly views = new Map<number, TabView>();
  private sessionAvailable = true;
  private readonly listeners: ((view: TabView) => void)[] = [];
  /** Asked first for every badge: popup-only knowledge (the client index) a page never sees. */
  badgeSource: BadgeSource | undefined;

  /** Called on every change of a tab's view, before it is announced (not awaited: a listener does its own work later). */
  onChange(listener: (view: TabView) => void): void {
    this.listeners.push(listener);
  }

  private readonly readingListeners: ((view: TabView) => void)[] = [];
  /** Per tab: a page's reading whose view is not set yet (reading()), until set() or forget(). */
  private readonly readings = new Map<number, TabView>();

  /**
   * Called when a page's reading arrives, before its view is worked out (the page's own lookup may
   * read the answer cache first): what depends on the page alone, not on its lookup, starts at
   * once (the client index's answer for a list page's rows). The view is not set by this.
   */
  onReading(listener: (view: TabView) => void): void {
    this.readingListeners.push(listener);
  }

  /** A page's reading arrived: its listeners hear the view it will have (see onReading). */
  reading(view: TabView): void {
    this.readings.set(view.tabId, view);
    for (const listener of this.readingListeners) {
      try {
        listener(view);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /**
   * Paints the badge a badge source gives for a view not set yet (a list page answered from its
   * reading, before the page's own lookup has its view set); nothing when the source has none.
   */
  async paintBadgeOf(view: TabView): Promise<void> {
    const badge = this.badgeSource?.(view);
    if (badge) await this.paint(view.tabId, badge).catch(() => undefined);
  }

  /** The page a tab holds now, from memory: its reading not set yet if there is one, else its view. */
  latest(tabId: number): TabView | undefined {
    return this.readings.get(tabId) ?? this.views.get(tabId);
  }

  /** Paints the tab's badge again from its view as it is (a badge source's answer changed). */
  async repaintBadge(tabId: number): Promise<void> {
    const view = this.views.get(tabId);
    if (view) await this.paintBadge(view).catch(() => undefined);
  }

  async get(tabId: number): Promise<TabView | undefined> {
    const known = this.views.get(tabId);
    if (known) return known;
    try {
      const stored = await tabViewItems.get(tabId);
      if (stored && stored.tabId === tabId) {
        this.views.set(tabId, stored);
        return stored;
      }
    } catch {
      this.sessionAvailable = false;
    }
    return undefined;
  }

  /**
   * `popupOnly`: the change is one the page's view does not have (the popup's candidates of sites
   * asked by pieces hash): the tab's page hears nothing of it, not even that something changed.
   */
  async set(view: TabView, options: { popupOnly?: boolean } = {}): Promise<TabView> {
    this.views.set(view.tabId, view);
    if (this.readings.get(view.tabId)?.url === view.url) this.readings.delete(view.tabId);
    // Listeners first: the announcement waits for the tab's content script and the extension's
    // pages to take it (tens of ms on a busy machine), and the client index's badge for a list page
    // must not wait behind it. The badge painted below asks the badge source as it is now.
    for (const listener of this.listeners) {
      try {
        listener(view);
      } catch {
        // A listener's failure is its own.
      }
    }
    await Promise.allSettled([this.persist(view), this.paintBadge(view), this.announce(view, options.popupOnly)]);
    return view;
  }

  async forget(tabId: number): Promise<void> {
    this.views.delete(tabId);
    this.readings.delete(tabId);
    if (this.sessionAvailable) await tabViewItems.remove(tabId).catch(() => undefined);
  }

  all(): TabView[] {
    return [...this.views.values()];
  }

  private async persist(view: TabView): Promise<void> {
    if (!this.sessionAvailable) return;
    try {
      await tabViewItems.set(view.tabId, view);
    } catch {
      this.sessionAvailable = false;
    }
  }

  private async paintBadge(view: TabView): Promise<void> {
    await this.paint(view.tabId, this.badgeSource?.(view) ?? badgeFor(view));
  }

  /** A badge on the tab's toolbar button (nothing where the browser has none): its text, and its colour when it has text. */
  private async paint(tabId: number, badge: { text: string; color: string }): Promise<void> {
    const action = toolbarAction();
    if (!action) return;
    await action.setBadgeText({ tabId, text: badge.text });
    if (badge.text) await action.setBadgeBackgroundColor({ tabId, color: badge.color });
  }

  /**
   * Tells the popup (extension pages) the whole view, and the tab's own panel only what a page may
   * learn (see features/lookup/panel-view.ts). Nobody listening is fine.
   */
  private async announce(view: TabView, popupOnly = false): Promise<void> {
    const message: ViewChanged = { type: 'view:changed', view };
    if (popupOnly) return announceToPages(message);
    const toPage: PageViewChanged = { type: 'view:changed', view: pageView(view) };
    await Promise.all([announceToPages(message), announceToTab(view.tabId, toPage)]);
  }
}
