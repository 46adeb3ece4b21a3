/**
 * A NexusPHP site's search surfaces as the e2e router's handler for one host, answering as
 * xiaomlove/nexusphp's own code does: branch php8 at a514ed57f857 (2024-10-20, 15 commits after tag
 * v1.8.13), files and lines below.
 *
 * - `torrentrss.php` (public/torrentrss.php): `passkey` required ("require passkey" / "invalid
 *   passkey" / "account disabed or parked" as plain text with HTTP 200, L3-6, L21-27). The whole
 *   answer is cached 300 s under `nexus_rss:<passkey>:md5(http_build_query($_GET))` (L7-13, L269),
 *   so the same parameters in another order are another entry, and a cached answer is given before
 *   the passkey is checked again. `search` trimmed and SQL-escaped (L40), `search_mode` 0 (default;
 *   dots become blanks, split on blanks, at most 10 pieces, each `LIKE '%piece%'`, ANDed) or 2 (one
 *   `LIKE '%whole%'`: a substring, not equality); anything else is 0, with no log here (L44-70);
 *   matched against `name`, and `small_descr` too with `ismalldescr=1` (L73-74); `%` and `_` in the
 *   search stay LIKE wildcards; case-insensitive (the tables' _ci collation). Always `visible='yes'`
 *   (dead torrents never listed, L20); only torrents without a price unless `paid=1|2` (L100-110);
 *   only the browse section (categories.mode = main.browsecat, L95-99: a "special" torrent is never
 *   listed to a user without view_special_torrent). `rows` 1-200 else 10, `startindex` an offset
 *   (L78-87), newest id first (L173). Each item (L230-264): title (CDATA, the name), `link`
 *   details.php?id=, `enclosure url="…/download.php?id=N" length="<torrents.size in bytes>"` (with
 *   `linktype=dl` a `downhash` link instead: not modelled, answers 501), `guid` = the info-hash in
 *   lower-case hex, pubDate; Content-Type text/xml.
 * - `viewfilelist.php?id=` (public/viewfilelist.php L13-25): nothing at all (empty 200) without a
 *   logged-in session; else an HTML `<table>` fragment sent as text/xml: a heading row (the user's
 *   language: "Path" / "路径" / "路徑", lang/{en,chs,cht}/lang_viewfilelist.php L5), then one row a file in
 *   `files.id` order with the raw `filename` (not HTML-escaped) and `mksize(size)`.
 * - `mksize` (include/functions.php L2133-2145): base 1024, 2 decimals below 1000 GB, 3 above, the
 *   unit changes at 1000 of the smaller one (1000 KB is "0.98 MB"), number_format's rounding (half
 *   away from zero on the 15-digit decimal value) and thousands comma. `mksize_compact` (L2105-2117)
 *   is the list page's "1.23<br />GB".
 * - The upload (public/takeupload.php L141-181, L343, L432-434): `files.filename` = the path inside
 *   the root joined with `/` (or `info.name` for a single file), `save_as` = `info.name`;
 *   `info.private` = 1, `info.source` = "[$BASEURL] $SITENAME", other info keys kept,
 *   `announce-list` and `nodes` dropped, `announce` = the site's.
 * - `download.php?id=` (public/download.php): without a session, 302 to
 *   login.php?returnto=<rawurlencode(basename(REQUEST_URI))> (L45-48, include/functions.php
 *   L3098-3112); `&passkey=` is honoured only when the site enables torrent.download_support_passkey
 *   (L33-43); a user who has not yet seen the download notice is sent to downloadnotice.php unless
 *   `letdown=1` (L50-62); unknown id → 404 "<h1>Not Found</h1>" (L93-96, functions.php L3001-3005);
 *   banned torrents are refused (L111-118). The .torrent gets `announce` = the tracker's URL with the
 *   user's passkey (L143-144), Content-Type application/x-bittorrent (L198) and a file name
 *   "<prefix>.<save_as>.torrent", raw UTF-8 in the header for Gecko browsers (L200-219).
 * - `torrents.php` (public/torrents.php), needs a session (L6, same redirect): `incldead` outside
 *   0/1/2 becomes 0 with a mod-log entry (L170-187); with a non-empty `search`, `search_mode`
 *   outside 0/2 (1 = OR is "deprecated since 1.8") becomes 0 with a mod-log entry (L710-719), and
 *   `search_area` outside 0, 1, 3, 4 (2 is commented out) searches `name` for the whole string
 *   with a mod-log entry (L721-818). The entry: "User <name>,<ip> is hacking <field> field
 *   in/torrents.php", security level `mod` (include/functions.php L716-722). Tests read them in
 *   `modLog`. The page itself is a bare list of the matching torrents (not NexusPHP's markup).
 *
 * Every request is kept in `requests` with its Cookie header.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Value } from '../../fixtures/torrents/bencode';
import type { RecordedRequest } from '../harness/index.ts';
import { cookiesOf, httpBuildQuery, intval, numberFormat, phpQuery, rawurlencode, rawUtf8Header } from './php';
import { rootName, siteTorrent, totalSize, type SiteFile, type SiteLayout } from './site-torrent';

export interface NexusUser {
  id: number;
  username: string;
  /** md5-like, 32 hex. */
  passkey: string;
  /** The `c_secure_pass` cookie's value. */
  session: string;
  /** Where the mod log says the user came from. */
  ip: string;
  /** The language of the pages (the file list's heading). */
  language: 'en' | 'chs' | 'cht';
  enabled: boolean;
  parked: boolean;
  /** users.showdlnotice: the next plain download.php goes to downloadnotice.php first. */
  showDownloadNotice: boolean;
}

