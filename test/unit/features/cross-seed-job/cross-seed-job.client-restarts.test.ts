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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPreview } from '../../../../features/cross-seed-job/cross-seed-job.messages';
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
    for (const pair of s.cs.pairs) await untilSeeding(s.readBack, pair.source.hash);
    await s.command({ type: 'job:resume' });
    const job = await s.finished();
    expect(job.state).toBe('done');
    expect(job.pausedBecause).toBeUndefined();
    const ids = s.cs.pairs.map((pair) => pair.candidateId);
    expect(inTakeOrder(job.outcomes)).toEqual([...ids.map((id) => [id, 'added']), [s.cs.differentFiles.id, 'files-differ']]);
    expect(s.downloads().slice(before).map((download) => [download.id, download.served])).toEqual([...ids, s.cs.differentFiles.id].map((id) => [id, true]));
    for (const pair of s.cs.pairs) expect(await untilSeeding(s.readBack, pair.candidate.hash)).toMatchObject({ savePath: s.daemon.dataDir, progress: 1 });
    // Nothing left for a later run.
    const preview = await s.fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.sites.find((site) => site.sid === CANDIDATE_SITE.sid)).toMatchObject({ count: 0, decided: PAIRS + 1 });
  });
});
