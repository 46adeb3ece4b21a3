/**
 * "Find what I can cross-seed": the preview from the indexes of every client (issue 33), and each
 * site's readiness.
 *
 * Per site the user holds: every client's "can cross-seed" places (the site's torrent not in that
 * client, a complete torrent of it holding its content: ClientIndex.opportunities, the rule of a
 * list row), in the user's order of clients. A place whose candidate any client's index holds is
 * left out (never a duplicate); a place is found once, for the first client holding its source
 * complete whose copy can go somewhere — where, whereCopyGoes says (features/clients/placement.ts:
 * its own client, or its "Copies go to" client through the longest folder pair), as the run's
 * placement will. Those it refuses (a client that only reads without "Copies go to", a path under
 * no folder pair) are counted and said, not queued. Those decided before (remembered outcomes) are
 * left out and counted. The preview says per site and per client what it will do ("NAS → Seedbox:
 * 120"), and whether the site can be downloaded from now (its download rule, the extension's
 * permission, and for a session site one light request: a details page, to see whether the site
 * answers with its login page). Computed in chunks, yielding to the event loop, so indexes of
 * 100,000 torrents block nothing.
 */
import type { Shared } from '../context';
import type { Clients } from '../clients/clients.feature';
import type { StoredClient } from '../clients/clients.storage';
import { whereCopyGoes, type CopyDestination } from '../clients/placement';
import type { CrossSeeds } from '../cross-seed/cross-seed.feature';
import type { ClientIndexFeature } from '../client-index/client-index.feature';
import { detailsUrlOf, siteName } from '../lookup/candidates';
import { downloadSource } from '../../utils/cross-seed-engine/source';
import { problemOfPage, readSitePage, sitePace } from '../../utils/cross-seed-engine/site-queue';
import { nextTurn } from '../../utils/next-turn';
import type { JobPreview, JobRefusal, JobRefused, JobRoute, JobSitePreview, JobTorrent, SiteReadiness } from './cross-seed-job.messages';
import { decidedItem, decidedKey } from './cross-seed-job.storage';

/** The preview looks at the clock after this many places… */
const CHUNK = 256;
/** …and gives the event loop a turn once this much time went by since the last (a turn per few places would cost more than the work). */
const SLICE_MS = 8;

/** A turn of the event loop when SLICE_MS went by since the last one, else nothing (undefined: go on at once). */
function slicer(): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
    });
  };
}

/** One site's finds over every client. */
export interface SiteFinds {
  sid: number;
  /** By torrent id, each with the client holding its source and the client its copy goes to. */
  torrents: JobTorrent[];
  decided: number;
  /** Finds whose copy can go nowhere, by client and why. */
  refused: Map<string, JobRefused>;
}

/**
 * Where copies of `source`'s torrents go, by save path: a client without "Copies go to" sends every
 * one to the same place (itself, or nowhere if it only reads), asked once; one with it, once per
 * save path (many torrents share one).
 */
function destinationsOf(source: StoredClient, clients: readonly StoredClient[]): (savePath: string) => CopyDestination {
  if (!source.copiesTo) {
    const same = whereCopyGoes(source, clients, '');
    return () => same;
  }
  const known = new Map<string, CopyDestination>();
  return (savePath) => {
    let destination = known.get(savePath);
    if (!destination) {
      destination = whereCopyGoes(source, clients, savePath);
      known.set(savePath, destination);
    }
    return destination;
  };
}

function countRefused(finds: SiteFinds, client: StoredClient, result: JobRefusal): void {
  const key = `${client.id}:${result.kind}`;
  const known = finds.refused.get(key);
  if (known) known.count++;
  else finds.refused.set(key, { clientId: client.id, clientName: client.name, kind: result.kind, count: 1, example: result });
}

/** A site's finds by where each goes, in the user's order of clients (source, then target). */
function routesOf(torrents: readonly JobTorrent[], clients: readonly StoredClient[]): JobRoute[] {
  const bySource = new Map<string, Map<string, { count: number; bytes: number }>>();
  for (const torrent of torrents) {
    const source = torrent.sourceClientId ?? '';
    const target = torrent.targetClientId ?? source;
    let byTarget = bySource.get(source);
    if (!byTarget) bySource.set(source, (byTarget = new Map()));
    const route = byTarget.get(target);
    if (route) {
      route.count++;
      route.bytes += torrent.bytes;
    } else byTarget.set(target, { count: 1, bytes: torrent.bytes });
  }
  const position = (id: string) => clients.findIndex((client) => client.id === id);
  const nameOf = (id: string) => clients.find((client) => client.id === id)?.name ?? id;
  const routes: JobRoute[] = [];
  for (const [sourceId, byTarget] of bySource) {
    for (const [targetId, { count, bytes }] of byTarget) routes.push({ sourceId, sourceName: nameOf(sourceId), targetId, targetName: nameOf(targetId), count, bytes });
  }
  return routes.sort((a, b) => position(a.sourceId) - position(b.sourceId) || position(a.targetId) - position(b.targetId));
}

