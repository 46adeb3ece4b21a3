/**
 * "Cross-seed your client" over a whole client whose candidates are spread over several sites
 * (test/e2e/support/cross-seed-world.ts's startSpreadWorld), in the real background in Node as
 * job-setup.ts does it (messages through the router, a real client daemon, the test trackers, the
 * reference service). One scenario in steps over the same storage, as a user's runs follow each other:
 *
 * - sites A (OurBits, 1 s between downloads), B (SpringSunday, 0 s) and C (CHDBits, 6 s, 5 a day:
 *   longer than one cross-seed takes, so the pace, not the work, sets its gaps)
 *   carry most candidates; L (TJUPT) is a site the user is logged out of; N (NanyangPT) answers
 *   downloads with its first-download notice; K (FRDS) carries candidates but is not held;
 * - a few candidates are another release under the same name (only a download shows their files
 *   differ), one source is incomplete in the client, one is not in it, one candidate is in it already.
 *
 * The preview's counts are exact; the job adds exactly the right torrents, each beside its own
 * source, checked to 100 % with nothing downloaded by the client; each tracker's own log shows its
 * pace and the daily cap kept; L and N stop alone; a second run and a run after the user deleted
 * one added torrent download nothing (shown by a marker request the test makes afterwards).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { JobOutcomeGroup, JobPreview, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { siteDownloadsItem } from '../../../../features/cross-seed/cross-seed.storage';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { SITE_GAP_MS } from '../../../../utils/cross-seed-engine/site-queue';
import type { RunningDaemon } from '../../../clients/daemons';
import { nodeClientFetch, type JarFetch } from '../../../clients/node-fetch';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { untilSeeding } from '../../../clients/seeding';
import { PAGE_SITE, SPREAD_SITES, startSpreadWorld, type SiteSpec, type SpreadContentSpec, type SpreadWorld, type TestTracker } from '../../../e2e/support/cross-seed-world';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { ownClient } from '../../../clients/own-client';

const A = SPREAD_SITES.ourbits;
const B = SPREAD_SITES.ssd;
const C = SPREAD_SITES.chdbits;
const L = SPREAD_SITES.tjupt;
const N = SPREAD_SITES.nanyangpt;
const K = SPREAD_SITES.keepfrds;
/** Each site's pace in this scenario: seconds between downloads, downloads per day. */
const PACES = new Map<number, { secondsBetween: number; perDay: number }>([
  [A.sid, { secondsBetween: 1, perDay: 100 }],
  [B.sid, { secondsBetween: 0, perDay: 100 }],
  [C.sid, { secondsBetween: 6, perDay: 5 }],
  [L.sid, { secondsBetween: 0, perDay: 100 }],
  [N.sid, { secondsBetween: 0, perDay: 100 }],
]);
const CAP = PACES.get(C.sid)!.perDay;
const MARKER = 999_999;

export interface SpreadLayout {
  /** Contents with a candidate on A; the first `both` of them on B too. */
  a: number;
  both: number;
  /** Contents with a candidate on B only. */
  b: number;
  /** On C (more than its cap of 5). */
  c: number;
  /** On the logged-out site, and on the notice site. */
  loggedOut: number;
  notice: number;
  /** Contents whose candidates are only on a site the user does not hold (they fill the client). */
  elsewhere: number;
  /** How the logged-out site answers a download (NexusPHP redirects to login.php; some forks show the form). */
  loggedOutStyle: 'redirect' | 'login-page';
  /** How the notice site answers (NexusPHP redirects to downloadnotice.php; some forks show it in place). */
  noticeStyle: 'redirect' | 'page';
}

interface Plan {
  specs: SpreadContentSpec[];
  differentFiles: { sid: number; of: number }[];
  /** Content indexes with a candidate that counts, per site. */
  counted: Map<number, number[]>;
  incomplete: number;
  absent: number;
  held: number;
}

