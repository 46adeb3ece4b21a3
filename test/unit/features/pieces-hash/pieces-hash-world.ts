/**
 * The world of the pieces-hash scenario (pieces-hash-live.test.ts): catalogued NexusPHP hosts on the
 * e2e router, each a test tracker (cross-seed-world.ts's TestTracker: login, details pages,
 * download.php with the passkey) and, on the same host and with the same passkey, the site's
 * pieces-hash API (test/e2e/support/pieces-hash-site.ts); real content whose sources a real
 * qBittorrent seeds; and the reference service, which knows some of the copies by info-hash.
 *
 * The copies are the same files as a source under another `source` (another info-hash, the same
 * pieces hash). The "renamed" item has the same name and the same bytes (so the same pieces hash)
 * but one file under another path: only its .torrent's file list tells it differs.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import { addSeeding } from '../../../clients/seeding';
import { contentBytes, makeTorrent, TRACKERS, writeFolder, type Content, type ContentFile, type MadeTorrent } from '../../../clients/torrent-content';
import { nodeClientFetch, type JarFetch } from '../../../clients/node-fetch';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { TestTracker } from '../../../e2e/support/cross-seed-world';
import { PiecesHashSite, type PiecesHashSiteOptions } from '../../../e2e/support/pieces-hash-site';
import { referenceDataWith, type TorrentGroup } from '../../../e2e/support/tracker-pages';
import type { RecordedRequest } from '../../../e2e/harness/index.ts';
import { startWorld, type World } from '../../../e2e/world';
import { encode, sorted } from '../../../fixtures/torrents/bencode';

/** The sources' site (the page a details page of a source is on). */
export const SOURCE_SITE = { site: 'hdsky', sid: 4, host: 'hdsky.me' } as const;

/** Catalogued NexusPHP sites, asked in sid order. */
export const SITES = {
  /** Answers 401 (the user typed a passkey that is not theirs). */
  tjupt: { site: 'tjupt', sid: 5, host: 'tjupt.org' },
  /** Copies of contents 0, 1, 2 (and 4, once added). */
  ourbits: { site: 'ourbits', sid: 9, host: 'ourbits.club' },
  /** An older NexusPHP: no API. */
  nanyangpt: { site: 'nanyangpt', sid: 15, host: 'nanyangpt.com' },
  /** Takes at most 2 hashes a request (ret -1 above) and 3 requests a minute: one 429 of 1 s, waited out. */
  ssd: { site: 'ssd', sid: 23, host: 'springsunday.net' },
  /** Its minute's quota spent elsewhere: 429 every time. */
  chdbits: { site: 'chdbits', sid: 25, host: 'ptchdbits.co' },
  /** The API moved by its definition (/nexusapi/pieces-hash): a copy of content 3, and content 0 renamed. */
  hhanclub: { site: 'hhanclub', sid: 72, host: 'hhanclub.net' },
} as const;
export type SiteKey = keyof typeof SITES;

export interface PiecesContent {
  index: number;
  name: string;
  files: ContentFile[];
  seed: string;
  /** On SOURCE_SITE, in the client. */
  source: MadeTorrent;
  sourceId: number;
  /** The copies on the sites, by site key. */
  copies: Partial<Record<SiteKey, { id: number; torrent: MadeTorrent }>>;
}

