/**
 * New finds after a sync of the indexes: those since the last notice are told (a notification,
 * one line per site) or started, as the page's two switches say.
 */
import { browser } from 'wxt/browser';
import type { Shared } from '../context';
import { siteName } from '../lookup/candidates';
import { decidedKey, jobSwitchesItem, noticedFindsItem } from './cross-seed-job.storage';
import type { JobPreviews } from './job-preview';

/** Where the notification is created (its id; the job's alarm shares the name). */
const NOTIFICATION_ID = 'cross-seed-job';

/** After a sync: the finds new since the last notice, told or started (`start` them: the job's "Start cross-seeding" unless one runs). */
export async function afterSync(shared: Shared, previews: JobPreviews, start: (sids: number[]) => Promise<void>): Promise<void> {
  const switches = await jobSwitchesItem.get();
  if (!switches.notifyNewFinds && !switches.autoStartNewFinds) return;
  const settings = await shared.settings.get();
  const finds = await previews.findsFor(settings.heldSites ?? []);
  const noticed = await noticedFindsItem.get();
  const fresh = new Map<number, number>();
  const next: Record<string, string[]> = {};
  for (const [sid, site] of finds) {
    const before = new Set(noticed[String(sid)] ?? []);
    const keys = site.torrents.map(decidedKey);
    next[String(sid)] = keys;
    const count = keys.filter((key) => !before.has(key)).length;
    if (count) fresh.set(sid, count);
  }
  await noticedFindsItem.set(next);
  if (!fresh.size) return;
  const list = await shared.directory.sites.peek(settings.baseUrl);
  if (switches.notifyNewFinds) await notifyNewFinds([...fresh].map(([sid, count]) => `${siteName(sid, list).name}: ${count}`));
  if (switches.autoStartNewFinds) await start([...fresh.keys()]);
}

/**
 * The notification of new finds, one line per site. Never fails its caller: a browser without the
 * notifications API (or a create that throws at once, or rejects) tells nothing, and the
 * auto-start after it still runs.
 */
async function notifyNewFinds(lines: string[]): Promise<void> {
  try {
    const notifications = browser.notifications as typeof browser.notifications | undefined;
    if (typeof notifications?.create !== 'function') return;
    const title = browser.i18n.getMessage('jobNewFindsTitle') || 'New to cross-seed';
    await notifications.create(NOTIFICATION_ID, { type: 'basic', iconUrl: browser.runtime.getURL('/icon/128.png'), title, message: lines.join('\n') });
  } catch {
    // Told nothing: the finds are still on the page.
  }
}
