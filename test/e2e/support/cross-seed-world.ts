/**
 * The world a cross-seed runs in, for the Node integration tests, the e2e tests and the bench:
 *
 * - two test trackers on catalogued NexusPHP hosts, routed by the e2e router: the page's site
 *   (hdsky.me, sid 4) and the candidate's site (ourbits.club, sid 9). Each serves a login page that
 *   hands out a NexusPHP-style session (c_secure_uid / c_secure_pass, HttpOnly, lasting), details
 *   pages (world.ts's nexusDetailsPage), and `download.php?id=N` that gives the .torrent only to a
 *   logged-in session (or with the user's passkey) and otherwise redirects to login.php as
 *   NexusPHP does (or shows its login page). HDSky's links carry a per-user sign, as the real site's
 *   do, so a candidate there goes through its details page. A test can make a tracker limit
 *   downloads, refuse them, answer another torrent, or end the user's session;
 * - real content (test/clients/torrent-content.ts): for each pair, files on disk wherever the test puts
 *   them, the source .torrent on tracker A (the page's torrent, added to the client as seeding by
 *   `seed`) and the candidate .torrent on tracker B (same files, other `source` and announce, so
 *   another info-hash), plus one "different files" candidate (same name, other files);
 * - the reference service (answering as 2025.iyuu.cn) with data in which the page's hash has these
 *   candidates.
 *
 * Announce URLs are on loopback's discard port (test/clients/torrent-content.ts): no client ever talks to
 * a real tracker or asks a resolver.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ClientTorrent, TorrentClient } from '../../../utils/clients/client-types';
import type { CrossSeedCandidate } from '../../../utils/cross-seed-engine';
import type { SiteSettings } from '../../../utils/cross-seed-engine/source';
import { serviceSiteSchema, type ServiceSite } from '../../../utils/iyuu/answer-schemas';
import { makeTorrent, TRACKERS, writeFolder, type Content, type ContentFile, type MadeTorrent } from '../../clients/torrent-content';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';
import { proxiedFetch } from '../../clients/proxy-fetch';
import { addSeeding } from '../../clients/seeding';
import { FIXTURE_PAGES_DIR, type RecordedRequest } from '../harness/index.ts';
import { DEMO_TOKEN, type ReferenceOptions } from '../../service/server';
import { nexusDetailsPage, SERVICE_BASE_URL, startWorld, type World } from '../world';
import { referenceDataWith, type TorrentGroup } from './tracker-pages';

export const PAGE_SITE = { site: 'hdsky', sid: 4, host: 'hdsky.me' } as const;
export const CANDIDATE_SITE = { site: 'ourbits', sid: 9, host: 'ourbits.club' } as const;
/** A third site with a candidate for pairs[0] (`otherSite`): one the user is not on, in "Cross-seed all" tests. */
export const OTHER_SITE = { site: 'ssd', sid: 23, host: 'springsunday.net' } as const;

/** What a tracker's download.php answers a logged-in user. */
export type DownloadAnswer = 'torrent' | 'limit-page' | 'http-429' | 'http-403' | 'permission-page' | 'other-torrent' | 'first-download-notice';

/** The words of FIRST_DOWNLOAD_NOTICE's message cell, as the site's words are read (siteWordsOf): what a stopped site's row quotes. */
export const FIRST_DOWNLOAD_WORDS = '这是你第一次在本站下载种子。请先阅读 规则 和 常见问题 ，确认后再下载。 我已阅读，继续下载';

/** What a NexusPHP site shows instead of a user's first .torrent: a notice pointing to its rules, and a link to go on. */
function firstDownloadNotice(id: number): string {
  return `<!DOCTYPE html><html><head><title>下载须知</title></head><body><h2>第一次下载提示</h2><table><tr><td class="text">这是你第一次在本站下载种子。请先阅读<a href="rules.php">规则</a>和<a href="faq.php">常见问题</a>，确认后再下载。<br /><a href="download.php?id=${id}&amp;letmedown=1">我已阅读，继续下载</a></td></tr></table></body></html>`;
}

export interface TrackerDownload {
  id: number;
  path: string;
  /** performance.now() when the request reached the tracker. */
  at: number;
  /** Whether a .torrent was sent. */
  served: boolean;
}

interface Listed {
  torrent: MadeTorrent;
  title: string;
}

const LOGIN_PAGE = readFileSync(join(FIXTURE_PAGES_DIR, 'nexusphp-login.html'), 'utf8');

function sign(parts: string[]): string {
  return createHash('sha1').update(parts.join(':')).digest('hex').slice(0, 16);
}

