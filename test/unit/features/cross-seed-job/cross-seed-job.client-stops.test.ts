/**
 * The client stops answering mid-job (its daemon stopped: a real Transmission, test trackers): the job
 * pauses by itself with pausedBecause client; "Resume" once the client is back goes on, with no
 * .torrent downloaded twice and every one added beside its source.
 */
import { describe, expect, it } from 'vitest';
import type { RunningTransmission } from '../../../clients/daemons';
import { LIVE, pausedByStoppedClient, resumeToTheEnd, setUpJobOnTransmission, type JobSetup } from './job-setup';

const PAIRS = 3;
let s: JobSetup;
let daemon: RunningTransmission;
setUpJobOnTransmission(PAIRS, (setup, started) => ((s = setup), (daemon = started)));

describe('the client stops answering during the job', () => {
  it('pauses with pausedBecause client; "Resume" after it is back goes on without a download twice', LIVE, async () => {
    // A long pace: after the first add the site waits; the test stops the daemon, then sets the pace to 0 (which wakes it).
    const before = s.downloads().length;
    const paused = await pausedByStoppedClient(s, () => daemon.stopDaemon());
    expect(paused.state).toBe('paused');
    expect(paused.pausedBecause).toMatchObject({ kind: 'client' });
    expect(paused.outcomes.map((outcome) => outcome.torrentId)).toEqual([s.cs.pairs[0]!.candidateId]);

    await daemon.startDaemon();
    // Back: answering, and its torrents loaded and seeding again (Transmission answers RPC before that).
    // Each .torrent asked for once (the one the stopped client could not take was not downloaded twice).
    await resumeToTheEnd(s, before);
  });
});
