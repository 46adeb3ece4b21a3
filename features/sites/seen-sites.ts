/**
 * The catalogued sites the user has visited: offered first when we ask which sites they hold.
 * Written when a tracker page is read, read by the site picker.
 */
import { siteForHost } from '../../utils/sites';
import { seenSitesItem } from './sites.storage';

const MAX_SEEN = 200;

export function seenSites(): Promise<number[]> {
  return seenSitesItem.get();
}

export async function rememberSeen(host: string | undefined): Promise<void> {
  const sid = host ? siteForHost(host)?.sid : undefined;
  if (sid === undefined) return;
  const seen = await seenSites();
  if (seen.includes(sid)) return;
  await seenSitesItem.set([...seen, sid].slice(-MAX_SEEN));
}
