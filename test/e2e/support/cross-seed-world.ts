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
import { until } from './wait';
import { FIXTURE_PAGES_DIR, type RecordedRequest } from '../harness/index.ts';
import { DEMO_TOKEN, type ReferenceOptions } from '../../service/server';
import { nexusDetailsPage, SERVICE_BASE_URL, startWorld, type World } from '../world';
import { referenceDataWith, type TorrentGroup } from './tracker-pages';

export const PAGE_SITE = { site: 'hdsky', sid: 4, host: 'hdsky.me' } as const;
export const CANDIDATE_SITE = { site: 'ourbits', sid: 9, host: 'ourbits.club' } as const;
/** A third site with a candidate for pairs[0] (`otherSite`): one the user is not on, in "Cross-seed all" tests. */
export const OTHER_SITE = { site: 'ssd', sid: 23, host: 'springsunday.net' } as const;

/** What a tracker's download.php answers a logged-in user. */
export type DownloadAnswer =
  | 'torrent'
  | 'limit-page'
  | 'http-429'
  | 'http-403'
  | 'permission-page'
  | 'other-torrent'
  /** Cloudflare's managed challenge in front of the site: 403, `cf-mitigated: challenge`, its "Just a moment..." page. */
  | 'challenge';

const CHALLENGE_PAGE = '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><div class="main-wrapper" role="main"><h1>Verifying you are human. This may take a few seconds.</h1></div><script>(function(){window._cf_chl_opt={cvId:"3",cType:"managed"};})();</script></body></html>';

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
  /**
   * The user has not yet read the site's first-download notice (NexusPHP's `showdlnotice`):
   * download.php without `letdown=1` sends them to downloadnotice.php (a 302, as NexusPHP's
   * nexus_redirect does: 'redirect'), or shows that notice in place ('page', as some forks do).
   */
  firstDownloadNotice: false | 'redirect' | 'page' = false;
  /** Every request this tracker got (any path), in order: a test's marker request shows what came before it. */
  readonly requests: { path: string; at: number }[] = [];
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
    this.requests.push({ path: recorded.path, at: performance.now() });
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
      if (this.firstDownloadNotice && !byPasskey && url.searchParams.get('letdown') !== '1') {
        if (this.firstDownloadNotice === 'page') return html(firstDownloadNoticePage(id));
        return send(302, 'text/html; charset=utf-8', '', { location: `http://${this.host}/downloadnotice.php?torrentid=${id}&type=firsttime` });
      }
      switch (this.nextAnswers.shift() ?? this.downloadAnswer) {
        case 'limit-page':
          return html('<h2>下载失败</h2><table><tr><td class="text">你今天的下载次数已达上限（60 个），请明天再来。</td></tr></table>');
        case 'http-429':
          return send(429, 'text/plain; charset=utf-8', 'Too Many Requests', { 'retry-after': this.retryAfter });
        case 'http-403':
          return send(403, 'text/html; charset=utf-8', '<h1>403 Forbidden</h1>');
        case 'permission-page':
          return html('<h2>错误！</h2><table><tr><td class="text">权限不足！</td></tr></table>');
        case 'challenge':
          return send(403, 'text/html; charset=utf-8', CHALLENGE_PAGE, { 'cf-mitigated': 'challenge', server: 'cloudflare' });
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
    if (url.pathname === '/downloadnotice.php') {
      if (!loggedIn) return html(LOGIN_PAGE);
      return html(firstDownloadNoticePage(Number(url.searchParams.get('torrentid')) || 0));
    }
    return html('<h1>Not Found</h1>', 404);
  };
}

/**
 * NexusPHP's downloadnotice.php for a first download (type=firsttime), in its Simplified Chinese
 * words (lang/chs/lang_downloadnotice.php): the notice, the site's rules, and a form that posts
 * back to download the torrent once read. Not a login form, not a limit: a page the user must see.
 */
