/**
 * Sites the user enabled from the popup ("Use on this site"): their host permission is optional
 * and asked for at that moment; the content script is registered for them at run time and
 * registered again at every start, so it survives restarts in every browser.
 */
import { browser } from 'wxt/browser';

const SCRIPT_ID = 'reseed-lens-custom-sites';
export const CONTENT_SCRIPT_FILE = 'content-scripts/tracker.js';

export function originPatterns(host: string): string[] {
  return [`*://${host}/*`];
}

/** The hosts among these whose permission the user has granted. */
export async function grantedHosts(hosts: readonly string[]): Promise<string[]> {
  const granted: string[] = [];
  for (const host of hosts) {
    if (await browser.permissions.contains({ origins: originPatterns(host) }).catch(() => false)) granted.push(host);
  }
  return granted;
}

let syncing: Promise<unknown> = Promise.resolve();

/**
 * Makes the registered content script match exactly these hosts (those still permitted). One call
 * at a time: the popup's "enable" and permissions.onAdded arrive together, and two interleaved
 * unregister/register pairs fail the second registration ("already registered").
 */
export function syncCustomSites(hosts: readonly string[]): Promise<string[]> {
  const run = syncing.then(() => registerFor(hosts));
  syncing = run.catch(() => undefined);
  return run;
}

async function registerFor(hosts: readonly string[]): Promise<string[]> {
  const scripting = browser.scripting;
  if (!scripting?.registerContentScripts) return [];
  const permitted = await grantedHosts(hosts);
  const existing = await scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] }).catch(() => []);
  if (existing.length) await scripting.unregisterContentScripts({ ids: [SCRIPT_ID] }).catch(() => undefined);
  if (!permitted.length) return [];
  await scripting.registerContentScripts([
    {
      id: SCRIPT_ID,
      matches: permitted.flatMap(originPatterns),
      js: [CONTENT_SCRIPT_FILE],
      runAt: 'document_idle',
      allFrames: false,
    },
  ]);
  return permitted;
}

/** Reads a tab once, on the user's toolbar click (activeTab), where no content script runs. */
export async function readTabOnce(tabId: number): Promise<boolean> {
  try {
    await browser.scripting.executeScript({ target: { tabId }, files: [`/${CONTENT_SCRIPT_FILE}`] as never });
    return true;
  } catch {
    return false;
  }
}