/** One NexusPHP-like tracker on a catalogued host, answering through the router. */
export class TestTracker {
  readonly torrents = new Map<number, Listed>();
  readonly downloads: TrackerDownload[] = [];
  /** What download.php gives a logged-in user (tests switch it). */
  downloadAnswer: DownloadAnswer = 'torrent';
  /** Answers for the next download.php requests, one each, before `downloadAnswer` again. */
  readonly nextAnswers: DownloadAnswer[] = [];
  /** The Retry-After (seconds) of an 'http-429'. */
  retryAfter = '120';
  /** The site's own markup (styles, scripts) added to a details page, by torrent id: a hostile page's tricks. */
  readonly pageExtras = new Map<number, string>();
  /** What download.php does without a session: NexusPHP redirects to login.php; some forks show the login page. */
  loggedOut: 'redirect' | 'login-page' = 'redirect';
  /** The user's passkey on this site (download.php?id=N&passkey=… works without a session). */
  readonly passkey = randomBytes(16).toString('hex');
  private readonly uid = String(10_000 + Math.floor(Math.random() * 80_000));
  private session = randomBytes(12).toString('hex');

  constructor(
    readonly host: string,
    readonly sid: number,
    readonly site: string,
    /** Links carry a per-user sign that download.php checks (HDSky's do). */
    readonly signedDownloads = false,
  ) {}

  /** The page that logs the user in (sets the session cookies), as the user's own login would. */
  loginUrl(scheme: 'http' | 'https' = 'http'): string {
    return `${scheme}://${this.host}/login.php`;
  }

  detailsUrl(id: number, scheme: 'http' | 'https' = 'http'): string {
    return `${scheme}://${this.host}/details.php?id=${id}`;
  }

  /** The user's session ends (expired, logged out elsewhere): the cookie they hold is no longer accepted. */
  endSessions(): void {
    this.session = randomBytes(12).toString('hex');
  }

  list(id: number, torrent: MadeTorrent, title: string): void {
    this.torrents.set(id, { torrent, title });
  }

  private loggedIn(cookie: string | undefined): boolean {
    const cookies = new Map(
      (cookie ?? '')
        .split(/;\s*/)
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
    );
    return cookies.get('c_secure_pass') === this.session && cookies.get('c_secure_uid') === Buffer.from(this.uid).toString('base64');
  }

  private signOf(id: number): string {
    return sign([this.host, this.uid, String(id), this.passkey]);
  }

  /** The router's handler for this host. */
  readonly handle = (_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void => {
    const url = new URL(recorded.path, `http://${this.host}`);
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    const html = (body: string, status = 200) => send(status, 'text/html; charset=utf-8', body);
    const loggedIn = this.loggedIn(recorded.headers.cookie);
    const id = Number(url.searchParams.get('id'));
    const listed = Number.isSafeInteger(id) ? this.torrents.get(id) : undefined;

    if (url.pathname === '/login.php') {
      // NexusPHP's logincookie(): lasting HttpOnly cookies, path /.
      return send(200, 'text/html; charset=utf-8', '<p>welcome back</p>', {
        'set-cookie': [
          `c_secure_uid=${Buffer.from(this.uid).toString('base64')}; path=/; Max-Age=2592000; HttpOnly`,
          `c_secure_pass=${this.session}; path=/; Max-Age=2592000; HttpOnly`,
        ],
      });
    }
    if (url.pathname === '/details.php') {
      if (!loggedIn) return html(LOGIN_PAGE);
      if (!listed) return html('<h1>Not Found</h1>', 404);
      let page = nexusDetailsPage({ site: this.site, torrentId: id, hash: listed.torrent.hash, title: listed.title });
      if (this.signedDownloads) page = page.replaceAll(`download.php?id=${id}"`, `download.php?id=${id}&amp;passkey=${this.passkey}&amp;sign=${this.signOf(id)}"`);
      const extra = this.pageExtras.get(id);
      if (extra) page = page.replace('</body>', `${extra}</body>`);
      return html(page);
    }
    if (url.pathname === '/download.php') {
      const download: TrackerDownload = { id, path: recorded.path, at: performance.now(), served: false };
      this.downloads.push(download);
      const byPasskey = url.searchParams.get('passkey') === this.passkey && !this.signedDownloads;
      const signed = !this.signedDownloads || (url.searchParams.get('passkey') === this.passkey && url.searchParams.get('sign') === this.signOf(id));
      if (!byPasskey && !loggedIn) {
        if (this.loggedOut === 'login-page') return html(LOGIN_PAGE);
        return send(302, 'text/html; charset=utf-8', '', { location: `http://${this.host}/login.php?returnto=${encodeURIComponent(`download.php?id=${id}`)}` });
      }
      if (!signed) return html('<h2>错误</h2><table><tr><td class="text">无效的下载链接</td></tr></table>');
      if (!listed) return html('<h1>Not Found</h1>', 404);
      switch (this.nextAnswers.shift() ?? this.downloadAnswer) {
        case 'limit-page':
          return html('<h2>下载失败</h2><table><tr><td class="text">你今天的下载次数已达上限（60 个），请明天再来。</td></tr></table>');
        case 'http-429':
          return send(429, 'text/plain; charset=utf-8', 'Too Many Requests', { 'retry-after': this.retryAfter });
        case 'http-403':
          return send(403, 'text/html; charset=utf-8', '<h1>403 Forbidden</h1>');
        case 'permission-page':
          return html('<h2>错误！</h2><table><tr><td class="text">权限不足！</td></tr></table>');
        case 'first-download-notice':
          return html(firstDownloadNotice(id));
        case 'other-torrent': {
          const other = [...this.torrents.values()].find((entry) => entry.torrent.hash !== listed.torrent.hash);
          if (!other) return html('<h1>no other torrent to send</h1>', 500);
          download.served = true;
          return send(200, 'application/x-bittorrent', other.torrent.bytes);
        }
        case 'torrent':
          download.served = true;
          return send(200, 'application/x-bittorrent', listed.torrent.bytes, { 'content-disposition': `attachment; filename="${id}.torrent"` });
      }
    }
    return html('<h1>Not Found</h1>', 404);
  };
}

/** One content and its torrents on both trackers. */
/**
 * The settings of this world's user, for `settings:save`: the token, the page's and the candidate's
 * sites held (and `alsoOver` listed too), their addresses over http (the router is a plain HTTP proxy).
 */
export function crossSeedUserSettings(alsoOver: number[] = []) {
  const http = { scheme: 'http' };
  const overrides: Record<string, { scheme: string }> = { [PAGE_SITE.sid]: http, [CANDIDATE_SITE.sid]: http };
  for (const sid of alsoOver) overrides[sid] = http;
  return { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid], askedForSites: true, siteOverrides: overrides };
}

