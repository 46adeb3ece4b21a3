/**
 * "Cross-seed your clients" over two live clients at once (issue 33): bookworm's qBittorrent and
 * Transmission, each seeding its own torrents from its own folder, in one real background (the
 * messages routed as cross-seed.html sends them), the test trackers and the reference service of
 * test/e2e/support/cross-seed-world.ts. One world, the daemons started once; the tests follow each
 * other over the same storage.
 *
 * - The preview reads both indexes: each find goes into the client holding its source, a place whose
 *   candidate the other client holds is not queued, and the preview says per client what it will do.
 * - The job adds every torrent into its own client, checked to 100 % from that client's disk, with
 *   at most N torrents at their check per client (N lowered to 1: two at once, one in each client).
 * - Transmission stopped mid-job: its torrents wait (the one at its check stays there, those queued
 *   stay untried), qBittorrent's go on to the end; started again, "Resume" for it finishes its own.
 *
 * Each client's starts pass a gate that can hold them (the test sees every torrent at its check,
 * in its client, and lets it go): qBittorrent's `torrents/resume`, Transmission's `torrent-start`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { JobPreview, JobTorrent, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import type { StoredJob } from '../../../../features/cross-seed-job/cross-seed-job.storage';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { startQbittorrent, startTransmission, type RunningDaemon, type RunningTransmission } from '../../../clients/daemons';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { addSeeding, untilSeeding } from '../../../clients/seeding';
import { ownClient } from '../../../clients/own-client';
import type { JarFetch } from '../../../clients/node-fetch';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld } from '../../../e2e/support/cross-seed-world';
import { until } from '../../../e2e/support/wait';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { freshJobBrowser, hearJob, inTakeOrder, LIVE } from './job-setup';

/** Pairs whose source qBittorrent seeds, and Transmission, per test; and the pair whose candidate Transmission holds already. */
const FIRST = { qbittorrent: [0, 1, 2, 3], transmission: [4, 5, 6] };
const HELD_BY_TRANSMISSION = 3;
const STOPPED = { qbittorrent: [7, 8, 9], transmission: [10, 11, 12] };
const PAIRS = 13;
const WAIT = 90_000;

type Kind = 'qbittorrent' | 'transmission';

/** The background's requests to the clients; each client's start of a torrent held while `holding` has it. */
class StartGate {
  readonly holding = new Set<Kind>();
  readonly held: { kind: Kind; release: () => void }[] = [];
  constructor(private readonly ports: Record<Kind, string>) {}

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const kind = (Object.keys(this.ports) as Kind[]).find((key) => this.ports[key] === url.port);
    const body = typeof init?.body === 'string' ? init.body : '';
    const start = kind === 'qbittorrent' ? /\/api\/v2\/torrents\/(resume|start)$/.test(url.pathname) : kind === 'transmission' && /"method":"torrent-start(-now)?"/.test(body);
    if (kind && start && this.holding.has(kind)) {
      await new Promise<void>((release) => this.held.push({ kind, release }));
      // Answered late, as a slow client answers: the request itself goes on (a held one is not the client's timeout).
      return globalThis.fetch(input, { ...init, signal: undefined });
    }
    return globalThis.fetch(input, init);
  };

  heldOf(kind: Kind): number {
    return this.held.filter((entry) => entry.kind === kind).length;
  }

  /** Lets `kind`'s held starts go (every client's when absent), and its next ones through. */
  release(kind?: Kind): void {
    for (const entry of this.held.filter((held) => !kind || held.kind === kind)) {
      this.held.splice(this.held.indexOf(entry), 1);
      entry.release();
    }
    if (kind) this.holding.delete(kind);
    else this.holding.clear();
  }
}

const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };

let qbt: RunningDaemon;
let tr: RunningTransmission;
let cs: CrossSeedWorld;
let siteFetch: JarFetch;
let gate: StartGate;
let app: BackgroundApp;
const own: Record<Kind, TorrentClient> = {} as Record<Kind, TorrentClient>;
const ids: Record<Kind, string> = {} as Record<Kind, string>;
const names: Record<Kind, string> = {} as Record<Kind, string>;
const daemons = () => ({ qbittorrent: qbt, transmission: tr }) as Record<Kind, RunningDaemon>;
/** The most torrents taken and not settled per client, and in the whole job, over every change the pages heard. */
let most = { qbittorrent: 0, transmission: 0, job: 0 };