function plan(layout: SpreadLayout): Plan {
  const specs: SpreadContentSpec[] = [];
  const counted = new Map<number, number[]>([A, B, C, L, N].map((site) => [site.sid, []]));
  const add = (spec: SpreadContentSpec, counts: readonly SiteSpec[] = spec.on) => {
    for (const site of counts) counted.get(site.sid)?.push(specs.length);
    specs.push(spec);
    return specs.length - 1;
  };
  for (let i = 0; i < layout.a; i++) add({ on: i < layout.both ? [A, B] : [A] });
  for (let i = 0; i < layout.b; i++) add({ on: [B] });
  for (let i = 0; i < layout.c; i++) add({ on: [C] });
  for (let i = 0; i < layout.loggedOut; i++) add({ on: [L] });
  for (let i = 0; i < layout.notice; i++) add({ on: [N] });
  for (let i = 0; i < layout.elsewhere; i++) add({ on: [K] });
  // Not counted: a source the client has not all of, a source not in the client, a candidate the client holds.
  const incomplete = add({ on: [A], source: 'incomplete' }, []);
  const absent = add({ on: [A], source: 'absent' }, []);
  const held = add({ on: [B], held: [B] }, []);
  // Other releases under the names of two A contents and of the first B-only one.
  const differentFiles = [
    { sid: A.sid, of: 0 },
    { sid: A.sid, of: 1 },
    { sid: B.sid, of: layout.a },
  ];
  return { specs, differentFiles, counted, incomplete, absent, held };
}

/** qBittorrent's own figures for these torrents (the library's view has no downloaded bytes). */
async function qbittorrentFigures(daemon: RunningDaemon, hashes: string[]): Promise<Map<string, { downloaded: number; state: string; progress: number; save_path: string }>> {
  const fetch = nodeClientFetch({ origin: 'same' });
  const login = await fetch(`${daemon.url}/api/v2/auth/login`, { method: 'POST', body: new URLSearchParams({ username: daemon.username, password: daemon.password }) });
  // 4.x answers "Ok." (200), 5.x nothing (204); a refusal is "Fails." or 401/403.
  expect([login.status, await login.text()]).toEqual([login.status === 204 ? 204 : 200, login.status === 204 ? '' : 'Ok.']);
  const answer = await fetch(`${daemon.url}/api/v2/torrents/info?hashes=${hashes.join('|')}`);
  expect(answer.status).toBe(200);
  const rows = (await answer.json()) as { hash: string; downloaded: number; state: string; progress: number; save_path: string }[];
  return new Map(rows.map((row) => [row.hash, row]));
}

