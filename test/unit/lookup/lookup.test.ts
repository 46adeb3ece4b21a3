/**
 * The lookup layer against the real reference service over HTTP: how many requests go out, and
 * what happens on each kind of trouble.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { Lookup, type LookupEnvironment } from '../../../utils/lookup/lookup';
import { SERVICE_CLIENT_VERSION, getSites } from '../../../utils/iyuu/operations';
import { ServiceError } from '../../../utils/iyuu/service-errors';
import { DEFAULT_SETTINGS, type Settings } from '../../../utils/settings';
import { DEMO_APP_ID, DEMO_SECRET, DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { grantOrigin } from '../support/permissions';
import { SERVER_FAILURE_BODY_MODES } from '../../service/bad-bodies';

let service: ReferenceService;
let settings: Settings;
let allSids: number[];

beforeAll(async () => {
  service = await startReferenceService();
  allSids = (await getSites({ baseUrl: service.url, token: DEMO_TOKEN, version: '1.2.3' })).sites.map((site) => site.id);
});
afterAll(() => service.close());
beforeEach(() => {
  fakeBrowser.reset();
  service.control.reset();
  settings = { ...DEFAULT_SETTINGS, baseUrl: service.url, token: DEMO_TOKEN };
  // The user saved this (loopback) address in the options page, which granted its origin.
  grantOrigin(service.url);
});

function makeLookup(extra: Partial<LookupEnvironment> = {}): Lookup {
  return new Lookup({
    settings: async () => settings,
    sitesToReport: async () => allSids,
    version: '1.2.3',
    retryDelaysMs: [10, 20],
    ...extra,
  });
}

const lookups = () => service.requests.filter((request) => request.path === '/reseed/index/index');
const reports = () => service.requests.filter((request) => request.path === '/reseed/sites/reportExisting');
const knownHashes = () => service.data.torrents.flatMap((group) => group.members.map((member) => member.info_hash));
const randomHash = (seed: number) => seed.toString(16).padStart(8, '0').repeat(5);

describe('Lookup', () => {
  it('answers a page with one request cold and none warm', async () => {
    const lookup = makeLookup();
    const hashes = knownHashes().slice(0, 3);
    const cold = await lookup.answers(hashes);
    expect(lookups()).toHaveLength(1);
    expect(reports()).toHaveLength(1);
    expect(cold.fromCache).toBe(false);
    expect([...cold.answers.keys()].sort()).toEqual([...hashes].sort());
    expect(cold.answers.get(hashes[0]!)!.candidates.length).toBeGreaterThan(0);

    const warm = await lookup.answers(hashes);
    expect(lookups()).toHaveLength(1);
    expect(warm.fromCache).toBe(true);
    expect(warm.requests).toBe(0);
    expect(warm.answers.get(hashes[0]!)).toEqual(cold.answers.get(hashes[0]!));
  });

  it('keeps answers across a restart of the background (storage, not memory)', async () => {
    const hashes = knownHashes().slice(0, 2);
    await makeLookup().answers(hashes);
    const afterRestart = await makeLookup().answers(hashes);
    expect(afterRestart.fromCache).toBe(true);
    expect(lookups()).toHaveLength(1);
  });

  it('asks again on purpose when forced (refresh)', async () => {
    const lookup = makeLookup();
    const hashes = knownHashes().slice(0, 1);
    await lookup.answers(hashes);
    await lookup.answers(hashes, { force: true });
    expect(lookups()).toHaveLength(2);
    expect(reports()).toHaveLength(1); // the site report is reused
  });

  it('sends the same hash asked by several tabs at once only once', async () => {
    const lookup = makeLookup();
    const hashes = knownHashes().slice(0, 4);
    service.control.delayMs = 100;
    const [a, b, c] = await Promise.all([lookup.answers(hashes), lookup.answers(hashes.slice(0, 2)), lookup.answers(hashes.slice(2))]);
    expect(lookups()).toHaveLength(1);
    expect(b.answers.get(hashes[0]!)).toEqual(a.answers.get(hashes[0]!));
    expect(c.answers.get(hashes[3]!)).toEqual(a.answers.get(hashes[3]!));
  });

  it('with cache: false answers without storing (the client index keeps its own copy); a page asking the same hash meanwhile still gets it cached', async () => {
    const lookup = makeLookup();
    const [indexOnly, shared] = knownHashes();
    service.control.delayMs = 100;
    const index = lookup.answers([indexOnly!, shared!], { cache: false });
    const page = lookup.answers([shared!]);
    const [fromIndex, fromPage] = await Promise.all([index, page]);
    expect(lookups()).toHaveLength(1);
    expect(fromIndex.answers.get(indexOnly!)!.candidates.length).toBeGreaterThan(0);
    expect(fromPage.answers.get(shared!)).toEqual(fromIndex.answers.get(shared!));
    const stored = await lookup.cache.get([indexOnly!, shared!]);
    expect([...stored.keys()]).toEqual([shared]);
    // Not cached: asked again next time.
    await lookup.answers([indexOnly!], { cache: false });
    expect(lookups()).toHaveLength(2);
  });

  it('batches many hashes at 200 per request, and answers hashes without candidates with none', async () => {
    const lookup = makeLookup();
    const hashes = [...knownHashes().slice(0, 5), ...Array.from({ length: 445 }, (_, i) => randomHash(i + 1))];
    const outcome = await lookup.answers(hashes);
    expect(lookups()).toHaveLength(3);
    for (const request of lookups()) {
      const sent = JSON.parse(new URLSearchParams(request.body).get('hash')!) as string[];
      expect(sent.length).toBeLessThanOrEqual(200);
    }
    expect(outcome.answers.size).toBe(450);
    expect(outcome.answers.get(randomHash(7))!.candidates).toEqual([]);
  });

  it('lets pages that ask at the same moment share requests of 200 and one site report', async () => {
    const lookup = makeLookup({ batchWindowMs: 20 });
    const hashes = Array.from({ length: 1000 }, (_, i) => randomHash(i + 1));
    const pages = Array.from({ length: 10 }, (_, page) => hashes.slice(page * 100, (page + 1) * 100));
    const outcomes = await Promise.all(pages.map((page) => lookup.answers(page)));
    expect(reports()).toHaveLength(1);
    expect(lookups()).toHaveLength(5);
    expect(outcomes.every((outcome, page) => outcome.answers.size === 100 && outcome.answers.has(pages[page]![0]!))).toBe(true);
  });

  it('paces its calls: a minimum gap, and no more per minute than allowed', async () => {
    const lookup = makeLookup({ minIntervalMs: 120, maxCallsPerMinute: 1000 });
    const started = Date.now();
    for (let i = 0; i < 3; i++) await lookup.answers([randomHash(100 + i)]);
    // report + 3 lookups: three gaps of at least 120 ms between four calls.
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(service.requests).toHaveLength(4);
    // Each gap, at the moments the lookup let a call go: when the requests arrive, a loaded machine
    // can have held one back and let the next through at once, so arrival times prove nothing.
    const sent = (lookup as unknown as { recentCalls: number[] }).recentCalls;
    expect(sent).toHaveLength(4);
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(120);
  });

  it('reports the sites again and retries once when the service forgot the site hash', async () => {
    const lookup = makeLookup();
    await lookup.answers(knownHashes().slice(0, 1));
    service.control.forgetSiteHashes();
    const outcome = await lookup.answers(knownHashes().slice(1, 2));
    expect(reports()).toHaveLength(2);
    expect(lookups()).toHaveLength(3); // refused once, then answered
    expect(outcome.answers.get(knownHashes()[1]!)!.candidates.length).toBeGreaterThan(0);
  });

  it('after a 429 sends nothing until Retry-After has passed, and says when', async () => {
    let now = Date.now();
    const lookup = makeLookup({ now: () => now });
    await lookup.answers(knownHashes().slice(0, 1)); // the site report is in place
    service.control.forceStatus(429, 1, { headers: { 'Retry-After': '45' } });
    const error = await lookup.answers(knownHashes().slice(1, 2)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).kind).toBe('rate-limited');
    expect((error as ServiceError).retryAt).toBe(now + 45_000);
    const sentBefore = service.requests.length;

    now += 30_000;
    const blocked = await lookup.answers(knownHashes().slice(1, 2)).catch((caught: unknown) => caught);
    expect((blocked as ServiceError).kind).toBe('rate-limited');
    expect(service.requests.length).toBe(sentBefore); // nothing went out

    // A new background instance (worker restart) honours the same wait.
    const restarted = makeLookup({ now: () => now });
    await expect(restarted.answers(knownHashes().slice(1, 2))).rejects.toMatchObject({ kind: 'rate-limited' });
    expect(service.requests.length).toBe(sentBefore);

    now += 16_000;
    const after = await lookup.answers(knownHashes().slice(1, 2));
    expect(after.answers.size).toBe(1);
    expect(service.requests.length).toBeGreaterThan(sentBefore);
  });

  it('corrects for a skewed clock from the Date header and says by how much', async () => {
    service.control.clockSkewSeconds = 3600;
    const lookup = makeLookup();
    const outcome = await lookup.answers(knownHashes().slice(0, 1));
    expect(outcome.clockSkewSeconds).toBeGreaterThan(3590);
    expect(outcome.clockSkewSeconds).toBeLessThan(3610);
    expect(outcome.answers.get(knownHashes()[0]!)!.candidates.length).toBeGreaterThan(0);
    const refused = lookups().length;
    // The next call carries the corrected timestamp from the start: no refusal.
    await lookup.answers(knownHashes().slice(1, 2));
    expect(lookups().length).toBe(refused + 1);
    const sent = Number(new URLSearchParams(lookups().at(-1)!.body).get('timestamp'));
    expect(Math.abs(sent - service.control.now() / 1000)).toBeLessThan(10);
  });

  it('retries a failing server with backoff, then gives up with the error kind', async () => {
    const lookup = makeLookup();
    await lookup.answers(knownHashes().slice(0, 1));
    service.control.forceStatus(502, 1);
    const recovered = await lookup.answers(knownHashes().slice(1, 2));
    expect(recovered.answers.size).toBe(1);
    service.control.forceStatus(500, 5);
    await expect(lookup.answers(knownHashes().slice(2, 3))).rejects.toMatchObject({ kind: 'server' });
  });

  it.each(SERVER_FAILURE_BODY_MODES)('takes a %s answer as transient: retries, reporting the sites again first, and answers', async (mode) => {
    const lookup = makeLookup();
    await lookup.answers(knownHashes().slice(0, 1)); // the site report is in place
    service.control.badBody(mode, 1, '/reseed/index/index');
    const [hash] = knownHashes().slice(1, 2);
    const outcome = await lookup.answers([hash!]);
    expect(outcome.answers.get(hash!)!.candidates.length).toBeGreaterThan(0);
    expect(lookups()).toHaveLength(3); // warm-up, the failure, the retry
    expect(reports()).toHaveLength(2); // the first, and again before the retry
    expect(reports()[1]!.time).toBeLessThan(lookups()[2]!.time);
    expect(outcome.requests).toBe(2);
  });

  it("does not report the sites again after a failure that is not the server's (the network)", async () => {
    let failNext = false;
    const flaky: typeof fetch = async (input, init) => {
      if (failNext && String(input).endsWith('/reseed/index/index')) {
        failNext = false;
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const lookup = makeLookup({ fetch: flaky });
    await lookup.answers(knownHashes().slice(0, 1));
    failNext = true;
    const outcome = await lookup.answers(knownHashes().slice(1, 2));
    expect(outcome.answers.get(knownHashes()[1]!)!.candidates.length).toBeGreaterThan(0);
    expect(outcome.requests).toBe(2);
    expect(reports()).toHaveLength(1);
  });

  it('fails a hash whose entry was wholly broken alone, and does not cache it as "none"', async () => {
    const lookup = makeLookup();
    const [broken, good] = knownHashes().slice(0, 2) as [string, string];
    await lookup.answers([knownHashes()[5]!]); // the site report is in place
    const candidate = { sid: 1, torrent_id: 5, info_hash: 'ab'.repeat(20) };
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { [broken]: { torrent: [{ sid: 'x' }] }, [good]: { torrent: [candidate] } } }) }, 1, '/reseed/index/index');
    const [first, second] = await Promise.allSettled([lookup.answers([broken]), lookup.answers([good])]);
    expect(first.status).toBe('rejected');
    expect((first as PromiseRejectedResult).reason).toMatchObject({ kind: 'bad-answer' });
    expect(second.status).toBe('fulfilled');
    expect((second as PromiseFulfilledResult<Awaited<ReturnType<Lookup['answers']>>>).value.answers.get(good)!.candidates).toEqual([candidate]);
    // On one page, the broken hash is skipped alone: the others are shown.
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { [broken]: { torrent: 'junk' }, [good]: { torrent: [candidate] } } }) }, 1, '/reseed/index/index');
    const page = await lookup.answers([broken, good], { force: true });
    expect(page.answers.get(good)!.candidates).toEqual([candidate]);
    expect(page.answers.has(broken)).toBe(false);
    expect(page.unanswered).toEqual([broken]);
    // Asked again next time, and answered by the service as it is.
    const again = await lookup.answers([broken]);
    expect(again.fromCache).toBe(false);
    expect(again.answers.get(broken)!.candidates.length).toBeGreaterThan(0);
  });

  it(`sends ${SERVICE_CLIENT_VERSION} as version when nothing else is set`, async () => {
    const lookup = new Lookup({ settings: async () => settings, sitesToReport: async () => allSids, retryDelaysMs: [] });
    await lookup.answers(knownHashes().slice(0, 1));
    expect(new URLSearchParams(lookups()[0]!.body).get('version')).toBe(SERVICE_CLIENT_VERSION);
  });

  it('fails with a network error when the service is unreachable', async () => {
    const closed = await startReferenceService();
    const url = closed.url;
    await closed.close();
    settings = { ...settings, baseUrl: url };
    grantOrigin(url);
    await expect(makeLookup().answers(knownHashes().slice(0, 1))).rejects.toMatchObject({ kind: 'network' });
  });

  it('sends nothing to a service address that is neither an IYUU host nor granted, whatever the call', async () => {
    // Not loopback (which the manifest holds for the user's own torrent clients): an address elsewhere.
    const sent: string[] = [];
    const recording: typeof fetch = async (input) => {
      sent.push(String(input));
      return new Response('{"code":0,"msg":"ok","data":{"sites":[]}}', { headers: { 'Content-Type': 'application/json' } });
    };
    settings = { ...settings, baseUrl: 'https://lookup.example.net' };
    const lookup = makeLookup({ fetch: recording });
    await expect(lookup.answers(knownHashes().slice(0, 1))).rejects.toMatchObject({ kind: 'not-permitted' });
    await expect(lookup.call((config) => getSites(config), settings)).rejects.toMatchObject({ kind: 'not-permitted' });
    expect(sent).toEqual([]);
    // Granted (the user saved it in the options page): the same call goes out.
    grantOrigin('https://lookup.example.net');
    await lookup.call((config) => getSites(config), settings).catch(() => undefined);
    expect(sent).toEqual(['https://lookup.example.net/reseed/sites/index']);
  });


  it('refuses to look up without credentials', async () => {
    settings = { ...DEFAULT_SETTINGS, baseUrl: service.url };
    await expect(makeLookup().answers(knownHashes().slice(0, 1))).rejects.toMatchObject({ kind: 'no-credentials' });
    expect(service.requests).toHaveLength(0);
  });

  it('uses the signed single lookup, one hash per call, when only App ID and Secret are set', async () => {
    settings = { ...DEFAULT_SETTINGS, baseUrl: service.url, appId: DEMO_APP_ID, secret: DEMO_SECRET };
    const hashes = knownHashes().slice(0, 2);
    const outcome = await makeLookup().answers(hashes);
    const signed = service.requests.filter((request) => request.path === '/spider/reseed/index');
    expect(signed).toHaveLength(2);
    expect(signed.every((request) => request.headers.token === undefined)).toBe(true);
    expect(lookups()).toHaveLength(0);
    expect(outcome.answers.get(hashes[0]!)!.candidates.length).toBeGreaterThan(0);
  });

  it('keeps at least an hour between asking for the same hash', async () => {
    let now = Date.now();
    const lookup = makeLookup({ now: () => now });
    const hashes = knownHashes().slice(0, 1);
    await lookup.answers(hashes);
    now += 60 * 60 * 1000;
    await lookup.answers(hashes);
    expect(lookups()).toHaveLength(1);
  });
});
