/**
 * The background (BackgroundApp), end to end against the reference service over HTTP, under every
 * hostile condition the service (or the network) can produce. Each case checks what the user would
 * see: the tab's status, the error's kind, when a rate limit lifts, the clock notice, that an older
 * answer is still shown, and that nothing from a bad answer reaches a link or leaks a secret.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { BackgroundApp } from '../../../entrypoints/background/app';
import { FRESH_FOR_MS } from '../../../utils/lookup/answer-cache';
import type { TabView } from '../../../features/lookup/lookup.messages';
import {
  BAD_BODY_MODES,
  DEMO_EXPIRED_TOKEN,
  DEMO_TOKEN,
  DEMO_UNBOUND_TOKEN,
  INVENTED_HASH,
  ODD_BODY_MODES,
  startReferenceService,
  type ReferenceService,
} from '../../service/server';
import { installI18n } from '../support/i18n';
import {
  LOOKUP_PATH,
  REPORT_PATH,
  SITES_PATH,
  TestClock,
  candidateKeys,
  expectSafeView,
  expectedCandidates,
  hashOn,
  hashesWithCandidates,
  linkRules,
  makeApp,
  readingOf,
  reportBadInputs,
  requestsTo,
  storeSettings,
  tried,
} from './support';

let service: ReferenceService;
let clock: TestClock;
let app: BackgroundApp;
/** The token configured now: no view may ever carry it. */
let token: string;
const rules = () => linkRules(service.data.sites);

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('en');
  service.control.reset();
  clock = new TestClock(service);
  token = DEMO_TOKEN;
  await storeSettings({ baseUrl: service.url, token });
  app = makeApp(clock);
});

reportBadInputs('app robustness', 60);

const HDSKY = 'https://hdsky.me/details.php?id=';
let nextTab = 1;

/** A tracker page read in a new tab: the view the panel and popup get. */
async function visit(hashes: string[], url = `${HDSKY}${nextTab}`): Promise<TabView> {
  const view = await app.pages.onPageReading(nextTab++, url, readingOf(hashes));
  expectSafeView(view, rules(), [token]);
  return view;
}

/** A first lookup, so the site list and the site report are in place and later requests are only lookups. */
async function warmUp(): Promise<void> {
  const [hash] = hashesWithCandidates(service).slice(-1);
  const view = await visit([hash!]);
  expect(view.status).toBe('done');
}

const lookups = () => requestsTo(service, LOOKUP_PATH).length;

