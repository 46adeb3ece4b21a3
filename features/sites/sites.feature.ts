/**
 * Sites the user enabled from the popup ("Use on this site"): their host permission is optional
 * and asked for at that moment; the content script is registered for them at run time and
 * registered again at every start, so it survives restarts in every browser.
 */
import { browser } from 'wxt/browser';
import type { Shared } from '../context';
import type { Handlers } from '../../utils/messaging/protocol';
import type { sitesMessages } from './sites.messages';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';
import type { ServiceSite } from '../../utils/iyuu/answer-schemas';
import { catalog } from '../../utils/sites';
import { catalogEntryOf } from '../../utils/sites/pinning';
import { prefersChinese, siteName } from '../lookup/candidates';
import { seenSites } from './seen-sites';
import type { SiteChoice } from './sites.messages';

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
      runAt: 'document_start', // as the manifest's: the reader waits for DOMContentLoaded itself, not for the page's pictures
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

/** Feature: "Use on this site" from the popup, and removal from the options page. */
export class CustomSites {
  constructor(private readonly shared: Shared) {}

  readonly handlers: Handlers<typeof sitesMessages> = {
    'sites:list': (message) => this.siteChoices(message.refresh ?? false),
    'site:enable': (message) => this.enableSite(message.host),
    'site:disable': (message) => this.disableSite(message.host),
  };

  /** Every site the user may pick as theirs: the service's list when it can be had, else the catalog. */
  async siteChoices(refresh: boolean): Promise<{ sites: SiteChoice[]; seen: number[]; fromService: boolean; error?: ServiceFailure }> {
    const { lookup, directory } = this.shared;
    const settings = await this.shared.settings.get();
    const seen = await seenSites();
    let listed: { value?: ServiceSite[]; error?: ServiceFailure } = {};
    if (settings.token) {
      listed = await directory.sites.get(settings.baseUrl, (operation) => lookup.call(operation, settings), { refresh });
    }
    const chinese = prefersChinese();
    const sites: SiteChoice[] = listed.value?.length
      ? listed.value.map((site) => ({
          sid: site.id,
          site: site.site,
          nickname: siteName(site.id, listed.value, chinese).name,
          host: catalogEntryOf(site)?.hosts[0] ?? site.base_url,
        }))
      : catalog.flatMap((entry) =>
          entry.sid === undefined
            ? []
            : [{ sid: entry.sid, site: entry.site, nickname: chinese ? (entry.nameZh ?? entry.nickname) : entry.nickname, host: entry.hosts[0] }],
        );
    sites.sort((a, b) => a.nickname.localeCompare(b.nickname, chinese ? 'zh-CN' : 'en'));
    return { sites, seen, fromService: !!listed.value?.length, error: listed.error };
  }

  /** At every start: the user's own sites get their content script again. */
  async start(): Promise<void> {
    const settings = await this.shared.settings.get();
    await syncCustomSites(settings.customHosts).catch(() => undefined);
  }

  async enableSite(rawHost: string): Promise<{ customHosts: string[] }> {
    const host = rawHost.trim().toLowerCase();
    const store = this.shared.settings;
    const settings = await store.get();
    // The popup asked for the permission within the user's click; without it nothing is registered.
    if (!/^[a-z0-9.-]+$/.test(host) || !(await grantedHosts([host])).length) return { customHosts: settings.customHosts };
    const customHosts = settings.customHosts.includes(host) ? settings.customHosts : [...settings.customHosts, host];
    await store.save({ ...settings, customHosts });
    await syncCustomSites(customHosts);
    return { customHosts };
  }

  async disableSite(rawHost: string): Promise<{ customHosts: string[] }> {
    const host = rawHost.trim().toLowerCase();
    const store = this.shared.settings;
    const settings = await store.get();
    const customHosts = settings.customHosts.filter((known) => known !== host);
    // Unregister and give the permission back first: the settings change is what the options page
    // shows, so by then the site must really be off.
    await syncCustomSites(customHosts);
    await browser.permissions.remove({ origins: originPatterns(host) }).catch(() => false);
    await store.save({ ...settings, customHosts });
    return { customHosts };
  }
}
