/**
 * The NexusPHP search test site (test/e2e/support/nexusphp-search-site.ts) over HTTP on loopback,
 * through the e2e router as a browser's proxy: torrentrss.php (passkey, search modes, paging, exact
 * bytes, the 300 s answer cache), viewfilelist.php (session, raw names, mksize), download.php, and
 * torrents.php's mod-log entries for a search_mode or search_area the site does not offer. Issue 34
 * must never send those; these tests show the site would record it. A test clock stands for time.
 */
import { describe, expect, it } from 'vitest';
import { infoHashFromTorrent } from '../../../utils/torrent/info-hash';
import { loopbackSites } from './loopback-sites';
import { mksize, NexusSearchSite, type NexusSearchSiteOptions } from '../../e2e/support/nexusphp-search-site';
import { numberFormat, phpRoundToString } from '../../e2e/support/php';

const sites = loopbackSites();
const { fetch } = sites;
const site = (options: NexusSearchSiteOptions = {}) => sites.site('nexus-search', (host, now) => new NexusSearchSite(host, { now, ...options }));

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers, redirect: 'manual' });
  return { status: response.status, type: response.headers.get('content-type'), location: response.headers.get('location'), text: await response.text() };
};

/** The RSS items' fields a search reads. */
function items(xml: string): { title: string; link: string; url: string; length: number; guid: string }[] {
  return [...xml.matchAll(/<item>([\s\S]*?)<\/item>/g)].map(([, item]) => ({
    title: /<title><!\[CDATA\[([\s\S]*?)\]\]><\/title>/.exec(item!)![1]!,
    link: /<link>(.*?)<\/link>/.exec(item!)![1]!,
    url: /<enclosure url="(.*?)"/.exec(item!)![1]!,
    length: Number(/length="(\d+)"/.exec(item!)![1]),
    guid: /<guid isPermaLink="false">(.*?)<\/guid>/.exec(item!)![1]!,
  }));
}

const MOVIE = { name: 'Reseed.Lens.Sample.2024.1080p.BluRay.x264-GROUP', smallDescr: '重置透镜 样片', folder: null, files: [{ name: 'Reseed.Lens.Sample.2024.1080p.BluRay.x264-GROUP.mkv', size: 4_712_345_678 }] };
const ALBUM = {
  name: 'Reseed Lens Album 2024 FLAC',
  folder: 'Reseed Lens Album (2024) [FLAC]',
  files: [
    { name: '01 - Opening & <Intro>.flac', size: 1_023 },
    { name: 'Scans/cover.jpg', size: 1_024_000 },
    { name: '02 - 结尾.flac', size: 1_073_741_824 },
  ],
};

