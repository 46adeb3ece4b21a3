/**
 * askSite against test NexusPHP sites (test/e2e/support/pieces-hash-site.ts) over HTTP on loopback
 * through the e2e router, as in nexus-api.test.ts. Time is a clock of the test's own, shared by the
 * site (its request log and its 60-a-minute limit) and by askSite (its pace and Retry-After waits):
 * a wait moves the clock on at once, so nothing sleeps and no assertion depends on real timing. The
 * pace is read from the site's own log of when each request arrived.
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { askSite, DEFAULT_PIECES_HASH_PACE_MS, type SiteAskEnd, type SiteAskOptions, type SiteBatch } from '../../../utils/pieces-hash/ask-site';
import type { PiecesHashSite, PiecesHashSiteOptions } from '../../e2e/support/pieces-hash-site';
import { usePiecesHashSites } from './support';

const PACE = DEFAULT_PIECES_HASH_PACE_MS;
const hashOf = (text: string) => createHash('sha1').update(text).digest('hex');
const hashes = (count: number, prefix = 'p') => Array.from({ length: count }, (_, index) => hashOf(`${prefix}-${index}`));
const gaps = (times: readonly number[]) => times.slice(1).map((at, index) => at - times[index]!);

describe('askSite: one site, batch after batch, at the pace', () => {
  let clock = 1_700_000_000_000;
  let waits: number[] = [];
  const now = () => clock;
  const wait = async (ms: number) => {
    waits.push(ms);
    clock += ms;
  };
  /** Every end and every batch handed over in this file: no passkey in any, nor in any console line. */
  const sites = usePiecesHashSites({ siteDefaults: () => ({ now }), moreSeenThan: 15 });
  const { seen } = sites;
  const site = (host: string, options: PiecesHashSiteOptions = {}) => sites.site(host, options);
  /** askSite with the test's clock; every batch recorded. */
  const ask = async (target: PiecesHashSite, asked: readonly string[], options: SiteAskOptions = {}, passkey = target.passkey) => {
    const batches: SiteBatch[] = [];
    const end = await askSite(
      { endpoint: target.endpoint, passkey, hashes: asked },
      {
        fetch: sites.fetch,
        now,
        wait,
        ...options,
        onBatch: async (batch) => {
          batches.push(batch);
          seen.push(batch);
          await options.onBatch?.(batch);
        },
      },
    );
    seen.push(end);
    return { end, batches };
  };

  beforeEach(() => {
    waits = [];
  });

  it('250 hashes: 3 requests (100, 100, 50), each at least the pace after the previous answer, the hits handed over batch by batch', async () => {
    const nexus = site('ask-a.test');
    const asked = hashes(250, 'a');
    for (const index of [0, 99, 100, 180, 249]) nexus.list(asked[index]!, 1000 + index);
    const { end, batches } = await ask(nexus, asked);
    expect(end).toEqual({ kind: 'done', requests: 3, asked: 250, found: 5, unanswered: 0, dropped: 0, lastRequestAt: clock, batchSize: 100 });
    expect(nexus.requests.map((request) => [request.status, request.asked])).toEqual([[200, 100], [200, 100], [200, 50]]);
    for (const gap of gaps(nexus.requests.map((request) => request.at))) expect(gap).toBeGreaterThanOrEqual(PACE);
    expect(batches.map((batch) => batch.asked.length)).toEqual([100, 100, 50]);
    expect(batches.flatMap((batch) => batch.asked)).toEqual(asked);
    expect(batches.map((batch) => [...batch.ids])).toEqual([
      [[asked[0]!, 1000], [asked[99]!, 1099]],
      [[asked[100]!, 1100], [asked[180]!, 1180]],
      [[asked[249]!, 1249]],
    ]);
  });

  it('the pace counts from the answer: a site slow to answer is not asked sooner; and across calls through previousRequestAt', async () => {
    const nexus = site('ask-slow.test');
    const slowly: typeof globalThis.fetch = async (input, init) => {
      const response = await sites.fetch(input, init);
      clock += 5_000; // the site took 5 s to answer
      return response;
    };
    const first = await ask(nexus, hashes(150, 'slow'), { fetch: slowly });
    expect(first.end).toMatchObject({ kind: 'done', requests: 2 });
    // arrivals 5 s (the answer) + 2 s (the pace) apart
    expect(gaps(nexus.requests.map((request) => request.at))).toEqual([5_000 + PACE]);
    const answeredAt = first.end.lastRequestAt!;
    clock += 500; // the caller comes back half a second later
    const second = await ask(nexus, hashes(10, 'again'), { previousRequestAt: answeredAt });
    expect(second.end).toMatchObject({ kind: 'done', requests: 1 });
    expect(waits.at(-1)).toBe(PACE - 500);
    expect(nexus.requests.at(-1)!.at - answeredAt).toBe(PACE);
  });

  it('hashes are deduplicated and checked: capitals, short ones and other text are dropped and counted, never sent', async () => {
    const nexus = site('ask-strict.test');
    const good = hashes(3, 'strict');
    const { end, batches } = await ask(nexus, [good[0]!, good[1]!, good[0]!, good[2]!.toUpperCase(), 'abc', good[2]!, `${good[1]!}0`]);
    expect(end).toMatchObject({ kind: 'done', requests: 1, asked: 3, dropped: 3, unanswered: 0 });
    expect(batches[0]!.asked).toEqual([good[0], good[1], good[2]]);
    const none = await ask(nexus, ['nope']);
    expect(none.end).toEqual({ kind: 'done', requests: 0, asked: 0, found: 0, unanswered: 0, dropped: 1, batchSize: 100 });
  });

  it('60 a minute (here 2): the 429 is waited out by its Retry-After, the same batch asked again, every hit found', async () => {
    const nexus = site('ask-busy.test', { perMinute: 2 });
    const asked = hashes(600, 'busy');
    asked.forEach((hash, index) => index % 7 === 0 && nexus.list(hash, index + 1));
    const { end, batches } = await ask(nexus, asked);
    expect(end).toMatchObject({ kind: 'done', asked: 600, found: nexus.torrents.size, unanswered: 0 });
    expect(batches.flatMap((batch) => batch.asked)).toEqual(asked);
    const statuses = nexus.requests.map((request) => request.status);
    expect(statuses).toEqual([200, 200, 429, 200, 200, 429, 200, 200]);
    expect(end.requests).toBe(8);
    // the site said 56 s (its first request of the minute leaves it then); that wait was made in full
    expect(waits.filter((ms) => ms === 56_000)).toHaveLength(2);
    const at = nexus.requests.map((request) => request.at);
    expect(at[3]! - at[2]!).toBe(56_000);
    for (const gap of gaps(at)) expect(gap).toBeGreaterThanOrEqual(PACE);
  });

  it('429 three times in a row, or a Retry-After past 10 minutes: stopped, rate-limited (60 s waited when the site says none)', async () => {
    const frozen = 1_800_000_000_000;
    const stuck = site('ask-stuck.test', { perMinute: 1, now: () => frozen }); // its minute never passes
    const { end } = await ask(stuck, hashes(150, 'stuck'));
    expect(end).toMatchObject({ kind: 'stopped', answer: { kind: 'rate-limited', retryAfterSeconds: 60, inARow: 3 }, requests: 4, asked: 100, unanswered: 50 });
    expect(stuck.requests.map((request) => request.status)).toEqual([200, 429, 429, 429]);

    // A proxy in front of the site that answers 429 without Retry-After, then with 15 minutes.
    const nexus = site('ask-proxy.test');
    const retryAfter: (string | undefined)[] = [undefined, '900'];
    const limited: typeof globalThis.fetch = async (input, init) => {
      if (!retryAfter.length) return sites.fetch(input, init);
      const header = retryAfter.shift();
      return new Response('{}', { status: 429, headers: header ? { 'retry-after': header } : {} });
    };
    waits = [];
    const far = await ask(nexus, hashes(5, 'far'), { fetch: limited });
    expect(far.end).toMatchObject({ kind: 'stopped', answer: { kind: 'rate-limited', retryAfterSeconds: 900, inARow: 2 }, requests: 2, asked: 0 });
    expect(waits).toEqual([60_000]);
  });

  it('a site that takes 40 a request (ret -1 to 100): batches halved until taken, the learned size given back', async () => {
    const nexus = site('ask-small.test', { maxHashes: 40 });
    const asked = hashes(250, 'small');
    asked.forEach((hash, index) => index % 10 === 3 && nexus.list(hash, 5000 + index));
    const { end, batches } = await ask(nexus, asked);
    expect(end).toMatchObject({ kind: 'done', requests: 2 + 10, asked: 250, found: 25, batchSize: 25 });
    expect(nexus.requests.map((request) => request.asked)).toEqual([100, 50, ...Array(10).fill(25)]);
    expect(batches.flatMap((batch) => batch.asked)).toEqual(asked);
    for (const gap of gaps(nexus.requests.map((request) => request.at))) expect(gap).toBeGreaterThanOrEqual(PACE);
    // the next call starts at the learned size
    const next = await ask(nexus, hashes(30, 'small-next'), { batchSize: end.batchSize, previousRequestAt: end.lastRequestAt });
    expect(next.end).toMatchObject({ kind: 'done', requests: 2, batchSize: 25 });
  });

  it('a site that takes none (ret -1 even to 1): stopped, refused, after halving down to 1', async () => {
    const nexus = site('ask-none.test', { maxHashes: 0 });
    const { end } = await ask(nexus, hashes(100, 'none'));
    expect(end).toMatchObject({ kind: 'stopped', answer: { kind: 'refused', ret: -1 }, requests: 7, asked: 0, unanswered: 100 });
    expect(nexus.requests.map((request) => request.asked)).toEqual([100, 50, 25, 12, 6, 3, 1]);
  });

  it('a wrong passkey: one request, then stopped (nothing more to that site)', async () => {
    const nexus = site('ask-401.test');
    const { end, batches } = await ask(nexus, hashes(250, 'wrong'), {}, 'e'.repeat(32));
    expect(end).toMatchObject({ kind: 'stopped', answer: { kind: 'wrong-passkey' }, requests: 1, asked: 0, unanswered: 250 });
    expect(nexus.requests).toHaveLength(1);
    expect(batches).toEqual([]);
  });

  it('no API (404, a home page, a redirect to login.php), a 500, a passkey the API does not take: stopped at once', async () => {
    for (const [withoutApi, why] of [['not-found', 'not-found'], ['home-page', 'not-json'], ['login-redirect', 'redirect']] as const) {
      const old = site(`ask-old-${withoutApi}.test`, { withoutApi });
      const { end } = await ask(old, hashes(150, withoutApi));
      expect(end).toMatchObject({ kind: 'stopped', answer: { kind: 'no-api', why }, requests: 1 });
      expect(sites.router.requestsTo(old.host)).toHaveLength(1);
    }
    const failing = site('ask-500.test');
    failing.failWith = 500;
    expect((await ask(failing, hashes(150, 'fail'))).end).toMatchObject({ kind: 'stopped', answer: { kind: 'site-error', status: 500 }, requests: 1 });
    failing.failWith = undefined;
    failing.rewrite = (answer) => ({ ...answer, ret: 2, msg: `passkey ${failing.passkey} banned` });
    expect((await ask(failing, hashes(150, 'ret2'))).end).toMatchObject({ kind: 'stopped', answer: { kind: 'refused', ret: 2, status: 200 }, requests: 1 });
    const before = failing.requests.length;
    expect((await ask(failing, hashes(3, 'short'), {}, 'short')).end).toMatchObject({ kind: 'stopped', answer: { kind: 'bad-request', why: 'passkey' } });
    expect(failing.requests.length).toBe(before);
  });

  it('unreachable: the same batch twice more, 2 × pace after each failure, then stopped', async () => {
    const end = await askSite({ endpoint: 'http://127.0.0.1:9/api/pieces-hash', passkey: 'a'.repeat(32), hashes: hashes(150, 'down') }, { now, wait });
    seen.push(end);
    expect(end).toMatchObject({ kind: 'stopped', answer: { kind: 'unreachable', why: 'network' }, requests: 3, asked: 0 });
    expect(waits.slice(-2)).toEqual([2 * PACE, 2 * PACE]);
  });

  it('a site that comes back after one failure: the batch is asked again and the asking goes on', async () => {
    const nexus = site('ask-flaky.test');
    let failures = 1;
    const flaky: typeof globalThis.fetch = async (input, init) => {
      if (failures-- > 0) throw new TypeError('fetch failed');
      return sites.fetch(input, init);
    };
    const { end } = await ask(nexus, hashes(150, 'flaky'), { fetch: flaky });
    expect(end).toMatchObject({ kind: 'done', requests: 3, asked: 150 });
    expect(nexus.requests.map((request) => request.asked)).toEqual([100, 50]);
  });

  it('cancelled: between batches (nothing more is sent), and during a wait (ends without waiting it out)', async () => {
    const nexus = site('ask-cancel.test');
    const stop = new AbortController();
    const between = await ask(nexus, hashes(250, 'cancel'), { signal: stop.signal, onBatch: () => stop.abort() });
    expect(between.end).toMatchObject({ kind: 'cancelled', requests: 1, asked: 100, unanswered: 150 });
    expect(nexus.requests).toHaveLength(1);

    // the default wait (a real timer) of an hour's pace, cancelled 20 ms in
    const during = new AbortController();
    setTimeout(() => during.abort(), 20);
    const inWait = await ask(nexus, hashes(250, 'cancel-wait'), { signal: during.signal, wait: undefined, paceMs: 3_600_000 });
    expect(inWait.end).toMatchObject({ kind: 'cancelled', requests: 1, asked: 100 });

    // an injected wait that rejects when the signal aborts
    const rejecting = new AbortController();
    const rejectingWait = (ms: number, signal?: AbortSignal) =>
      new Promise<void>((_, reject) => {
        waits.push(ms);
        rejecting.abort();
        if (signal?.aborted) reject(new Error('aborted'));
      });
    const rejected = await ask(nexus, hashes(250, 'cancel-reject'), { signal: rejecting.signal, wait: rejectingWait });
    expect(rejected.end).toMatchObject({ kind: 'cancelled', requests: 1 });

    const already = new AbortController();
    already.abort();
    const before = nexus.requests.length;
    expect((await ask(nexus, hashes(5, 'never'), { signal: already.signal })).end).toMatchObject({ kind: 'cancelled', requests: 0 });
    expect(nexus.requests.length).toBe(before);
  });

  it('a failing onBatch (the caller could not store) ends the asking with its error', async () => {
    const nexus = site('ask-store.test');
    await expect(ask(nexus, hashes(250, 'store'), { onBatch: () => Promise.reject(new Error('storage full')) })).rejects.toThrow('storage full');
    expect(nexus.requests).toHaveLength(1);
  });

  it('no end of any kind holds the passkey (the sites’ error bodies echo it)', () => {
    const ends = seen.filter((value): value is SiteAskEnd => typeof value === 'object' && value !== null && 'kind' in value);
    expect(new Set(ends.map((end) => end.kind))).toEqual(new Set(['done', 'stopped', 'cancelled']));
    const text = JSON.stringify(seen, (_, value: unknown) => (value instanceof Map ? [...value] : value));
    for (const passkey of sites.passkeys) expect(text).not.toContain(passkey);
  });
});
