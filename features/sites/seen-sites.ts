/**
 * The catalogued sites the user has visited: offered first when we ask which sites they hold.
 * Written when a tracker page is read, read by the site picker.
 */
import { browser } from 'wxt/browser';
import { siteForHost } from '../../utils/sites';

const SEEN_KEY = 'seenSites';
const MAX_SEEN = 200;

export async function seenSites(): Promise<number[]> {
  const stored = (await browser.storage.local.get(SEEN_KEY))[SEEN_KEY];
  return Array.isArray(stored) ? stored.filter((value): value is number => Number.isSafeInteger(value)) : [];
}

export async function rememberSeen(host: string | undefined): Promise<void> {
  const sid = host ? siteForHost(host)?.sid : undefined;
  if (sid === undefined) return;
  const seen = await seenSites();
  if (seen.includes(sid)) return;
  await browser.storage.local.set({ [SEEN_KEY]: [...seen, sid].slice(-MAX_SEEN) });
}
