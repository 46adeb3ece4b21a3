/**
 * The typed way every context talks to the background: the request and reply types come from the
 * one protocol (features/protocol.ts, types only: nothing of zod or the features is bundled here).
 */
import { browser } from 'wxt/browser';
import type { MessageType, Reply, Request } from './protocol';

export function sendToBackground<K extends MessageType>(type: K, request: Request<K>): Promise<Reply<K>> {
  return browser.runtime.sendMessage({ ...(request as object), type }) as Promise<Reply<K>>;
}
