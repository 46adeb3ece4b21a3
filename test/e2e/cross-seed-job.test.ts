/**
 * Issue 17 end to end, in Chromium (English) and Firefox (Chinese): the built extension's page
 * "Cross-seed your client" (cross-seed.html) used as a person uses it, against a real qBittorrent
 * (CSRF protection on) holding the sources, the reference service and the test trackers of
 * support/cross-seed-world.ts (the user logged in on the candidate's site in a tab).
 *
 * With the index on, "Find what I can cross-seed" counts every candidate on the candidate's site;
 * its "Seconds between downloads" set to 1 and its "Downloads per day" to a cap below that count,
 * "Start cross-seeding" runs the job to its end: the tracker served exactly `cap` downloads, at
 * least a second apart; qBittorrent holds exactly those torrents beside their sources, complete;
 * the report lists them under "Added" and the rest under "Waiting for tomorrow"; a second "Find
 * what I can cross-seed" counts the rest as still to do, and nothing more is downloaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { JobView } from '../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { CANDIDATE_SITE, type CrossSeedWorld } from './support/cross-seed-world';
import { openCrossSeedWithIndexOn, setUpCrossSeedUser, startCrossSeedBrowser, type CrossSeedBrowser } from './support/cross-seed-user';
import { until } from './support/wait';
import { uiText } from './support/messages';

afterAll(closeAllBrowsers);


/** Content pairs in the client; the candidate's site also lists one "other files" release of pairs[0]. */
const PAIRS = 3;
/** "Downloads per day" set below the count. */
const CAP = 2;
const SID = CANDIDATE_SITE.sid;

