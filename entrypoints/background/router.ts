/**
 * Who may say what to the background. Every message is declared once (features/protocol.ts): who
 * may send it and its request's schema. A tracker page's content script may speak only for its own
 * tab and URL (both taken from the browser, never from the message), and only send what is
 * declared `page`; the extension's own pages send what is declared `extension`. Anything that fails
 * its schema is dropped without an answer. Each message is answered by the one feature that
 * declared it; a tracker page hears back only the page's view, never which sites the user holds.
 */
import { browser, type Browser } from 'wxt/browser';
import type { Handlers, PageOrigin } from '../../utils/messaging/protocol';
import { protocol, type MessageType, type Protocol } from '../../features/protocol';

import { sameOrigin } from '../../utils/url';
export interface MessageHandlers {
  readonly handlers: Handlers<Protocol>;
}

/**
 * The URL a reading is filed under. The browser's sender URL keeps the address the document loaded
 * with, even after history.pushState (single-page trackers); the page's own location is taken
 * instead, but only on the same origin, so a page can never speak for another site.
 */
function pageUrl(claimed: string, sender: string): string {
  return sameOrigin(claimed, sender) ? claimed : sender;
}

function declaredType(message: unknown): MessageType | undefined {
  const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
  return typeof type === 'string' && Object.hasOwn(protocol, type) ? (type as MessageType) : undefined;
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
  const type = declaredType(message);
  if (!type) return undefined;
  const declaration = protocol[type];
  const fromOwnPage = !!sender.url?.startsWith(extension.origin);
  if (fromOwnPage !== (declaration.from === 'extension')) return undefined;
  const parsed = declaration.request.safeParse(message);
  if (!parsed.success) return undefined;
  const handler = app.handlers[type] as (request: unknown, from?: PageOrigin) => Promise<unknown>;
  if (fromOwnPage) return handler(parsed.data);
  // A content script: its own tab's top frame only.
  if (sender.tab?.id === undefined || sender.frameId !== 0 || !sender.url) return undefined;
  const url = type === 'page:reading' ? pageUrl((parsed.data as { url: string }).url, sender.url) : sender.url;
  return handler(parsed.data, { tabId: sender.tab.id, url });
}