/** Routes (or refusals) of several sites added up, in the order given. */
function merged<T extends { count: number; bytes?: number }>(lists: readonly T[][], keyOf: (entry: T) => string): T[] {
  const total = new Map<string, T>();
  for (const list of lists) {
    for (const entry of list) {
      const known = total.get(keyOf(entry));
      if (!known) total.set(keyOf(entry), { ...entry });
      else {
        known.count += entry.count;
        if (known.bytes !== undefined && entry.bytes !== undefined) known.bytes += entry.bytes;
      }
    }
  }
  return [...total.values()];
}

export class JobPreviews {
  /** The last preview's torrents per site (site-torrents pages through them; start takes them). */
  private finds = new Map<number, SiteFinds>();

  constructor(
    private readonly shared: Shared,
    private readonly clients: Clients,
    private readonly crossSeeds: CrossSeeds,
    private readonly index: ClientIndexFeature,
  ) {}

  /** One site's finds of the last preview (found now if there was none), a page of them, with their links. */
  async siteTorrents(sid: number, offset: number, limit: number): Promise<{ torrents: JobTorrent[]; total: number }> {
    const finds = this.finds.get(sid) ?? (await this.findsFor([sid])).get(sid);
    const torrents = finds?.torrents ?? [];
    return { torrents: await this.linked(torrents.slice(offset, offset + limit)), total: torrents.length };
  }

