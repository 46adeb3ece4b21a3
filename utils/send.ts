/** The typed way every context talks to the background. */
import { browser } from 'wxt/browser';
import type { BackgroundProtocol } from './messages';

export function sendToBackground<K extends keyof BackgroundProtocol>(
  type: K,
  request: BackgroundProtocol[K]['request'],
): Promise<BackgroundProtocol[K]['response']> {
  return browser.runtime.sendMessage({ ...request, type }) as Promise<BackgroundProtocol[K]['response']>;
}
