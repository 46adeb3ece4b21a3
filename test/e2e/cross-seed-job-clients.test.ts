/**
 * Issue 17 end to end with the clients other than qBittorrent, and a site that stops alone: the
 * built extension's page "Cross-seed your client" (cross-seed.html) used as a person uses it, in
 * Chromium (English) and Firefox (Chinese), each against a real Transmission, Deluge, rTorrent and Flood
 * (test/clients/daemons.ts: Transmission 3.00, Deluge 2.2 and rTorrent 0.16 in one browser;
 * Deluge 2.0, Transmission 4.1, rTorrent 0.9.8 and Flood 4.16 over rTorrent 0.16 in the other), each set up through the options page's "Torrent clients" form.
 *
 * The user holds three sites and is logged in on two of them with finds: the candidate's site
 * (OurBits: every pair's candidate and one release with other files) and SpringSunday (pairs[0]'s
 * own torrent there), which answers the download as NexusPHP does for a user who has not confirmed
 * its first-download notice: a redirect to downloadnotice.php (the browser shows no more than an
 * opaque redirect; the extension reads the details page once to tell it from its login). One
 * "Start cross-seeding" runs both: SpringSunday's row stops alone, saying in words that the site
 * wants its notice confirmed, with a link to open it; OurBits goes on to the end.
 * Checked from the trackers' logs and the client: each candidate downloaded once, added once beside
 * its source (the source's save path), at 100 %; the other release and the notice's torrent not added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { JobView } from '../../features/cross-seed-job/cross-seed-job.messages';
import { clientBuilds, startClient, type ClientBuild, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, type BrowserKind, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { fillClientForm, openClientsOptions, pressSaveClient, pressTestClient } from './support/client-options';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, type CrossSeedWorld } from './support/cross-seed-world';
import { openCrossSeedWithIndexOn, setUpCrossSeedUser, startCrossSeedBrowser, type CrossSeedBrowser } from './support/cross-seed-user';
import { until } from './support/wait';
import { uiText } from './support/messages';

afterAll(closeAllBrowsers);


/** Content pairs in the client: their candidates on OurBits, and pairs[0]'s on SpringSunday too. */
const PAIRS = 2;

/** Each other client's release in one browser (bookworm's with the one, today's with the other): the notice in both browsers, twice. */
const build = (kind: 'transmission' | 'deluge' | 'rtorrent' | 'flood', generation: 'bookworm' | 'current') => clientBuilds({ kind, generation })[0]!;
const CASES = (
  [
    ['chromium', build('transmission', 'bookworm')],
    ['chromium', build('deluge', 'current')],
    ['chromium', build('rtorrent', 'current')],
    ['firefox', build('deluge', 'bookworm')],
    ['firefox', build('transmission', 'current')],
    ['firefox', build('rtorrent', 'bookworm')],
    ['firefox', build('flood', 'current')],
  ] as [BrowserKind, ClientBuild][]
).map(([kind, clientBuild]) => ({ kind, build: clientBuild, label: clientBuild.label }));