describe('gentle with the service', () => {
  it('sends one batched request for a page of many hashes, and none on a revisit', async () => {
    const hashes = hashesWithCandidates(service).slice(0, 30);
    const view = await visit(hashes);
    expect(view.status).toBe('done');
    expect(lookups()).toBe(1);
    expect(JSON.parse(new URLSearchParams(requestsTo(service, LOOKUP_PATH)[0]!.body).get('hash')!)).toHaveLength(30);
    for (const hash of hashes.slice(0, 3)) {
      expect(candidateKeys({ ...view, candidates: view.candidates.filter((c) => c.forHash === hash) })).toEqual(expectedCandidates(service, hash));
    }

    const again = await visit(hashes.slice(5, 10));
    expect(again.status).toBe('done');
    expect(again.fromCache).toBe(true);
    expect(lookups()).toBe(1);
  });

  it('keeps a fresh answer for at least an hour, and asks again once it is stale', async () => {
    const { hash } = hashOn(service, 'hdsky');
    await visit([hash]);
    clock.advance(60 * 60 * 1000);
    expect((await visit([hash])).fromCache).toBe(true);
    expect(lookups()).toBe(1);
    clock.advance(FRESH_FOR_MS);
    const stale = await visit([hash]);
    expect(stale.status).toBe('done');
    expect(stale.fromCache).toBe(false);
    expect(lookups()).toBe(2);
  });

  it('asks for a hash shown in several tabs at once only once', async () => {
    const hashes = hashesWithCandidates(service).slice(0, 4);
    service.control.delayMs = 80;
    const views = await Promise.all([visit(hashes), visit(hashes), visit(hashes.slice(0, 2)), visit(hashes.slice(2))]);
    expect(views.map((view) => view.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(lookups()).toBe(1);
    expect(requestsTo(service, REPORT_PATH)).toHaveLength(1);
    expect(requestsTo(service, SITES_PATH)).toHaveLength(1);
  });

  it('asks again on purpose when the user refreshes', async () => {
    const { hash } = hashOn(service, 'hdsky');
    const view = await visit([hash]);
    const refreshed = await app.pages.refresh(view.tabId);
    expect(refreshed.status).toBe('done');
    expect(refreshed.fromCache).toBe(false);
    expect(lookups()).toBe(2);
  });
});

/** How a service can say "slow down", and the wait (s) each one means. */
const RATE_LIMITS: { name: string; wait: number; arm(): void }[] = [
  { name: 'HTTP 429 with a Retry-After header', wait: 45, arm: () => service.control.forceStatus(429, 1, { headers: { 'Retry-After': '45' } }) },
  {
    name: 'HTTP 429 with Retry-After only in the body',
    wait: 12,
    arm: () => service.control.rawAnswer({ status: 429, body: JSON.stringify({ code: 429, msg: '访问频率过快', data: { 'Retry-After': 12 } }) }),
  },
  { name: 'HTTP 429 that does not say how long (30 s)', wait: 30, arm: () => service.control.forceStatus(429, 1) },
  {
    name: 'HTTP 429 with an HTTP-date Retry-After',
    wait: 20,
    arm: () => service.control.forceStatus(429, 1, { headers: { 'Retry-After': new Date(service.control.now() + 20_000).toUTCString() } }),
  },
  {
    name: 'a 访问频率过快 envelope in an HTTP 200',
    wait: 30,
    arm: () => service.control.rawAnswer({ body: JSON.stringify({ code: 400, msg: '访问频率过快', data: [] }) }, 1, LOOKUP_PATH),
  },
  {
    name: "the limiter's own 辅种间隔过于频繁 envelope, wait in the body",
    wait: 60,
    arm: () => {
      service.control.rateLimit = { max: 0, windowSeconds: 60, style: 'envelope', retryAfterIn: 'body' };
    },
  },
];

describe('rate limits', () => {
  it.each(RATE_LIMITS)('$name: says when it retries, sends nothing before, then recovers', async ({ wait, arm }) => {
    await warmUp();
    const [first, second] = hashesWithCandidates(service);
    arm();
    const before = service.requests.length;
    const limited = await visit([first!]);
    tried();
    expect(limited.status).toBe('error');
    expect(limited.error?.kind).toBe('rate-limited');
    expect(service.requests.length).toBe(before + 1); // a rate limit is not retried
    expect(limited.retryAt).toBe(limited.error?.retryAt);
    expect(Math.abs(limited.retryAt! - (clock.now() + wait * 1000))).toBeLessThan(1500);
    service.control.reset(); // the service would answer now: only our own gate holds calls back
    service.control.clockSkewSeconds = (clock.now() - Date.now()) / 1000;

    clock.advance(limited.retryAt! - clock.now() - 1000);
    const blocked = [await visit([second!]), await app.pages.refresh(limited.tabId)];
    const restarted = makeApp(clock);
    blocked.push(await restarted.pages.onPageReading(999, `${HDSKY}999`, readingOf([second!])));
    for (const view of blocked) {
      expect(view.status).toBe('error');
      expect(view.error?.kind).toBe('rate-limited');
      expect(view.retryAt).toBe(limited.retryAt);
    }
    expect((await app.account.testConnection({})).error?.kind).toBe('rate-limited');
    expect((await app.account.recommended(true)).error?.kind).toBe('rate-limited');
    expect((await app.account.profile()).error?.kind).toBe('rate-limited');
    expect(service.requests).toHaveLength(0);

    clock.advance(1500);
    const recovered = await app.pages.refresh(limited.tabId);
    expect(recovered.status).toBe('done');
    expect(candidateKeys(recovered)).toEqual(expectedCandidates(service, first!));
    expect(recovered.retryAt).toBeUndefined();
  });
});

describe('older answers stay in view', () => {
  const FAILURES: { name: string; kind: string; arm(): void }[] = [
    { name: 'a rate limit', kind: 'rate-limited', arm: () => service.control.forceStatus(429, 1) },
    { name: 'a failing server', kind: 'server', arm: () => service.control.forceStatus(502, 3, { body: 'html' }) },
    { name: 'an HTML page', kind: 'bad-answer', arm: () => service.control.badBody('html', 1, LOOKUP_PATH) },
    { name: 'a refused token', kind: 'auth', arm: () => service.control.rawAnswer({ body: JSON.stringify({ code: 401, msg: 'token无效', data: [] }) }) },
  ];
  it.each(FAILURES)('after $name the last saved candidates are still shown, with their age', async ({ kind, arm }) => {
    const { hash } = hashOn(service, 'hdsky');
    const first = await visit([hash]);
    expect(first.candidates.length).toBeGreaterThan(0);
    clock.advance(FRESH_FOR_MS + 60_000);
    arm();
    const failed = await app.pages.refresh(first.tabId);
    tried();
    expectSafeView(failed, rules(), [token]);
    expect(failed.status).toBe('error');
    expect(failed.error?.kind).toBe(kind);
    expect(candidateKeys(failed)).toEqual(candidateKeys(first));
    expect(failed.fetchedAt).toBe(first.fetchedAt);
  });
});

describe('clock skew', () => {
  it.each([7200, -7200])('a service clock %i s off: the lookup succeeds, the user is told by how much, and later calls are corrected', async (skew) => {
    service.control.clockSkewSeconds = skew;
    const [first, second] = hashesWithCandidates(service);
    const view = await visit([first!]);
    tried();
    expect(view.status).toBe('done');
    expect(Math.abs(view.clockSkewSeconds! - skew)).toBeLessThanOrEqual(2);
    expect(candidateKeys(view)).toEqual(expectedCandidates(service, first!));
    expect(lookups()).toBe(2); // refused once, then answered with the corrected timestamp

    // The next call, also after a restart of the background, carries the corrected timestamp at once.
    await makeApp(clock).pages.onPageReading(500, `${HDSKY}500`, readingOf([second!]));
    expect(lookups()).toBe(3);
    const sent = Number(new URLSearchParams(requestsTo(service, LOOKUP_PATH).at(-1)!.body).get('timestamp'));
    expect(Math.abs(sent - service.control.now() / 1000)).toBeLessThan(5);
  });

  it('says the clock is off (without a figure) when the refusal carries no usable Date', async () => {
    await warmUp();
    const [hash] = hashesWithCandidates(service);
    service.control.rawAnswer({ headers: { Date: 'yesterday-ish' }, body: JSON.stringify({ code: 400, msg: '时间戳已过期', data: [] }) }, 1, LOOKUP_PATH);
    const view = await visit([hash!]);
    tried();
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe('expired-timestamp');
    expect(view.error?.clockOffsetSeconds).toBeUndefined();
    expect(lookups()).toBe(2); // no offset to correct by: not retried
  });

  it('shows by how much when even the corrected call is refused', async () => {
    await warmUp();
    const [hash] = hashesWithCandidates(service);
    const ahead = () => ({ Date: new Date(Date.now() + 3600_000).toUTCString() });
    const refusal = JSON.stringify({ code: 400, msg: '时间戳已过期', data: [] });
    service.control.rawAnswer({ headers: ahead(), body: refusal }, 2, LOOKUP_PATH);
    const view = await visit([hash!]);
    tried(2);
    expect(view.error?.kind).toBe('expired-timestamp');
    expect(Math.abs(view.error!.clockOffsetSeconds! - 3600)).toBeLessThanOrEqual(2);
    expect(lookups()).toBe(3); // warm-up, refused, refused after the correction: then it stops
  });
});

/** The paths a lookup touches, and which bad-body modes find nothing to spoil there (the answer stays valid). */
const LOOKUP_STEPS: { path: string; untouched: readonly string[] }[] = [
  { path: SITES_PATH, untouched: ['bad-hash'] }, // the site list holds no hashes
  { path: REPORT_PATH, untouched: ['string-id'] }, // {sid_sha1} holds no ids
  { path: LOOKUP_PATH, untouched: [] },
];

describe('bad answers', () => {
  const cases = LOOKUP_STEPS.flatMap(({ path, untouched }) => BAD_BODY_MODES.filter((mode) => !untouched.includes(mode)).map((mode) => ({ mode, path })));

  it.each(cases)('$mode from $path is refused as a bad answer, nothing of it is kept, and the next visit recovers', async ({ mode, path }) => {
    const { hash } = hashOn(service, 'hdsky');
    // The page's view and the site report may each ask for the site list: both get the bad answer.
    service.control.badBody(mode, 2, path);
    const view = await visit([hash]);
    tried();
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe('bad-answer');
    expect(view.candidates).toEqual([]);
    // A bad answer is not asked again in a loop.
    expect(requestsTo(service, path).length).toBeLessThanOrEqual(path === SITES_PATH ? 2 : 1);
    service.control.clearOverrides();

    const next = await visit([hash]);
    expect(next.status).toBe('done');
    expect(candidateKeys(next)).toEqual(expectedCandidates(service, hash));
  });

  const VIEW_CALLS: { path: string; untouched: readonly string[]; call: () => Promise<{ error?: { kind: string } }> }[] = [
    { path: '/reseed/sites/recommend', untouched: ['bad-hash'], call: () => app.account.testConnection({}) },
    { path: '/reseed/sites/recommend', untouched: ['bad-hash'], call: () => app.account.recommended(true) },
    // Wrong types in the profile's optional fields leave it valid: each field takes its default.
    { path: '/reseed/users/profile', untouched: ['bad-hash', 'string-id', 'wrong-types'], call: () => app.account.profile() },
  ];
  const viewCases = VIEW_CALLS.flatMap(({ path, untouched, call }, index) =>
    BAD_BODY_MODES.filter((mode) => !untouched.includes(mode)).map((mode) => ({ mode, path, call, index })),
  );
  it.each(viewCases)('$mode from $path (call $index) reaches the options page and popup as a bad answer', async ({ mode, path, call }) => {
    service.control.badBody(mode, 1, path);
    const answer = await call();
    tried();
    expect(answer.error?.kind).toBe('bad-answer');
    expect(JSON.stringify(answer)).not.toContain(token);
    expect(JSON.stringify(answer)).not.toContain('Just a moment');
  });

  it.each(ODD_BODY_MODES.filter((mode) => mode !== 'markup'))('%s in a lookup answer is taken in its stride, and invents nothing', async (mode) => {
    const hashes = hashesWithCandidates(service).slice(0, 5);
    service.control.badBody(mode, 1, LOOKUP_PATH);
    const view = await visit(hashes);
    tried();
    expect(view.status).toBe('done');
    expect(candidateKeys(view)).toEqual(hashes.flatMap((hash) => expectedCandidates(service, hash)).sort());
    expect(JSON.stringify(view)).not.toContain(INVENTED_HASH);
  });

  it('a lookup answer whose entry for one hash is wholly broken shows the other hashes, and asks for that one again', async () => {
    await warmUp();
    const [broken, good] = hashesWithCandidates(service).slice(0, 2) as [string, string];
    const entry = (hash: string) => {
      const member = service.index.memberByHash.get(hash)!;
      const others = service.index.groups[member.group]!.filter((other) => other !== member);
      return { torrent: others.map(({ sid, torrent_id, info_hash }) => ({ sid, torrent_id, info_hash })) };
    };
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { [broken]: { torrent: [{ sid: 'x' }] }, [good]: entry(good) } }) }, 1, LOOKUP_PATH);
    const view = await visit([broken, good]);
    tried();
    expect(view.status).toBe('done');
    expect(candidateKeys(view)).toEqual(expectedCandidates(service, good));
    const before = lookups();
    const next = await visit([broken, good]);
    expect(lookups()).toBe(before + 1);
    expect(candidateKeys(next)).toEqual([...expectedCandidates(service, broken), ...expectedCandidates(service, good)].sort());
  });

  it('a site list whose every entry carries markup in its host is refused whole, with a clear kind', async () => {
    // Every site list this test's visit could ask for: a late request of the previous test's app (a
    // loaded machine ran it into this test) took a single bad answer, and this visit got a good one.
    service.control.badBody('markup', 10, SITES_PATH);
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried();
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe('bad-answer');
  });

  it('links from a hostile site list stay on listed or catalogued hosts, built from templates and numeric ids only', async () => {
    const hostile = [
      'javascript:alert(1)//{}',
      '//evil.example/{}',
      'https://evil.example/{}',
      'details.php?id={}&passkey={passkey}',
      'details.php?id={}"><img src=x onerror=alert(1)>',
      '\\\\evil.example\\{}',
      'details.php?id={} ',
      '/t/{id}/',
      '',
      'x.php?id={}#<script>',
    ];
    const sites = service.data.sites.map((site, index) => ({
      ...site,
      details_page: hostile[index % hostile.length],
      base_url: index % 7 === 3 ? `${site.base_url}:8443` : index % 7 === 5 ? `user@${site.base_url}` : site.base_url,
      is_https: index % 4 === 1 ? 'javascript' : site.is_https,
    }));
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { sites } }) }, 1, SITES_PATH);
    const hashes = hashesWithCandidates(service).slice(0, 60);
    const view = await visit(hashes);
    tried(sites.length);
    expect(view.status).toBe('done');
    expect(view.candidates.length).toBeGreaterThan(60);
    const checked = linkRules(sites);
    expectSafeView(view, checked, [token]);
    const links = view.candidates.flatMap((candidate) => (candidate.detailsUrl ? [candidate.detailsUrl] : []));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link).not.toMatch(/evil|passkey|javascript|[<>"']|:8443|@/i);
  });
});

