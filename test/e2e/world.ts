/**
 * The world an end-to-end test (and the demo) runs in: the reference service answering as
 * 2025.iyuu.cn, tracker pages under their real host names, all through one loopback proxy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDetailsUrl } from '../../utils/sites';
import { FIXTURE_PAGES_DIR, startRouter, type Router, type StaticPages } from './harness/index.ts';
import { startReferenceService, type ReferenceOptions, type ReferenceService } from '../service/server';

export const SERVICE_HOST = '2025.iyuu.cn';
/** http: the router is a plain HTTP proxy (the official client uses http://2025.iyuu.cn too). */
export const SERVICE_BASE_URL = `http://${SERVICE_HOST}`;

export interface TrackerTorrent {
  site: string;
  torrentId: number;
  hash: string;
  title: string;
}

/** A torrent of the reference data on one site, with where else it is (from the same data). */
export function torrentOn(service: ReferenceService, site: string, titleStart?: string): TrackerTorrent {
  for (const group of service.data.torrents) {
    if (titleStart && !group.title.startsWith(titleStart)) continue;
    const member = group.members.find((candidate) => candidate.site === site);
    if (member) return { site, torrentId: member.torrent_id, hash: member.info_hash, title: group.title };
  }
  throw new Error(`no torrent on ${site}${titleStart ? ` titled ${titleStart}…` : ''} in the reference data`);
}

/** The details links the popup should show for a hash: every other member of its group. */
export function expectedLinks(service: ReferenceService, hash: string): string[] {
  const group = service.data.torrents.find((candidate) => candidate.members.some((member) => member.info_hash === hash));
  if (!group) return [];
  const sites = service.data.sites;
  return group.members
    .filter((member) => member.info_hash !== hash)
    .map((member) => {
      const site = sites.find((entry) => entry.site === member.site)!;
      return buildDetailsUrl({ id: site.id, base_url: site.base_url ?? '', details_page: site.details_page ?? '', is_https: site.is_https ?? 1 }, member.torrent_id)!;
    })
    .sort();
}

/**
 * A NexusPHP details page for this torrent, made from the zh-CN fixture (real template markup and
 * its traps) with the fixture's own torrent swapped for this one.
 */
export function nexusDetailsPage(torrent: TrackerTorrent, fixtureName = 'nexusphp-details-chs'): string {
  const html = readFileSync(join(FIXTURE_PAGES_DIR, `${fixtureName}.html`), 'utf8');
  const expected = JSON.parse(readFileSync(join(FIXTURE_PAGES_DIR, `${fixtureName}.json`), 'utf8')) as {
    url: string;
    expect: { hashes: { hash: string }[] };
  };
  const fixtureHash = expected.expect.hashes[0]!.hash;
  const fixtureId = new URL(expected.url).searchParams.get('id')!;
  return html
    .replaceAll(fixtureHash, torrent.hash)
    .replaceAll(fixtureHash.toUpperCase(), torrent.hash.toUpperCase())
    .replaceAll(`id=${fixtureId}`, `id=${torrent.torrentId}`);
}

export interface World {
  service: ReferenceService;
  router: Router;
  close(): Promise<void>;
}

export async function startWorld(options: { service?: ReferenceOptions; trackers?: Record<string, StaticPages> } = {}): Promise<World> {
  const service = await startReferenceService(options.service);
  const router = await startRouter({
    hosts: {
      [SERVICE_HOST]: (req, res) => service.handle(req, res),
      ...options.trackers,
    },
  });
  return {
    service,
    router,
    async close() {
      await router.close();
      await service.close();
    },
  };
}
