/**
 * "Resume" pressed the moment a restarted client answers but before it has loaded its torrents (a
 * real Transmission answers RPC before that): the job's sources, complete in the index, are not in
 * its list. That decides nothing: the job pauses again (`sources-missing`), its items back in their
 * queue, nothing downloaded; once the client shows its torrents, "Resume" adds them all, each
 * .torrent downloaded once.
 *
 * The moment is made exact, not raced: Transmission is started again with its torrent and resume
 * folders set aside, so that it answers RPC listing nothing, as a restarted one does before loading.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobPreview } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import type { RunningTransmission } from '../../../clients/daemons';
import { CANDIDATE_SITE } from '../../../e2e/support/cross-seed-world';
import { LIVE, pausedByStoppedClient, resumeToTheEnd, setUpJobOnTransmission, type JobSetup } from './job-setup';

const PAIRS = 3;
let s: JobSetup;
let daemon: RunningTransmission;
setUpJobOnTransmission(PAIRS, (setup, started) => ((s = setup), (daemon = started)));

/** Transmission's folders of the torrents it holds (it loads them at start). */
const FOLDERS = ['torrents', 'resume'];
const configDir = () => join(daemon.profileDir, 'config');

function setAside(): void {
  for (const name of FOLDERS) if (existsSync(join(configDir(), name))) renameSync(join(configDir(), name), join(configDir(), `${name}.aside`));
}

function putBack(): void {
  for (const name of FOLDERS) {
    rmSync(join(configDir(), name), { recursive: true, force: true });
    renameSync(join(configDir(), `${name}.aside`), join(configDir(), name));
  }
}

describe('"Resume" as a restarted client answers before it has loaded its torrents', () => {
  it('pauses again (sources-missing) and decides nothing; "Resume" once they are loaded adds the rest, each downloaded once', LIVE, async () => {
    // A long pace: after the first add the site waits; the test stops the daemon, then sets the pace to 0 (which wakes it).
    const before = s.downloads().length;
    const paused = await pausedByStoppedClient(s, () => daemon.stopDaemon());
    expect(paused).toMatchObject({ state: 'paused', pausedBecause: { kind: 'client' } });
    const first = s.cs.pairs[0]!.candidateId;
    expect(paused.outcomes.map((outcome) => outcome.torrentId)).toEqual([first]);

    // Back, answering RPC, listing nothing yet: "Resume" now.
    setAside();
    await daemon.startDaemon();
    expect(await s.readBack.list()).toEqual([]);
    await s.command({ type: 'job:resume' });
    const again = await s.finished();
    expect(again.state).toBe('paused');
    expect(again.pausedBecause).toEqual({ kind: 'sources-missing' });
    // Nothing decided: the report holds the first add alone, nothing more was downloaded, and the rest is still to do.
    expect(again.outcomes.map((outcome) => [outcome.torrentId, outcome.group])).toEqual([[first, 'added']]);
    expect(s.downloads().slice(before).map((download) => download.id)).toEqual([first]);
    expect(again.sites.find((site) => site.sid === CANDIDATE_SITE.sid)).toMatchObject({ state: 'waiting', done: 1, total: PAIRS + 1 });

    // The client with its torrents again, seeding: "Resume" goes on to the end.
    await daemon.stopDaemon();
    putBack();
    await daemon.startDaemon();
    await resumeToTheEnd(s, before);
    // Nothing left for a later run: the added ones are in the client's index at their places (not finds at all), the other one decided.
    const preview = await s.fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.sites.find((site) => site.sid === CANDIDATE_SITE.sid)).toMatchObject({ count: 0, decided: 1 });
  });
});