export interface NexusTorrentInput extends SiteLayout {
  id?: number;
  /** torrents.name: the title. */
  name: string;
  smallDescr?: string;
  descr?: string;
  /** torrents.url (IMDb). */
  url?: string;
  /** false: a dead torrent (visible = 'no'). */
  visible?: boolean;
  banned?: boolean;
  /** Bonus price (0: free to take; RSS hides priced ones unless `paid`). */
  price?: number;
  /** In the special section (RSS never lists it to this user). */
  special?: boolean;
  anonymous?: boolean;
  /** The uploader's username. */
  owner?: string;
  /** ms; default the site's clock. */
  added?: number;
  category?: { id: number; name: string };
  /** The uploaded torrent's other info keys (kept). */
  info?: Record<string, Value>;
}

export interface NexusTorrent {
  readonly id: number;
  name: string;
  smallDescr: string;
  descr: string;
  url: string;
  visible: boolean;
  banned: boolean;
  price: number;
  special: boolean;
  anonymous: boolean;
  owner: string;
  added: number;
  category: { id: number; name: string };
  /** torrents.save_as (= info.name). */
  readonly saveAs: string;
  /** The files table: path inside the root, bytes. */
  readonly files: SiteFile[];
  readonly size: number;
  /** The stored .torrent (the site's announce, its source) and its info-hash (lower-case hex). */
  readonly bytes: Buffer;
  readonly hash: string;
  readonly layout: SiteLayout;
  readonly info: Record<string, Value>;
}

export interface NexusModLogEntry {
  at: number;
  text: string;
  security: 'mod';
}

export interface NexusSearchSiteOptions {
  /** $SITENAME. */
  siteName?: string;
  /** The download's file-name prefix ($torrentnameprefix). */
  torrentNamePrefix?: string;
  /** torrent.download_support_passkey. */
  downloadSupportPasskey?: boolean;
  /** The RSS answer cache's life in seconds (300); 0 turns it off (APP_ENV local). */
  rssCacheSeconds?: number;
  now?: () => number;
  user?: Partial<NexusUser>;
}

export interface NexusRequest {
  at: number;
  method: string;
  url: string;
  path: string;
  cookie?: string;
  userAgent?: string;
  status: number;
  /** torrentrss.php only: the answer came from the cache. */
  cached?: boolean;
}

const LANG_PATH = { en: 'Path', chs: '路径', cht: '路徑' } as const;
const DEFAULT_CATEGORY = { id: 401, name: 'Movies' };

type Answer = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };

export class NexusSearchSite {
  readonly siteName: string;
  readonly torrentNamePrefix: string;
  downloadSupportPasskey: boolean;
  rssCacheSeconds: number;
  readonly user: NexusUser;
  readonly uid: number;
  readonly torrents = new Map<number, NexusTorrent>();
  readonly requests: NexusRequest[] = [];
  /** sitelog rows of security level `mod`. */
  readonly modLog: NexusModLogEntry[] = [];
  /** Ids of the .torrent files served. */
  readonly downloads: { at: number; torrentId: number }[] = [];
  private readonly now: () => number;
  private nextId = 1;
  private readonly rssCache = new Map<string, { xml: string; expires: number }>();

