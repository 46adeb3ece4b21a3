/**
 * "Cancel" on a running job (real qBittorrent, test trackers): nothing is downloaded after it. The
 * tracker's log is read after a marker request the test makes once the job says it is cancelled and
 * its sites have stopped: every request the job made has reached the tracker before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPreview } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent } from '../../../clients/daemons';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { LIVE, setUpJob, startThenAtFirstOutcome, type JobSetup } from './job-setup';

const PAIRS = 3;
const MARKER = 999_999;
let s: JobSetup;

beforeAll(async () => {
  s = await setUpJob(() => startQbittorrent(), { pairs: PAIRS });
}, 180_000);

afterAll(() => s?.close(), 30_000);

describe('"Cancel" in the background', () => {
  it('downloads nothing after "Cancel"; what was added stays, the rest is not decided', LIVE, async () => {
    // A long pace: after the first add the site waits (Cancel wakes it); no second download can start first.
    const before = s.downloads().length;
    await startThenAtFirstOutcome(s, 60, () => s.command({ type: 'job:cancel' }));
    const job = await s.finished();
    expect(job.state).toBe('cancelled');
    expect(job.outcomes.map((outcome) => [outcome.torrentId, outcome.group])).toEqual([[s.cs.pairs[0]!.candidateId, 'added']]);

    // The marker: the test's own request, after the job said it is cancelled.
    const marker = await s.siteFetch(`http://${s.cs.candidate.host}/download.php?id=${MARKER}`);
    await marker.arrayBuffer();
    expect(s.downloads().slice(before).map((download) => download.id)).toEqual([s.cs.pairs[0]!.candidateId, MARKER]);
    expect((await s.fromPage<{ state: string }>({ type: 'job:status' })).state).toBe('cancelled');

    // The added one stays; the others are left for a next run (not decided).
    expect(await untilSeeding(s.readBack, s.cs.pairs[0]!.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
    await s.app.index.run('sync');
    const preview = await s.fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.sites.find((site) => site.sid === CANDIDATE_SITE.sid)).toMatchObject({ count: PAIRS, decided: 0 });
  });
});