export function firstDownloadNoticePage(torrentId: number): string {
  return `<!DOCTYPE html>
<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /><title>下载提示</title></head>
<body><table class="mainouter"><tr><td class="embedded">
<h2>第一次下载提示</h2>
<table width="100%"><tr>
<td colspan="2" class="text" align="left"><p>你好！<br />这可能是你<b>第一次</b>在本站下载种子。<br />在此之前请阅读以下几个简短的注意事项。</p></td></tr>
<tr>
<td class="text" align="left" valign="top" width="50%">
<h3>这是非公开BT站点，有分享率要求</h3>
<p>这是非公开BT站点（Private Tracker），即我们的Tracker<b>只</b>提供给注册会员使用。</p>
<p>要维持你的会员资格，你<b>必须</b>保持一个最低要求的上传量/下载量的比值（即<b>分享率</b>）。分享率过低将导致你<span class='striking'>失去在这里的会员资格</span>。<i>(关于分享率要求，见<a class="faqlink" href="faq.php#id23" target="_blank">常见问题</a>)</i></p>
<p>你当前的分享率会一直显示在导航菜单的正下面，请经常关注它。</p>
<p><b>怎样才能获得良好的分享率？</b><br />最好的方式是<b>一直保持你的BT客户端处于运行状态</b>，为你下载的资源做种直到删除相应的文件为止。</p>
</td>
<td class="text" align="left" valign="top" width="50%">
<h3>只能使用允许的BT客户端</h3>
<p>BT客户端有很多种。但是在本站，我们<b>只</b>允许其中的部分。其它客户端（如qbittorrentEE，迅雷）属于<span class='striking'>被禁</span>范畴，我们的Tracker不会接受其连接请求。</p>
</td>
</tr>
<tr>
<td class="text" colspan="2">
<form action="?" method="post"><p>了解更多信息，见<a class="faqlink" href="rules.php" target="_blank">规则</a>和<a class="faqlink" href="faq.php" target="_blank">常见问题</a><br />
<input type="hidden" name="id" value="${torrentId}" />
<input type="hidden" name="type" value="firsttime" />
<input type="checkbox" name="hidenotice" id="hidenotice" value="1" checked="checked" /><label for="hidenotice">下次不显示此提示</label>
</p>
<div><input type="submit" name="submit" id="continuedownload" style="font-size: 20pt; height: 40px;" value="下载种子文件" /></div>
</form>
</td>
</tr>
</table>
</td></tr></table></body></html>`;
}

/** The user logged in on `tracker` through `fetch` (a jar keeps the session), as both worlds' logIn. */
async function logInOn(fetch: typeof globalThis.fetch, tracker: TestTracker): Promise<void> {
  const answer = await fetch(tracker.loginUrl('https'), { credentials: 'include' });
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`login on ${tracker.host} answered ${answer.status}`);
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
  /** On the candidate's site: same files (with `renamedPairs`, under another root folder), another info-hash. */
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
  /** With `renamedCopy`: pairs[0]'s bytes under another root folder name, on the candidate's site. */
  renamed?: { torrent: MadeTorrent; id: number; name: string; ref: CrossSeedCandidate };
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

/** Pair `index`'s bytes on the candidate's tracker under another root folder name (a renamed copy, issue 25). */
function renamedCandidate(index: number): { name: string; torrent: MadeTorrent } {
  const spec = pairContent(index);
  const name = spec.name.replaceAll(' ', '.').replace(/[()[\]]/g, '');
  return { name, torrent: makeTorrent(asContent(spec, ''), { ...TRACKERS.beta, layout: { name, single: false, paths: spec.files.map((file) => file.path) } }) };
}

export interface CrossSeedWorldOptions {
  /** How many content pairs (default 1). */
  pairs?: number;
  /** Also list pairs[0]'s content on a third tracker (OTHER_SITE). */
  otherSite?: boolean;
  /** Also list pairs[0]'s bytes on the candidate's site under a renamed root folder (issue 25's renamed copy). */
  renamedCopy?: boolean;
  /** Every pair's candidate is its bytes under a renamed root folder, in place of the same names (the job bench's renamed copies). */
  renamedPairs?: boolean;
  /**
   * The announce URL of the pairs' candidates (default: the beta tracker's, loopback's discard
   * port): a test that watches what a copy announces runs its own tracker (test/clients/announce-watch.ts).
   */
  candidateAnnounce?: string;
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
    const made = options.renamedPairs ? renamedCandidate(index).torrent : makeTorrent(content, { ...TRACKERS.beta, ...(options.candidateAnnounce && { announce: options.candidateAnnounce }) });
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

