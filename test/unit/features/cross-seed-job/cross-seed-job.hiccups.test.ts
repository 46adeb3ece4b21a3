/**
 * "Cross-seed your client" rides out a moment's hiccup between the extension and the client instead
 * of pausing the whole job until "Resume": the client (bookworm's qBittorrent 4.5.2, today's Deluge
 * 2.2) is saved behind a real HTTP hop (test/clients/flaky-proxy.ts) that resets one read, answers
 * one with a 502, and loses the answer to the first add after the daemon took it. The job still ends
 * done, each candidate added once (never a second add, nor a second download) and seeding at 100 %
 * beside its source, the other release found to hold other files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBuilds, startClient } from '../../../clients/daemons';
import { CLIENT_ACTIONS, startFlakyProxy, type FlakyProxy } from '../../../clients/flaky-proxy';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { expectEveryPairAdded, LIVE, setUpJob, type JobSetup } from './job-setup';

const PAIRS = 2;
const BUILDS = [...clientBuilds({ kind: 'qbittorrent', generation: 'bookworm' }), ...clientBuilds({ kind: 'deluge', generation: 'current' })].map((build) => [build.label, build] as const);

describe.each(BUILDS)('"Cross-seed your client" through a hop that misbehaves, on %s', (_label, build) => {
  let s: JobSetup;
  let proxy: FlakyProxy | undefined;
  const is = CLIENT_ACTIONS[build.kind as 'qbittorrent' | 'deluge'];

  beforeAll(async () => {
    s = await setUpJob(() => startClient(build), {
      pairs: PAIRS,
      clientAddress: async (daemon) => {
        proxy = await startFlakyProxy(daemon.url);
        return proxy.url;
      },
    });
  }, 180_000);

  afterAll(async () => {
    await s?.close();
    await proxy?.close();
  }, 30_000);

  it('ends done: a reset read and a 502 asked again, an add whose answer was lost found in the client and checked, nothing added or downloaded twice', LIVE, async () => {
    const hop = proxy!;
    hop.seen.length = 0;
    hop.next(is.add, 'answer-lost');
    hop.next(is.read, 'drop');
    hop.next(is.read, 'bad-gateway');
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
    const before = s.downloads().length;
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    await expectEveryPairAdded(s, await s.finished(), before);
    // Each hiccup happened, and each add went out once.
    const fates = hop.seen.map((request) => request.fate).filter((fate) => fate !== 'passed');
    expect(fates.sort()).toEqual(['answer-lost', 'bad-gateway', 'drop']);
    expect(hop.seen.filter(is.add).map((request) => request.fate)).toEqual(['answer-lost', 'passed']);
  });
});