  /** Every held site's finds over every client's index, decided ones left out (counted); none while the index is off. */
  async findsFor(sids: readonly number[]): Promise<Map<number, SiteFinds>> {
    const found = new Map<number, SiteFinds>();
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled) return found;
    const indexed = await this.index.clientIndexes();
    if (!indexed.length) return found;
    // Every saved client (a "Copies go to" client may have no index of its own open).
    const configs = (await this.clients.handles()).map((handle) => handle.config);
    const decided = await decidedItem.get();
    // Nothing decided yet (a first run): no key to build per find.
    const anyDecided = Object.keys(decided).length > 0;
    // Each index's per-site map, built in chunks if a sync or a start dropped it (the first preview after one).
    const pause = slicer();
    for (const { index } of indexed) await index.prepare(pause);
    // One client: none of the bookkeeping between clients.
    const several = indexed.length > 1;
    let seen = 0;
    for (const sid of sids) {
      const finds: SiteFinds = { sid, torrents: [], decided: 0, refused: new Map() };
      // Places a client before in the user's order took; places refused for one, which a later one may still take.
      const placed = several ? new Set<number>() : undefined;
      const refusedAt = several ? new Map<number, { client: StoredClient; result: JobRefusal }>() : undefined;
      for (let position = 0; position < indexed.length; position++) {
        const { handle, index } = indexed[position]!;
        const config = handle.config;
        const whereTo = destinationsOf(config, configs);
        for (const place of index.opportunities(sid)) {
          if (++seen % CHUNK === 0) await pause();
          if (placed?.has(place.torrentId)) continue;
          // A candidate another client holds: never a duplicate (each index already leaves out what its own client holds).
          if (several && place.hash && indexed.some((other, at) => at !== position && other.index.torrent(place.hash))) continue;
          const destination = whereTo(place.source.savePath);
          if (!destination.ok) {
            if (!refusedAt) countRefused(finds, config, destination.result);
            else if (!refusedAt.has(place.torrentId)) refusedAt.set(place.torrentId, { client: config, result: destination.result });
            continue;
          }
          placed?.add(place.torrentId);
          refusedAt?.delete(place.torrentId);
          // One literal of one shape (no spread: a 100,000-find preview builds 100,000 of them).
          const torrent: JobTorrent = {
            sid,
            torrentId: place.torrentId,
            infoHash: place.hash,
            foundBy: place.foundBy,
            sourceHash: place.source.hash,
            sourceClientId: config.id,
            targetClientId: destination.target.id,
            name: place.source.name,
            bytes: place.source.size,
          };
          if (place.piecesHash) torrent.piecesHash = place.piecesHash;
          if (anyDecided && decided[decidedKey(torrent)]) {
            finds.decided++;
            continue;
          }
          finds.torrents.push(torrent);
        }
      }
      for (const { client, result } of refusedAt?.values() ?? []) countRefused(finds, client, result);
      finds.torrents.sort((a, b) => a.torrentId - b.torrentId);
      found.set(sid, finds);
    }
    return found;
  }

  /**
   * The finds with their details-page links (built from the service's site list, else from the
   * catalog as the popup's are: a user without a token still gets finds from sites asked by pieces
   * hash; and the user's address for the site). Only for what is shown or queued: a 100,000-find
   * preview counts without them.
   */
  async linked(torrents: readonly JobTorrent[]): Promise<JobTorrent[]> {
    if (!torrents.length) return [];
    const settings = await this.shared.settings.get();
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    return torrents.map((torrent) => {
      const detailsUrl = detailsUrlOf(torrent.sid, torrent.torrentId, list, settings.siteOverrides?.[String(torrent.sid)]);
      return detailsUrl ? { ...torrent, detailsUrl } : torrent;
    });
  }

  async preview(options: { readiness?: boolean } = {}): Promise<JobPreview> {
    const at = this.shared.now();
    const settings = await this.shared.settings.get();
    if (!settings.clientIndexEnabled) return { indexOff: true, sites: [], at };
    const handles = await this.clients.handles();
    if (!handles.length) return { problem: 'no-client', sites: [], at };
    const held = settings.heldSites ?? [];
    if (!held.length) return { problem: 'no-sites', sites: [], at };
    const indexed = await this.index.clientIndexes();
    if (!indexed.some(({ index }) => index.anyAnswered())) return { problem: 'index-empty', sites: [], at };
    // The service's site list (links, download rules) read first: the finds' links come from it.
    const env = await this.crossSeeds.siteEnvironment();
    this.finds = await this.findsFor(held);
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const configs = handles.map((handle) => handle.config);
    const sites = await Promise.all(
      held.map(async (sid): Promise<JobSitePreview & { routeList: JobRoute[]; refusedList: JobRefused[] }> => {
        const finds = this.finds.get(sid) ?? { sid, torrents: [], decided: 0, refused: new Map() };
        const pace = await this.crossSeeds.budget.pace(sid);
        const [first] = await this.linked(finds.torrents.slice(0, 1));
        const readiness: SiteReadiness = options.readiness === false ? { state: 'unknown' } : await this.readiness(sid, first, env);
        const homeUrl = list?.find((site) => site.id === sid)?.base_url;
        const routes = routesOf(finds.torrents, configs);
        const refused = [...finds.refused.values()];
        const refusedCount = refused.reduce((sum, entry) => sum + entry.count, 0);
        return {
          sid,
          siteName: siteName(sid, list).name,
          ...(homeUrl && { homeUrl: /^https?:\/\//.test(homeUrl) ? homeUrl : `https://${homeUrl}/` }),
          count: finds.torrents.length,
          bytes: routes.reduce((sum, route) => sum + route.bytes, 0),
          ...(routes.length && { routes }),
          ...(refusedCount && { refused: refusedCount }),
          decided: finds.decided,
          readiness,
          secondsBetween: pace.secondsBetween,
          perDay: pace.perDay,
          usedToday: await this.crossSeeds.budget.usedToday(sid),
          routeList: routes,
          refusedList: refused,
        };
      }),
    );
    const routes = merged(
      sites.map((site) => site.routeList),
      (route) => `${route.sourceId}>${route.targetId}`,
    );
    const position = (id: string) => configs.findIndex((client) => client.id === id);
    routes.sort((a, b) => position(a.sourceId) - position(b.sourceId) || position(a.targetId) - position(b.targetId));
    const refused = merged(
      sites.map((site) => site.refusedList),
      (entry) => `${entry.clientId}:${entry.kind}`,
    );
    return {
      sites: sites.map(({ routeList: _routes, refusedList: _refused, ...site }) => site),
      ...(routes.length && { routes }),
      ...(refused.length && { refused }),
      at,
    };
  }

  /** Whether site `sid` can be downloaded from now: its rule, the permission, and for a session site one light request. */
  private async readiness(sid: number, first: JobTorrent | undefined, env: Awaited<ReturnType<CrossSeeds['siteEnvironment']>>): Promise<SiteReadiness> {
    const source = downloadSource({ sid, torrentId: first?.torrentId ?? 1 }, env.sites);
    if (source.way === 'unsupported') {
      if (source.reason === 'needs-passkey') return { state: 'needs-passkey' };
      if (source.reason === 'needs-api' || source.reason === 'needs-api-key') return { state: 'needs-api-key' };
      return { state: 'unsupported', reason: source.reason };
    }
    if (env.originAllowed && !(await env.originAllowed(source.origin))) return { state: 'needs-permission', origin: source.origin };
    // A passkey or an API key the user entered: nothing a light request could tell more of before the download.
    if (source.way === 'passkey' || source.way === 'api-token') return { state: 'ready' };
    // Nothing to download from the site: no request to it only to tell (the user may not be on it now).
    if (!first) return { state: 'unknown' };
    // A details page: what a session site shows a logged-in user, and its login page otherwise.
    const url = source.way === 'details-page' ? source.detailsUrl : first.detailsUrl;
    if (!url) return { state: 'unknown' };
    const page = await readSitePage(url, { siteKey: source.siteKey, fetch: env.fetch, pace: sitePace }).catch(() => undefined);
    if (!page) return { state: 'unknown' };
    const problem = page.ok ? problemOfPage(page.html) : page.problem;
    if (problem.kind === 'not-logged-in') return { state: 'needs-login', loginUrl: `${source.origin}/login.php` };
    return page.ok ? { state: 'ready' } : { state: 'unknown' };
  }
}
