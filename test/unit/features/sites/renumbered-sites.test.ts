/**
 * Issue 15, point 8: a catalogued site is pinned by id AND name. The reference service, serving its
 * site list and its answers as a service that renumbered sites (strict and realistic shapes), gives
 * a torrent page's candidates under the new ids: each candidate's link still goes to the right
 * site's host, under the right name, and the background's console says what it followed (both ids,
 * both names). Also when two sites swap ids.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { Browser } from 'wxt/browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { siteForName } from '../../../../utils/sites/catalog';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../../service/server';
import { installI18n } from '../../support/i18n';
import { grantOrigin } from '../../support/permissions';

const extension = { id: 'reseed-lens-test', origin: 'chrome-extension://abcdefghijklmnop/' };
const TAB = 7;
const PAGE_URL = 'https://hdsky.me/details.php?id=1';
const contentSender = { id: extension.id, url: PAGE_URL, frameId: 0, tab: { id: TAB } as Browser.tabs.Tab } as Browser.runtime.MessageSender;
const popupSender: Browser.runtime.MessageSender = { id: extension.id, url: `${extension.origin}popup.html` };

let service: ReferenceService | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await service?.close();
  service = undefined;
});

/** The Oppenheimer group: an HDSky torrent with candidates on OurBits (9) and SpringSunday (23), among others. */
const GROUP = 'Oppenheimer.2023.2160p.UHD.BluRay.REMUX.DV.HDR.HEVC.TrueHD.Atmos.7.1';

/** The popup's view of the HDSky page, from a background against `service`, and what the console was told. */
async function popupView(reference: ReferenceService): Promise<{ view: TabView; warnings: string[] }> {
  fakeBrowser.reset();
  installI18n('en');
  vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockResolvedValue(undefined);
  vi.spyOn(fakeBrowser.runtime, 'sendMessage').mockResolvedValue(undefined);
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: reference.url, token: DEMO_TOKEN, heldSites: [9, 23], askedForSites: true } });
  grantOrigin(reference.url);
  const app = new BackgroundApp({ retryDelaysMs: [] });
  const hash = reference.data.torrents.find((torrent) => torrent.title === GROUP)!.members[0]!.info_hash;
  await routeMessage(app, { type: 'page:reading', url: PAGE_URL, reading: { engine: 'nexusphp', kind: 'details', hashes: [{ hash, source: 'info-row' }] } }, contentSender, extension);
  const view = (await routeMessage(app, { type: 'view:get', tabId: TAB }, popupSender, extension)) as TabView;
  return { view, warnings: warn.mock.calls.map((call) => String(call[0])) };
}

/** Every candidate's site, id, host and name, against what the reference data says it is. */
function expectRightSites(view: TabView, reference: ReferenceService) {
  expect(view.status).toBe('done');
  const members = reference.data.torrents.find((torrent) => torrent.title === GROUP)!.members;
  const checked = new Set<string>();
  for (const candidate of view.candidates) {
    const member = members.find((entry) => entry.info_hash === candidate.infoHash)!;
    const entry = siteForName(member.site);
    if (!entry) continue;
    // Under the id the service gives the site now, linked to that site's own host, by its name.
    expect(candidate.sid, member.site).toBe(reference.data.sites.find((site) => site.site === member.site)!.id);
    expect(new URL(candidate.detailsUrl!).hostname, member.site).toBe(entry.hosts[0]);
    expect(candidate.detailsUrl).toBe(`https://${entry.hosts[0]}/${entry.detailsPage.replace('{}', String(member.torrent_id))}`);
    expect(candidate.siteName, member.site).toBe(entry.nickname);
    checked.add(member.site);
  }
  expect([...checked]).toEqual(expect.arrayContaining(['ourbits', 'ssd']));
}

describe.each(['strict', 'realistic'] as const)("a renumbered site keeps its links (the service's %s shapes)", (shapes) => {
  it('a site the service moved to a new id: its candidates link to its own host under its own name, and the console says so', async () => {
    service = await startReferenceService({ shapes, transientLookupFailures: 0, renumberedSites: { ourbits: 777 } });
    const { view, warnings } = await popupView(service);
    expectRightSites(view, service);
    expect(view.candidates.find((candidate) => candidate.siteName === 'OurBits')?.sid).toBe(777);
    // The user held "9": no candidate is still filed under it.
    expect(view.candidates.some((candidate) => candidate.sid === 9)).toBe(false);
    expect(warnings).toContainEqual(expect.stringMatching(/id 777 to "ourbits".*"ourbits" as 9\b/));
  });

  it('two sites swapped ids: each candidate still goes to its own site, and both swaps are logged', async () => {
    service = await startReferenceService({ shapes, transientLookupFailures: 0, renumberedSites: { ourbits: 23, ssd: 9 } });
    const { view, warnings } = await popupView(service);
    expectRightSites(view, service);
    const ourbits = view.candidates.find((candidate) => candidate.sid === 23)!;
    const ssd = view.candidates.find((candidate) => candidate.sid === 9)!;
    expect([ourbits.siteName, new URL(ourbits.detailsUrl!).hostname]).toEqual(['OurBits', 'ourbits.club']);
    expect([ssd.siteName, new URL(ssd.detailsUrl!).hostname]).toEqual(['SpringSunday', 'springsunday.net']);
    expect(warnings).toContainEqual(expect.stringMatching(/id 23 to "ourbits".*"ourbits" as 9 and 23 as "ssd"/));
    expect(warnings).toContainEqual(expect.stringMatching(/id 9 to "ssd".*"ssd" as 23 and 9 as "ourbits"/));
  });

  it('the list as the catalog has it: nothing is logged', async () => {
    service = await startReferenceService({ shapes, transientLookupFailures: 0 });
    const { view, warnings } = await popupView(service);
    expectRightSites(view, service);
    expect(warnings.filter((line) => line.includes('site list gives id'))).toEqual([]);
  });
});