export interface CrossSeedPair {
  title: string;
  /** Where the files go is the test's choice (`placeContent`); the torrents do not depend on it. */
  name: string;
  files: ContentFile[];
  seed: string;
  /** On the page's site: the torrent already in the client. */
  source: MadeTorrent;
  sourceId: number;
  /** On the candidate's site: same files, another info-hash. */
  candidate: MadeTorrent;
  candidateId: number;
  /** What crossSeed() takes for it. */
  ref: CrossSeedCandidate;
}

export interface CrossSeedWorld {
  world: World;
  page: TestTracker;
  candidate: TestTracker;
  /** pairs[0] is the main one; more for the bench. */
  pairs: CrossSeedPair[];
  /** A candidate on the candidate's site with the same name as pairs[0] but other files. */
  differentFiles: { torrent: MadeTorrent; id: number; ref: CrossSeedCandidate; files: ContentFile[] };
  /** With `otherSite`: pairs[0]'s content on a third tracker (OTHER_SITE), its own torrent there. */
  other?: { tracker: TestTracker; torrent: MadeTorrent; id: number; ref: CrossSeedCandidate };
  /** The service's site list, as the background reads it. */
  siteList: ServiceSite[];
  /** The site settings crossSeed() takes (the service's list; the test adds passkeys or overrides). */
  siteSettings(extra?: Omit<SiteSettings, 'list'>): SiteSettings;
  /** Writes pair `index`'s files into `savePath` (the client's data folder). */
  placeContent(savePath: string, index?: number): Content;
  /** Writes the files and adds the source torrent to `client` as seeding (verified to 100 %). */
  seed(client: TorrentClient, savePath: string, index?: number): Promise<ClientTorrent>;
  /** A cookie-jar fetch through the router (Node): the user's browser, as far as the trackers can tell. */
  siteFetch(): JarFetch;
  /** Logs that fetch's user in on a tracker. */
  logIn(fetch: typeof globalThis.fetch, tracker: TestTracker): Promise<void>;
  close(): Promise<void>;
}

function pairContent(index: number): { name: string; files: ContentFile[]; seed: string } {
  return {
    name: `Reseed Lens Cross-seed ${index} (2024) [FLAC]`,
    files: [
      { path: '01 - Opening.flac', size: 180_000 + index },
      { path: '02 - 结尾.flac', size: 120_500 },
      { path: 'Scans/cover.jpg', size: 9_000 },
    ],
    seed: `cross-seed-pair-${index}`,
  };
}

function asContent(spec: { name: string; files: ContentFile[]; seed: string }, savePath: string): Content {
  return { savePath, name: spec.name, files: spec.files, single: false, seed: spec.seed };
}

