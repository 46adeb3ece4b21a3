/** Engine behaviour beyond the static fixtures: pages that change, the site's API failing, hints. */
import { beforeEach, describe, expect, it } from 'vitest';
import { listRowElements, readPage } from '../../../utils/pages';
import { forgetGazelleAnswers, gazelle } from '../../../utils/pages/gazelle';
import { engines } from '../../../utils/pages/registry';
import { nexusphp, nexusTorrentId } from '../../../utils/pages/nexusphp';
import { unit3d } from '../../../utils/pages/unit3d';
import { mteam } from '../../../utils/pages/mteam';
import { UNIT3D_INFO_HASH_LABELS } from '../../../utils/pages/unit3d-labels';
import type { ReadContext } from '../../../utils/pages/page-types';
import { nexusDetailsPage, nexusListPage } from '../../fixtures/pages/generate';
import { contextFor, documentFrom } from './load';

beforeEach(() => forgetGazelleAnswers());

const noFetch = (() => Promise.reject(new Error('no network in this test'))) as typeof fetch;
function context(url: string, html: string, siteFetch: typeof fetch = noFetch): ReadContext {
  return { url: new URL(url), document: documentFrom(html, url), fetch: siteFetch };
}

describe('registry', () => {
  it('lists each engine once, specific engines before the catch-all rules', () => {
    const ids = engines.map((engine) => engine.id);
    expect(ids).toEqual(['nexusphp', 'unit3d', 'gazelle', 'mteam', 'generic', 'magnet']);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('applies() by URL', () => {
  const applies = (engine: typeof nexusphp, url: string, hint?: string) =>
    engine.applies({ url: new URL(url), document: documentFrom('<p></p>', url), fetch: noFetch, ...(hint && { hint }) });
  it('NexusPHP: details, plugin_details, TTG /t/N/, HDCity /t-N and lists, not Gazelle torrents.php', () => {
    for (const url of ['https://a.b/details.php?id=1', 'https://a.b/plugin_details.php?id=9', 'https://a.b/t/12/', 'https://a.b/t-12', 'https://a.b/torrents.php?cat=401', 'https://a.b/special.php'])
      expect(applies(nexusphp, url), url).toBe(true);
    for (const url of ['https://a.b/details.php?id=x', 'https://a.b/torrents.php?id=1&torrentid=2', 'https://a.b/torrents.php?torrentid=2', 'https://a.b/t/abc/', 'https://a.b/userdetails.php?id=1'])
      expect(applies(nexusphp, url), url).toBe(false);
  });
  it('UNIT3D: /torrents/N, /torrents and /torrents/similar/C.T', () => {
    expect(applies(unit3d, 'https://u.c/torrents/42')).toBe(true);
    expect(applies(unit3d, 'https://u.c/torrents')).toBe(true);
    expect(applies(unit3d, 'https://u.c/torrents/similar/1.603692')).toBe(true);
    expect(applies(unit3d, 'https://u.c/torrents/42/edit')).toBe(false);
    expect(applies(unit3d, 'https://u.c/torrents/similar/x')).toBe(false);
  });
  it('Gazelle: torrents.php, a torrent (id, torrentid) or the browse page (rows only)', () => {
    expect(applies(gazelle, 'https://g.n/torrents.php?id=1&torrentid=2')).toBe(true);
    expect(applies(gazelle, 'https://g.n/torrents.php?torrentid=2')).toBe(true);
    expect(applies(gazelle, 'https://g.n/torrents.php?searchstr=x')).toBe(true);
    expect(applies(gazelle, 'https://g.n/artist.php?id=3')).toBe(false);
  });
  it("M-Team: /detail/N and the /browse lists on m-team hosts, or anywhere the catalog says so", () => {
    expect(applies(mteam, 'https://kp.m-team.cc/detail/5')).toBe(true);
    expect(applies(mteam, 'https://mirror.example/detail/5')).toBe(false);
    expect(applies(mteam, 'https://mirror.example/detail/5', 'mteam')).toBe(true);
    expect(applies(mteam, 'https://kp.m-team.cc/browse')).toBe(true);
    expect(applies(mteam, 'https://kp.m-team.cc/browse/adult')).toBe(true);
    expect(applies(mteam, 'https://mirror.example/browse')).toBe(false);
    expect(applies(mteam, 'https://kp.m-team.cc/usercp')).toBe(false);
  });
});

describe('pages that fill in later', () => {
  it('NexusPHP lazily filled: not-loaded-yet, then the hash once the site writes it', async () => {
    const { context: ctx } = contextFor('nexusphp-lazy');
    expect((await readPage(ctx))?.problem).toBe('not-loaded-yet');
    ctx.document.getElementById('torrent_hash')!.textContent = ' 1078CF414B2625A240B16392085D66580BB66F4D ';
    expect(await readPage(ctx)).toEqual({
      engine: 'nexusphp',
      kind: 'details',
      hashes: [{ hash: '1078cf414b2625a240b16392085d66580bb66f4d', source: 'info-row', title: 'Lazy.Series.S02.1080p.WEB-DL-LZY' }],
      torrentFileUrl: 'https://pt.example.org/download.php?id=8080',
    });
  });

  it('M-Team: waits while the app renders, reads the hash once it has', async () => {
    const { context: ctx } = contextFor('mteam-loading');
    expect(await readPage(ctx, { engine: 'mteam' })).toEqual({ engine: 'mteam', kind: 'details', hashes: [], problem: 'not-loaded-yet' });
    const root = ctx.document.getElementById('root')!;
    root.innerHTML = '<div id="app-content"><div class="ant-spin-nested-loading"><div class="ant-spin ant-spin-spinning"></div></div></div>';
    expect((await readPage(ctx, { engine: 'mteam' }))?.problem).toBe('not-loaded-yet');
    root.innerHTML = `<div id="app-content"><div class="detail-view"><h2>Rendered.Title</h2><div class="ant-descriptions"><table><tbody>
      <tr><th class="ant-descriptions-item-label">種子HASH</th><td class="ant-descriptions-item-content">ABC03B1DB879ED7A9394CE632214E0A6C33DAA2C</td></tr>
      </tbody></table></div></div></div>`;
    expect(await readPage(ctx, { engine: 'mteam' })).toEqual({
      engine: 'mteam',
      kind: 'details',
      hashes: [{ hash: 'abc03b1db879ed7a9394ce632214e0a6c33daa2c', source: 'info-row', title: 'Rendered.Title' }],
    });
  });

  it('M-Team rendered without any hash: site-gives-no-hash', async () => {
    const ctx = context(
      'https://kp.m-team.cc/detail/1',
      '<div id="root"><div id="app-content"><div class="detail-view"><div class="ant-descriptions"><table><tr><th class="ant-descriptions-item-label">大小</th><td>1 GB</td></tr></table></div></div></div></div>',
    );
    expect((await readPage(ctx))?.problem).toBe('site-gives-no-hash');
  });

  it('M-Team: an in-page navigation to another torrent reads the new one', async () => {
    const view = (hash: string) =>
      `<div id="root"><div id="app-content"><div class="detail-view"><div class="ant-descriptions"><table><tr><th class="ant-descriptions-item-label">Info Hash</th><td>${hash}</td></tr></table></div></div></div></div>`;
    const ctx = context('https://kp.m-team.cc/detail/1', view('b257af45fbc9f52d0e728490f2c2da9e4f66647e'));
    expect((await readPage(ctx))?.hashes[0]?.hash).toBe('b257af45fbc9f52d0e728490f2c2da9e4f66647e');
    ctx.document.getElementById('root')!.outerHTML = view('e6f10495f0c7275c60298fc5e619e03a13634ed7');
    expect((await readPage({ ...ctx, url: new URL('https://kp.m-team.cc/detail/2') }))?.hashes[0]?.hash).toBe('e6f10495f0c7275c60298fc5e619e03a13634ed7');
  });
});

describe('Gazelle and the site API', () => {
  const page = contextFor('gazelle-details');
  const withAnswer = (answer: () => Promise<Response>) => {
    const asked: string[] = [];
    const siteFetch = ((input: RequestInfo | URL) => {
      asked.push(String(input));
      return answer();
    }) as typeof fetch;
    return { ctx: { ...page.context, fetch: siteFetch }, asked };
  };
  const json = (body: unknown, status = 200) => () => Promise.resolve(new Response(JSON.stringify(body), { status }));

  it('asks once per torrent, however often the page is read', async () => {
    const { ctx, asked } = withAnswer(json({ status: 'success', response: { group: { name: 'G' }, torrent: { id: 2002, infoHash: 'E6F10495F0C7275C60298FC5E619E03A13634ED7' } } }));
    const first = await readPage(ctx);
    const again = await readPage(ctx);
    expect(first?.hashes[0]?.hash).toBe('e6f10495f0c7275c60298fc5e619e03a13634ed7');
    expect(again).toEqual(first);
    expect(asked).toEqual(['https://gz.example.net/ajax.php?action=torrent&id=2002']);
  });

  it('needs-login on 401/403 and on a redirect to login.php', async () => {
    expect((await readPage(withAnswer(json({}, 403)).ctx))?.problem).toBe('needs-login');
    forgetGazelleAnswers();
    const redirected = () => {
      const response = new Response('<html>login</html>', { status: 200 });
      Object.defineProperty(response, 'url', { value: 'https://gz.example.net/login.php' });
      return Promise.resolve(response);
    };
    expect((await readPage(withAnswer(redirected).ctx))?.problem).toBe('needs-login');
  });

  it('site-error on a network failure, an HTTP error, HTML instead of JSON, a rate limit, or an answer about another torrent', async () => {
    const cases: (() => Promise<Response>)[] = [
      () => Promise.reject(new TypeError('Failed to fetch')),
      json({}, 502),
      () => Promise.resolve(new Response('<!DOCTYPE html><title>Login</title>')),
      json({ status: 'failure', error: 'rate limit exceeded' }),
      json({ status: 'success', response: { torrent: { id: 9999, infoHash: 'E6F10495F0C7275C60298FC5E619E03A13634ED7' } } }),
      json(['not', 'an', 'object']),
    ];
    for (const answer of cases) {
      forgetGazelleAnswers();
      const reading = await readPage(withAnswer(answer).ctx);
      expect(reading?.problem).toBe('site-error');
      expect(reading?.hashes).toEqual([]);
    }
  });

  it('site-gives-no-hash when infoHash is missing, null, or not a hash', async () => {
    for (const infoHash of [undefined, null, '', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'xyz']) {
      forgetGazelleAnswers();
      const reading = await readPage(withAnswer(json({ status: 'success', response: { torrent: { id: 2002, infoHash } } })).ctx);
      expect(reading?.problem).toBe('site-gives-no-hash');
    }
  });

  it('a group page of several torrents without torrentid asks nothing and names no hash', async () => {
    const { ctx, asked } = withAnswer(json({}));
    expect(await readPage({ ...ctx, url: new URL('https://gz.example.net/torrents.php?id=1001') })).toBeNull();
    expect(asked).toEqual([]);
  });

  it('a group page with a single torrent reads that one', async () => {
    const html = '<table class="torrent_table"><tr class="torrent_row group_torrent" id="torrent77"><td><a href="torrents.php?action=download&amp;id=77&amp;authkey=x">DL</a></td></tr></table>';
    const { asked } = withAnswer(json({}));
    const ctx = context('https://gz.example.net/torrents.php?id=5', html, ((input: RequestInfo | URL) => {
      asked.push(String(input));
      return json({ status: 'success', response: { torrent: { id: 77, infoHash: 'e6f10495f0c7275c60298fc5e619e03a13634ed7' } } })();
    }) as typeof fetch);
    const reading = await readPage(ctx);
    expect(asked).toEqual(['https://gz.example.net/ajax.php?action=torrent&id=77']);
    expect(reading).toEqual({
      engine: 'gazelle',
      kind: 'details',
      hashes: [{ hash: 'e6f10495f0c7275c60298fc5e619e03a13634ed7', source: 'site-api' }],
      torrentFileUrl: 'https://gz.example.net/torrents.php?action=download&id=77&authkey=x',
    });
  });
});

describe('magnet rule on unknown sites', () => {
  const H = ['b257af45fbc9f52d0e728490f2c2da9e4f66647e', 'e6f10495f0c7275c60298fc5e619e03a13634ed7', '42f95c13eb321b794b08ec7e0d18a04e2cb54c9f'];
  const m = (hash: string) => `<a href="magnet:?xt=urn:btih:${hash}">magnet</a>`;

  it('a list: one hash per row, tied to the id its row links to (else its position)', async () => {
    const html = `<table>
      <tr><td><a href="/view/101#top">A</a></td><td>${m(H[0]!)}</td></tr>
      <tr><td><a href="/item.php?id=102">B</a></td><td>${m(H[1]!)} ${m(H[1]!)}</td></tr>
      <tr><td>no link</td><td>${m(H[2]!)}</td></tr></table>`;
    expect(await readPage(context('https://x.example/list', html))).toEqual({
      engine: 'magnet',
      kind: 'list',
      hashes: [
        { hash: H[0], source: 'magnet', row: '1' },
        { hash: H[1], source: 'magnet', row: '102' },
        { hash: H[2], source: 'magnet', row: '3' },
      ],
    });
  });

  it("a block quoting several torrents' magnets is text, not rows: only the page's own magnet counts", async () => {
    const html = `<div class="post"><p>Older releases: ${m(H[1]!)} ${m(H[2]!)}</p></div>
      <table><tr><td>Download</td><td>${m(H[0]!)}</td></tr>
      <tr><td>Description</td><td>see ${m(H[1]!)} and ${m(H[2]!)}</td></tr></table>`;
    expect(await readPage(context('https://x.example/view/1', html))).toEqual({
      engine: 'magnet',
      kind: 'details',
      hashes: [{ hash: H[0], source: 'magnet' }],
    });
  });

  it('reads magnets whatever the case of their scheme', async () => {
    const html = `<p><a href="MAGNET:?xt=urn:btih:${H[0]!.toUpperCase()}">M</a></p>`;
    expect((await readPage(context('https://x.example/view/1', html)))?.hashes).toEqual([{ hash: H[0], source: 'magnet' }]);
  });
});

describe('hints and fall-through', () => {
  it('a /detail/N page on an unknown host is not taken as M-Team without the hint', async () => {
    const ctx = context('https://other.example/detail/3', '<div id="root"></div><a href="magnet:?xt=urn:btih:b257af45fbc9f52d0e728490f2c2da9e4f66647e">m</a>');
    expect((await readPage(ctx))?.engine).toBe('magnet');
    expect((await readPage(ctx, { engine: 'mteam' }))?.problem).toBe('not-loaded-yet');
  });

  it('an unknown hint is ignored', async () => {
    const { page, context: ctx } = contextFor('nexusphp-details-chs');
    expect(await readPage(ctx, { engine: 'no-such-engine' })).toEqual(page.expect);
    expect(await readPage(ctx, { engine: 'other' })).toEqual(page.expect);
  });

  it('a NexusPHP URL whose page has no NexusPHP table falls through to the labelled-hash rule', async () => {
    const ctx = context('https://x.example/details.php?id=5', '<dl><dt>Info hash</dt><dd>b257af45fbc9f52d0e728490f2c2da9e4f66647e</dd></dl>');
    expect(await readPage(ctx)).toEqual({ engine: 'generic', kind: 'details', hashes: [{ hash: 'b257af45fbc9f52d0e728490f2c2da9e4f66647e', source: 'label' }] });
  });

  it('a download link to another torrent or another site is not this page\'s .torrent', async () => {
    const html = `<h1 id="top">T</h1><table><tr><td class="rowhead">下载</td><td class="rowfollow"><a href="download.php?id=99">other</a> <a href="https://evil.example/download.php?id=5">off-site</a></td></tr>
      <tr><td class="rowhead">Info hash</td><td class="rowfollow">b257af45fbc9f52d0e728490f2c2da9e4f66647e</td></tr></table>`;
    const reading = await readPage(context('https://pt.example.org/details.php?id=5', html));
    expect(reading?.hashes[0]?.hash).toBe('b257af45fbc9f52d0e728490f2c2da9e4f66647e');
    expect(reading?.torrentFileUrl).toBeUndefined();
  });

  it('never throws, even when the document itself throws', async () => {
    const hostile = new Proxy(documentFrom('<p></p>', 'https://a.b/'), {
      get() {
        throw new Error('boom');
      },
    });
    for (const url of ['https://a.b/details.php?id=1', 'https://a.b/torrents/1', 'https://kp.m-team.cc/detail/1', 'https://a.b/x']) {
      await expect(readPage({ url: new URL(url), document: hostile, fetch: noFetch })).resolves.toBeNull();
    }
    // Gazelle needs no document to ask its API (which fails here too)
    await expect(readPage({ url: new URL('https://a.b/torrents.php?torrentid=1'), document: hostile, fetch: noFetch })).resolves.toEqual({
      engine: 'gazelle',
      kind: 'details',
      hashes: [],
      problem: 'site-error',
    });
  });
});

describe('the generated 2 MB NexusPHP page', () => {
  it('is about 2 MB and reads exactly its own hash among thousands of decoys', async () => {
    const page = nexusDetailsPage({ targetBytes: 2_000_000, seed: 3 });
    expect(page.html.length).toBeGreaterThan(1_900_000);
    expect(page.html.match(/[0-9a-f]{40}/g)!.length).toBeGreaterThan(1000);
    const reading = await readPage(context(page.url, page.html));
    expect(reading).toEqual({
      engine: 'nexusphp',
      kind: 'details',
      hashes: [{ hash: page.hash, source: 'info-row', title: expect.any(String) }],
      torrentFileUrl: 'https://pt.example.org/download.php?id=12345',
    });
  }, 120_000); // happy-dom takes seconds to parse 2 MB; the timing itself is measured in Chromium (bench/)
});

describe('real tracker templates', () => {
  const HASH = 'b22041fa2943dd4324a73140fa1627d873169538';
  const OTHER = '523a946653b61a2740de0c2e98ef16227a34c83a';
  /** UNIT3D's button bar as partials/buttons.blade.php prints it, the files dialog's label in any language. */
  const unit3dPage = (label: string) => `<h1 class="torrent__name">T</h1><menu class="torrent__buttons">
    <li><a class="form__button" href="https://u.c/torrents/download/7">DL</a></li>
    <li x-data="dialog"><button>Files</button><dialog class="dialog"><header class="dialog__header"><h4 class="dialog__heading">Files</h4>
      <div class="dialog__actions"><div class="dialog__action">
        ${label}:
        ${HASH}
      </div></div></header></dialog></li></menu>
    <section id="comments"><p>Info Hash: ${OTHER}</p></section>`;

  it("UNIT3D: the files dialog's hash is read in every language UNIT3D ships, and under a label nobody listed", async () => {
    for (const label of [...UNIT3D_INFO_HASH_LABELS, 'Хеш інформації', 'ハッシュ']) {
      const reading = await readPage(context('https://u.c/torrents/7', unit3dPage(label)));
      expect(reading?.hashes, label).toEqual([{ hash: HASH, source: 'info-row', title: 'T' }]);
    }
  });

  it("the label rules know UNIT3D's label in every language (for pages of its forks with another structure)", async () => {
    for (const label of UNIT3D_INFO_HASH_LABELS) {
      const html = `<div><p>Size: 1 GiB</p><p><b>${label}:</b> ${HASH}</p><p>${label}: ${HASH.toUpperCase()}</p></div>`;
      expect((await readPage(context('https://unknown.example/view/7', html)))?.hashes, label).toEqual([{ hash: HASH, source: 'label' }]);
      const cells = `<table><tr><td>${label}</td><td>${HASH}</td></tr></table>`;
      expect((await readPage(context('https://unknown.example/view/7', cells)))?.hashes, label).toEqual([{ hash: HASH, source: 'label' }]);
    }
  });

  it('UNIT3D lists: a row per torrent by its own link, in the v6 layout too (no data-torrent-id), and in card view', async () => {
    const m = (hash: string) => `<a href="magnet:?dn=x&amp;xt=urn:btih:${hash}&amp;tr=https://u.c/announce/k">M</a>`;
    const v6 = `<table class="data-table"><tr><th>Name</th></tr>
      <tr><td><a class="view-torrent torrent-listings-name" href="https://u.c/torrents/31">A</a> <a href="https://u.c/torrents/31#comments">2</a></td><td>${m(HASH)}</td></tr>
      <tr><td><a href="https://u.c/torrents/31/edit">edit</a><a class="view-torrent torrent-listings-name" href="/torrents/32">B</a></td><td>${m(OTHER)}</td></tr>
      <tr><td><a class="view-torrent torrent-listings-name" href="https://elsewhere.example/torrents/33">C</a></td><td>${m('42f95c13eb321b794b08ec7e0d18a04e2cb54c9f')}</td></tr>
      <tr><td><a class="view-torrent torrent-listings-name" href="https://www.u.c/torrents/34">D (the site's base URL with www.)</a></td><td></td></tr></table>`;
    const reading = await readPage(context('https://u.c/torrents', v6));
    expect(reading?.hashes).toEqual([
      { hash: HASH, source: 'magnet', row: '31', title: 'A' },
      { hash: OTHER, source: 'magnet', row: '32', title: 'B' },
    ]);
    expect(reading?.rows?.map((row) => row.id)).toEqual(['31', '32', '34']);
    const cards = `<div class="torrent-search--card__results">
      <article class="torrent-card"><aside><a href="https://u.c/torrents/similar/1.5">poster</a></aside><h2 class="torrent-card__title"><a class="torrent-card__link" href="https://u.c/torrents/41">D</a></h2><footer>${m(HASH)}</footer></article>
      <article class="torrent-card"><h2 class="torrent-card__title"><a class="torrent-card__link" href="https://u.c/torrents/42">E</a></h2><footer>${m(OTHER)}</footer></article></div>`;
    expect((await readPage(context('https://u.c/torrents?view=card', cards)))?.hashes.map((found) => found.row)).toEqual(['41', '42']);
  });

  it("NexusPHP: a comments-only page is known by its heading's link back to the torrent, without cmtpage in the URL", async () => {
    const page = (heading: string) => `<h1 id="top">${heading}</h1><h1 id="startcomments">用户评论</h1>
      <table class="main"><tr><td class="rowfollow">Hash码：${OTHER}</td></tr></table>`;
    expect(await readPage(context('https://pt.example.org/details.php?id=5', page('种子评论 - <a href="details.php?id=5">T</a>')))).toEqual({
      engine: 'nexusphp',
      kind: 'details',
      hashes: [],
    });
    // HUDBT's comment floors link to details.php?cmtpage=1&page=p9001&id=N
    expect(await readPage(context('https://pt.example.org/details.php?cmtpage=1&page=p9001&id=5', '<p>Hash码：' + OTHER + '</p>'))).toEqual({
      engine: 'nexusphp',
      kind: 'details',
      hashes: [],
    });
    // a heading linking to another torrent is not this torrent's comments page
    expect((await readPage(context('https://pt.example.org/details.php?id=5', page('<a href="details.php?id=6">T</a>'))))?.engine).not.toBe('nexusphp');
  });

  it('NexusPHP dl/dt/dd fork: a [quote] (fieldset and legend) before the hash row is not the torrent\'s, whatever its row is called', async () => {
    const html = `<h1 id="top">T</h1><dl class="table">
      <dt>下载</dt><dd><a href="download.php?id=5">T.torrent</a></dd>
      <dt><img src="pic/descr.png" alt=""></dt><dd><fieldset><legend> 引用 </legend><br /><b>Hash码:</b>&nbsp;${OTHER}</fieldset></dd>
      <dt>种子文件</dt><dd><b>Hash码:</b>&nbsp;${HASH}</dd></dl>`;
    expect(await readPage(context('https://pt.example.org/details.php?id=5', html))).toEqual({
      engine: 'nexusphp',
      kind: 'details',
      hashes: [{ hash: HASH, source: 'info-row', title: 'T' }],
      torrentFileUrl: 'https://pt.example.org/download.php?id=5',
    });
  });
});

describe('list rows (torrent ids for marking rows, with or without a hash)', () => {
  const HASH = 'b257af45fbc9f52d0e728490f2c2da9e4f66647e';

  it("NexusPHP: each row by its own title link, not its comment count, peer list or a description's link", async () => {
    const row = (id: number, cells: string) => `<tr><td class="rowfollow">${cells}</td></tr>`;
    const html = `<table class="torrents"><tr><td class="colhead">标题</td></tr>
      ${row(11, '<b><a href="details.php?id=11&amp;hit=1&amp;cmtpage=1#startcomments">4</a></b> <a href="details.php?id=11&amp;hit=1&amp;dllist=1#seeders">9</a> <a href="details.php?id=11&amp;hit=1"><b>Eleven</b></a> <a href="details.php?id=99&amp;hit=1">see 99</a>')}
      ${row(12, `<a href="/t/12/?tocomm=1">2</a> <div class="name_left"><a href="/t/12/"><b>Twelve</b></a></div> <a href="magnet:?xt=urn:btih:${HASH}">m</a>`)}
      ${row(11, '<a href="details.php?id=11&amp;hit=1"><b>Eleven again (sticky copy)</b></a>')}
      ${row(13, '<a href="details.php?id=13&amp;cmtpage=1">only its comments</a>')}
      ${row(14, '<a href="details.php?id=1234567890123&amp;hit=1"><b>an id too long</b></a>')}
    </table>`;
    const reading = await readPage(context('https://pt.example.org/torrents.php', html));
    expect(reading?.rows).toEqual([
      { id: '11', title: 'Eleven' },
      { id: '12', hash: HASH, title: 'Twelve' },
    ]);
    expect(reading?.hashes).toEqual([{ hash: HASH, source: 'magnet', row: '12', title: 'Twelve' }]);
  });

  it('NexusPHP: a row link is a torrent page only — userdetails.php and other id=N links name no torrent (issue 15)', () => {
    const host = 'pt.example.org';
    const accepted: [string, string][] = [
      ['details.php?id=11&hit=1', '11'],
      ['details.php?hit=1&id=12', '12'],
      ['/details.php?id=13', '13'],
      ['./details.php?id=14', '14'],
      ['https://pt.example.org/details.php?id=15&hit=1', '15'],
      ['https://www.pt.example.org/details.php?id=16', '16'],
      ['plugin_details.php?id=17', '17'],
      ['/t/18/', '18'],
      ['https://pt.example.org/t/19', '19'],
      ['t-20', '20'],
      ['/t-21/', '21'],
    ];
    for (const [href, id] of accepted) expect(nexusTorrentId(href, host), href).toBe(id);
    const rejected = [
      'userdetails.php?id=5',
      '/userdetails.php?id=5',
      'https://pt.example.org/userdetails.php?id=5',
      'viewsnatches.php?id=11',
      'viewfilelist.php?id=11',
      'torrentdetails.php?id=11',
      'forums.php?action=viewtopic&topicid=3&id=4',
      'https://other.example/details.php?id=11',
      'details.php?id=11&cmtpage=1',
      'details.php?id=11#startcomments',
      'details.php?id=abc',
      '/t/abc/',
      '/forum/t/22/',
      'download.php?id=11',
    ];
    for (const href of rejected) expect(nexusTorrentId(href, host), href).toBeUndefined();
  });

  it("every list engine takes a row by its torrent link only: a user's link first in the row does not make it a torrent row (issue 15)", async () => {
    const cases = [
      {
        url: 'https://pt.example.org/torrents.php',
        html: `<table class="torrents"><tr><td class="colhead">标题</td></tr>
          <tr><td><a href="userdetails.php?id=501">uploader only</a></td></tr>
          <tr><td><a href="userdetails.php?id=502">uploader</a> <a href="details.php?id=61&amp;hit=1"><b>Sixty-one</b></a></td></tr>
          <tr><td><a href="/t/62/">Sixty-two</a> <a href="/userdetails.php?id=503">by</a></td></tr></table>`,
        rows: ['61', '62'],
      },
      {
        url: 'https://u.c/torrents',
        html: `<table><tr><td><a href="https://u.c/users/bob">bob</a> <a href="https://u.c/torrents/31/edit">edit</a></td></tr>
          <tr><td><a href="https://u.c/users/ann">ann</a> <a href="https://u.c/torrents/32">T</a></td></tr></table>`,
        rows: ['32'],
      },
      {
        url: 'https://g.n/torrents.php',
        html: `<table id="torrent_table"><tr><td><a href="user.php?id=7">u</a> <a href="torrents.php?id=3">group</a></td></tr>
          <tr><td><a href="user.php?id=8">u</a> <a href="torrents.php?id=3&amp;torrentid=42">T</a></td></tr></table>`,
        rows: ['42'],
      },
      {
        url: 'https://kp.m-team.cc/browse',
        html: `<table><tr><td><a href="/profile/detail/77">u</a></td></tr><tr><td><a href="/profile/detail/78">u</a> <a href="/detail/900001">T</a></td></tr></table>`,
        rows: ['900001'],
      },
    ];
    for (const { url, html, rows } of cases) {
      const reading = await readPage(context(url, html));
      expect(reading?.rows?.map((row) => row.id) ?? [], url).toEqual(rows);
    }
  });

  it('at most 500 rows, in page order', async () => {
    const page = nexusListPage({ rows: 600, seed: 11 });
    const reading = await readPage(context(page.url, page.html));
    expect(reading?.rows).toHaveLength(500);
    expect(reading?.rows?.map((row) => row.id)).toEqual(page.rows.slice(0, 500).map((row) => row.id));
  }, 60_000);

  it("finds each row's element again by its id, for every list engine", async () => {
    for (const [name, engine] of [
      ['nexusphp-search', 'nexusphp'],
      ['ttg-browse', 'nexusphp'],
      ['unit3d-list', 'unit3d'],
      ['unit3d-similar', 'unit3d'],
      ['gazelle-browse', 'gazelle'],
      ['mteam-browse', 'mteam'],
    ] as const) {
      const { page, context: ctx } = contextFor(name);
      const elements = listRowElements(ctx, engine);
      expect(elements.map((row) => row.id), name).toEqual(page.expect!.rows!.map((row) => row.id));
      for (const { id, element } of elements) {
        expect(element.localName, name).toMatch(/^(?:tr|article)$/);
        // the element is the row that links to that torrent
        expect(element.innerHTML, name).toMatch(new RegExp(`(?:id=|torrentid=|/t/|/torrents/|/detail/)${id}\\b`));
      }
    }
    // details pages and other engines name no rows
    expect(listRowElements(contextFor('nexusphp-details-chs').context, 'nexusphp')).toEqual([]);
    expect(listRowElements(contextFor('unit3d-details').context, 'unit3d')).toEqual([]);
    expect(listRowElements(contextFor('gazelle-browse').context, 'no-such-engine')).toEqual([]);
  }, 30_000); // eight fixtures parsed: seconds on a busy machine

  it('M-Team renders its list late: nothing until the rows are there, then every row', async () => {
    const ctx = context('https://kp.m-team.cc/browse', '<div id="root"></div>');
    expect(await readPage(ctx, { engine: 'mteam' })).toBeNull();
    ctx.document.getElementById('root')!.innerHTML = `<div id="app-content"><main class="app-content__inner"><table class="w-full"><tbody>
      <tr><td><a href="/detail/700001"><strong>One</strong></a></td></tr><tr><td><a href="https://kp.m-team.cc/detail/700002"><strong>Two</strong></a></td></tr>
      <tr><td><a href="https://elsewhere.example/detail/700003"><strong>Not this site</strong></a></td></tr></tbody></table></main></div>`;
    expect(await readPage(ctx, { engine: 'mteam' })).toEqual({
      engine: 'mteam',
      kind: 'list',
      hashes: [],
      rows: [
        { id: '700001', title: 'One' },
        { id: '700002', title: 'Two' },
      ],
    });
  });
});