  let renamed: CrossSeedWorld['renamed'];
  if (options.renamedCopy) {
    const { name, torrent } = renamedCandidate(0);
    const id = 2950;
    candidate.list(id, torrent, `${main.name} (renamed)`);
    renamed = { torrent, id, name, ref: { sid: CANDIDATE_SITE.sid, torrentId: id, infoHash: torrent.hash } };
  }

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
      ...(index === 0 && renamed ? [{ site: CANDIDATE_SITE.site, torrent_id: renamed.id, info_hash: renamed.torrent.hash }] : []),
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
    ...(renamed && { renamed }),
    other,
    siteList,
    siteSettings: (extra = {}) => ({ list: siteList, ...extra }),
    placeContent,
    seed: (client, savePath, index = 0) => addSeeding(client, pairs[index]!.source, placeContent(savePath, index)),
    siteFetch: () => nodeClientFetch({ inner: proxiedFetch(world.router.port) }),
    logIn: logInOn,
    close: () => world.close(),
  };
}

// ------------------------------------------------------------------------------------------------
// A spread world: a client full of contents whose candidates sit on several held sites

export interface SiteSpec {
  site: string;
  sid: number;
  host: string;
}

/**
 * Catalogued NexusPHP sites of a spread world (each in the catalog with the session download rule,
 * and in the reference service's site list with a details page). Which one plays what is the test's choice.
 */
export const SPREAD_SITES = {
  ourbits: CANDIDATE_SITE,
  ssd: OTHER_SITE,
  chdbits: { site: 'chdbits', sid: 25, host: 'ptchdbits.co' },
  tjupt: { site: 'tjupt', sid: 5, host: 'tjupt.org' },
  nanyangpt: { site: 'nanyangpt', sid: 15, host: 'nanyangpt.com' },
  /** A site the user does not hold: its candidates are never in a preview. */
  keepfrds: { site: 'keepfrds', sid: 1, host: 'pt.keepfrds.com' },
} as const satisfies Record<string, SiteSpec>;

export interface SpreadContentSpec {
  /** The sites carrying a candidate of this content (same files, that site's own torrent). */
  on: readonly SiteSpec[];
  /**
   * How its source (the page site's torrent) is in the client: 'seeded' (complete, the default),
   * 'incomplete' (its last file is not on disk: the client's check stops short of 100 %), 'absent'
   * (not in the client at all; the service still knows the group).
   */
  source?: 'seeded' | 'incomplete' | 'absent';
  /** Sites whose candidate is in the client already (cross-seeded before), beside the source. */
  held?: readonly SiteSpec[];
}

export interface SpreadCandidate {
  sid: number;
  id: number;
  torrent: MadeTorrent;
  ref: CrossSeedCandidate;
}

export interface SpreadContent {
  index: number;
  name: string;
  files: ContentFile[];
  seed: string;
  /** Bytes of its files (what the preview counts for each of its candidates). */
  size: number;
  /** Its folder under the client's data folder: contents are spread over three, so "beside its source" means something. */
  shelf: string;
  spec: SpreadContentSpec;
  /** On the page's site (PAGE_SITE). */
  source: MadeTorrent;
  sourceId: number;
  candidates: SpreadCandidate[];
  candidateOn(sid: number): SpreadCandidate | undefined;
}

