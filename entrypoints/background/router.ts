/**
 * Who may say what to the background. A tracker page's content script may speak only for its own
 * tab and URL (both taken from the browser, never from the message); everything else must come
 * from the extension's own pages. Anything that fails its schema is dropped without an answer.
 * Each message is answered by the one feature that owns it (see app.ts); a tracker page hears
 * back only the page's view of it (page-view.ts), never which sites the user holds.
 */
import { browser, type Browser } from 'wxt/browser';
import { contentMessageSchema, pageMessageSchema } from './message-schemas';
import type { ContentHandlers, PageHandlers } from './context';
import { sameOrigin } from '../../utils/url';

export interface MessageHandlers {
  readonly pageHandlers: PageHandlers;
  readonly contentHandlers: ContentHandlers;
}

/**
 * The URL a reading is filed under. The browser's sender URL keeps the address the document loaded
 * with, even after history.pushState (single-page trackers); the page's own location is taken
 * instead, but only on the same origin, so a page can never speak for another site.
 */
function pageUrl(claimed: string, sender: string): string {
  return sameOrigin(claimed, sender) ? claimed : sender;
}

/**
 * Routes one runtime message. Returns undefined (no answer at all) for anything not allowed, so a
 * page cannot even learn which messages exist.
 */
export function routeMessage(
  app: MessageHandlers,
  message: unknown,
  sender: Browser.runtime.MessageSender,
  extension: { id: string; origin: string } = { id: browser.runtime.id, origin: browser.runtime.getURL('/') },
): Promise<unknown> | undefined {
  if (sender.id !== extension.id) return undefined;
  const fromOwnPage = !!sender.url?.startsWith(extension.origin);
  if (!fromOwnPage) {
    // A content script: its own tab's top frame only.
    if (sender.tab?.id === undefined || sender.frameId !== 0 || !sender.url) return undefined;
    const parsed = contentMessageSchema.safeParse(message);
    if (!parsed.success) return undefined;
    const content = parsed.data;
    const url = content.type === 'page:reading' ? pageUrl(content.url, sender.url) : sender.url;
    const handler = app.contentHandlers[content.type] as (message: typeof content, from: { tabId: number; url: string }) => Promise<unknown>;
    return handler(content, { tabId: sender.tab.id, url });
  }
  const parsed = pageMessageSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const handler = app.pageHandlers[parsed.data.type] as (message: typeof parsed.data) => Promise<unknown>;
  return handler(parsed.data);
}