describe('accounts and site reports', () => {
  const useToken = async (next: string) => {
    token = next;
    await storeSettings({ baseUrl: service.url, token });
    app = makeApp(clock);
  };

  it.each([
    ['an unknown token', 'not-a-registered-token', 'auth'],
    ['an expired token', DEMO_EXPIRED_TOKEN, 'auth'],
    ['a token not bound to a site yet', DEMO_UNBOUND_TOKEN, 'not-bound'],
  ])('%s is named as such, and not retried', async (_name, next, kind) => {
    await useToken(next);
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried();
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe(kind);
    expect(lookups()).toBeLessThanOrEqual(1);
    expect(service.requests.length).toBeLessThanOrEqual(3);
  });

  it('a forgotten site hash is reported again once and the lookup goes through', async () => {
    await warmUp();
    service.control.forgetSiteHashes();
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried();
    expect(view.status).toBe('done');
    expect(requestsTo(service, REPORT_PATH)).toHaveLength(2);
    expect(lookups()).toBe(3);
  });

  it('a site hash the service keeps refusing ends as stale-site-hash after one new report', async () => {
    await warmUp();
    service.control.rawAnswer({ body: JSON.stringify({ code: 400, msg: '站点缓存哈希值无效', data: [] }) }, 5, LOOKUP_PATH);
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried(2);
    expect(view.error?.kind).toBe('stale-site-hash');
    expect(requestsTo(service, REPORT_PATH)).toHaveLength(2);
    expect(lookups()).toBe(3);
  });
});