export interface SpreadWorld {
  world: World;
  /** The page's site (HDSky): where the sources come from. */
  page: TestTracker;
  /** One tracker per site used, by sid. */
  trackers: Map<number, TestTracker>;
  tracker(sid: number): TestTracker;
  contents: SpreadContent[];
  /** Candidates with the name of content `of` and other files (only a download can tell). */
  differentFiles: (SpreadCandidate & { of: number; files: ContentFile[] })[];
  siteList: ServiceSite[];
  /** Where content `index`'s files are (and so where its cross-seeds must go). */
  savePathOf(dataDir: string, index: number): string;
  /**
   * Fills the client as the specs say: each content's files under its shelf, its source added (and
   * its held candidates), then waits until the complete ones seed and the incomplete ones are checked.
   */
  fill(client: TorrentClient, dataDir: string): Promise<void>;
  siteFetch(): JarFetch;
  logIn(fetch: typeof globalThis.fetch, tracker: TestTracker): Promise<void>;
  close(): Promise<void>;
}

export interface SpreadWorldOptions {
  contents: readonly SpreadContentSpec[];
  /** Other-files candidates: on site `sid`, named as content `of`. */
  differentFiles?: readonly { sid: number; of: number }[];
  service?: Omit<ReferenceOptions, 'data'>;
}

/** A content's candidate id on any site (ids repeat across sites, as real sites' do). */
export const SPREAD_CANDIDATE_ID = (index: number) => 20_001 + index;
const SPREAD_SOURCE_ID = (index: number) => 10_001 + index;
const SPREAD_DIFFERENT_ID = (k: number) => 29_001 + k;

function spreadContent(index: number): { name: string; files: ContentFile[]; seed: string } {
  return {
    name: `Reseed Lens Spread ${String(index).padStart(3, '0')} (2024) [FLAC]`,
    files: [
      { path: '01 - 序曲.flac', size: 40_000 + index * 7 },
      { path: 'cover.jpg', size: 6_000 },
    ],
    seed: `spread-${index}`,
  };
}

function announceOf(site: SiteSpec): { announce: string; source: string } {
  // Loopback's discard port, as TRACKERS: nothing is ever announced off this machine.
  return { announce: `http://127.0.0.1:9/${site.site}/announce.php?passkey=${createHash('sha1').update(site.site).digest('hex').slice(0, 32)}`, source: site.site.toUpperCase() };
}

/**
 * Many contents, each with a source on the page's site and candidates on the sites its spec names;
 * the reference service knows every group (other-files candidates included). The user's session on
 * each tracker is the test's to make (`logIn`).
 */