  constructor(
    readonly host: string,
    options: NexusSearchSiteOptions = {},
  ) {
    this.siteName = options.siteName ?? 'NexusTest';
    this.torrentNamePrefix = options.torrentNamePrefix ?? `[${this.siteName}]`;
    this.downloadSupportPasskey = options.downloadSupportPasskey ?? false;
    this.rssCacheSeconds = options.rssCacheSeconds ?? 300;
    this.now = options.now ?? Date.now;
    this.user = {
      id: 10_086,
      username: 'reseeder',
      passkey: randomBytes(16).toString('hex'),
      session: randomBytes(16).toString('hex'),
      ip: '203.0.113.7',
      language: 'en',
      enabled: true,
      parked: false,
      showDownloadNotice: false,
      ...options.user,
    };
    this.uid = this.user.id;
  }

  get base(): string {
    return `https://${this.host}/`;
  }

  /** `info.source` of this site's uploads: "[$BASEURL] $SITENAME". */
  get source(): string {
    return `[${this.host}] ${this.siteName}`;
  }

  /** The Cookie header of the user's logged-in browser (NexusPHP's c_secure_uid / c_secure_pass). */
  get cookie(): string {
    return `c_secure_uid=${Buffer.from(String(this.user.id)).toString('base64')}; c_secure_pass=${this.user.session}`;
  }

