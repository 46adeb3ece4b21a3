/**
 * The whole-client job on every client build the test command installs besides bookworm's
 * qBittorrent 4.5.2 (which cross-seed-job.test.ts runs it on): today's qBittorrent 5.1 and 5.3,
 * Transmission 3.00 and 4.1, Deluge 2.0.3 and 2.2, rTorrent 0.9.8 and 0.16, Flood 4.16 over each. The job adds each candidate beside its source,
 * checked to 100 %, and reports the release with other files as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBuilds, startClient } from '../../../clients/daemons';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { expectEveryPairAdded, LIVE, setUpJob, type JobSetup } from './job-setup';

const PAIRS = 2;
const BUILDS = [...clientBuilds({ kind: 'qbittorrent', generation: 'current' }), ...clientBuilds({ kind: 'transmission' }), ...clientBuilds({ kind: 'deluge' }), ...clientBuilds({ kind: 'rtorrent' }), ...clientBuilds({ kind: 'flood' })].map((build) => [build.label, build] as const);

describe.each(BUILDS)('"Cross-seed your client" on %s', (_label, build) => {
  let s: JobSetup;

  beforeAll(async () => {
    s = await setUpJob(() => startClient(build), { pairs: PAIRS });
  }, 180_000);

  afterAll(() => s?.close(), 30_000);

  it('adds the right torrents at the source\'s save path, each checked to 100 %', LIVE, async () => {
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
    const before = s.downloads().length;
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    await expectEveryPairAdded(s, await s.finished(), before);
  });
});