export async function startSpreadWorld(options: SpreadWorldOptions): Promise<SpreadWorld> {
  const page = new TestTracker(PAGE_SITE.host, PAGE_SITE.sid, PAGE_SITE.site, true);
  const trackers = new Map<number, TestTracker>();
  const trackerOf = (site: SiteSpec): TestTracker => {
    let tracker = trackers.get(site.sid);
    if (!tracker) trackers.set(site.sid, (tracker = new TestTracker(site.host, site.sid, site.site)));
    return tracker;
  };
  const contents: SpreadContent[] = options.contents.map((spec, index) => {
    const made = spreadContent(index);
    const content = asContent(made, '');
    const source = makeTorrent(content, TRACKERS.alpha);
    const sourceId = SPREAD_SOURCE_ID(index);
    page.list(sourceId, source, made.name);
    const candidates = spec.on.map((site): SpreadCandidate => {
      const torrent = makeTorrent(content, announceOf(site));
      const id = SPREAD_CANDIDATE_ID(index);
      trackerOf(site).list(id, torrent, made.name);
      return { sid: site.sid, id, torrent, ref: { sid: site.sid, torrentId: id, infoHash: torrent.hash } };
    });
    return {
      index,
      ...made,
      size: made.files.reduce((sum, file) => sum + file.size, 0),
      shelf: `shelf-${index % 3}`,
      spec,
      source,
      sourceId,
      candidates,
      candidateOn: (sid: number) => candidates.find((candidate) => candidate.sid === sid),
    };
  });
  const differentFiles = (options.differentFiles ?? []).map(({ sid, of }, k) => {
    const main = contents[of]!;
    const site = [...trackers.values()].find((tracker) => tracker.sid === sid);
    if (!site) throw new Error(`no candidate site ${sid} in this world`);
    // Same name; one size differs and one file is new.
    const files: ContentFile[] = [{ ...main.files[0]!, size: main.files[0]!.size + 1 }, main.files[1]!, { path: 'extra.nfo', size: 700 }];
    const torrent = makeTorrent(asContent({ name: main.name, files, seed: `${main.seed}-other` }, ''), announceOf(site));
    const id = SPREAD_DIFFERENT_ID(k);
    site.list(id, torrent, `${main.name} (other release)`);
    return { sid, id, torrent, of, files, ref: { sid, torrentId: id, infoHash: torrent.hash } };
  });

  const groups: TorrentGroup[] = contents.map((content) => ({
    title: content.name,
    members: [
      { site: PAGE_SITE.site, torrent_id: content.sourceId, info_hash: content.source.hash },
      ...content.candidates.map((candidate) => ({ site: trackers.get(candidate.sid)!.site, torrent_id: candidate.id, info_hash: candidate.torrent.hash })),
      ...differentFiles.filter((other) => other.of === content.index).map((other) => ({ site: trackers.get(other.sid)!.site, torrent_id: other.id, info_hash: other.torrent.hash })),
    ],
  }));
  const data = referenceDataWith(groups);
  const world = await startWorld({ service: { ...options.service, data, rateLimit: { max: 5000, ...options.service?.rateLimit } } });
  world.router.setHost(page.host, page.handle);
  for (const tracker of trackers.values()) world.router.setHost(tracker.host, tracker.handle);
  const siteList = data.sites.flatMap((entry) => {
    const parsed = serviceSiteSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
  const savePathOf = (dataDir: string, index: number) => join(dataDir, contents[index]!.shelf);

  return {
    world,
    page,
    trackers,
    tracker: (sid) => {
      const tracker = trackers.get(sid);
      if (!tracker) throw new Error(`no tracker for site ${sid}`);
      return tracker;
    },
    contents,
    differentFiles,
    siteList,
    savePathOf,
    async fill(client, dataDir) {
      const seeding = new Set<string>();
      const checked = new Set<string>();
      const adds: { torrent: MadeTorrent; savePath: string; skipCheck: boolean }[] = [];
      for (const content of contents) {
        const state = content.spec.source ?? 'seeded';
        if (state === 'absent') continue;
        const savePath = savePathOf(dataDir, content.index);
        // An incomplete source: its last file never reached the disk.
        writeFolder(savePath, content.name, state === 'incomplete' ? content.files.slice(0, -1) : content.files, content.seed);
        for (const torrent of [content.source, ...(content.spec.held ?? []).map((site) => content.candidateOn(site.sid)!.torrent)]) {
          // A complete source is added as the user's old torrents are: known complete (its data was checked long ago;
          // the cross-seeds' own checks read it for real). The incomplete one is checked, to be found short.
          adds.push({ torrent, savePath, skipCheck: state !== 'incomplete' });
          (state === 'incomplete' ? checked : seeding).add(torrent.hash);
        }
      }
      // A few adds at a time (the client checks them side by side), then one wait for all.
      for (let at = 0; at < adds.length; at += 6) {
        await Promise.all(
          adds.slice(at, at + 6).map(async ({ torrent, savePath, skipCheck }) => {
            const result = await client.add(torrent.bytes, { savePath, paused: false, skipCheck });
            if (result.hash !== torrent.hash) throw new Error(`the client added ${result.hash}, not ${torrent.hash}`);
          }),
        );
      }
      await until(
        () => client.lookup([...seeding, ...checked]),
        (found) =>
          [...seeding].every((hash) => found.get(hash)?.progress === 1 && found.get(hash)?.state === 'seeding') &&
          [...checked].every((hash) => {
            const torrent = found.get(hash);
            return torrent !== undefined && torrent.state !== 'checking' && torrent.progress > 0 && torrent.progress < 1;
          }),
        `${seeding.size} torrents seeding and ${checked.size} checked incomplete`,
        180_000,
        250,
      );
    },
    siteFetch: () => nodeClientFetch({ inner: proxiedFetch(world.router.port) }),
    logIn: logInOn,
    close: () => world.close(),
  };
}
