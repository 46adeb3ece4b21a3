/**
 * The world of the pieces-hash e2e tests (issue 18): a user whose client seeds sources from the
 * page's site (HDSky), and NexusPHP sites that hold copies of them (same files, another `source`,
 * so another info-hash) which only asking by pieces hash finds.
 *
 * - OurBits is ONE host playing both parts of a real NexusPHP site: a TestTracker (login, details
 *   pages, download.php by session or passkey, its torrents.php list page) and a PiecesHashSite
 *   answering `/api/pieces-hash` from its copies' pieces hashes. The user's passkey is the same on both.
 * - Three more catalogued NexusPHP hosts answer only the API, each failing its own way: the user's
 *   passkey is wrong (401), an older NexusPHP without the API (404), or no request left this minute (429).
 * - The reference service (2025.iyuu.cn) names the copies of `iyuuNames` by info-hash, for a user
 *   with a token: those are found by both sources.
 *
 * Announce URLs are on loopback's discard port: no client ever talks to a real tracker.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { makeTorrent, TRACKERS, writeFolder, type ContentFile, type MadeTorrent } from '../../clients/torrent-content';
import { addSeeding } from '../../clients/seeding';
import type { TorrentClient } from '../../../utils/clients/client-types';
import type { RecordedRequest } from '../harness/index.ts';
import { startWorld, type World } from '../world';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, SPREAD_SITES, TestTracker, type SiteSpec } from './cross-seed-world';
import { PiecesHashSite } from './pieces-hash-site';
import { referenceDataWith, servePage, type ServedPage, type TorrentGroup } from './tracker-pages';

/** The site asked by pieces hash that works (tracker and API on one host). */
export const PIECES_SITE = CANDIDATE_SITE;
/** Sites asked by pieces hash that each fail one way. */
export const WRONG_PASSKEY_SITE = OTHER_SITE;
export const NO_API_SITE = SPREAD_SITES.chdbits;
export const RATE_LIMITED_SITE = SPREAD_SITES.tjupt;
/** What the rate-limited site's 429 says (seconds). */
export const RATE_LIMIT_RETRY_AFTER = 3600;

/** The rows of the NexusPHP list fixture that become the copies on the pieces site (their ids are the copies' ids). */
const LIST_FIXTURE = 'nexusphp-list';
const LIST_ROWS = [
  { id: 60003, hash: '00fb86738b42c835484f3e32248c1e89af9ed025' },
  { id: 60006, hash: 'e53a50ae8dae18aefd9ff8d085b8cf8d6ab84300' },
] as const;

export interface PiecesPair {
  name: string;
  files: ContentFile[];
  seed: string;
  /** On HDSky: the torrent the client seeds. */
  source: MadeTorrent;
  sourceId: number;
  /** On the pieces site: same bytes, another info-hash (RENAMED_PAIR's under another root folder: a renamed copy, issue 25). */
  copy: MadeTorrent;
  /** The copy's root folder where it differs from the source's. */
  copyName?: string;
  copyId: number;
  /** SHA-1 of the raw `info.pieces` both share. */
  piecesHash: string;
}

export interface PiecesHashWorld {
  world: World;
  /** HDSky: the sources' details pages. */
  page: TestTracker;
  /** OurBits as a tracker (details, downloads, list page)… */
  tracker: TestTracker;
  /** …and as the API on the same host. */
  api: PiecesHashSite;
  /** The failing sites' APIs, by sid. */
  failing: Map<number, PiecesHashSite>;
  pairs: PiecesPair[];
  /** OurBits' torrents.php, with the copies as two of its rows. */
  listPage: ServedPage;
  /**
   * Every request a site's host got, in words, for a failing assertion's message: what the site was
   * handed (method, scheme/host/path, status) and the HTTPS tunnels the router refused for that host
   * (an https:// request never reaches the site).
   */
  requestsSeenBy(host: string): string;
  /** Writes the files and adds every source to the client, seeding at 100 %. */
  seed(client: TorrentClient, dataDir: string): Promise<void>;
  close(): Promise<void>;
}

/** SHA-1 of the raw bytes of `info.pieces`, read straight from the .torrent (independently of the extension's reader). */
export function piecesHashOf(bytes: Buffer): string {
  const key = bytes.indexOf('6:pieces');
  if (key < 0) throw new Error('no info.pieces in this torrent');
  const start = key + '6:pieces'.length;
  const colon = bytes.indexOf(':', start);
  const length = Number(bytes.subarray(start, colon).toString('latin1'));
  return createHash('sha1').update(bytes.subarray(colon + 1, colon + 1 + length)).digest('hex');
}

function announceOn(site: SiteSpec): { announce: string; source: string } {
  // Not the user's passkey: a .torrent's announce is the tracker's business, never the test's secret.
  return { announce: `http://127.0.0.1:9/${site.site}/announce.php?passkey=${randomBytes(16).toString('hex')}`, source: site.site.toUpperCase() };
}

/** The pair whose copy on the pieces site names its root folder otherwise: found only by pieces hash, added renamed. */
export const RENAMED_PAIR = 1;

export interface PiecesHashWorldOptions {
  /** Pairs whose copy the reference service names by info-hash (found by both sources with a token). */
  iyuuNames?: number[];
}