export function spreadScenario(title: string, start: () => Promise<RunningDaemon>, layout: SpreadLayout): void {
  const { specs, differentFiles, counted, incomplete, absent } = plan(layout);
  const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
  const page = { id: extension.id, url: `${extension.origin}cross-seed.html` };
  const LIVE = { timeout: 240_000 };

  let daemon: RunningDaemon;
  let w: SpreadWorld;
  let readBack: TorrentClient;
  let siteFetch: JarFetch;
  let app: BackgroundApp;

  const fromPage = <T>(message: Record<string, unknown>) => routeMessage(app, message, page, extension) as Promise<T>;
  const command = async (message: Record<string, unknown>) => {
    expect(await fromPage(message)).toBeUndefined();
  };
  const finished = async () => {
    await app.crossSeedJob.settled();
    return fromPage<JobView>({ type: 'job:status' });
  };
  const downloads = (tracker: TestTracker) => tracker.downloads.filter((download) => download.path.startsWith('/download.php'));
  /** What the site's queue holds, in order (torrent id): its contents' candidates, then its other releases. */
  const queueOf = (sid: number) => [...counted.get(sid)!.map((index) => w.contents[index]!.candidateOn(sid)!.id), ...w.differentFiles.filter((other) => other.sid === sid).map((other) => other.id)];
  const siteOf = (preview: JobPreview, sid: number) => preview.sites.find((site) => site.sid === sid);
  /** The tracker's requests from `from` on, after a marker request of the test's own: what the job sent after `from`. */
  const requestsUpToMarker = async (tracker: TestTracker, from: number) => {
    const marker = await siteFetch(`http://${tracker.host}/download.php?id=${MARKER}`);
    await marker.arrayBuffer();
    return tracker.requests.slice(from).map((request) => request.path);
  };

  describe(title, () => {
    beforeAll(async () => {
      const began = performance.now();
      let filled = 0;
      daemon = await start();
      try {
        w = await startSpreadWorld({ contents: specs, differentFiles });
        readBack = ownClient(daemon);
        await w.fill(readBack, daemon.dataDir);
        filled = performance.now() - began;
        siteFetch = w.siteFetch();
        for (const site of [A, B, C, N]) await w.logIn(siteFetch, w.tracker(site.sid));
        w.tracker(L.sid).loggedOut = layout.loggedOutStyle;
        w.tracker(N.sid).firstDownloadNotice = layout.noticeStyle;
      } catch (error) {
        await w?.close();
        await daemon.stop();
        throw error;
      }

      fakeBrowser.reset();
      installI18n('en');
      installPermissions();
      installSessionRules();
      await fakeBrowser.storage.local.set({
        [SETTINGS_KEY]: { version: 1, baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, A.sid, B.sid, C.sid, L.sid, N.sid], askedForSites: true },
      });
      app = new BackgroundApp({ fetch: proxiedFetch(w.world.router.port), clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
      const saved = await fromPage<ClientsAnswer>({ type: 'clients:save', client: daemon.config });
      expect(saved.clients).toHaveLength(1);
      await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
      await app.index.run('sync');
      console.info(`${title}: ${(await readBack.list()).length} torrents in ${daemon.version}, set up in ${Math.round(performance.now() - began)} ms (client filled at ${Math.round(filled)} ms)`);
    }, 300_000);

    afterAll(async () => {
      app?.crossSeedJob.halt();
      await w?.close();
      await daemon?.stop();
    }, 30_000);

    it('holds the client the layout says', LIVE, async () => {
      const all = await readBack.list();
      const expected = specs.filter((spec) => spec.source !== 'absent').length + specs.reduce((sum, spec) => sum + (spec.held?.length ?? 0), 0);
      expect(all).toHaveLength(expected);
      expect((await readBack.lookup([w.contents[absent]!.source.hash])).size).toBe(0);
      expect((await readBack.lookup([w.contents[incomplete]!.source.hash])).get(w.contents[incomplete]!.source.hash)!.progress).toBeLessThan(1);
    });

    it('previews per held site exactly what can be added, its size, and whether the site can be had now', LIVE, async () => {
      const preview = await fromPage<JobPreview>({ type: 'job:preview' });
      expect(preview.problem).toBeUndefined();
      expect(preview.sites.map((site) => site.sid).sort((x, y) => x - y)).toEqual([PAGE_SITE.sid, A.sid, B.sid, C.sid, L.sid, N.sid].sort((x, y) => x - y));
      for (const site of [A, B, C, L, N]) {
        const indexes = counted.get(site.sid)!;
        const others = differentFiles.filter((other) => other.sid === site.sid);
        const bytes = [...indexes, ...others.map((other) => other.of)].reduce((sum, index) => sum + w.contents[index]!.size, 0);
        expect(siteOf(preview, site.sid), site.site).toMatchObject({ count: indexes.length + others.length, bytes, decided: 0, usedToday: 0 });
      }
      expect(siteOf(preview, A.sid)!.count).toBe(layout.a + 2);
      expect(siteOf(preview, B.sid)!.count).toBe(layout.both + layout.b + 1);
      expect(siteOf(preview, C.sid)!.count).toBe(layout.c);
      for (const site of [A, B, C, N]) expect(siteOf(preview, site.sid)!.readiness, site.site).toEqual({ state: 'ready' });
      expect(siteOf(preview, L.sid)!.readiness).toMatchObject({ state: 'needs-login' });
      // The page's site holds the sources themselves.
      expect(siteOf(preview, PAGE_SITE.sid)).toMatchObject({ count: 0 });

      // One site's list, in the job's order; the not-counted ones are not in it.
      const list = await fromPage<{ torrents: { torrentId: number; sourceHash: string; infoHash: string }[]; total: number }>({ type: 'job:site-torrents', sid: A.sid, offset: 0, limit: 500 });
      expect(list.torrents.map((torrent) => torrent.torrentId)).toEqual(queueOf(A.sid));
      expect(list.total).toBe(layout.a + 2);
      const hashes = new Set(list.torrents.map((torrent) => torrent.infoHash));
      for (const index of [incomplete, absent]) expect(hashes.has(w.contents[index]!.candidateOn(A.sid)!.torrent.hash)).toBe(false);
      // A preview downloads nothing.
      for (const tracker of w.trackers.values()) expect(downloads(tracker), tracker.site).toEqual([]);
    });

    it('runs every site at its own pace under its cap; the logged-out and the notice site stop alone; each add beside its source at 100 %, nothing downloaded', LIVE, async () => {
      for (const [sid, pace] of PACES) await fromPage({ type: 'job:site-pace', sid, ...pace });
      const startedAt = performance.now();
      await command({ type: 'job:start', sids: [A.sid, B.sid, C.sid, L.sid, N.sid] });
      const job = await finished();

      expect(job.state).toBe('done');
      const site = (sid: number) => job.sites.find((entry) => entry.sid === sid)!;
      expect(site(A.sid)).toMatchObject({ state: 'done', total: layout.a + 2, done: layout.a + 2 });
      expect(site(B.sid)).toMatchObject({ state: 'done', total: layout.both + layout.b + 1, done: layout.both + layout.b + 1 });
      expect(site(C.sid)).toMatchObject({ state: 'capped', total: layout.c, done: layout.c });
      // The two sites at fault stop after their first answer, with the reason and a link to open the site.
      const firstL = w.contents[counted.get(L.sid)![0]!]!.candidateOn(L.sid)!;
      const firstN = w.contents[counted.get(N.sid)![0]!]!.candidateOn(N.sid)!;
      expect(site(L.sid)).toMatchObject({ state: 'stopped', total: layout.loggedOut, done: 1, problem: { kind: 'not-logged-in', evidence: layout.loggedOutStyle } });
      expect(site(L.sid).openUrl).toMatch(new RegExp(`^https?://${L.host.replaceAll('.', '\\.')}/details\\.php\\?id=${firstL.id}$`));
      expect(site(N.sid)).toMatchObject({ state: 'stopped', total: layout.notice, done: 1 });
      if (layout.noticeStyle === 'redirect') {
        // NexusPHP's 302 to downloadnotice.php: a notice to confirm, not a login.
        expect(site(N.sid).problem).toEqual({ kind: 'site-notice', evidence: 'redirect' });
      } else {
        expect(site(N.sid).problem).toMatchObject({ kind: 'site-notice', evidence: 'page', siteWords: expect.stringContaining('第一次') });
      }
      expect(site(N.sid).openUrl).toMatch(new RegExp(`^https?://${N.host.replaceAll('.', '\\.')}/details\\.php\\?id=${firstN.id}$`));

      // The report, group by group, site by site.
      // (As sets, in id order: the report's order follows when each torrent's check ended; the tracker's order below is the queue's.)
      const byId = (list: number[]) => [...list].sort((x, y) => x - y);
      const ids = (group: JobOutcomeGroup, sid: number) => byId(job.outcomes.filter((outcome) => outcome.group === group && outcome.sid === sid).map((outcome) => outcome.torrentId));
      const candidateIds = (sid: number, indexes: number[]) => byId(indexes.map((index) => w.contents[index]!.candidateOn(sid)!.id));
      const differentIds = (sid: number) => byId(w.differentFiles.filter((other) => other.sid === sid).map((other) => other.id));
      expect(ids('added', A.sid)).toEqual(candidateIds(A.sid, counted.get(A.sid)!));
      expect(ids('files-differ', A.sid)).toEqual(differentIds(A.sid));
      expect(ids('added', B.sid)).toEqual(candidateIds(B.sid, counted.get(B.sid)!));
      expect(ids('files-differ', B.sid)).toEqual(differentIds(B.sid));
      expect(ids('added', C.sid)).toEqual(candidateIds(C.sid, counted.get(C.sid)!.slice(0, CAP)));
      expect(ids('waiting-for-tomorrow', C.sid)).toEqual(candidateIds(C.sid, counted.get(C.sid)!.slice(CAP)));
      expect(job.outcomes.filter((outcome) => outcome.group === 'site-problem').map((outcome) => [outcome.sid, outcome.torrentId]).sort()).toEqual([[L.sid, firstL.id], [N.sid, firstN.id]].sort());
      expect(job.outcomes.filter((outcome) => outcome.group === 'left-stopped' || outcome.group === 'other')).toEqual([]);
      const added = job.outcomes.filter((outcome) => outcome.group === 'added').length;
      expect(added).toBe(layout.a + layout.both + layout.b + CAP);

      // Each tracker's own log: exactly the right downloads, in the queue's order, each at least the site's pace after the one before.
      const gaps = (tracker: TestTracker) => downloads(tracker).slice(1).map((download, index) => download.at - downloads(tracker)[index]!.at);
      expect(downloads(w.tracker(A.sid)).map((download) => download.id)).toEqual(queueOf(A.sid));
      expect(downloads(w.tracker(B.sid)).map((download) => download.id)).toEqual(queueOf(B.sid));
      expect(downloads(w.tracker(C.sid)).map((download) => download.id)).toEqual(queueOf(C.sid).slice(0, CAP));
      for (const site of [A, B, C]) expect(downloads(w.tracker(site.sid)).every((download) => download.served), site.site).toBe(true);
      expect(downloads(w.tracker(L.sid)).map((download) => [download.id, download.served])).toEqual([[firstL.id, false]]);
      expect(downloads(w.tracker(N.sid)).map((download) => [download.id, download.served])).toEqual([[firstN.id, false]]);
      // The site not held: never asked.
      expect(w.trackers.get(K.sid)?.requests ?? []).toEqual([]);
      const measured = Object.fromEntries([A, B, C].map((site) => [site.site, Math.round(Math.min(...gaps(w.tracker(site.sid))))]));
      const log0 = await siteDownloadsItem.get();
      const transit = Object.fromEntries(
        [A, B, C].map((site) => {
          const times = log0[String(site.sid)] ?? [];
          const spans = downloads(w.tracker(site.sid)).map((download, index) => times[index]! - (performance.timeOrigin + download.at));
          return [site.site, [Math.round(Math.min(...spans)), Math.round(Math.max(...spans))]];
        }),
      );
      console.info(`${title}: shortest gap between two downloads at each tracker (ms): ${JSON.stringify(measured)}; at the tracker → answered, as counted (ms, min/max): ${JSON.stringify(transit)}; job ${Math.round(performance.now() - startedAt)} ms`);
      for (const site of [A, B, C]) {
        const pace = Math.max(PACES.get(site.sid)!.secondsBetween * 1000, SITE_GAP_MS);
        for (const gap of gaps(w.tracker(site.sid))) expect(gap, site.site).toBeGreaterThanOrEqual(pace - 5);
      }
      // The job's own count of downloads (the daily cap's log): one per download, its pace kept between them.
      const log = await siteDownloadsItem.get();
      for (const site of [A, B, C, L, N]) {
        const times = log[String(site.sid)] ?? [];
        expect(times, site.site).toHaveLength(downloads(w.tracker(site.sid)).length);
        for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(PACES.get(site.sid)!.secondsBetween * 1000);
      }

      // Every add beside its own source, checked to 100 %, seeding, and not a byte downloaded by the client.
      const addedTorrents = job.outcomes.filter((outcome) => outcome.group === 'added');
      for (const outcome of addedTorrents) {
        const content = w.contents.find((entry) => entry.candidateOn(outcome.sid)?.torrent.hash === outcome.infoHash)!;
        expect(outcome.sourceHash).toBe(content.source.hash);
        expect(await untilSeeding(readBack, outcome.infoHash), outcome.name).toMatchObject({ savePath: w.savePathOf(daemon.dataDir, content.index), progress: 1, state: 'seeding' });
      }
      const figures = await qbittorrentFigures(daemon, addedTorrents.map((outcome) => outcome.infoHash));
      expect(figures.size).toBe(addedTorrents.length);
      for (const [hash, figure] of figures) expect({ hash, downloaded: figure.downloaded, progress: figure.progress }).toEqual({ hash, downloaded: 0, progress: 1 });
      // Nothing else reached the client: the other releases, the capped, the stopped sites' torrents.
      const notAdded = [
        ...w.differentFiles.map((other) => other.torrent.hash),
        ...counted.get(C.sid)!.slice(CAP).map((index) => w.contents[index]!.candidateOn(C.sid)!.torrent.hash),
        ...[L, N].flatMap((one) => counted.get(one.sid)!.map((index) => w.contents[index]!.candidateOn(one.sid)!.torrent.hash)),
        w.contents[incomplete]!.candidateOn(A.sid)!.torrent.hash,
        w.contents[absent]!.candidateOn(A.sid)!.torrent.hash,
      ];
      expect((await readBack.lookup(notAdded)).size).toBe(0);
      const expectedTorrents = specs.filter((spec) => spec.source !== 'absent').length + 1 + addedTorrents.length;
      expect(await readBack.list()).toHaveLength(expectedTorrents);
    });

    it('a second run downloads nothing (the capped site waits for tomorrow again)', LIVE, async () => {
      await app.index.run('sync');
      const from = new Map([A, B, C].map((site) => [site.sid, w.tracker(site.sid).requests.length]));
      await command({ type: 'job:start', sids: [A.sid, B.sid, C.sid] });
      const job = await finished();
      expect(job.state).toBe('done');
      expect(job.sites.map((site) => [site.sid, site.state, site.total])).toEqual([
        [A.sid, 'done', 0],
        [B.sid, 'done', 0],
        [C.sid, 'capped', layout.c - CAP],
      ]);
      expect(job.outcomes.every((outcome) => outcome.group === 'waiting-for-tomorrow')).toBe(true);
      for (const site of [A, B, C]) expect(await requestsUpToMarker(w.tracker(site.sid), from.get(site.sid)!), site.site).toEqual([`/download.php?id=${MARKER}`]);
    });

    it('a torrent the user deleted after its add is not added back, and nobody asks "Try again" for it', LIVE, async () => {
      const gone = w.contents[counted.get(A.sid)![2]!]!.candidateOn(A.sid)!;
      await readBack.remove(gone.torrent.hash);
      await app.index.run('sync');
      const preview = await fromPage<JobPreview>({ type: 'job:preview' });
      // It is a place the client could fill again, but decided (added before), as the two other releases are.
      expect(siteOf(preview, A.sid)).toMatchObject({ count: 0, decided: 3 });

      const from = w.tracker(A.sid).requests.length;
      await command({ type: 'job:start', sids: [A.sid] });
      const job = await finished();
      expect(job).toMatchObject({ state: 'done', total: 0, outcomes: [] });
      expect(await requestsUpToMarker(w.tracker(A.sid), from)).toEqual([`/download.php?id=${MARKER}`]);
      expect((await readBack.lookup([gone.torrent.hash])).size).toBe(0);
    });

    it('once the user logs in and reads the notice, the two stopped sites go on with what they had', LIVE, async () => {
      await w.logIn(siteFetch, w.tracker(L.sid));
      // "下次不显示此提示": the notice is not shown again.
      w.tracker(N.sid).firstDownloadNotice = false;
      const preview = await fromPage<JobPreview>({ type: 'job:preview' });
      expect(siteOf(preview, L.sid)).toMatchObject({ count: layout.loggedOut, decided: 0, readiness: { state: 'ready' } });
      expect(siteOf(preview, N.sid)).toMatchObject({ count: layout.notice, decided: 0, readiness: { state: 'ready' } });
      const from = new Map([L, N].map((site) => [site.sid, downloads(w.tracker(site.sid)).length]));
      await command({ type: 'job:start', sids: [L.sid, N.sid] });
      const job = await finished();
      expect(job.state).toBe('done');
      for (const site of [L, N]) {
        const ids = counted.get(site.sid)!.map((index) => w.contents[index]!.candidateOn(site.sid)!.id);
        expect(job.outcomes.filter((outcome) => outcome.sid === site.sid).map((outcome) => [outcome.torrentId, outcome.group]).sort()).toEqual(ids.map((id) => [id, 'added']).sort());
        expect(downloads(w.tracker(site.sid)).slice(from.get(site.sid)).map((download) => [download.id, download.served])).toEqual(ids.map((id) => [id, true]));
        for (const index of counted.get(site.sid)!) {
          expect(await untilSeeding(readBack, w.contents[index]!.candidateOn(site.sid)!.torrent.hash)).toMatchObject({ savePath: w.savePathOf(daemon.dataDir, index), progress: 1 });
        }
      }
    });
  });
}