describe('network', () => {
  it('an answer slower than the timeout is aborted and retried with backoff, then named a timeout', async () => {
    await warmUp();
    // Longer than the test may take: had the tries waited the answer out, the test would time out.
    service.control.delayMs = 120_000;
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried(3);
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe('timeout');
    expect(lookups()).toBe(4); // warm-up + three tries
  });

  it('a slow answer within the timeout is simply waited for', async () => {
    service.control.delayMs = 150;
    const view = await visit([hashOn(service, 'hdsky').hash]);
    expect(view.status).toBe('done');
  });

  it('a server failing once is retried; failing on and on is named a server error, after waits that grow', async () => {
    app = makeApp(clock, { retryDelaysMs: [100, 300] });
    await warmUp();
    service.control.forceStatus(502, 1, { body: 'html' });
    expect((await visit([hashOn(service, 'hdsky').hash])).status).toBe('done');
    service.control.forceStatus(503, 5, { body: 'empty', path: LOOKUP_PATH });
    const reportsBefore = requestsTo(service, REPORT_PATH).length;
    const view = await visit([hashOn(service, 'hdsky', 1).hash]);
    tried(4);
    expect(view.error?.kind).toBe('server');
    expect(lookups()).toBe(1 + 2 + 3);
    // Each retry after a server failure reports the sites again first: the server may have lost them.
    expect(requestsTo(service, REPORT_PATH).length - reportsBefore).toBe(2);
    const [first, second, third] = requestsTo(service, LOOKUP_PATH).slice(-3).map((request) => request.time);
    expect(second! - first!).toBeGreaterThanOrEqual(100);
    expect(third! - second!).toBeGreaterThanOrEqual(300);
  });

  it('binding an account (not safe to repeat) is never retried, however it fails', async () => {
    await useUnbound();
    const account = { sid: 9, site: 'ourbits', userId: '38211', passkey: 'whatever' };
    service.control.delayMs = 1500;
    expect((await app.account.bind(account)).error?.kind).toBe('timeout');
    service.control.delayMs = 0;
    service.control.forceStatus(502, 1);
    expect((await app.account.bind(account)).error?.kind).toBe('server');
    tried(2);
    expect(requestsTo(service, '/reseed/users/bind')).toHaveLength(2);
  });

  it('a service nobody answers for is named a network failure, and shows no stale error text', async () => {
    const gone = await startReferenceService();
    const url = gone.url;
    await gone.close();
    await storeSettings({ baseUrl: url, token });
    app = makeApp(clock);
    const view = await visit([hashOn(service, 'hdsky').hash]);
    tried(3);
    expect(view.status).toBe('error');
    expect(view.error?.kind).toBe('network');
    expect((await app.account.testConnection({})).error?.kind).toBe('network');
  });

  async function useUnbound(): Promise<void> {
    token = DEMO_UNBOUND_TOKEN;
    await storeSettings({ baseUrl: service.url, token });
    app = makeApp(clock);
  }
});

