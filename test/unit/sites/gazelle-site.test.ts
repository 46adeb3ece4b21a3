/**
 * The Gazelle test site (test/e2e/support/gazelle-site.ts) over HTTP on loopback, through the e2e
 * router as a browser's proxy, in its two flavours: OPS (Orpheus, 2025) and the WhatCD code most
 * older Gazelle sites forked. Issue 34 looks a torrent up by its swapped info-hash and by a file
 * name; these tests hold the test site to what the projects' code answers: shapes, the file list's
 * format and order, failures sent with HTTP 200, the shared rate-limit counter, and the download.
 * A test clock stands for time: nothing sleeps.
 */
import { describe, expect, it } from 'vitest';
import { infoHashFromTorrent } from '../../../utils/torrent/info-hash';
import { loopbackSites } from './loopback-sites';
import { displayStr, GazelleSite, type GazelleSiteOptions } from '../../e2e/support/gazelle-site';
import { strnatcasecmp } from '../../e2e/support/php';

const sites = loopbackSites();
const { fetch } = sites;
const site = (options: GazelleSiteOptions = {}) => sites.site('gazelle', (host, now) => new GazelleSite(host, { now, ...options }));

/** Files in torrent order; Gazelle lists them in natural order, and keeps the leading blank, `&`, `_` and the non-ASCII names. */
const ALBUM = {
  folder: 'Artist - Album (2024) [FLAC]',
  files: [
    { name: '10 - Ten.flac', size: 1000 },
    { name: '2 - Two & Three.flac', size: 2000 },
    { name: ' 01 - Leading blank.flac', size: 500 },
    { name: 'Scans/Café_cover.jpg', size: 300 },
    { name: '结尾.log', size: 100 },
  ],
  group: { name: 'Album', artist: 'Artist', year: 2024 },
};