describe('NexusPHP test site: torrentrss.php', () => {
  it('needs the passkey; lists newest first with the exact bytes as enclosure length, the info-hash as guid, details.php as link', async () => {
    const { site: nexus } = site();
    const movie = nexus.add(MOVIE);
    const album = nexus.add(ALBUM);
    expect(await get(`${nexus.base}torrentrss.php`)).toMatchObject({ status: 200, text: 'require passkey' });
    expect(await get(`${nexus.base}torrentrss.php?passkey=${'0'.repeat(32)}`)).toMatchObject({ status: 200, text: 'invalid passkey' });
    const answer = await get(nexus.rssUrl());
    expect(answer.type).toBe('text/xml');
    expect(answer.text.startsWith('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>')).toBe(true);
    expect(items(answer.text)).toEqual([
      { title: ALBUM.name, link: `https://${nexus.host}/details.php?id=${album.id}`, url: `https://${nexus.host}/download.php?id=${album.id}`, length: 1_074_766_847, guid: album.hash },
      { title: MOVIE.name, link: `https://${nexus.host}/details.php?id=${movie.id}`, url: `https://${nexus.host}/download.php?id=${movie.id}`, length: 4_712_345_678, guid: movie.hash },
    ]);
    expect(answer.text).toContain(`<author>uploader@${nexus.host} (uploader)</author>`);
  });

  it('never lists dead, priced (unless paid) or special-section torrents; rows 1-200 (else 10) and startindex page', async () => {
    const { site: nexus } = site();
    const ids = [];
    for (let index = 0; index < 12; index++) ids.push(nexus.add({ name: `Torrent ${index}`, folder: null, files: [{ name: `t${index}.bin`, size: 10 + index }] }).id);
    nexus.add({ name: 'Dead one', folder: null, files: [{ name: 'dead.bin', size: 1 }], visible: false });
    nexus.add({ name: 'Priced one', folder: null, files: [{ name: 'priced.bin', size: 1 }], price: 500 });
    nexus.add({ name: 'Special one', folder: null, files: [{ name: 'special.bin', size: 1 }], special: true });
    const titles = async (parameters: Record<string, string | number>) => items((await get(nexus.rssUrl(parameters))).text).map((item) => item.title);
    expect(await titles({ rows: 200 })).toEqual(ids.map((_, index) => `Torrent ${index}`).reverse());
    expect(await titles({})).toHaveLength(10);
    expect(await titles({ rows: 500 })).toHaveLength(10);
    expect(await titles({ rows: 3, startindex: 3 })).toEqual(['Torrent 8', 'Torrent 7', 'Torrent 6']);
    expect(await titles({ rows: 200, paid: 2 })).toContain('Priced one');
    expect(await titles({ rows: 200, paid: 1 })).toEqual(['Priced one']);
    const all = await titles({ rows: 200, paid: 2 });
    expect(all).not.toContain('Dead one');
    expect(all).not.toContain('Special one');
  });

  it('search_mode 0 ANDs the words (dots as blanks), 2 is one substring (not equality); others are 0 with no log; ismalldescr widens to the subtitle', async () => {
    const { site: nexus } = site();
    nexus.add(MOVIE);
    nexus.add(ALBUM);
    nexus.add({ name: 'Sample 1080p', folder: null, files: [{ name: 'x.mkv', size: 5 }] });
    const titles = async (parameters: Record<string, string | number>) => items((await get(nexus.rssUrl({ rows: 200, ...parameters }))).text).map((item) => item.title);
    expect(await titles({ search: 'sample.1080P' })).toEqual(['Sample 1080p', MOVIE.name]);
    expect(await titles({ search: 'Sample.2024', search_mode: 2 })).toEqual([MOVIE.name]);
    expect(await titles({ search: 'Lens.Sample.2024.1080p.BluRay', search_mode: 2 })).toEqual([MOVIE.name]);
    expect(await titles({ search: '2024 Sample', search_mode: 2 })).toEqual([]);
    expect(await titles({ search: 'Album FLAC', search_mode: 1 })).toEqual([ALBUM.name]); // 1 is read as 0 (AND)
    expect(await titles({ search: 'Lens_Album' })).toEqual([ALBUM.name]); // `_` is LIKE's one-character wildcard
    expect(await titles({ search: '样片' })).toEqual([]);
    expect(await titles({ search: '样片', ismalldescr: 1 })).toEqual([`${MOVIE.name}[${MOVIE.smallDescr}]`]);
    expect(nexus.modLog).toEqual([]);
  });

  it('caches a whole answer 300 s per passkey and query (in its order), given before the passkey is checked again', async () => {
    const { site: nexus, clock } = site();
    nexus.add(MOVIE);
    const first = await get(nexus.rssUrl({ search: 'Sample', rows: 50 }));
    expect(items(first.text)).toHaveLength(1);
    nexus.add({ name: 'Another Sample', folder: null, files: [{ name: 'a.mkv', size: 7 }] });
    clock.now += 299_000;
    const cached = await get(nexus.rssUrl({ search: 'Sample', rows: 50 }));
    expect(cached.text).toBe(first.text);
    expect(nexus.requests.at(-1)!.cached).toBe(true);
    const reordered = await get(`https://${nexus.host}/torrentrss.php?rows=50&search=Sample&passkey=${nexus.user.passkey}`);
    expect(items(reordered.text)).toHaveLength(2);
    const oldPasskey = nexus.user.passkey;
    nexus.user.passkey = 'f'.repeat(32); // the user reset it: the old one still gets the cached answer
    expect((await get(`https://${nexus.host}/torrentrss.php?passkey=${oldPasskey}&search=Sample&rows=50`)).text).toBe(first.text);
    nexus.user.passkey = oldPasskey;
    clock.now += 1_000;
    expect(items((await get(nexus.rssUrl({ search: 'Sample', rows: 50 }))).text)).toHaveLength(2);
  });
});

