/**
 * A site answering 429 with Retry-After (real qBittorrent, test trackers): the job asks that site
 * nothing before Retry-After has passed (read from the tracker's own log), then goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent } from '../../../clients/daemons';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { inTakeOrder, LIVE, setUpJob, type JobSetup } from './job-setup';

const PAIRS = 2;
const RETRY_AFTER_SECONDS = 3;
let s: JobSetup;

beforeAll(async () => {
  s = await setUpJob(() => startQbittorrent(), { pairs: PAIRS });
}, 180_000);

afterAll(() => s?.close(), 30_000);

describe('a 429 with Retry-After during the job', () => {
  it('waits at least Retry-After before the site\'s next request, then goes on', LIVE, async () => {
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
    s.cs.candidate.retryAfter = String(RETRY_AFTER_SECONDS);
    s.cs.candidate.nextAnswers.push('http-429');
    const before = s.downloads().length;
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    const job: JobView = await s.finished();

    expect(job.state).toBe('done');
    const ids = s.cs.pairs.map((pair) => pair.candidateId);
    expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
    const made = s.downloads().slice(before);
    // The first answered 429 and was asked again, after Retry-After.
    expect(made.map((download) => [download.id, download.served])).toEqual([[ids[0], false], [ids[0], true], [ids[1], true], [s.cs.differentFiles.id, true]]);
    expect(made[1]!.at - made[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS * 1000 - 5);
    // The page was told when the site would be asked again.
    expect(s.heard.some((view) => view.sites.some((site) => site.sid === CANDIDATE_SITE.sid && site.nextAt !== undefined))).toBe(true);
    for (const pair of s.cs.pairs) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
  });
});