describe.each(BROWSER_KINDS)('%s: "Cross-seed your client" runs a paced, capped job', (kind) => {
  const lang = kind === 'firefox' ? 'zh-CN' : 'en';
  const text = uiText(lang);
  let started: CrossSeedBrowser | undefined;
  let cross: CrossSeedWorld;
  let daemon: RunningDaemon;
  let client: TorrentClient;
  let browser: HarnessBrowser;
  let page: HarnessPage;
  /** Every candidate on the candidate's site, in the job's order (by torrent id). */
  let candidateIds: number[];

  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  const served = () => cross.candidate.downloads.filter((download) => download.served);

  beforeAll(async () => {
    // The sources in qBittorrent, as the user's own web UI added them: seeding at 100 % from the data folder.
    started = await startCrossSeedBrowser(kind, lang, { pairs: PAIRS }, () => startQbittorrent());
    ({ cross, daemon, client, browser } = started);
    candidateIds = [...cross.pairs.map((pair) => pair.candidateId), cross.differentFiles.id].sort((a, b) => a - b);
    // qBittorrent saved, and the user logged in on the candidate's site, as in their own browser.
    await setUpCrossSeedUser(browser, cross, { client: daemon });
  }, 240_000);

  afterAll(() => started?.close(), 60_000);

  it('with the index on, "Find what I can cross-seed" shows the exact count of the candidate\'s site, ready and ticked', async () => {
    // The index off: the page's own offer turns it on; its first sync ends before the count is read.
    page = await openCrossSeedWithIndexOn(browser);
    expect(await page.textContent('#job-find')).toBe(text('jobFind'));
    await page.click('#job-find');
    const row = `tr.job-site[data-sid="${SID}"]`;
    await page.waitForSelector(`${row}[data-readiness=ready]`, { timeoutMs: 30_000 });
    const seen = await page.evaluate((css) => {
      const tr = document.querySelector(css)!;
      return {
        count: tr.querySelector('td.count')?.firstChild?.textContent?.trim(),
        ticked: (tr.querySelector('input.tick') as HTMLInputElement).checked,
        seconds: (tr.querySelector('input.seconds-between') as HTMLInputElement).value,
        perDay: (tr.querySelector('input.per-day') as HTMLInputElement).value,
        labels: [...tr.querySelectorAll('.pace-fields label')].map((label) => label.textContent),
      };
    }, row);
    expect(seen).toEqual({ count: String(candidateIds.length), ticked: true, seconds: '5', perDay: '20', labels: [text('jobSecondsBetween'), text('jobPerDay')] });
    expect(cross.candidate.downloads).toEqual([]);
  });

  it(`"Seconds between downloads" 1 and "Downloads per day" ${CAP}, saved for the site`, async () => {
    const row = `tr.job-site[data-sid="${SID}"]`;
    // Typed, then left (the change a person makes), one field after the other.
    await page.fill(`#seconds-${SID}`, '1');
    await page.click('#page-title');
    await page.fill(`#per-day-${SID}`, String(CAP));
    await page.click('#page-title');
    await until(() => page.textContent(`${row} td.used-today`), (said) => said === text('jobUsedToday', '0', String(CAP)), 'the cap shown in the row');
    // Found again: the stored pace comes back in the fields.
    await page.click('#job-find');
    await until(
      () => page.evaluate((css) => [(document.querySelector(`${css} input.seconds-between`) as HTMLInputElement | null)?.value, (document.querySelector(`${css} input.per-day`) as HTMLInputElement | null)?.value], row),
      (values) => values[0] === '1' && values[1] === String(CAP),
      'the saved pace',
      30_000,
    );
  });

  it('"Start cross-seeding": the job ends with exactly the cap downloaded, a second apart, added to qBittorrent beside the sources; the report says so', async () => {
    await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
    expect(await page.textContent('#job-start')).toBe(text('jobStart'));
    await page.click('#job-start');
    // The page says the job is done; the background says the same.
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 120_000 });
    expect(await page.textContent('#job-progress .overall-text strong')).toBe(text('jobStateDone'));
    const job = await message<JobView>({ type: 'job:status' });
    expect(job.state).toBe('done');

    const added = candidateIds.slice(0, CAP);
    const rest = candidateIds.slice(CAP);
    // The tracker's log: exactly `CAP` downloads, those of the first candidates, at least a second apart.
    const downloads = served();
    expect(downloads.map((download) => download.id)).toEqual(added);
    expect(cross.candidate.downloads).toHaveLength(CAP);
    for (let index = 1; index < downloads.length; index++) expect(downloads[index]!.at - downloads[index - 1]!.at).toBeGreaterThanOrEqual(1000);

    // qBittorrent: exactly those, beside their sources, complete.
    const hashOf = (id: number) => cross.pairs.find((pair) => pair.candidateId === id)?.candidate.hash ?? cross.differentFiles.torrent.hash;
    for (const id of added) expect(await untilSeeding(client, hashOf(id))).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    const held = (await client.list()).map((torrent) => torrent.hash).sort();
    expect(held).toEqual([...cross.pairs.map((pair) => pair.source.hash), ...added.map(hashOf)].sort());

    // The report: "Added" lists them, "Waiting for tomorrow" the rest.
    const report = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('#job-report .report-group')].map((group) => [
          group.getAttribute('data-group'),
          {
            heading: group.querySelector('h3')?.firstChild?.textContent?.trim(),
            ids: [...group.querySelectorAll('li.outcome a')].map((link) => Number(/[?&]id=(\d+)/.exec(link.getAttribute('href') ?? '')?.[1])),
          },
        ]),
      ),
    );
    // A site goes on once a torrent is added stopped: outcomes land in the order their checks end, so rows are compared in id order.
    for (const group of Object.values(report) as { ids: number[] }[]) group.ids.sort((a, b) => a - b);
    expect(report).toEqual({
      added: { heading: text('jobGroupAdded'), ids: added },
      'waiting-for-tomorrow': { heading: text('jobGroupWaiting'), ids: rest },
    });
  });

  it('a second "Find what I can cross-seed" counts the rest as still to do, and nothing more is downloaded', async () => {
    const before = cross.candidate.downloads.length;
    await page.click('#job-find');
    const row = `tr.job-site[data-sid="${SID}"]`;
    const seen = await until(
      () =>
        page.evaluate(
          (css) => ({
            count: document.querySelector(`${css} td.count`)?.firstChild?.textContent?.trim(),
            usedToday: document.querySelector(`${css} td.used-today`)?.textContent,
          }),
          row,
        ),
      (now) => now.count === String(candidateIds.length - CAP),
      'the rest counted',
      30_000,
    );
    expect(seen.usedToday).toBe(text('jobUsedToday', String(CAP), String(CAP)));
    expect(cross.candidate.downloads.length).toBe(before);
    expect((await message<JobView>({ type: 'job:status' })).state).toBe('done');
  });
});