/** A tracker and its pieces-hash API on one host, one passkey. */
export interface NexusSite {
  sid: number;
  host: string;
  tracker: TestTracker;
  api: PiecesHashSite;
  passkey: string;
  /** The router's handler for the host: the API's path to the API, the rest to the tracker. */
  handle(req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void;
}

export interface PiecesWorld {
  world: World;
  sites: Record<SiteKey, NexusSite>;
  contents: PiecesContent[];
  /** Content 0's bytes under a renamed file, on hhanclub. */
  renamed: { id: number; torrent: MadeTorrent };
  /** Writes content `index`'s files under `savePath` and seeds its source in `client`. */
  seed(client: TorrentClient, savePath: string, index: number): Promise<void>;
  siteFetch(): JarFetch;
  logIn(fetch: typeof globalThis.fetch, site: NexusSite): Promise<void>;
  close(): Promise<void>;
}

export const CONTENTS = 5;
/** Contents whose copy on ourbits the reference service also knows (by info-hash). */
export const KNOWN_TO_SERVICE = [0, 1] as const;

function contentSpec(index: number): { name: string; files: ContentFile[]; seed: string } {
  return {
    name: `Reseed Lens Pieces ${index} (2024) [FLAC]`,
    files: [
      { path: '01 - Opening.flac', size: 70_000 + index * 3 },
      { path: '02 - 结尾.flac', size: 40_500 },
      { path: 'Scans/cover.jpg', size: 5_000 },
    ],
    seed: `pieces-hash-live-${index}`,
  };
}

const asContent = (spec: { name: string; files: ContentFile[]; seed: string }, savePath: string): Content => ({ savePath, ...spec, single: false });

/** Real sites put the user's passkey in the announce address: the copies do too (on loopback's discard port). */
function announceOn(site: NexusSite): { announce: string; source: string } {
  return { announce: `http://127.0.0.1:9/${site.tracker.site}/announce.php?passkey=${site.passkey}`, source: site.tracker.site.toUpperCase() };
}

/**
 * A torrent of `spec`'s bytes (the same pieces) whose file `renameAt` is listed under `newPath`:
 * what a site's re-upload with a renamed file is.
 */
function renamedTorrent(spec: { name: string; files: ContentFile[]; seed: string }, renameAt: number, newPath: string, on: { announce: string; source: string }): MadeTorrent {
  const pieceLength = 16_384;
  const data = Buffer.concat(spec.files.map((file) => contentBytes(`${spec.seed}/${file.path}`, file.size)));
  const pieces: Buffer[] = [];
  for (let start = 0; start < data.length; start += pieceLength) pieces.push(createHash('sha1').update(data.subarray(start, start + pieceLength)).digest());
  const files = spec.files.map((file, at) => sorted({ length: file.size, path: (at === renameAt ? newPath : file.path).split('/') }));
  const info = sorted({ files, name: spec.name, 'piece length': pieceLength, pieces: Buffer.concat(pieces), private: 1, source: on.source });
  const marks: { key: string; at?: [number, number] } = { key: 'info' };
  const bytes = encode(sorted({ announce: on.announce, 'created by': 'Reseed Lens tests', 'creation date': 1_700_000_000, info }), marks);
  return { bytes, hash: createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex'), name: spec.name, tracker: on.source };
}

export interface PiecesWorldOptions {
  /** Options per site's API (clock, limits, no API). */
  api?: Partial<Record<SiteKey, PiecesHashSiteOptions>>;
}

export async function startPiecesWorld(options: PiecesWorldOptions = {}): Promise<PiecesWorld> {
  const page = new TestTracker(SOURCE_SITE.host, SOURCE_SITE.sid, SOURCE_SITE.site, true);
  const sites = {} as Record<SiteKey, NexusSite>;
  for (const [key, spec] of Object.entries(SITES) as [SiteKey, (typeof SITES)[SiteKey]][]) {
    const tracker = new TestTracker(spec.host, spec.sid, spec.site);
    const path = key === 'hhanclub' ? '/nexusapi/pieces-hash' : undefined;
    const api = new PiecesHashSite(spec.host, { ...(path && { path }), ...options.api?.[key], passkey: tracker.passkey });
    const handle = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) =>
      (new URL(recorded.path, `https://${spec.host}`).pathname === api.path ? api.handle : tracker.handle)(req, res, recorded);
    sites[key] = { sid: spec.sid, host: spec.host, tracker, api, passkey: tracker.passkey, handle };
  }

  const contents: PiecesContent[] = [];
  const copyOn = (content: PiecesContent, key: SiteKey, id: number) => {
    const site = sites[key];
    const torrent = makeTorrent(asContent(content, ''), announceOn(site));
    site.tracker.list(id, torrent, content.name);
    content.copies[key] = { id, torrent };
  };
  for (let index = 0; index < CONTENTS; index++) {
    const spec = contentSpec(index);
    const source = makeTorrent(asContent(spec, ''), TRACKERS.alpha);
    const content: PiecesContent = { index, ...spec, source, sourceId: 1001 + index, copies: {} };
    page.list(content.sourceId, source, spec.name);
    if (index !== 3) copyOn(content, 'ourbits', 2001 + index);
    if (index === 3) copyOn(content, 'hhanclub', 7004);
    if (index === 2) copyOn(content, 'ssd', 2302);
    contents.push(content);
  }
  const renamed = { id: 7900, torrent: renamedTorrent(contents[0]!, 2, 'Scans/front.jpg', announceOn(sites.hhanclub)) };
  sites.hhanclub.tracker.list(renamed.id, renamed.torrent, `${contents[0]!.name} (repack)`);

  // The sites' APIs: pieces hash → torrent id, as each site would index its own torrents.
  const piecesOf = (torrent: MadeTorrent) => {
    const info = /6:pieces(\d+):/.exec(torrent.bytes.toString('latin1'));
    if (!info) throw new Error('no pieces in the made torrent');
    const start = info.index + info[0].length;
    return createHash('sha1').update(torrent.bytes.subarray(start, start + Number(info[1]))).digest('hex');
  };
  for (const site of Object.values(sites)) {
    for (const [id, listed] of site.tracker.torrents) site.api.list(piecesOf(listed.torrent), id);
  }

  // The service knows the sources and some of their copies on ourbits.
  const groups: TorrentGroup[] = contents.map((content) => ({
    title: content.name,
    members: [
      { site: SOURCE_SITE.site, torrent_id: content.sourceId, info_hash: content.source.hash },
      ...((KNOWN_TO_SERVICE as readonly number[]).includes(content.index)
        ? [{ site: SITES.ourbits.site, torrent_id: content.copies.ourbits!.id, info_hash: content.copies.ourbits!.torrent.hash }]
        : []),
    ],
  }));
  const world = await startWorld({ service: { data: referenceDataWith(groups), rateLimit: { max: 1000 } } });
  world.router.setHost(page.host, page.handle);
  for (const site of Object.values(sites)) world.router.setHost(site.host, site.handle);

  return {
    world,
    sites,
    contents,
    renamed,
    async seed(client, savePath, index) {
      const content = contents[index]!;
      await addSeeding(client, content.source, writeFolder(savePath, content.name, content.files, content.seed));
    },
    siteFetch: () => nodeClientFetch({ inner: proxiedFetch(world.router.port) }),
    async logIn(fetch, site) {
      const answer = await fetch(site.tracker.loginUrl('https'), { credentials: 'include' });
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`login on ${site.host} answered ${answer.status}`);
    },
    close: () => world.close(),
  };
}