describe('NexusPHP test site: viewfilelist.php', () => {
  it('is empty without a session; with one, a table of the raw file names and mksize()-rounded sizes', async () => {
    const { site: nexus } = site();
    const album = nexus.add(ALBUM);
    const anonymous = await get(`${nexus.base}viewfilelist.php?id=${album.id}`);
    expect(anonymous).toMatchObject({ status: 200, text: '' });
    const answer = await get(`${nexus.base}viewfilelist.php?id=${album.id}`, { cookie: nexus.cookie });
    expect(answer.type).toBe('text/xml; charset=utf-8');
    expect(answer.text).toBe(
      '<table class="main" border="1" cellspacing=0 cellpadding="5">\n' +
        '<tr><td class=colhead>Path</td><td class=colhead align=center><img class="size" src="pic/trans.gif" alt="size" /></td></tr>\n' +
        '<tr><td class=rowfollow>01 - Opening & <Intro>.flac</td><td class=rowfollow align="right">1.00 KB</td></tr>\n' +
        '<tr><td class=rowfollow>Scans/cover.jpg</td><td class=rowfollow align="right">0.98 MB</td></tr>\n' +
        '<tr><td class=rowfollow>02 - 结尾.flac</td><td class=rowfollow align="right">1.00 GB</td></tr>\n' +
        '</table>\n',
    );
    const chinese = site({ user: { language: 'chs' } }).site;
    const single = chinese.add(MOVIE);
    expect((await get(`${chinese.base}viewfilelist.php?id=${single.id}`, { cookie: chinese.cookie })).text).toContain('<td class=colhead>路径</td>');
    expect((await get(`${chinese.base}viewfilelist.php?id=${single.id}`, { cookie: chinese.cookie })).text).toContain(`<td class=rowfollow>${MOVIE.files[0]!.name}</td><td class=rowfollow align="right">4.39 GB</td>`);
  });

  it('mksize: base 1024, the unit changes at 1000, 2 decimals under a TB and 3 above, PHP’s rounding', () => {
    expect([0, 1023, 1536, 1_023_999, 1_024_000, 1_048_576, 4_712_345_678, 1_099_511_627_776 * 2.5, 1_125_899_906_842_624 * 1500].map(mksize)).toEqual([
      '0.00 KB',
      '1.00 KB',
      '1.50 KB',
      '1,000.00 KB',
      '0.98 MB',
      '1.00 MB',
      '4.39 GB',
      '2.500 TB',
      '1,500.000 PB',
    ]);
    expect(phpRoundToString(1.005, 2)).toBe('1.01'); // toFixed says 1.00
    expect(phpRoundToString(0.285, 2)).toBe('0.29'); // toFixed says 0.28
    expect(numberFormat(1234567.891, 2)).toBe('1,234,567.89');
    expect(numberFormat(-0.004, 2)).toBe('0.00');
  });
});