  /** The user's RSS address with these parameters (passkey first, as the site's RSS page builds it). */
  rssUrl(parameters: Record<string, string | number> = {}): string {
    const query = new URLSearchParams({ passkey: this.user.passkey, ...Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, String(value)])) });
    return `https://${this.host}/torrentrss.php?${query}`;
  }

  /** Lists an upload as takeupload.php stores it. */
  add(input: NexusTorrentInput): NexusTorrent {
    const id = input.id ?? this.nextId;
    this.nextId = Math.max(this.nextId, id + 1);
    const info: Record<string, Value> = { ...input.info, private: 1, source: this.source };
    const layout: SiteLayout = { folder: input.folder, files: input.files, seed: input.seed, pieceLength: input.pieceLength };
    const made = siteTorrent(layout, info, { 'created by': 'qBittorrent v4.6.5', 'creation date': 1_700_000_000 }, `https://${this.host}/announce.php`);
    const torrent: NexusTorrent = {
      id,
      name: input.name,
      smallDescr: input.smallDescr ?? '',
      descr: input.descr ?? '',
      url: input.url ?? '',
      visible: input.visible ?? true,
      banned: input.banned ?? false,
      price: input.price ?? 0,
      special: input.special ?? false,
      anonymous: input.anonymous ?? false,
      owner: input.owner ?? 'uploader',
      added: input.added ?? this.now(),
      category: input.category ?? DEFAULT_CATEGORY,
      saveAs: rootName(layout),
      files: input.files.map((file) => ({ ...file })),
      size: totalSize(layout),
      bytes: made.bytes,
      hash: made.hash,
      layout,
      info,
    };
    this.torrents.set(id, torrent);
    return torrent;
  }

  /** The router's handler for this host. */
  readonly handle = (_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): void => {
    const header = (name: string): string | undefined => {
      const value = recorded.headers[name];
      return Array.isArray(value) ? value.join('; ') : value;
    };
    const log: NexusRequest = { at: this.now(), method: recorded.method, url: recorded.url, path: recorded.path, cookie: header('cookie'), userAgent: header('user-agent'), status: 0 };
    this.requests.push(log);
    const answer = this.answer(recorded, header, log);
    log.status = answer.status;
    res.writeHead(answer.status, { 'content-type': answer.type, ...answer.headers });
    res.end(answer.body);
  };

  private loggedIn(cookie: string | undefined): boolean {
    const cookies = cookiesOf(cookie);
    return cookies.get('c_secure_pass') === this.user.session && cookies.get('c_secure_uid') === Buffer.from(String(this.user.id)).toString('base64');
  }

  private answer(recorded: RecordedRequest, header: (name: string) => string | undefined, log: NexusRequest): Answer {
    const url = new URL(recorded.path, `https://${this.host}`);
    const query = phpQuery(url.search);
    const loggedIn = this.loggedIn(header('cookie'));
    const html = (body: string, status = 200): Answer => ({ status, type: 'text/html; charset=utf-8', body });
    // loggedinorreturn(): back here after logging in (basename() of the request URI, as PHP cuts it).
    const toLogin = (): Answer => ({
      status: 302,
      type: 'text/html; charset=utf-8',
      body: '',
      headers: { location: `https://${this.host}/login.php?returnto=${rawurlencode(phpBasename(recorded.path))}` },
    });
    switch (url.pathname) {
      case '/torrentrss.php':
        return this.rss(query, header('host') ?? this.host, log);
      case '/viewfilelist.php': {
        const headers = { expires: 'Mon, 26 Jul 1997 05:00:00 GMT', 'cache-control': 'no-cache, must-revalidate', pragma: 'no-cache' };
        if (!loggedIn) return { status: 200, type: 'text/xml; charset=utf-8', body: '', headers };
        return { status: 200, type: 'text/xml; charset=utf-8', body: this.fileListTable(intval(query.get('id'))), headers };
      }
      case '/download.php':
        return this.download(query, loggedIn, header('user-agent') ?? '', toLogin);
      case '/torrents.php':
        if (!loggedIn) return toLogin();
        return html(this.torrentsPage(query));
      default:
        return html('<h1>Not Found</h1>\n', 404);
    }
  }

  private rss(query: Map<string, string>, httpHost: string, log: NexusRequest): Answer {
    const text = (body: string): Answer => ({ status: 200, type: 'text/html; charset=utf-8', body });
    const passkey = query.get('passkey') ?? '';
    if (!passkey) return text('require passkey');
    const cacheKey = `nexus_rss:${passkey}:${httpBuildQuery(query)}`;
    const cached = this.rssCache.get(cacheKey);
    if (cached && cached.expires > this.now()) {
      log.cached = true;
      return { status: 200, type: 'text/xml', body: cached.xml };
    }
    if (passkey !== this.user.passkey) return text('invalid passkey');
    if (!this.user.enabled || this.user.parked) return text('account disabed or parked');
    if (query.get('linktype') === 'dl' || intval(query.get('inclbookmarked')) === 1 || query.has('sticky')) {
      return { status: 501, type: 'text/plain', body: 'nexusphp-search-site: linktype=dl, inclbookmarked and sticky are not modelled' };
    }

    let rows = [...this.torrents.values()].filter((torrent) => torrent.visible && !torrent.special);
    const paid = ['0', '1', '2'].includes(query.get('paid') ?? '') ? query.get('paid')! : '0';
    if (paid === '0') rows = rows.filter((torrent) => torrent.price === 0);
    else if (paid === '1') rows = rows.filter((torrent) => torrent.price > 0);
    const search = phpTrim(query.get('search') ?? '');
    if (search) {
      const mode = [0, 2].includes(intval(query.get('search_mode'))) ? intval(query.get('search_mode')) : 0;
      const patterns = mode === 2 ? [`%${search}%`] : searchPieces(search).map((piece) => `%${piece}%`);
      const withSmall = Boolean(query.get('ismalldescr')) && query.get('ismalldescr') !== '0';
      rows = rows.filter((torrent) => patterns.every((pattern) => sqlLike(torrent.name, pattern) || (withSmall && sqlLike(torrent.smallDescr, pattern))));
    }
    rows.sort((a, b) => b.id - a.id);
    const start = intval(query.get('startindex'));
    let count = intval(query.get('rows'));
    if (count < 1 || count > 200) count = 10;
    rows = rows.slice(Math.max(0, start), Math.max(0, start) + count);

    const url = `https://${this.host}`;
    const now = this.now();
    let xml = '<?xml version="1.0" encoding="utf-8"?>';
    xml += '<rss version="2.0">';
    xml += `<channel>
		<title>${addslashes(`${this.siteName} Torrents`)}</title>
		<link><![CDATA[${url}]]></link>
		<description><![CDATA[${addslashes(`Latest torrents from ${this.siteName} - `)}]]></description>
		<language>zh-cn</language>
		<copyright>Copyright (c) ${this.siteName} ${new Date(now).getUTCFullYear()}, all rights reserved</copyright>
		<managingEditor>noreply@${this.host} (${this.siteName} Admin)</managingEditor>
		<webMaster>noreply@${this.host} (${this.siteName} Webmaster)</webMaster>
		<pubDate>${rfc2822(now)}</pubDate>
		<generator>NexusPHP RSS Generator</generator>
		<docs><![CDATA[http://www.rssboard.org/rss-specification]]></docs>
		<ttl>60</ttl>
		<image>
			<url><![CDATA[${url}/pic/rss_logo.jpg]]></url>
			<title>${addslashes(`${this.siteName} Torrents`)}</title>
			<link><![CDATA[${url}]]></link>
			<width>100</width>
			<height>100</height>
			<description>${addslashes(`${this.siteName} Torrents`)}</description>
		</image>`;
    for (const row of rows) {
      const author = row.anonymous ? 'anonymous' : row.owner;
      let title = '';
      if (query.get('icat')) title += `[${row.category.name}]`;
      title += row.name;
      if (query.get('ismalldescr') && query.get('ismalldescr') !== '0' && row.smallDescr) title += `[${row.smallDescr}]`;
      if (query.get('isize') && query.get('isize') !== '0') title += `[${mksize(row.size)}]`;
      if (query.get('iuplder') && query.get('iuplder') !== '0') title += `[${author}]`;
      xml += `<item>
			<title><![CDATA[${title}]]></title>
			<link>${url}/details.php?id=${row.id}</link>
			<description><![CDATA[${row.descr}]]></description>
`;
      xml += `<author>${author}@${httpHost} (${author})</author>`;
      xml += `<category domain="${url}/torrents.php?cat=${row.category.id}">${row.category.name}</category>
			<comments><![CDATA[${url}/details.php?id=${row.id}&cmtpage=0#startcomments]]></comments>
			<enclosure url="${url}/download.php?id=${row.id}" length="${row.size}" type="application/x-bittorrent" />
			<guid isPermaLink="false">${row.hash}</guid>
			<pubDate>${rfc2822(row.added)}</pubDate>
		</item>
`;
    }
    xml += `</channel>
</rss>`;
    if (this.rssCacheSeconds > 0) this.rssCache.set(cacheKey, { xml, expires: now + this.rssCacheSeconds * 1000 });
    return { status: 200, type: 'text/xml', body: xml };
  }

  /** viewfilelist.php's fragment for a logged-in user. */
  private fileListTable(id: number): string {
    let s = '<table class="main" border="1" cellspacing=0 cellpadding="5">\n';
    s += `<tr><td class=colhead>${LANG_PATH[this.user.language]}</td><td class=colhead align=center><img class="size" src="pic/trans.gif" alt="size" /></td></tr>\n`;
    for (const file of this.torrents.get(id)?.files ?? []) {
      s += `<tr><td class=rowfollow>${file.name}</td><td class=rowfollow align="right">${mksize(file.size)}</td></tr>\n`;
    }
    s += '</table>\n';
    return s;
  }

  private download(query: Map<string, string>, loggedIn: boolean, userAgent: string, toLogin: () => Answer): Answer {
    const html = (body: string, status = 200): Answer => ({ status, type: 'text/html; charset=utf-8', body });
    const byPasskey = this.downloadSupportPasskey && Boolean(query.get('passkey')) && Boolean(query.get('id'));
    if (query.get('downhash')) return { status: 501, type: 'text/plain', body: 'nexusphp-search-site: downhash is not modelled' };
    if (byPasskey) {
      if (query.get('passkey') !== this.user.passkey) return html('invalid passkey');
      if (!this.user.enabled || this.user.parked) return html('account disabed or parked');
    } else {
      const id = intval(query.get('id'));
      if (!id) return html('<h1>Not Found</h1>\n', 404);
      if (!loggedIn) return toLogin();
      if (this.user.parked) return html('<h2>Access denied</h2><p>Your account is parked.</p>');
      if (intval(query.get('letdown')) === 0 && this.user.showDownloadNotice) {
        return { status: 302, type: 'text/html; charset=utf-8', body: '', headers: { location: `https://${this.host}/downloadnotice.php?torrentid=${id}&type=firsttime` } };
      }
    }
    const torrent = this.torrents.get(intval(query.get('id')));
    if (!torrent) return html('<h1>Not Found</h1>\n', 404);
    if (torrent.banned) return html('<h2>Error</h2><table><tr><td class="text">Permission denied!</td></tr></table>');
    this.downloads.push({ at: this.now(), torrentId: torrent.id });
    const served = siteTorrent(torrent.layout, torrent.info, { 'created by': 'qBittorrent v4.6.5', 'creation date': 1_700_000_000 }, `https://${this.host}/announce.php?passkey=${this.user.passkey}`);
    const fileName = `${this.torrentNamePrefix}.${torrent.saveAs}.torrent`;
    const browser = /Gecko|Firefox|Opera/.test(userAgent);
    const disposition = browser ? rawUtf8Header(`attachment; filename="${fileName}" ; charset=utf-8`) : `attachment; filename=${rawurlencode(fileName)}`;
    return { status: 200, type: 'application/x-bittorrent', body: served.bytes, headers: { 'content-disposition': disposition } };
  }

  private writeLog(text: string): void {
    this.modLog.push({ at: this.now(), text, security: 'mod' });
  }

  /** torrents.php's checks of its parameters (with their mod-log entries), then a bare list. */
  private torrentsPage(query: Map<string, string>): string {
    const hacking = (field: string) => this.writeLog(`User ${this.user.username},${this.user.ip} is hacking ${field} field in/torrents.php`);
    let includeDead = 1;
    if (query.has('incldead')) {
      includeDead = intval(query.get('incldead'));
      if (![0, 1, 2].includes(includeDead)) {
        includeDead = 0;
        hacking('incldead');
      }
    }
    let rows = [...this.torrents.values()].filter((torrent) => !torrent.banned);
    if (includeDead === 1) rows = rows.filter((torrent) => torrent.visible);
    if (includeDead === 2) rows = rows.filter((torrent) => !torrent.visible);

    const search = phpTrim(query.get('search') ?? '');
    if (search) {
      let mode = intval(query.get('search_mode'));
      if (![0, 2].includes(mode)) {
        mode = 0;
        hacking('search_mode');
      }
      const area = intval(query.get('search_area'));
      const patterns = mode === 2 ? [`%${search}%`] : searchPieces(search).map((piece) => `%${piece}%`);
      const fields: Record<number, (torrent: NexusTorrent) => string[]> = {
        0: (torrent) => [torrent.name, torrent.smallDescr],
        1: (torrent) => [torrent.descr],
        3: (torrent) => [torrent.anonymous ? '' : torrent.owner],
        4: (torrent) => [torrent.url],
      };
      const field = fields[area];
      if (field) rows = rows.filter((torrent) => patterns.every((pattern) => field(torrent).some((value) => sqlLike(value, pattern))));
      else {
        hacking('search_area');
        rows = rows.filter((torrent) => sqlLike(torrent.name, `%${search}%`));
      }
    }
    rows.sort((a, b) => b.id - a.id);
    const list = rows.map((torrent) => `<tr><td class="rowfollow"><a href="details.php?id=${torrent.id}&amp;hit=1"><b>${escapeHtml(torrent.name)}</b></a></td><td class="rowfollow">${mksizeCompact(torrent.size)}</td></tr>`);
    return `<!DOCTYPE html><html><head><title>${escapeHtml(this.siteName)} :: Torrents</title></head><body><table class="torrents">${list.join('')}</table></body></html>`;
  }
}