describe.each(CASES.filter((entry) => BROWSER_KINDS.includes(entry.kind)))('$kind with $label: the job through "Cross-seed your client"; a first-download notice stops its site alone', ({ kind, build: clientBuild }) => {
  const lang = kind === 'firefox' ? 'zh-CN' : 'en';
  const text = uiText(lang);
  let started: CrossSeedBrowser | undefined;
  let cross: CrossSeedWorld;
  let daemon: RunningDaemon;
  let client: TorrentClient;
  let browser: HarnessBrowser;
  let page: HarnessPage;
  const SID = CANDIDATE_SITE.sid;
  const NOTICE_SID = OTHER_SITE.sid;

  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  const downloadsOf = (tracker: CrossSeedWorld['candidate']) => tracker.downloads.filter((download) => download.path.startsWith('/download.php'));

  beforeAll(async () => {
    // The sources in the client, as the user's own web UI added them: seeding at 100 % from the data folder.
    started = await startCrossSeedBrowser(kind, lang, { pairs: PAIRS, otherSite: true }, () => startClient(clientBuild));
    ({ cross, daemon, client, browser } = started);
    // SpringSunday sends a logged-in user's download to its first-download notice.
    cross.other!.tracker.firstDownloadNotice = 'redirect';
    // The user holds SpringSunday too and is logged in on both sites with finds, as in their own browser;
    // the client set up as a person does: the options page's form, Test client, Save client.
    await setUpCrossSeedUser(browser, cross, {
      alsoHeld: [NOTICE_SID],
      alsoLoggedInOn: [cross.other!.tracker],
      client: async () => {
        const options = await openClientsOptions(browser);
        await fillClientForm(options, daemon);
        expect(await pressTestClient(options)).toMatchObject({ ok: true });
        await pressSaveClient(options);
        await options.close();
      },
    });
  }, 300_000);

  afterAll(() => started?.close(), 60_000);

  it('"Find what I can cross-seed" counts both sites\' finds, ready and ticked; "Start cross-seeding" runs the job to its end', async () => {
    page = await openCrossSeedWithIndexOn(browser);
    await page.click('#job-find');
    const row = (sid: number) => `tr.job-site[data-sid="${sid}"]`;
    for (const sid of [SID, NOTICE_SID]) await page.waitForSelector(`${row(sid)}[data-readiness=ready]`, { timeoutMs: 30_000 });
    const counts = await page.evaluate(
      (rows) => rows.map((css) => [document.querySelector(`${css} td.count`)?.firstChild?.textContent?.trim(), (document.querySelector(`${css} input.tick`) as HTMLInputElement | null)?.checked]),
      [row(SID), row(NOTICE_SID)],
    );
    expect(counts).toEqual([
      [String(PAIRS + 1), true],
      ['1', true],
    ]);
    // OurBits a second apart (typed, then left, as a person does); SpringSunday keeps its default.
    await page.fill(`#seconds-${SID}`, '1');
    await page.click('#page-title');
    await until(() => message<{ sites: { sid: number; secondsBetween: number }[] }>({ type: 'job:preview' }), (preview) => preview.sites.find((site) => site.sid === SID)?.secondsBetween === 1, 'the pace saved', 30_000);
    await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
    await page.waitForSelector(`#tick-${NOTICE_SID}:checked`, { timeoutMs: 30_000 });
    expect(downloadsOf(cross.candidate)).toEqual([]);

    await page.click('#job-start');
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 240_000 });
    expect((await message<JobView>({ type: 'job:status' })).state).toBe('done');
  });

  it(`${clientBuild.label} holds each candidate once, beside its source, at 100 %; each was downloaded once`, async () => {
    const ids = cross.pairs.map((pair) => pair.candidateId);
    // OurBits' log: every find asked for once, in the job's order, each served.
    expect(downloadsOf(cross.candidate).map((download) => [download.id, download.served])).toEqual([...ids, cross.differentFiles.id].map((id) => [id, true]));
    // SpringSunday's: the one find asked for once, answered with the notice (no .torrent).
    expect(downloadsOf(cross.other!.tracker).map((download) => [download.id, download.served])).toEqual([[cross.other!.id, false]]);
    // Nothing asked of the page's site (its torrents are the sources).
    expect(downloadsOf(cross.page)).toEqual([]);

    for (const pair of cross.pairs) expect(await untilSeeding(client, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    const held = (await client.list()).map((torrent) => torrent.hash).sort();
    expect(held).toEqual(cross.pairs.flatMap((pair) => [pair.source.hash, pair.candidate.hash]).sort());
  });

  it('SpringSunday\'s row stops alone, saying the site wants its notice confirmed, with a link to open it; OurBits\' row is done; the report groups them', async () => {
    const site = (sid: number) => `li.site-progress[data-sid="${sid}"]`;
    const rows = await page.evaluate(
      (css) =>
        css.map((selector) => {
          const li = document.querySelector(selector);
          return {
            state: li?.getAttribute('data-state'),
            name: li?.querySelector('.site-name')?.textContent,
            lines: [...(li?.querySelectorAll('.problem-line') ?? [])].map((line) => line.textContent?.trim()),
            open: li?.querySelector('a.open-site')?.getAttribute('href'),
            openText: li?.querySelector('a.open-site')?.textContent,
          };
        }),
      [site(SID), site(NOTICE_SID), site(PAGE_SITE.sid)],
    );
    const [ourbits, notice] = rows;
    expect(ourbits).toMatchObject({ state: 'done', lines: [], open: undefined });
    const noticeName = notice!.name!;
    expect(notice).toEqual({
      state: 'stopped',
      name: noticeName,
      lines: [text('crossSeedSiteNotice', noticeName)],
      open: cross.other!.tracker.detailsUrl(cross.other!.id, 'http'),
      openText: text('jobOpenSite', noticeName),
    });

    const report = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('#job-report .report-group')].map((group) => [
          group.getAttribute('data-group'),
          [...group.querySelectorAll('li.outcome a')].map((link) => link.getAttribute('href')),
        ]),
      ),
    );
    const details = (tracker: CrossSeedWorld['candidate'], id: number) => tracker.detailsUrl(id, 'http');
    expect(report).toEqual({
      added: cross.pairs.map((pair) => details(cross.candidate, pair.candidateId)),
      'files-differ': [details(cross.candidate, cross.differentFiles.id)],
      'site-problem': [details(cross.other!.tracker, cross.other!.id)],
    });
  });
});
