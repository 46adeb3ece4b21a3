/**
 * "Test" of a site's pieces-hash API (features/pieces-hash/site-test.ts) against test NexusPHP sites
 * (test/e2e/support/pieces-hash-site.ts) on the catalogued hosts, through the e2e router as the
 * browser's proxy: one request with one random pieces hash, sent only to the site's own address,
 * answered as a kind; the passkey is in no view and no console line.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { testPiecesHashSite, type SiteTestDeps } from '../../../features/pieces-hash/site-test';
import type { PiecesHashTestRequest, PiecesHashTestView } from '../../../features/pieces-hash/pieces-hash.messages';
import { DEFAULT_SETTINGS, type Settings } from '../../../utils/settings';
import { siteForSid } from '../../../utils/sites';
import type { PiecesHashSiteOptions } from '../../e2e/support/pieces-hash-site';
import { usePiecesHashSites } from './support';

const HDSKY = 4;
const KEEPFRDS = 1;
const HHANCLUB = 72;
const PIGGO = 69;
const DICMUSIC = 51;

describe('testPiecesHashSite against test NexusPHP sites', () => {
  /** Each test with its own sites and requests; no view of the file, nor any console line, holds a passkey any site held. */
  const sites = usePiecesHashSites({ apartPerTest: true, moreSeenThan: 10 });
  const site = (host: string, options?: PiecesHashSiteOptions) => sites.site(host, options);
  const { passkeys } = sites;
  /** Origins the browser would refuse (the rest are granted, as catalogued hosts are by the manifest). */
  let refused: string[] = [];

  const test = async (request: PiecesHashTestRequest, settings: Partial<Settings> = {}, extra: Partial<SiteTestDeps> = {}) => {
    const deps: SiteTestDeps = {
      settings: async () => ({ ...DEFAULT_SETTINGS, ...settings }),
      siteFor: async (sid) => siteForSid(sid),
      originAllowed: async (origin) => !refused.includes(origin),
      fetch: sites.fetch,
      ...extra,
    };
    const view = await testPiecesHashSite(deps, request);
    sites.seen.push(view);
    return view;
  };

  beforeEach(() => {
    refused = [];
  });

  it('works: one request, to the site’s own API, with ONE random pieces hash and the saved passkey', async () => {
    const hdsky = site('hdsky.me');
    expect(await test({ sid: HDSKY }, { sitePasskeys: { [HDSKY]: hdsky.passkey } })).toEqual({ kind: 'works' });
    const requests = sites.router.requestsTo('hdsky.me');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe('https://hdsky.me/api/pieces-hash');
    const body = JSON.parse(requests[0]!.body) as { passkey: string; pieces_hash: string[] };
    expect(body.passkey).toBe(hdsky.passkey);
    expect(body.pieces_hash).toHaveLength(1);
    expect(body.pieces_hash[0]).toMatch(/^[0-9a-f]{40}$/);
    // Another test, another random hash.
    await test({ sid: HDSKY }, { sitePasskeys: { [HDSKY]: hdsky.passkey } });
    expect(JSON.parse(sites.router.requestsTo('hdsky.me')[1]!.body).pieces_hash[0]).not.toBe(body.pieces_hash[0]);
  });

  it('the typed (unsaved) passkey and path come before the saved ones; a site’s definition path is the default', async () => {
    const hdsky = site('hdsky.me');
    expect(await test({ sid: HDSKY, passkey: ` ${hdsky.passkey} ` }, { sitePasskeys: { [HDSKY]: 'f'.repeat(32) } })).toEqual({ kind: 'works' });
    const keepfrds = site('pt.keepfrds.com', { path: '/api/torrents/pieces-hash' });
    expect(await test({ sid: KEEPFRDS, passkey: keepfrds.passkey })).toEqual({ kind: 'works' });
    const hhan = site('hhanclub.net', { path: '/npapi/pieces-hash' });
    // The definition's /nexusapi/ is not where this one answers; the saved path is, and a typed one wins over it.
    expect(await test({ sid: HHANCLUB, passkey: hhan.passkey })).toEqual({ kind: 'no-api' });
    expect(await test({ sid: HHANCLUB, passkey: hhan.passkey }, { piecesHashSites: { [HHANCLUB]: { on: true, path: '/npapi/pieces-hash' } } })).toEqual({ kind: 'works' });
    expect(await test({ sid: HHANCLUB, passkey: hhan.passkey, path: '/nexusapi/pieces-hash' }, { piecesHashSites: { [HHANCLUB]: { on: true, path: '/npapi/pieces-hash' } } })).toEqual({ kind: 'no-api' });
    const piggo = site('api.piggo.me');
    expect(await test({ sid: PIGGO, passkey: piggo.passkey })).toEqual({ kind: 'works' });
  });

  it('the address the options page shows (its override, maybe unsaved) comes before the saved one, moved by the saved one’s rule', async () => {
    const hdsky = site('hdsky.me');
    const mirror = site('mirror.example');
    const urls = () => [...sites.router.requestsTo('hdsky.me'), ...sites.router.requestsTo('mirror.example')].map((request) => request.url);
    const savedHttps = { siteOverrides: { [HDSKY]: { scheme: 'https' as const } } };
    // http chosen in the form, https saved (or a Save still on its way): the form's.
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, override: { scheme: 'http' } }, savedHttps)).toEqual({ kind: 'works' });
    // No override in the form (null): the site's own address, whatever is saved.
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, override: null }, { siteOverrides: { [HDSKY]: { scheme: 'http' } } })).toEqual({ kind: 'works' });
    // None given at all (absent): the saved one, as before.
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey }, { siteOverrides: { [HDSKY]: { scheme: 'http' } } })).toEqual({ kind: 'works' });
    // A mirror typed and not confirmed, or another site's host: the site's own host, as when saved.
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, override: { host: 'mirror.example' } })).toEqual({ kind: 'works' });
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, override: { host: 'ourbits.club', confirmedHost: 'ourbits.club' } })).toEqual({ kind: 'works' });
    // The user's yes to exactly that mirror, in the form: the mirror.
    expect(await test({ sid: HDSKY, passkey: mirror.passkey, override: { host: 'mirror.example', scheme: 'http', confirmedHost: 'mirror.example' } })).toEqual({ kind: 'works' });
    expect(urls()).toEqual([
      'http://hdsky.me/api/pieces-hash',
      'https://hdsky.me/api/pieces-hash',
      'http://hdsky.me/api/pieces-hash',
      'https://hdsky.me/api/pieces-hash',
      'https://hdsky.me/api/pieces-hash',
      'http://mirror.example/api/pieces-hash',
    ]);
    expect(sites.router.requestsTo('ourbits.club')).toHaveLength(0);
  });

  it('a wrong passkey: 401 is wrong-passkey (the site’s body echoing it is never read into the view)', async () => {
    const hdsky = site('hdsky.me');
    const wrong = 'a'.repeat(32);
    passkeys.push(wrong);
    expect(await test({ sid: HDSKY, passkey: wrong })).toEqual({ kind: 'wrong-passkey' });
    expect(hdsky.requests.at(-1)!.status).toBe(401);
  });

  it('a site without the API: its 404 page, a home page for everything, a redirect to login.php: each is no-api', async () => {
    for (const withoutApi of ['not-found', 'home-page', 'login-redirect'] as const) {
      const old = site('hdsky.me', { withoutApi });
      expect(await test({ sid: HDSKY, passkey: old.passkey }), withoutApi).toEqual({ kind: 'no-api' });
      old.release();
    }
  });

  it('rate limited: 429 with its Retry-After seconds', async () => {
    const busy = site('hdsky.me', { perMinute: 1 });
    expect(await test({ sid: HDSKY, passkey: busy.passkey })).toEqual({ kind: 'works' });
    const limited = await test({ sid: HDSKY, passkey: busy.passkey });
    expect(limited.kind).toBe('rate-limited');
    const seconds = (limited as { retryAfterSeconds?: number }).retryAfterSeconds!;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
  });

  it('another ret, another HTTP status, no answer in time: said by kind and number', async () => {
    const odd = site('hdsky.me');
    odd.rewrite = (answer) => ({ ...answer, ret: 3, msg: `passkey ${odd.passkey} is banned` });
    expect(await test({ sid: HDSKY, passkey: odd.passkey })).toEqual({ kind: 'refused', ret: 3 });
    odd.rewrite = undefined;
    odd.failWith = 500;
    expect(await test({ sid: HDSKY, passkey: odd.passkey })).toEqual({ kind: 'site-error', status: 500 });
    odd.failWith = undefined;
    odd.hang = true;
    expect(await test({ sid: HDSKY, passkey: odd.passkey }, {}, { timeoutMs: 300 })).toEqual({ kind: 'unreachable' });
  });

  it('nothing is sent without a passkey, with one that is not NexusPHP’s, to another host, or without the browser’s permission', async () => {
    const hdsky = site('hdsky.me');
    const stranger = site('collector.example');
    expect(await test({ sid: HDSKY })).toEqual({ kind: 'needs-passkey' });
    expect(await test({ sid: HDSKY, passkey: '   ' })).toEqual({ kind: 'needs-passkey' });
    expect(await test({ sid: HDSKY, passkey: 'short-key-123' })).toEqual({ kind: 'bad-passkey' });
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, path: 'https://collector.example/api/pieces-hash' })).toEqual({ kind: 'other-host', host: 'collector.example' });
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, path: 'api/pieces-hash' })).toEqual({ kind: 'bad-path' });
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey, path: 'javascript:alert(1)' })).toEqual({ kind: 'bad-path' });
    expect(await test({ sid: DICMUSIC, passkey: hdsky.passkey })).toEqual({ kind: 'not-nexusphp' });
    expect(await test({ sid: 999_999, passkey: hdsky.passkey })).toEqual({ kind: 'not-nexusphp' });
    // A confirmed mirror is the site's own, but the browser must allow it first.
    refused = ['https://mirror.example'];
    const mirror = { siteOverrides: { [HDSKY]: { host: 'mirror.example', confirmedHost: 'mirror.example' } } };
    expect(await test({ sid: HDSKY, passkey: hdsky.passkey }, mirror)).toEqual({ kind: 'no-permission', origin: 'https://mirror.example' });
    expect(sites.router.requestsTo('hdsky.me')).toHaveLength(0);
    expect(stranger.requests).toHaveLength(0);
    expect(sites.router.requestsTo('mirror.example')).toHaveLength(0);
    // Once allowed, the mirror is asked.
    refused = [];
    const onMirror = site('mirror.example');
    expect(await test({ sid: HDSKY, passkey: onMirror.passkey }, mirror)).toEqual({ kind: 'works' });
  });
});