/** mksize (include/functions.php L2133-2145). */
export function mksize(bytes: number): string {
  if (bytes < 1000 * 1024) return `${numberFormat(bytes / 1024, 2)} KB`;
  if (bytes < 1000 * 1048576) return `${numberFormat(bytes / 1048576, 2)} MB`;
  if (bytes < 1000 * 1073741824) return `${numberFormat(bytes / 1073741824, 2)} GB`;
  if (bytes < 1000 * 1099511627776) return `${numberFormat(bytes / 1099511627776, 3)} TB`;
  return `${numberFormat(bytes / 1125899906842624, 3)} PB`;
}

/** mksize_compact (include/functions.php L2105-2117): the list page's column. */
export function mksizeCompact(bytes: number): string {
  return mksize(bytes).replace(' ', '<br />');
}

/** The pieces of a search_mode 0 search: dots as blanks, split on single blanks, trimmed, the first 10. */
function searchPieces(search: string): string[] {
  return search
    .replaceAll('.', ' ')
    .split(' ')
    .slice(0, 10)
    .map((piece) => phpTrim(piece));
}

/** PHP's trim(): blanks, tabs, newlines, NUL and vertical tab at both ends. */
function phpTrim(text: string): string {
  return text.replace(/^[ \t\n\r\0\x0b]+|[ \t\n\r\0\x0b]+$/g, '');
}

/** MySQL LIKE under a case-insensitive collation: `%` any run, `_` one character. */
function sqlLike(value: string, pattern: string): boolean {
  const regex = [...pattern].map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${regex}$`, 'isu').test(value);
}

/** basename() of a request URI: what follows the last `/` (in the query too, as PHP does not know it is one). */
function phpBasename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function addslashes(text: string): string {
  return text.replace(/(['"\\\0])/g, '\\$1');
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** date('r') in UTC. */
function rfc2822(ms: number): string {
  const date = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (value: number) => String(value).padStart(2, '0');
  return `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}