const ajax = async (gazelle: GazelleSite, query: string, headers: Record<string, string> = { authorization: `token ${gazelle.user.apiToken}` }) => {
  const response = await fetch(`${gazelle.base}ajax.php?${query}`, { headers, redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
};
const json = async (gazelle: GazelleSite, query: string, headers?: Record<string, string>) => {
  const answer = await ajax(gazelle, query, headers);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text);
};

describe('Gazelle test site, OPS flavour: action=torrent', () => {
  it('finds a torrent by its info-hash in any case: version 5, the file list raw in natural order with &nbsp; for a leading blank, no infoHash unless snatched', async () => {
    const { site: ops } = site();
    const album = ops.add(ALBUM);
    const answer = await ajax(ops, `action=torrent&hash=${album.hash.toUpperCase()}`);
    expect(answer.text).toContain('\\u7ed3\\u5c3e'); // json_encode's \u escapes for 结尾
    const body = JSON.parse(answer.text);
    expect(body.status).toBe('success');
    expect(body.info).toEqual({ source: 'Orpheus', version: 5 });
    expect(body.response.group).toMatchObject({ id: album.group.id, name: 'Album', year: 2024, categoryName: 'Music' });
    const torrent = body.response.torrent;
    expect(torrent).not.toHaveProperty('infoHash');
    expect(torrent).toMatchObject({ id: album.id, fileCount: 5, size: 3900, filePath: ALBUM.folder });
    expect(torrent.fileList).toBe('&nbsp;01 - Leading blank.flac{{{500}}}|||2 - Two & Three.flac{{{2000}}}|||10 - Ten.flac{{{1000}}}|||Scans/Café_cover.jpg{{{300}}}|||结尾.log{{{100}}}');
    expect((await json(ops, `action=torrent&id=${album.id}`)).response.torrent.id).toBe(album.id);

    const snatched = ops.add({ folder: null, files: [{ name: 'single.flac', size: 42 }], snatched: true });
    const shown = (await json(ops, `action=torrent&hash=${snatched.hash}`)).response.torrent;
    expect(Object.keys(shown)[0]).toBe('infoHash');
    expect(shown).toMatchObject({ infoHash: snatched.hash, filePath: '', fileList: 'single.flac{{{42}}}' });
  });

  it('"bad parameters" with HTTP 200 for both id and hash, an unknown hash, a hash with blanks', async () => {
    const { site: ops } = site();
    const album = ops.add(ALBUM);
    const failure = { status: 'failure', error: 'bad parameters', response: [], info: { source: 'Orpheus', version: 1 } };
    expect(await json(ops, `action=torrent&id=${album.id}&hash=${album.hash}`)).toEqual(failure);
    expect(await json(ops, `action=torrent&hash=${'0'.repeat(40)}`)).toEqual(failure);
    expect(await json(ops, `action=torrent&hash=${album.hash.slice(0, 8)}%20${album.hash.slice(8)}`)).toEqual(failure);
  });

  it('the upload carries the site’s source and keeps other info keys, dropping x_cross_seed as the flag changes', async () => {
    const { site: ops } = site();
    const album = ops.add({ ...ALBUM, info: { source: 'RED', x_cross_seed: 'abc', 'x-extra': 'kept' } });
    const text = album.bytes.toString('latin1');
    expect(text).toContain('6:source3:OPS');
    expect(text).toContain('7:x-extra4:kept');
    expect(text).not.toContain('x_cross_seed');
    expect(text).toContain('7:privatei1e');
  });
});

describe('Gazelle test site, OPS flavour: who asks', () => {
  it('`token <key>` or the bare key; any other Authorization is a failure with HTTP 200; nothing at all goes to login.php', async () => {
    const { site: ops } = site();
    ops.add(ALBUM);
    expect((await json(ops, 'action=index')).response.passkey).toBe(ops.user.passkey);
    expect((await json(ops, 'action=index', { authorization: ops.user.apiToken })).status).toBe('success');
    const info = { source: 'Orpheus', version: 1 };
    expect(await json(ops, 'action=index', { authorization: `Bearer ${ops.user.apiToken}` })).toEqual({ status: 'failure', error: 'invalid authorization type, must be "token"', info });
    expect(await json(ops, 'action=index', { authorization: 'token wrong' })).toEqual({ status: 'failure', error: 'invalid token', info });
    expect(await json(ops, 'action=index', { authorization: 'Token wrong' })).toEqual({ status: 'failure', error: 'invalid authorization type, must be "token"', info });
    const none = await ajax(ops, 'action=index', {});
    expect(none).toMatchObject({ status: 302, location: 'login.php' });
    expect((await json(ops, 'action=index', { cookie: ops.cookie })).response.username).toBe('reseeder');
    const stale = await ajax(ops, 'action=index', { cookie: 'session=old' });
    expect(stale).toMatchObject({ status: 302, location: 'login.php' });
    expect(ops.requests.map((request) => request.authorization)).toEqual([`token ${ops.user.apiToken}`, ops.user.apiToken, `Bearer ${ops.user.apiToken}`, 'token wrong', 'Token wrong', undefined, undefined, undefined]);
    expect(ops.requests.map((request) => request.error)).toEqual([undefined, undefined, 'invalid authorization type, must be "token"', 'invalid token', 'invalid authorization type, must be "token"', undefined, undefined, undefined]);
  });

  it('one counter for every limited action: opened by the first with that action’s window, rate + 2 requests pass; torrent and index are never limited', async () => {
    const { site: ops, clock } = site();
    const album = ops.add(ALBUM);
    // browse [5,10]: the first opens the counter at 0, the next six read 0…5, the eighth reads 6 > 5.
    for (let index = 0; index < 7; index++) expect((await json(ops, 'action=browse&filelist=ten')).status).toBe('success');
    const refused = await json(ops, 'action=browse&filelist=ten');
    expect(refused).toEqual({ status: 'failure', error: 'Rate limit exceeded', response: [], info: { source: 'Orpheus', version: 1 } });
    expect((await json(ops, `action=torrent&id=${album.id}`)).status).toBe('success');
    expect((await json(ops, 'action=index')).status).toBe('success');
    clock.now += 10_000;
    expect((await json(ops, 'action=browse&filelist=ten')).status).toBe('success');

    // torrentgroup [15,60] opens it: browses then count against its 60 s.
    const { site: other, clock: otherClock } = site();
    expect((await ajax(other, 'action=torrentgroup&id=1')).status).toBe(501); // not modelled, but counted first
    for (let index = 0; index < 6; index++) expect((await json(other, 'action=browse&filelist=ten')).status).toBe('success');
    expect((await json(other, 'action=browse&filelist=ten')).error).toBe('Rate limit exceeded');
    otherClock.now += 30_000;
    expect((await json(other, 'action=browse&filelist=ten')).error).toBe('Rate limit exceeded');
    otherClock.now += 30_000;
    expect((await json(other, 'action=browse&filelist=ten')).status).toBe('success');
  });
});

describe('Gazelle test site, OPS flavour: action=browse&filelist=', () => {
  it('finds the words of the term close together in one file’s entry (accents folded, any case); never across files; never with `_` in the term', async () => {
    const { site: ops } = site();
    const album = ops.add(ALBUM);
    const ids = async (term: string) => {
      const body = await json(ops, `action=browse&filelist=${encodeURIComponent(term)}`);
      return (body.response.results as { torrents: { torrentId: number }[] }[]).flatMap((group) => group.torrents.map((torrent) => torrent.torrentId));
    };
    expect(await ids('Two Three')).toEqual([album.id]);
    expect(await ids('THREE two.flac')).toEqual([album.id]);
    expect(await ids('Cafe cover')).toEqual([album.id]);
    expect(await ids('Café_cover.jpg')).toEqual([]);
    expect(await ids('Ten Two')).toEqual([]);
    expect(await ids('结尾')).toEqual([album.id]);
  });

  it('answers groups with ALL their torrents (size, fileCount, no file list); group_results=0 answers the matching torrent alone; no hit has no pages', async () => {
    const { site: ops } = site();
    const album = ops.add(ALBUM);
    const mp3 = ops.add({ folder: 'Artist - Album (2024) [MP3]', files: [{ name: '01 - Other.mp3', size: 77 }], group: { id: album.group.id }, format: 'MP3', encoding: '320' });
    const body = await json(ops, 'action=browse&filelist=ten');
    expect(body.info).toEqual({ source: 'Orpheus', version: 2 });
    expect(body.response).toMatchObject({ currentPage: 1, pages: 1 });
    const [group] = body.response.results;
    expect(group).toMatchObject({ groupId: album.group.id, groupName: 'Album', artist: 'Artist', maxSize: 3900 });
    expect(group.torrents.map((torrent: { torrentId: number; size: number; fileCount: number }) => [torrent.torrentId, torrent.size, torrent.fileCount])).toEqual([
      [album.id, 3900, 5],
      [mp3.id, 77, 1],
    ]);
    expect(JSON.stringify(body)).not.toContain('fileList');
    const flat = await json(ops, 'action=browse&filelist=ten&group_results=0');
    expect(flat.response.results).toEqual([expect.objectContaining({ groupId: album.group.id, torrentId: album.id, size: 3900, fileCount: 5, category: 'Music' })]);
    expect(await json(ops, 'action=browse&filelist=nothing+here')).toEqual({ status: 'success', response: { results: [], youMightLike: [] }, info: { source: 'Orpheus', version: 1 } });
    expect((await ajax(ops, 'action=browse&filelist=ten&media=CD')).status).toBe(501);
  });
});

describe('Gazelle test site, OPS flavour: the download', () => {
  it('torrent_pass without a cookie: the stored info with the user’s announce and the torrent’s URL as comment; a wrong key is a bare 403; scripts get four', async () => {
    const { site: ops } = site();
    const album = ops.add(ALBUM);
    const link = `${ops.base}torrents.php?action=download&id=${album.id}&torrent_pass=${ops.user.passkey}`;
    const response = await fetch(link, { headers: { 'user-agent': 'python-requests/2.32' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-bittorrent; charset=utf-8');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(await infoHashFromTorrent(bytes)).toEqual({ hash: album.hash });
    const text = bytes.toString('latin1');
    expect(text).toContain(`https://tracker.${ops.host}/${ops.user.passkey}/announce`);
    expect(text).toContain(`https://${ops.host}/torrents.php?torrentid=${album.id}`);
    expect(text).not.toContain('created by');
    const wrong = await fetch(link.replace(ops.user.passkey, 'f'.repeat(32)));
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toBe('');
    for (let index = 0; index < 3; index++) expect((await fetch(link, { headers: { 'user-agent': 'python-requests/2.32' } })).headers.get('content-type')).toMatch(/bittorrent/);
    const fifth = await fetch(link, { headers: { 'user-agent': 'python-requests/2.32' } });
    expect(await fifth.text()).toContain('already downloaded this torrent file four times');
    expect((await fetch(link, { headers: { 'user-agent': 'Mozilla/5.0' } })).headers.get('content-type')).toMatch(/bittorrent/);
    const noKey = await fetch(`${ops.base}torrents.php?action=download&id=${album.id}`, { headers: { authorization: `token ${ops.user.apiToken}` }, redirect: 'manual' });
    expect(noKey.status).toBe(302);
  });
});

describe('Gazelle test site, WhatCD flavour', () => {
  it('needs the session cookie (a token is ignored); infoHash always, upper case; names and path display_str()ed; no info block', async () => {
    const { site: whatcd } = site({ flavour: 'whatcd' });
    const album = whatcd.add(ALBUM);
    expect(await ajax(whatcd, `action=torrent&id=${album.id}`)).toMatchObject({ status: 302, location: 'login.php' });
    const cookie = { cookie: whatcd.cookie };
    const body = await json(whatcd, `action=torrent&hash=${album.hash}`, cookie);
    expect(body).not.toHaveProperty('info');
    expect(body.response.torrent.infoHash).toBe(album.hash.toUpperCase());
    expect(body.response.torrent.fileList).toBe(
      '&nbsp;01 - Leading blank.flac{{{500}}}|||2 - Two &amp; Three.flac{{{2000}}}|||10 - Ten.flac{{{1000}}}|||Scans/Caf&eacute;_cover.jpg{{{300}}}|||&#32467;&#23614;.log{{{100}}}',
    );
    expect(body.response.torrent.filePath).toBe(ALBUM.folder);
    expect(album.bytes.toString('latin1')).not.toContain('6:source');
  });

  it('its own failures: "bad hash parameter" (blanks included), "bad id parameter", "bad parameters"', async () => {
    const { site: whatcd } = site({ flavour: 'whatcd' });
    const album = whatcd.add(ALBUM);
    const cookie = { cookie: whatcd.cookie };
    expect(await json(whatcd, `action=torrent&hash=${album.hash.slice(0, 8)}%20${album.hash.slice(8)}`, cookie)).toEqual({ status: 'failure', error: 'bad hash parameter' });
    expect(await json(whatcd, 'action=torrent&hash=xyz', cookie)).toEqual({ status: 'failure', error: 'bad hash parameter' });
    expect(await json(whatcd, 'action=torrent&id=0', cookie)).toEqual({ status: 'failure', error: 'bad id parameter' });
    expect(await json(whatcd, `action=torrent&id=${album.id}&hash=${album.hash}`, cookie)).toEqual({ status: 'failure', error: 'bad parameters' });
  });

  it('5 in 10 s lets 6 listed requests through, refused ones not counted; torrent is not listed', async () => {
    const { site: whatcd, clock } = site({ flavour: 'whatcd' });
    const album = whatcd.add(ALBUM);
    const cookie = { cookie: whatcd.cookie };
    for (let index = 0; index < 6; index++) expect((await json(whatcd, 'action=browse&filelist=ten', cookie)).status).toBe('success');
    expect(await json(whatcd, 'action=browse&filelist=ten', cookie)).toEqual({ status: 'failure', error: 'rate limit exceeded' });
    expect((await json(whatcd, `action=torrent&id=${album.id}`, cookie)).status).toBe('success');
    clock.now += 10_000;
    expect((await json(whatcd, 'action=browse&filelist=ten', cookie)).status).toBe('success');
  });

  it('downloads with authkey and torrent_pass together (the authkey unchecked), else the session', async () => {
    const { site: whatcd } = site({ flavour: 'whatcd' });
    const album = whatcd.add(ALBUM);
    const both = await fetch(`${whatcd.base}torrents.php?action=download&id=${album.id}&authkey=anything&torrent_pass=${whatcd.user.passkey}`);
    expect(both.headers.get('content-type')).toMatch(/bittorrent/);
    expect(Buffer.from(await both.arrayBuffer()).toString('latin1')).toContain(`http://tracker.${whatcd.host}/${whatcd.user.passkey}/announce`);
    const passOnly = await fetch(`${whatcd.base}torrents.php?action=download&id=${album.id}&torrent_pass=${whatcd.user.passkey}`, { redirect: 'manual' });
    expect(passOnly.status).toBe(302);
    const session = await fetch(`${whatcd.base}torrents.php?action=download&id=${album.id}`, { headers: { cookie: whatcd.cookie } });
    expect(session.headers.get('content-type')).toMatch(/bittorrent/);
  });
});

describe('the PHP string functions the Gazelle site uses', () => {
  it('strnatcasecmp: numbers by value, blanks and leading zeros skipped, letters upper-cased (so `_` sorts after them)', () => {
    const sorted = (list: string[]) => [...list].sort(strnatcasecmp);
    expect(sorted(['track10.flac', 'Track2.flac', 'track1.flac'])).toEqual(['track1.flac', 'Track2.flac', 'track10.flac']);
    expect(sorted(['b_', 'bA'])).toEqual(['bA', 'b_']);
    expect(strnatcasecmp('01 x', '1 x')).toBe(0); // leading zeros skipped at the very start only
    expect(strnatcasecmp(' 01 x', '1 x')).toBe(-1); // after a blank, 01 is a left-aligned run
    expect(strnatcasecmp('x05', 'x045')).toBe(1); // a run starting with 0 compares left-aligned (as decimals), not by value
  });

  it('display_str: non-ASCII as HTML 4 names or numbers, `&` fixed only where it starts no entity-like text, quotes and brackets', () => {
    expect(displayStr(`Tom's "<b>" & Jerry`)).toBe('Tom&#39;s &quot;&lt;b&gt;&quot; &amp; Jerry');
    expect(displayStr('Café ÷ 结')).toBe('Caf&eacute; &divide; &#32467;');
    expect(displayStr('ϑ 😀')).toBe('&amp;thetasym; &amp;#128512;'); // the pattern allows 7-letter names and 5 digits
    expect(displayStr('&amp; kept')).toBe('&amp; kept');
  });
});