export interface CrossSeedWorldOptions {
  /** How many content pairs (default 1). */
  pairs?: number;
  /** Also list pairs[0]'s content on a third tracker (OTHER_SITE). */
  otherSite?: boolean;
  service?: Omit<ReferenceOptions, 'data'>;
}

export async function startCrossSeedWorld(options: CrossSeedWorldOptions = {}): Promise<CrossSeedWorld> {
  const page = new TestTracker(PAGE_SITE.host, PAGE_SITE.sid, PAGE_SITE.site, true);
  const candidate = new TestTracker(CANDIDATE_SITE.host, CANDIDATE_SITE.sid, CANDIDATE_SITE.site);
  const pairs: CrossSeedPair[] = [];
  for (let index = 0; index < (options.pairs ?? 1); index++) {
    const spec = pairContent(index);
    const content = asContent(spec, '');
    const source = makeTorrent(content, TRACKERS.alpha);
    const made = makeTorrent(content, TRACKERS.beta);
    const sourceId = 1001 + index;
    const candidateId = 2001 + index;
    page.list(sourceId, source, spec.name);
    candidate.list(candidateId, made, spec.name);
    pairs.push({ title: spec.name, ...spec, source, sourceId, candidate: made, candidateId, ref: { sid: CANDIDATE_SITE.sid, torrentId: candidateId, infoHash: made.hash } });
  }
  const main = pairs[0]!;
  // Same name, other files: one size differs, one file is new, one is gone.
  const otherFiles: ContentFile[] = [
    { path: '01 - Opening.flac', size: 180_001 },
    { path: '02 - 结尾.flac', size: 120_500 },
    { path: 'extra.nfo', size: 700 },
  ];
  const different = makeTorrent(asContent({ name: main.name, files: otherFiles, seed: 'other-release' }, ''), TRACKERS.beta);
  const differentId = 2900;
  candidate.list(differentId, different, `${main.name} (other release)`);

  let other: CrossSeedWorld['other'];
  if (options.otherSite) {
    const tracker = new TestTracker(OTHER_SITE.host, OTHER_SITE.sid, OTHER_SITE.site);
    const torrent = makeTorrent(asContent(pairContent(0), ''), { announce: 'http://127.0.0.1:9/gamma/announce.php?passkey=0c0c0c0c0c0c0c0c', source: 'GAMMA' });
    const id = 3001;
    tracker.list(id, torrent, main.name);
    other = { tracker, torrent, id, ref: { sid: OTHER_SITE.sid, torrentId: id, infoHash: torrent.hash } };
  }

  const groups: TorrentGroup[] = pairs.map((pair, index) => ({
    title: pair.title,
    members: [
      { site: PAGE_SITE.site, torrent_id: pair.sourceId, info_hash: pair.source.hash },
      { site: CANDIDATE_SITE.site, torrent_id: pair.candidateId, info_hash: pair.candidate.hash },
      ...(index === 0 ? [{ site: CANDIDATE_SITE.site, torrent_id: differentId, info_hash: different.hash }] : []),
      ...(index === 0 && other ? [{ site: OTHER_SITE.site, torrent_id: other.id, info_hash: other.torrent.hash }] : []),
    ],
  }));
  const data = referenceDataWith(groups);
  const world = await startWorld({ service: { ...options.service, data, rateLimit: { max: 1000, ...options.service?.rateLimit } } });
  world.router.setHost(page.host, page.handle);
  world.router.setHost(candidate.host, candidate.handle);
  if (other) world.router.setHost(other.tracker.host, other.tracker.handle);
  const siteList = data.sites.flatMap((entry) => {
    const parsed = serviceSiteSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });

  const placeContent = (savePath: string, index = 0): Content => {
    const pair = pairs[index]!;
    return writeFolder(savePath, pair.name, pair.files, pair.seed);
  };

  return {
    world,
    page,
    candidate,
    pairs,
    differentFiles: { torrent: different, id: differentId, files: otherFiles, ref: { sid: CANDIDATE_SITE.sid, torrentId: differentId, infoHash: different.hash } },
    other,
    siteList,
    siteSettings: (extra = {}) => ({ list: siteList, ...extra }),
    placeContent,
    seed: (client, savePath, index = 0) => addSeeding(client, pairs[index]!.source, placeContent(savePath, index)),
    siteFetch: () => nodeClientFetch({ inner: proxiedFetch(world.router.port) }),
    async logIn(fetch, tracker) {
      const answer = await fetch(tracker.loginUrl('https'), { credentials: 'include' });
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`login on ${tracker.host} answered ${answer.status}`);
    },
    close: () => world.close(),
  };
}