const fromPage = <T>(message: Record<string, unknown>) => routeMessage(app, message, page, extension) as Promise<T>;
const command = async (message: Record<string, unknown>) => expect(await fromPage(message)).toBeUndefined();
const finished = async () => {
  await app.crossSeedJob.settled();
  return fromPage<JobView>({ type: 'job:status' });
};
const downloads = () => cs.candidate.downloads.filter((download) => download.path.startsWith('/download.php')).map((download) => download.id);
const candidateIds = (pairs: readonly number[]) => pairs.map((index) => cs.pairs[index]!.candidateId);
const candidateSite = (job: StoredJob | undefined) => job?.sites.find((site) => site.sid === CANDIDATE_SITE.sid);
const kindOf = (clientId: string | undefined): Kind | undefined => (Object.keys(ids) as Kind[]).find((kind) => ids[kind] === clientId);

/** Torrents taken and not settled in `job`, per client they go to. */
function underWay(job: StoredJob | undefined): Record<Kind | 'job', number> {
  const counts = { qbittorrent: 0, transmission: 0, job: 0 };
  for (const site of job?.sites ?? []) {
    for (const item of [...(site.inFlight ? [site.inFlight] : []), ...(site.checking ?? [])]) {
      const kind = kindOf(item.targetClientId);
      if (kind) counts[kind]++;
      counts.job++;
    }
  }
  return counts;
}

/** Seeds pairs into their clients (each from its own folder) and syncs every client's index. */
async function seed(pairs: Record<Kind, readonly number[]>): Promise<void> {
  for (const kind of ['qbittorrent', 'transmission'] as const) for (const index of pairs[kind]) await cs.seed(own[kind], daemons()[kind].dataDir, index);
  await syncEveryIndex();
}

/**
 * Every client's index synced from its client now. (The index feature's own sync reads the first
 * client until it syncs each client's index itself: the others are synced here directly, as it will.)
 */
async function syncEveryIndex(): Promise<void> {
  await app.index.run('sync');
  for (const { handle, index } of await app.index.clientIndexes()) {
    const report = await index.sync(handle.client, app.lookup, { pauseMs: 0 });
    expect(report.outcome).toBe('done');
  }
}

