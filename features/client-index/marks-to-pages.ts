/**
 * Row marks ("In your client" / "Can cross-seed" beside a list row's title), sent to a tracker
 * page's content script (entrypoints/tracker.content/marks.ts draws them) only on hosts where the
 * user turned them on from the popup. A page on any other host hears nothing: no message, no
 * change in what it is sent. Never the same marks twice to one page.
 */
import type { IndexMarks } from './client-index.messages';
import type { TabView } from '../lookup/lookup.messages';
import { isPageHost } from '../../utils/settings';
import type { Shared } from '../context';
import { announceToTab } from '../announce';

/** Row id → mark: 'i' in the client, 'c' can be cross-seeded. */
export type RowMarks = Record<string, 'i' | 'c'>;

export class MarksToPages {
  /** Per tab: the host, page and marks last sent to its content script (only ever on hosts with marks on). */
  private readonly sent = new Map<number, { host: string; sent: string }>();

  constructor(private readonly shared: Shared) {}

  /**
   * "Show marks in this site's pages", from the popup: the host is the tab's, as the browser gives
   * it. Only while the index is on: the popup offers the switch only with an answer.
   */
  async switchHost(tabId: number, on: boolean): Promise<void> {
    const view = await this.shared.tabs.get(tabId);
    const host = view?.host;
    const settings = await this.shared.settings.get();
    if (host && isPageHost(host) && settings.clientIndexEnabled) {
      const hosts = settings.indexMarkHosts.filter((known) => known !== host);
      if (on) hosts.push(host);
      if (hosts.join() !== settings.indexMarkHosts.join()) await this.shared.settings.save({ ...settings, indexMarkHosts: hosts });
    }
  }

  /**
   * Sends a tab's content script its marks for the page `pageKey` names. Called only for a page on
   * a host the user turned marks on for (its answer says so); never the same marks twice.
   */
  async send(view: TabView, pageKey: string, marks: RowMarks): Promise<void> {
    if (!view.url || !view.host) return;
    const sent = `${pageKey}#${JSON.stringify(marks)}`;
    if (this.sent.get(view.tabId)?.sent === sent) return;
    this.sent.set(view.tabId, { host: view.host, sent });
    await this.post(view, marks);
  }

  /**
   * Takes the marks away from a page that was given some: one this background sent marks to on
   * the same host, or (`hadMarks`, after a restart) one on a host that had them on until now.
   * A page on any other host hears nothing.
   */
  async clear(view: TabView, hadMarks = false): Promise<void> {
    const sent = this.sent.get(view.tabId);
    if (!view.host || !((sent && sent.host === view.host) || hadMarks)) return;
    this.sent.delete(view.tabId);
    await this.post(view, {});
  }

  /** Forgets the tabs that are no longer open. */
  keepOnly(open: ReadonlySet<number>): void {
    for (const tabId of [...this.sent.keys()]) if (!open.has(tabId)) this.sent.delete(tabId);
  }

  private async post(view: TabView, marks: RowMarks): Promise<void> {
    if (!view.url) return;
    const message: IndexMarks = { type: 'index:marks', url: view.url, marks };
    await announceToTab(view.tabId, message, { frameId: 0 });
  }
}