describe('settings never lost', () => {
  it('a corrupt field falls back alone, is named, and lookups go on with the rest', async () => {
    await fakeBrowser.storage.local.set({
      settings: { version: 1, baseUrl: service.url, token, heldSites: 'all of them', siteOverrides: { seven: { host: 'x' } }, panelEnabled: 'yes', customHosts: [42] },
    });
    app = makeApp(clock);
    tried(4);
    const settings = await app.preferences.settingsView();
    expect(settings.resetFields.sort()).toEqual(['heldSites', 'panelEnabled']);
    // A list (or the overrides) loses only its bad entry.
    expect(settings.repairedFields?.sort()).toEqual(['customHosts', 'siteOverrides']);
    expect(settings.settings.token).toBe(token);
    expect(settings.settings.heldSites).toBeNull();
    expect((await visit([hashOn(service, 'hdsky').hash])).status).toBe('done');
  });

  it('an import with foreign values takes the good fields and names the others', async () => {
    const document = { app: 'reseed-lens', panelEnabled: false, heldSites: [-1], baseUrl: 'javascript:alert(1)', customHosts: ['ok.example.org'] };
    const preview = await app.preferences.importSettings(document);
    expect(preview.preview?.changes.map((change) => change.field).sort()).toEqual(['customHosts', 'panelEnabled']);
    const result = await app.preferences.importSettings(document, { keepCredentials: false });
    tried(2);
    expect(result.imported.sort()).toEqual(['customHosts', 'panelEnabled']);
    expect(result.skipped.sort()).toEqual(['baseUrl', 'heldSites']);
    expect(result.view?.settings.baseUrl).toBe(service.url);
    expect(result.view?.settings.token).toBe(token);
  });
});

describe('only hashes and the site list leave the browser', () => {
  it('every request body holds hashes, site ids, timestamp, version and checksums, nothing of the page', async () => {
    const { hash, torrentId } = hashOn(service, 'hdsky');
    await visit([hash], `${HDSKY}${torrentId}&secret-page-part`);
    await app.pages.refresh(nextTab - 1);
    await app.account.testConnection({});
    expect(service.requests.length).toBeGreaterThanOrEqual(4);
    for (const request of service.requests) {
      const text = `${request.url} ${request.body}`;
      expect(text).not.toMatch(/hdsky|secret-page-part|details\.php/);
      expect(request.headers.cookie).toBeUndefined();
      expect(request.headers.referer).toBeUndefined();
      const fields = [...new URLSearchParams(request.body).keys()];
      if (request.path === LOOKUP_PATH) expect(fields.sort()).toEqual(['hash', 'sha1', 'sid_sha1', 'timestamp', 'version']);
      else if (request.path === REPORT_PATH) expect(fields.every((field) => /^sid_list\[\d+\]$/.test(field))).toBe(true);
      else expect(request.body).toBe('');
      expect(request.headers.token).toBe(token);
    }
  });
});