beforeAll(async () => {
  [qbt, tr, cs] = await Promise.all([startQbittorrent(), startTransmission(), startCrossSeedWorld({ pairs: PAIRS })]);
  own.qbittorrent = ownClient(qbt);
  own.transmission = ownClient(tr);
  siteFetch = cs.siteFetch();
  await cs.logIn(siteFetch, cs.candidate);

  await freshJobBrowser();
  gate = new StartGate({ qbittorrent: new URL(qbt.url).port, transmission: new URL(tr.url).port });
  app = new BackgroundApp({ fetch: proxiedFetch(cs.world.router.port), clientFetch: extensionClientFetch(gate.fetch), siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
  hearJob(() => {
    const now = underWay(app.crossSeedJob.job);
    most = { qbittorrent: Math.max(most.qbittorrent, now.qbittorrent), transmission: Math.max(most.transmission, now.transmission), job: Math.max(most.job, now.job) };
  });
  for (const kind of ['qbittorrent', 'transmission'] as const) {
    const saved = await fromPage<ClientsAnswer>({ type: 'clients:save', client: daemons()[kind].config });
    const view = saved.clients.find((client) => client.id === saved.savedId)!;
    ids[kind] = view.id;
    names[kind] = view.name;
  }
  expect(names.qbittorrent).not.toBe(names.transmission);
  await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
  await fromPage({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 0, perDay: 100 });
  // Transmission already holds pair 3's candidate (its data in Transmission's folder), whose source qBittorrent seeds.
  const held = cs.pairs[HELD_BY_TRANSMISSION]!;
  await addSeeding(own.transmission, held.candidate, cs.placeContent(tr.dataDir, HELD_BY_TRANSMISSION));
  await seed(FIRST);
}, 300_000);

afterAll(async () => {
  gate?.release();
  app?.crossSeedJob.halt();
  await cs?.close();
  await Promise.all([qbt?.stop(), tr?.stop()]);
}, 60_000);

describe('"Cross-seed your clients" over a qBittorrent and a Transmission at once', () => {
  it('previews both clients\' finds, each into the client holding its source; a place whose candidate the other client holds is not queued', LIVE, async () => {
    const before = downloads().length;
    const preview = await fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.problem).toBeUndefined();
    const site = preview.sites.find((entry) => entry.sid === CANDIDATE_SITE.sid)!;
    // qBittorrent's pairs and the other release of pair 0; Transmission's pairs; not pair 3's candidate, which Transmission holds.
    const qbtFinds = [...candidateIds(FIRST.qbittorrent.filter((index) => index !== HELD_BY_TRANSMISSION)), cs.differentFiles.id];
    const trFinds = candidateIds(FIRST.transmission);
    expect(site.count).toBe(qbtFinds.length + trFinds.length);
    const route = (kind: Kind, count: number) => expect.objectContaining({ sourceId: ids[kind], sourceName: names[kind], targetId: ids[kind], targetName: names[kind], count });
    expect(site.routes).toEqual([route('qbittorrent', qbtFinds.length), route('transmission', trFinds.length)]);
    expect(preview.routes).toEqual([route('qbittorrent', qbtFinds.length), route('transmission', trFinds.length)]);
    expect(preview.refused).toBeUndefined();
    // Transmission holds pair 3's candidate complete, and the page's site has pair 3's source: qBittorrent holds that one.
    expect(preview.sites.find((entry) => entry.sid === PAGE_SITE.sid)).toMatchObject({ count: 0 });

    const list = await fromPage<{ torrents: JobTorrent[]; total: number }>({ type: 'job:site-torrents', sid: CANDIDATE_SITE.sid, offset: 0, limit: 100 });
    const where = (torrent: JobTorrent) => [torrent.torrentId, kindOf(torrent.sourceClientId), kindOf(torrent.targetClientId)];
    expect(list.torrents.map(where)).toEqual(
      [...qbtFinds.map((id) => [id, 'qbittorrent', 'qbittorrent']), ...trFinds.map((id) => [id, 'transmission', 'transmission'])].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    expect(downloads().length).toBe(before);
  });

  it('adds every torrent into its own client, checked to 100 % from its disk, at most N at their check per client (N = 1: one in each at once)', LIVE, async () => {
    const before = downloads().length;
    app.crossSeedJob.checksBound = 1;
    most = { qbittorrent: 0, transmission: 0, job: 0 };
    gate.holding.add('qbittorrent');
    gate.holding.add('transmission');
    try {
      await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
      // One torrent at its check in each client at once: a bound for the whole job would never let the second one be taken.
      await until(async () => [gate.heldOf('qbittorrent'), gate.heldOf('transmission')], ([q, t]) => q === 1 && t === 1, 'a start held in each client', WAIT);
      const waiting = await until(
        async () => app.crossSeedJob.job,
        (job) => !candidateSite(job)?.inFlight && candidateSite(job)?.checking?.length === 2,
        'the site waiting at both bounds',
        WAIT,
      );
      const first = { qbittorrent: cs.pairs[FIRST.qbittorrent[0]!]!.candidateId, transmission: cs.pairs[FIRST.transmission[0]!]!.candidateId };
      expect(candidateSite(waiting)!.checking!.map((item) => [item.torrentId, kindOf(item.targetClientId)])).toEqual([
        [first.qbittorrent, 'qbittorrent'],
        [first.transmission, 'transmission'],
      ]);
      // The site took the first of Transmission's past qBittorrent's, which wait for their client's check.
      expect(downloads().slice(before)).toEqual([first.qbittorrent, first.transmission]);
      // Each in its own client, stopped once its check is over (its start held), none in the other.
      // (qBittorrent 4.5+ is asked for the check as soon as it lists the add, so the copy may still be
      // at its check, or at the resume-data read before it, when the site reaches its bound.)
      for (const kind of ['qbittorrent', 'transmission'] as const) {
        const hash = cs.pairs.find((pair) => pair.candidateId === first[kind])!.candidate.hash;
        const held = await until(async () => (await own[kind].lookup([hash])).get(hash), (torrent) => torrent?.state !== 'checking', `${kind}'s copy past its check`, WAIT);
        expect(held).toMatchObject({ state: 'paused', savePath: daemons()[kind].dataDir });
        expect((await own[kind === 'qbittorrent' ? 'transmission' : 'qbittorrent'].lookup([hash])).size).toBe(0);
      }

      gate.release();
      const job = await finished();
      expect(job.state).toBe('done');
      expect(job.pausedBecause).toBeUndefined();
      const added = [...candidateIds(FIRST.qbittorrent.filter((index) => index !== HELD_BY_TRANSMISSION)), ...candidateIds(FIRST.transmission)];
      expect(inTakeOrder(job.outcomes)).toEqual(
        [...added.map((id): [number, string] => [id, 'added']), [cs.differentFiles.id, 'files-differ'] as [number, string]].sort((a, b) => a[0] - b[0]),
      );
      // Pair 3's candidate was never downloaded; every other one once.
      expect([...downloads().slice(before)].sort((a, b) => a - b)).toEqual([...added, cs.differentFiles.id].sort((a, b) => a - b));
      for (const kind of ['qbittorrent', 'transmission'] as const) {
        const other = kind === 'qbittorrent' ? 'transmission' : 'qbittorrent';
        for (const index of FIRST[kind].filter((entry) => entry !== HELD_BY_TRANSMISSION)) {
          const pair = cs.pairs[index]!;
          expect(await untilSeeding(own[kind], pair.candidate.hash)).toMatchObject({ savePath: daemons()[kind].dataDir, progress: 1 });
          expect((await own[other].lookup([pair.candidate.hash])).size).toBe(0);
          // The report names the client it went to.
          const outcome = job.outcomes.find((entry) => entry.torrentId === pair.candidateId)!;
          expect(outcome).toMatchObject({ sourceClientId: ids[kind], targetClientId: ids[kind], result: { kind: 'added', clientName: names[kind], clientId: ids[kind] } });
        }
      }
      expect(job.clients?.map((client) => [client.id, client.name, client.paused])).toEqual([
        [ids.qbittorrent, names.qbittorrent, undefined],
        [ids.transmission, names.transmission, undefined],
      ]);
      // Never more than 1 per client, and at some point one in each at once.
      expect(most).toEqual({ qbittorrent: 1, transmission: 1, job: 2 });
    } finally {
      gate.release();
      app.crossSeedJob.checksBound = 8;
    }
  });

  it('a client stopped mid-job pauses its own torrents only: the other\'s finish; started again, "Resume" for it finishes its own', LIVE, async () => {
    await seed(STOPPED);
    const before = downloads().length;
    app.crossSeedJob.checksBound = 1;
    gate.holding.add('qbittorrent');
    gate.holding.add('transmission');
    const qbtIds = candidateIds(STOPPED.qbittorrent);
    const trIds = candidateIds(STOPPED.transmission);
    try {
      await command({ type: 'job:start', sids: [CANDIDATE_SITE.sid] });
      await until(async () => [gate.heldOf('qbittorrent'), gate.heldOf('transmission')], ([q, t]) => q === 1 && t === 1, 'a start held in each client', WAIT);
      expect(downloads().slice(before)).toEqual([qbtIds[0], trIds[0]]);

      // Transmission stops; its held start then meets no daemon: its torrent stays at its check, its client paused.
      await tr.stopDaemon();
      gate.release('transmission');
      const paused = await until(
        () => fromPage<JobView>({ type: 'job:status' }),
        (view) => !!view.clients?.find((client) => client.id === ids.transmission)?.paused,
        'Transmission paused',
        WAIT,
      );
      // qBittorrent's torrent is still at its check: the job goes on.
      expect(paused.state).toBe('running');
      expect(paused.clients?.find((client) => client.id === ids.transmission)).toEqual({ id: ids.transmission, name: names.transmission, paused: { kind: 'client', problem: expect.objectContaining({ kind: 'unreachable' }) } });
      expect(paused.clients?.find((client) => client.id === ids.qbittorrent)?.paused).toBeUndefined();
      expect(candidateSite(app.crossSeedJob.job)!.checking!.map((item) => item.torrentId)).toContain(trIds[0]);

      // qBittorrent's go on to the end; Transmission's wait, the queued ones untried.
      gate.release('qbittorrent');
      const waiting = await finished();
      expect(waiting.state).toBe('paused');
      expect(waiting.pausedBecause).toMatchObject({ kind: 'client' });
      expect(inTakeOrder(waiting.outcomes)).toEqual(qbtIds.map((id) => [id, 'added']));
      expect(downloads().slice(before)).toEqual([qbtIds[0], trIds[0], ...qbtIds.slice(1)]);
      const site = candidateSite(app.crossSeedJob.job)!;
      expect(site.checking!.map((item) => item.torrentId)).toEqual([trIds[0]]);
      expect(site.queue.map((item) => item.torrentId)).toEqual(trIds.slice(1));
      for (const index of STOPPED.qbittorrent) expect(await untilSeeding(own.qbittorrent, cs.pairs[index]!.candidate.hash)).toMatchObject({ savePath: qbt.dataDir, progress: 1 });

      // Transmission back, its torrents loaded and seeding: "Resume" for it finishes its own, each downloaded once.
      await tr.startDaemon();
      for (const index of STOPPED.transmission) await untilSeeding(own.transmission, cs.pairs[index]!.source.hash);
      await command({ type: 'job:resume', clientId: ids.transmission });
      const job = await finished();
      expect(job.state).toBe('done');
      expect(job.pausedBecause).toBeUndefined();
      expect(job.clients?.every((client) => !client.paused)).toBe(true);
      expect(inTakeOrder(job.outcomes)).toEqual([...qbtIds, ...trIds].sort((a, b) => a - b).map((id) => [id, 'added']));
      expect([...downloads().slice(before)].sort((a, b) => a - b)).toEqual([...qbtIds, ...trIds].sort((a, b) => a - b));
      for (const index of STOPPED.transmission) {
        const pair = cs.pairs[index]!;
        expect(await untilSeeding(own.transmission, pair.candidate.hash)).toMatchObject({ savePath: tr.dataDir, progress: 1 });
        expect((await own.qbittorrent.lookup([pair.candidate.hash])).size).toBe(0);
      }
    } finally {
      gate.release();
      app.crossSeedJob.checksBound = 8;
    }
  });
});