describe('NexusPHP test site: download.php', () => {
  it('without a session: 302 to login.php with returnto; with one: the .torrent with the user’s passkey and the site’s source', async () => {
    const { site: nexus } = site();
    const album = nexus.add(ALBUM);
    const anonymous = await get(`${nexus.base}download.php?id=${album.id}`);
    expect(anonymous).toMatchObject({ status: 302, location: `https://${nexus.host}/login.php?returnto=download.php%3Fid%3D${album.id}` });
    const response = await fetch(`${nexus.base}download.php?id=${album.id}`, { headers: { cookie: nexus.cookie, 'user-agent': 'Mozilla/5.0 Gecko/20100101 Firefox/128.0' } });
    expect(response.headers.get('content-type')).toBe('application/x-bittorrent');
    expect(Buffer.from(response.headers.get('content-disposition')!, 'latin1').toString('utf8')).toBe('attachment; filename="[NexusTest].Reseed Lens Album (2024) [FLAC].torrent" ; charset=utf-8');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(await infoHashFromTorrent(bytes)).toEqual({ hash: album.hash });
    const text = bytes.toString('latin1');
    expect(text).toContain(`https://${nexus.host}/announce.php?passkey=${nexus.user.passkey}`);
    expect(text).toContain(`6:source${Buffer.byteLength(nexus.source)}:[${nexus.host}] NexusTest`);
    expect((await get(`${nexus.base}download.php?id=${album.id}&passkey=${nexus.user.passkey}`)).status).toBe(302); // passkey downloads are off
    const open = site({ downloadSupportPasskey: true }).site;
    const movie = open.add(MOVIE);
    expect((await get(`${open.base}download.php?id=${movie.id}&passkey=${open.user.passkey}`)).type).toBe('application/x-bittorrent');
  });

  it('a user who has not seen the download notice goes there first, unless letdown=1', async () => {
    const { site: nexus } = site({ user: { showDownloadNotice: true } });
    const movie = nexus.add(MOVIE);
    expect(await get(`${nexus.base}download.php?id=${movie.id}`, { cookie: nexus.cookie })).toMatchObject({ status: 302, location: `https://${nexus.host}/downloadnotice.php?torrentid=${movie.id}&type=firsttime` });
    expect((await get(`${nexus.base}download.php?id=${movie.id}&letdown=1`, { cookie: nexus.cookie })).type).toBe('application/x-bittorrent');
  });
});

describe('NexusPHP test site: torrents.php', () => {
  it('records a "hacking" mod-log entry for a search_mode or search_area the site does not offer (with a search), and for incldead outside 0-2', async () => {
    const { site: nexus, clock } = site();
    nexus.add(MOVIE);
    const page = (query: string) => get(`${nexus.base}torrents.php?${query}`, { cookie: nexus.cookie });
    expect((await page('search=Sample&search_mode=2&search_area=0')).status).toBe(200);
    await page('search=Sample&search_mode=0&search_area=1');
    await page('search=Sample&search_area=3');
    await page('search=Sample&search_area=4');
    await page('search_mode=1&search_area=2'); // no search: neither is read
    expect(nexus.modLog).toEqual([]);
    const hacked = await page('search=Sample&search_mode=1');
    expect(hacked.text).toContain(MOVIE.name);
    clock.now += 1000;
    await page('search=Sample&search_area=2');
    await page('search=Sample&search_mode=3&search_area=9');
    await page('incldead=3');
    const entry = (field: string) => `User reseeder,203.0.113.7 is hacking ${field} field in/torrents.php`;
    expect(nexus.modLog).toEqual([
      { at: 1_760_000_000_000, text: entry('search_mode'), security: 'mod' },
      { at: 1_760_000_001_000, text: entry('search_area'), security: 'mod' },
      { at: 1_760_000_001_000, text: entry('search_mode'), security: 'mod' },
      { at: 1_760_000_001_000, text: entry('search_area'), security: 'mod' },
      { at: 1_760_000_001_000, text: entry('incldead'), security: 'mod' },
    ]);
  });

  it('needs a session: 302 to login.php with the request’s basename as returnto, and no log', async () => {
    const { site: nexus } = site();
    const answer = await get(`${nexus.base}torrents.php?search=x&search_mode=1`);
    expect(answer).toMatchObject({ status: 302, location: `https://${nexus.host}/login.php?returnto=torrents.php%3Fsearch%3Dx%26search_mode%3D1` });
    expect(nexus.modLog).toEqual([]);
  });
});
