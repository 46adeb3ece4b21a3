/**
 * The client stops answering mid-job (its daemon stopped: a real Transmission, test trackers): the job
 * pauses by itself with pausedBecause client; "Resume" once the client is back goes on, with no
 * .torrent downloaded twice and every one added beside its source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTransmission, type RunningTransmission } from '../../../clients/daemons';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { hearJob, inTakeOrder, LIVE, setUpJob, type JobSetup } from './job-setup';

const PAIRS = 3;
let s: JobSetup;
let daemon: RunningTransmission;

beforeAll(async () => {
  s = await setUpJob(async () => (daemon = await startTransmission()), { pairs: PAIRS });
}, 180_000);

afterAll(() => s?.close(), 30_000);

describe('the client stops answering during the job', () => {
  it('pauses with pausedBecause client; "Resume" after it is back goes on without a download twice', LIVE, async () => {
    // A long pace: after the first add the site waits; the test stops the daemon, then sets the pace to 0 (which wakes it).
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 600, perDay: 100 });
    const before = s.downloads().length;
    let stopped!: () => void;
    const daemonStopped = new Promise<void>((resolve) => (stopped = resolve));
    let once = false;
    hearJob((view) => {
      if (!once && view.outcomes.length === 1) {
        once = true;
        void daemon.stopDaemon().then(stopped);
      }
    });
    await s.command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
    await daemonStopped;
    await s.fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
    const paused = await s.finished();
    expect(paused.state).toBe('paused');
    expect(paused.pausedBecause).toMatchObject({ kind: 'client' });
    expect(paused.outcomes.map((outcome) => outcome.torrentId)).toEqual([s.cs.pairs[0]!.candidateId]);

    await daemon.startDaemon();
    // Back: answering, and its torrents loaded and seeding again (Transmission answers RPC before that).
    for (const pair of s.cs.pairs) await untilSeeding(s.readBack, pair.source.hash);
    await s.command({ type: 'job:resume' });
    const job = await s.finished();
    expect(job.state).toBe('done');
    expect(job.pausedBecause).toBeUndefined();
    const ids = s.cs.pairs.map((pair) => pair.candidateId);
    expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
    // Each .torrent asked for once (the one the stopped client could not take was not downloaded twice).
    expect(s.downloads().slice(before).map((download) => [download.id, download.served])).toEqual([...ids, s.cs.differentFiles.id].map((id) => [id, true]));
    for (const pair of s.cs.pairs) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
  });
});