export async function startPiecesHashWorld(options: PiecesHashWorldOptions = {}): Promise<PiecesHashWorld> {
  const page = new TestTracker(PAGE_SITE.host, PAGE_SITE.sid, PAGE_SITE.site, true);
  const tracker = new TestTracker(PIECES_SITE.host, PIECES_SITE.sid, PIECES_SITE.site);
  // One user on one site: the passkey download.php takes is the one the API takes.
  const api = new PiecesHashSite(PIECES_SITE.host, { passkey: tracker.passkey });

  const pairs: PiecesPair[] = LIST_ROWS.map((row, index) => {
    const name = `Reseed Lens Pieces ${index} (2024) [FLAC]`;
    const files: ContentFile[] = [
      { path: '01 - Opening.flac', size: 170_000 + index * 11 },
      { path: 'Scans/cover.jpg', size: 7_000 },
    ];
    const seed = `pieces-hash-pair-${index}`;
    const content = { savePath: '', name, files, single: false, seed };
    const source = makeTorrent(content, TRACKERS.alpha);
    const copyName = index === RENAMED_PAIR ? name.replaceAll(' ', '.').replace(/[()[\]]/g, '') : undefined;
    const copy = makeTorrent(content, { ...announceOn(PIECES_SITE), ...(copyName && { layout: { name: copyName, single: false, paths: files.map((file) => file.path) } }) });
    const piecesHash = piecesHashOf(copy.bytes);
    if (piecesHashOf(source.bytes) !== piecesHash || source.hash === copy.hash) throw new Error('a copy must share its source\'s pieces, not its info-hash');
    const sourceId = 1101 + index;
    page.list(sourceId, source, name);
    tracker.list(row.id, copy, name);
    api.list(piecesHash, row.id);
    return { name, files, seed, source, sourceId, copy, copyId: row.id, piecesHash, ...(copyName && { copyName }) };
  });

  const failing = new Map<number, PiecesHashSite>([
    [WRONG_PASSKEY_SITE.sid, new PiecesHashSite(WRONG_PASSKEY_SITE.host)],
    [NO_API_SITE.sid, new PiecesHashSite(NO_API_SITE.host, { withoutApi: 'not-found' })],
    // Nothing left this hour: longer than a sync waits (10 minutes), so the sync stops asking it at once.
    [RATE_LIMITED_SITE.sid, new PiecesHashSite(RATE_LIMITED_SITE.host, { perMinute: 0, retryAfterSeconds: RATE_LIMIT_RETRY_AFTER })],
  ]);
  // The sites hold the copies too: only the way each fails keeps them from being found.
  for (const site of failing.values()) for (const pair of pairs) site.list(pair.piecesHash, pair.copyId);

  const groups: TorrentGroup[] = (options.iyuuNames ?? []).map((index) => ({
    title: pairs[index]!.name,
    members: [
      { site: PAGE_SITE.site, torrent_id: pairs[index]!.sourceId, info_hash: pairs[index]!.source.hash },
      { site: PIECES_SITE.site, torrent_id: pairs[index]!.copyId, info_hash: pairs[index]!.copy.hash },
    ],
  }));
  const world = await startWorld({ service: { data: referenceDataWith(groups), rateLimit: { max: 1000 } } });

  // The list page shows each copy's own hash in its row (the page is the authority on its torrents).
  const listPage = servePage(LIST_FIXTURE, PIECES_SITE.host, {
    edit: (html) => LIST_ROWS.reduce((text, row, index) => text.replaceAll(row.hash, pairs[index]!.copy.hash).replaceAll(row.hash.toUpperCase(), pairs[index]!.copy.hash.toUpperCase()), html),
  });
  world.router.setHost(page.host, page.handle);
  world.router.setHost(PIECES_SITE.host, (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => {
    const path = recorded.path.split('?')[0];
    if (path === api.path) return api.handle(req, res, recorded);
    if (recorded.path === listPage.path) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(listPage.html);
    }
    return tracker.handle(req, res, recorded);
  });
  for (const site of failing.values()) world.router.setHost(site.host, site.handle);

  const requestsSeenBy = (host: string): string => {
    const since = world.router.requests[0]?.time ?? Date.now();
    const site = [api, ...failing.values()].find((candidate) => candidate.host === host);
    // OurBits' host is tracker and API at once: there the router's log is the host's.
    const handed = site && site !== api ? site.seen : world.router.requestsTo(host).filter((request) => request.via !== 'connect').map((request) => ({ at: request.time, method: request.method, url: request.url, status: request.status ?? 0 }));
    const tunnels = world.router.requestsTo(host).filter((request) => request.via === 'connect').map((request) => ({ at: request.time, method: request.method, url: request.url, status: 502 }));
    const lines = [...handed, ...tunnels].sort((a, b) => a.at - b.at).map((request) => `  +${request.at - since} ms ${request.method} ${request.url} → ${request.status || 'no answer'}`);
    return `what ${host} got (${lines.length}):\n${lines.join('\n') || '  (nothing)'}`;
  };

  return {
    world,
    page,
    tracker,
    api,
    failing,
    pairs,
    listPage,
    requestsSeenBy,
    async seed(client, dataDir) {
      for (const pair of pairs) await addSeeding(client, pair.source, writeFolder(dataDir, pair.name, pair.files, pair.seed));
    },
    close: () => world.close(),
  };
}
