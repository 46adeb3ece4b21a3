/**
 * The job's per-client rules over its stored state (features/cross-seed-job/client-pauses.ts and
 * job-outcomes.ts), on plain data: which torrent a site takes next with a client paused or at its
 * bound, a client that stopped answering holding back its own torrents only, the job pausing whole
 * only once nothing else is left; and a job stored before several clients read as the first
 * client's (job-state.ts). The live behaviour is cross-seed-job.two-clients.test.ts's.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { JobTorrent } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { JobStore, type StoredJob } from '../../../../features/cross-seed-job/cross-seed-job.storage';
import { nextOf, pauseIfOnlyWaiting, resumeClients } from '../../../../features/cross-seed-job/client-pauses';
import { applyResult } from '../../../../features/cross-seed-job/job-outcomes';
import { JobState } from '../../../../features/cross-seed-job/job-state';
import { viewOf } from '../../../../features/cross-seed-job/job-view';

const NAS = 'nas-id';
const SEEDBOX = 'seedbox-id';
const failure = { kind: 'unreachable' as const, detail: 'connection refused' };

function torrent(torrentId: number, source: string | undefined, target = source): JobTorrent {
  return {
    sid: 9,
    torrentId,
    infoHash: String(torrentId).padStart(40, '0'),
    sourceHash: String(torrentId).padStart(40, 'b'),
    ...(source && { sourceClientId: source }),
    ...(target && { targetClientId: target }),
    name: `Torrent ${torrentId}`,
    bytes: 1000,
  };
}

function job(queue: JobTorrent[], extra: Partial<StoredJob['sites'][number]> = {}): StoredJob {
  return {
    state: 'running',
    startedAt: 1,
    revision: 1,
    clients: { [NAS]: 'NAS', [SEEDBOX]: 'Seedbox' },
    sites: [{ sid: 9, siteName: 'OurBits', state: 'waiting', queue, total: queue.length, done: 0, secondsBetween: 0, ...extra }],
    outcomes: [],
  };
}

const site = (stored: StoredJob) => stored.sites[0]!;
const taken = (stored: StoredJob, bound = 8) => {
  const next = nextOf(stored, site(stored), bound);
  return next && ('item' in next ? next.item.torrentId : next.blocked);
};

beforeEach(() => {
  fakeBrowser.reset();
});

describe('which torrent a site takes next', () => {
  it('the first of its queue, past those whose client is at its bound, and past those waiting on a paused client', () => {
    const stored = job([torrent(1, NAS), torrent(2, NAS), torrent(3, SEEDBOX), torrent(4, NAS, SEEDBOX)], { checking: [torrent(10, NAS)] });
    expect(taken(stored)).toBe(1);
    // NAS at its bound of 1 (one at its check): Seedbox's next.
    expect(taken(stored, 1)).toBe(3);
    // Seedbox paused: its own and those whose copy goes to it wait; NAS's go on.
    stored.pausedClients = { [SEEDBOX]: { kind: 'client', problem: failure } };
    expect(taken(stored)).toBe(1);
    expect(taken(stored, 1)).toBe('bound');
    // NAS paused too: nothing to take, the site rests.
    stored.pausedClients[NAS] = { kind: 'sources-missing' };
    expect(taken(stored)).toBe('paused');
    expect(nextOf(job([]), site(job([])), 8)).toBeUndefined();
  });
});

describe('a client that stops answering', () => {
  it('pauses its own torrents: one in flight back to its queue, one at its check kept there; the job goes on with the others', () => {
    const atCheck = torrent(1, NAS);
    const stored = job([torrent(3, SEEDBOX), torrent(4, NAS)], { checking: [atCheck], inFlight: { ...torrent(2, NAS), requested: true } });
    applyResult(stored, 9, atCheck, { kind: 'client-failed', failure, clientName: 'NAS', clientId: NAS }, 5);
    expect(site(stored).checking!.map((item) => item.torrentId)).toEqual([1]);
    applyResult(stored, 9, torrent(2, NAS), { kind: 'client-failed', failure, clientName: 'NAS', clientId: NAS }, 6);
    expect(site(stored).inFlight).toBeUndefined();
    expect(site(stored).queue.map((item) => item.torrentId)).toEqual([2, 3, 4]);
    expect(stored).toMatchObject({ state: 'running', pausedClients: { [NAS]: { kind: 'client', problem: failure } } });
    expect(stored.pausedBecause).toBeUndefined();
    expect(viewOf(stored).clients).toEqual([
      { id: NAS, name: 'NAS', paused: { kind: 'client', problem: failure } },
      { id: SEEDBOX, name: 'Seedbox' },
    ]);
    expect(taken(stored)).toBe(3);

    // Seedbox's one added: nothing but NAS's is left, and the job pauses whole for it.
    site(stored).queue.splice(1, 1);
    site(stored).inFlight = { ...torrent(3, SEEDBOX), requested: true };
    applyResult(stored, 9, torrent(3, SEEDBOX), { kind: 'added', hash: 'c'.repeat(40), savePath: '/seedbox', client: 'transmission', checked: true, state: 'seeding', progress: 1, clientName: 'Seedbox', clientId: SEEDBOX }, 7);
    expect(stored.outcomes.map((outcome) => [outcome.torrentId, outcome.targetClientId])).toEqual([[3, SEEDBOX]]);
    expect(stored).toMatchObject({ state: 'paused', pausedBecause: { kind: 'client', problem: failure } });
    expect(site(stored).state).toBe('waiting');

    // Its "Resume": the client's torrents go on.
    resumeClients(stored, NAS);
    expect(stored.pausedClients).toBeUndefined();
    expect(taken(stored)).toBe(2);
  });

  it('a run that could not ask a third client waits on it too, not to be tried again at once', () => {
    const stored = job([torrent(5, NAS)]);
    site(stored).queue.shift();
    site(stored).inFlight = { ...torrent(5, NAS), requested: false };
    applyResult(stored, 9, torrent(5, NAS), { kind: 'client-failed', failure, clientName: 'Seedbox', clientId: SEEDBOX }, 1);
    expect(site(stored).queue).toEqual([{ ...torrent(5, NAS), waitsFor: SEEDBOX }]);
    expect(taken(stored)).toBe('paused');
    pauseIfOnlyWaiting(stored);
    expect(stored.state).toBe('paused');
  });
});

describe('a job stored before several clients', () => {
  it('is read as the first client\'s: its torrents queued, in flight and at their check, and its view names it', async () => {
    const old = job([torrent(1, undefined), torrent(2, undefined)], { checking: [torrent(3, undefined)], inFlight: { ...torrent(4, undefined), requested: true } });
    delete old.clients;
    await new JobStore().save(old, { whole: true });
    const state = new JobState(async () => ({ id: NAS, name: 'NAS' }));
    const loaded = (await state.load())!;
    const clientsOf = (item: JobTorrent) => [item.torrentId, item.sourceClientId, item.targetClientId];
    expect([...site(loaded).queue, ...site(loaded).checking!, site(loaded).inFlight!].map(clientsOf)).toEqual([
      [1, NAS, NAS],
      [2, NAS, NAS],
      [3, NAS, NAS],
      [4, NAS, NAS],
    ]);
    expect(viewOf(loaded).clients).toEqual([{ id: NAS, name: 'NAS' }]);
    // No client saved any more: left as it was (the engine then finds where each went).
    const older = job([torrent(1, undefined)]);
    delete older.clients;
    await new JobStore().save(older, { whole: true });
    const none = await new JobState(async () => undefined).load();
    expect(site(none!).queue[0]!.sourceClientId).toBeUndefined();
  });
});
