/**
 * The confirmation a click in the page's panel opens (issue 15): the panel lives in the tracker's
 * own page, which can lay its own elements over it, make it transparent or move it under a bait
 * button, so a click there is never taken as the user's word to download or add anything. It opens
 * this extension page (confirm.html) in a popup window of its own, which no page can cover or
 * style; only the click on its "Cross-seed" cross-seeds, through the popup's own path
 * (`crossseed:one`).
 *
 * At most one per tab: a second panel click brings it to the front (showing that click's
 * candidate). It closes with its tab's page (a new document, or the tab closed): its candidate
 * belonged to that page.
 */
import { browser } from 'wxt/browser';
import { confirmWindowsItem, type OpenConfirmation } from './cross-seed.storage';

export const CONFIRM_PAGE = 'confirm.html';
/** Big enough for the names and the outcome without scrolling, in both languages. */
const SIZE = { width: 480, height: 440 };

/** confirm.html's address for a candidate of a tab's page. */
export function confirmPath(tabId: number, candidate: { sid: number; torrentId: number }): string {
  return `/${CONFIRM_PAGE}?tabId=${tabId}&sid=${candidate.sid}&torrentId=${candidate.torrentId}`;
}

export class ConfirmWindows {
  /** By tab; mirrored to storage.session so a service worker that slept still finds them. */
  private open?: Map<number, OpenConfirmation>;
  /** One change at a time: two quick clicks must not open two windows. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Opens the tab's confirmation for `candidate`, or brings the one open to the front (showing this candidate). */
  show(tabId: number, candidate: { sid: number; torrentId: number }): Promise<void> {
    return this.inTurn(() => this.showNow(tabId, candidate));
  }

  /** The tab's page is gone (a new document, or the tab closed): so is its confirmation. */
  close(tabId: number): Promise<void> {
    return this.inTurn(() => this.closeNow(tabId));
  }

  /** The user closed a confirmation window. */
  closed(windowId: number): Promise<void> {
    return this.inTurn(() => this.closedNow(windowId));
  }

  private inTurn(change: () => Promise<void>): Promise<void> {
    const run = this.queue.then(change);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async showNow(tabId: number, candidate: { sid: number; torrentId: number }): Promise<void> {
    const open = await this.load();
    const path = confirmPath(tabId, candidate);
    const known = open.get(tabId);
    if (known && (await browser.windows.get(known.windowId).catch(() => undefined))) {
      if (known.path !== path && known.tabId !== undefined) {
        await browser.tabs.update(known.tabId, { url: browser.runtime.getURL(path as `/confirm.html${string}`) });
        open.set(tabId, { ...known, path });
        await this.save();
      }
      await browser.windows.update(known.windowId, { focused: true });
      return;
    }
    const created = await browser.windows.create({ url: browser.runtime.getURL(path as `/confirm.html${string}`), type: 'popup', focused: true, ...SIZE });
    if (created?.id === undefined) return;
    open.set(tabId, { windowId: created.id, tabId: created.tabs?.[0]?.id, path });
    await this.save();
  }

  private async closeNow(tabId: number): Promise<void> {
    const open = await this.load();
    const known = open.get(tabId);
    if (!known) return;
    open.delete(tabId);
    await this.save();
    await browser.windows.remove(known.windowId).catch(() => undefined);
  }

  private async closedNow(windowId: number): Promise<void> {
    const open = await this.load();
    let changed = false;
    for (const [tabId, known] of open) {
      if (known.windowId !== windowId) continue;
      open.delete(tabId);
      changed = true;
    }
    if (changed) await this.save();
  }

  private async load(): Promise<Map<number, OpenConfirmation>> {
    if (this.open) return this.open;
    const stored = await confirmWindowsItem.get().catch(() => ({}));
    this.open ??= new Map(Object.entries(stored).map(([tabId, known]) => [Number(tabId), known]));
    return this.open;
  }

  private async save(): Promise<void> {
    await confirmWindowsItem.set(Object.fromEntries(this.open ?? [])).catch(() => undefined);
  }
}
