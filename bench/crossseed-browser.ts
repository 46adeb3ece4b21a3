/**
 * "Cross-seed" clicked in Chromium until the client lists the torrent (issue #15: "a real click on
 * Cross-seed in Chromium until the client lists the torrent, per client and generation; median and
 * max of at least 20; budget ≤ 1 s max"; issue 26 adds rTorrent and Flood). For every client build of test/clients/daemons.ts
 * (bookworm's host binaries, today's releases in the trixie root, and Flood from npm: clientBuilds({ all: true })):
 *
 *  - the daemon, started as the tests start it, seeding CLICKS pairs of real content from the page's
 *    tracker (support/cross-seed-world.ts: HDSky's torrent in the client, the same files on OurBits
 *    under another info-hash);
 *  - the built extension in Chromium behind the e2e router, set up through the background's
 *    messages (the user's settings and sites, the client), the user logged in on both trackers in
 *    a tab;
 *  - for each pair: its details page, the popup for that tab, "In your client" shown, then a
 *    Playwright click on the OurBits candidate's "Cross-seed" (a trusted click: CDP mouse input),
 *    timed in Node from the click call until the client's own API (the adapter's lookup(), polled
 *    back to back) lists the candidate's hash.
 *
 * The site's pace (SITE_GAP_MS from the end of one download from OurBits to the start of the next)
 * is waited out before each click and not counted: a person does not click twenty times a second,
 * and the figure is the work a click starts, not the queue. What the client does after listing it
 * (a check, a start) is not part of the figure.
 *
 * A build that cannot start (today's clients not installed) is a problem of the run, not skipped.
 */
import { pathToFileURL } from 'node:url';
import type { Page as PlaywrightPage } from 'playwright-core';
import { clientBuilds, startClient, type ClientBuild, type ClientGeneration, type RunningDaemon } from '../test/clients/daemons';
import { DEFAULT_EXTENSION_DIRS, launchBrowser, type HarnessBrowser, type HarnessPage } from '../test/e2e/harness/index.ts';
import { CANDIDATE_SITE, crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld, type TestTracker } from '../test/e2e/support/cross-seed-world';
import { settledView } from '../test/e2e/support/popup';
import { until } from '../test/e2e/support/wait';
import { CLIENT_KINDS, CLIENT_NAMES, type ClientKind, type TorrentClient } from '../utils/clients/client-types';
import { SITE_GAP_MS } from '../utils/cross-seed-engine/site-queue';
import { measuredOrNoted, median, type BenchOutcome, type Figure } from './figures';
import { ownClient } from '../test/clients/own-client';

/** Clicks per build, each on a different candidate. */
export const CLICKS = 20;
/** The budget for the slowest click. */
const MAX_BUDGET_MS = 1000;
/** Past the pace's gap before clicking: timers fire a little late or early on a busy machine. */
const PACE_MARGIN_MS = 25;


interface Click {
  /** The click call → the client's lookup() lists the candidate. */
  ms: number;
  /** The click call → Playwright's click returned (the mouse events dispatched into the popup). */
  dispatchMs: number;
  /** The click call → the candidate's .torrent requested from OurBits (the router's clock is Node's). */
  toDownloadMs: number;
  /** The popup's outcome class and kind once it is no longer running ("ok added", …). */
  outcome: string;
  trusted: boolean;
}

/** "qBittorrent 5.3.0 (current)": the version the daemon printed, without qBittorrent's "v" or a build suffix. */
export function buildLabel(build: ClientBuild, version: string): string {
  const plain = version.replace(/^v/, '').replace(/\s*\(.*\)$/, '');
  return `${CLIENT_NAMES[build.kind]} ${plain} (${build.generation})`;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The popup's row of the candidate and its "Cross-seed" button, in the OurBits group. */
const buttonOf = (candidateId: number) => `li.site[data-sid="${CANDIDATE_SITE.sid}"] li.torrent:has(a.candidate-link[href$="id=${candidateId}"]) button.cross-seed`;
const outcomeOf = (candidateId: number) => `li.site[data-sid="${CANDIDATE_SITE.sid}"] li.torrent:has(a.candidate-link[href$="id=${candidateId}"]) .cross-seed-outcome:not(.running)`;

async function logIn(browser: HarnessBrowser, tracker: TestTracker): Promise<void> {
  const tab = await browser.newPage();
  await tab.goto(tracker.loginUrl('http'));
  await tab.close();
}

/** Polls `client` back to back until it lists `hash`; resolves with performance.now() of that answer. */
async function listedAt(client: TorrentClient, hash: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await client.lookup([hash]);
    const at = performance.now();
    if (found.has(hash)) return at;
    if (at > deadline) throw new Error(`the client did not list ${hash} within ${timeoutMs / 1000} s of the click`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** CLICKS clicks on one build; the daemon is started and stopped here. */
async function measureBuild(build: ClientBuild, cs: CrossSeedWorld, extensionDir: string, log: (line: string) => void): Promise<{ label: string; clicks: Click[] }> {
  let daemon: RunningDaemon | undefined;
  let browser: HarnessBrowser | undefined;
  try {
    daemon = await startClient(build);
    const label = buildLabel(build, daemon.version);
    const reader = ownClient(daemon);
    const dataDir = daemon.dataDir;
    // One at a time: twenty at once, Deluge 2.0.3 had not listed one of them after 60 s (a busy machine).
    for (const index of cs.pairs.keys()) await cs.seed(reader, dataDir, index);
    log(`  ${label}: ${cs.pairs.length} pairs seeding`);

    browser = await launchBrowser('chromium', { proxyPort: cs.world.router.port, extensionDir });
    const b = browser;
    const send = <T>(message: Record<string, unknown>) => b.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, message);
    await send({ type: 'settings:save', update: { ...crossSeedUserSettings(), privacyNoticeSeen: true } });
    const saved = await send<{ problem?: unknown }>({ type: 'clients:save', client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password } });
    if (saved.problem) throw new Error(`${label} not saved: ${JSON.stringify(saved.problem)}`);
    await logIn(b, cs.page);
    await logIn(b, cs.candidate);

    const clicks: Click[] = [];
    /** When the last click's torrent was listed: its download from OurBits had ended before. */
    let lastListed = Number.NEGATIVE_INFINITY;
    for (const [index, pair] of cs.pairs.entries()) {
      const marker = `bench-click=${build.kind}-${build.release}-${index}`;
      const tab = await b.newPage();
      await tab.goto(`${cs.page.detailsUrl(pair.sourceId)}&${marker}`);
      const tabId = await b.tabIdOf(marker);
      const view = await settledView(b, tabId, (seen) => seen.status === 'done' && seen.candidates.some((candidate) => candidate.torrentId === pair.candidateId));
      if (!view.candidates.some((candidate) => candidate.torrentId === pair.candidateId)) throw new Error(`pair ${index}: the page's view never had the OurBits candidate (${view.status})`);
      const popup: HarnessPage = await b.openExtensionPage(`popup.html?tabId=${tabId}`);
      await popup.bringToFront();
      // The popup as the user sees it before the click: "In your client" answered, the button there.
      await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
      const raw = popup.raw as PlaywrightPage;
      const button = raw.locator(buttonOf(pair.candidateId));
      await button.waitFor({ state: 'visible', timeout: 30_000 });
      await button.scrollIntoViewIfNeeded();
      await popup.evaluate((selector) => {
        const store = globalThis as unknown as { benchTrusted?: boolean };
        store.benchTrusted = undefined;
        document.querySelector(selector)?.addEventListener('click', (event) => (store.benchTrusted = event.isTrusted), { capture: true, once: true });
      }, buttonOf(pair.candidateId));
      if ((await reader.lookup([pair.candidate.hash])).has(pair.candidate.hash)) throw new Error(`pair ${index}: ${label} listed the candidate before the click`);

      // The site's pace, not counted: the previous download from OurBits ended before its torrent was listed.
      const wait = lastListed + SITE_GAP_MS + PACE_MARGIN_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));

      const downloadsBefore = cs.candidate.downloads.length;
      const clickAt = performance.now();
      const listed = listedAt(reader, pair.candidate.hash, 30_000);
      await button.click();
      const dispatchMs = performance.now() - clickAt;
      const at = await listed;
      lastListed = at;
      const download = cs.candidate.downloads.slice(downloadsBefore).find((seen) => seen.id === pair.candidateId);

      // The popup's own outcome, once settled (its words are the engine's; only ok / not ok is read).
      await popup.waitForSelector(outcomeOf(pair.candidateId), { timeoutMs: 60_000 });
      const outcome = await popup.evaluate((selector) => {
        const element = document.querySelector(selector);
        return `${element?.classList.contains('ok') ? 'ok' : 'problem'} ${element?.getAttribute('data-kind') ?? ''}`.trim();
      }, outcomeOf(pair.candidateId));
      const trusted = await popup.evaluate(() => (globalThis as unknown as { benchTrusted?: boolean }).benchTrusted === true);
      clicks.push({ ms: at - clickAt, dispatchMs, toDownloadMs: download ? download.at - clickAt : Number.NaN, outcome, trusted });
      await popup.close();
      await tab.close();
    }
    return { label, clicks };
  } finally {
    await browser?.close();
    await daemon?.stop();
  }
}

export async function measureCrossSeedClicks(options: { extensionDir: string; log?: (line: string) => void; builds?: ClientBuild[] }): Promise<BenchOutcome> {
  const log = options.log ?? (() => undefined);
  const builds = options.builds ?? clientBuilds({ all: true });
  const figures: Figure[] = [];
  const problems: string[] = [];
  const report: string[] = [
    `crossseed in Chromium (the built extension, a Playwright click on the popup's "Cross-seed" → the client's API lists the candidate; ${CLICKS} clicks per build, each a different candidate, OurBits' ${SITE_GAP_MS} ms pace waited out between them and not counted):`,
  ];
  const details: Record<string, unknown> = {};
  // One world for every build: its trackers and service do not depend on the client.
  const cs = await startCrossSeedWorld({ pairs: CLICKS });
  try {
    for (const build of builds) {
      const id = `crossseed.browser.${build.kind}-${build.release}`;
      log(`crossseed: ${build.label}, ${CLICKS} clicks in Chromium…`);
      const measured = await measuredOrNoted(build.label, () => measureBuild(build, cs, options.extensionDir, log), { problems, report });
      if (!measured) continue;
      const { label, clicks } = measured;
      const times = clicks.map((click) => click.ms);
      for (const [index, click] of clicks.entries()) {
        if (!click.trusted) problems.push(`${label}: click ${index + 1} did not reach the popup as a trusted click`);
        if (!click.outcome.startsWith('ok')) problems.push(`${label}: click ${index + 1}'s popup said ${click.outcome}`);
        if (!Number.isFinite(click.toDownloadMs)) problems.push(`${label}: click ${index + 1}'s candidate was listed without a download from OurBits`);
      }
      figures.push(
        {
          id: `${id}.median`,
          bench: 'crossseed',
          label: `Chromium, popup "Cross-seed" click → listed by ${label}: median of ${clicks.length}`,
          value: round(median(times)),
          unit: 'ms',
          budget: { op: '<=', limit: MAX_BUDGET_MS },
        },
        { id: `${id}.max`, bench: 'crossseed', label: `  … max of ${clicks.length}`, value: round(Math.max(...times)), unit: 'ms', budget: { op: '<=', limit: MAX_BUDGET_MS } },
      );
      const downloads = clicks.map((click) => click.toDownloadMs);
      const dispatch = clicks.map((click) => click.dispatchMs);
      report.push(
        `  ${label}: click → listed ${times.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${round(median(times))}, max ${round(Math.max(...times))})`,
        `    of which Playwright's click call returned (mouse events dispatched): ${dispatch.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${round(median(dispatch))})`,
        `    of which click → OurBits got the download request: ${downloads.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${round(median(downloads))})`,
      );
      details[id] = { label, clicks: clicks.map((click) => ({ ms: round(click.ms), dispatchMs: round(click.dispatchMs), toDownloadMs: round(click.toDownloadMs), outcome: click.outcome })) };
    }
  } finally {
    await cs.close();
  }
  return { figures, problems, report, details };
}

/**
 * Alone, on the build in .output/chrome-mv3 (`npm run build` first), optionally for some builds:
 *
 *   npx tsx bench/crossseed-browser.ts [qbittorrent|transmission|deluge|rtorrent] [bookworm|current]
 */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const kind = args.find((arg): arg is ClientKind => (CLIENT_KINDS as readonly string[]).includes(arg));
  const generation = args.find((arg): arg is ClientGeneration => ['bookworm', 'current'].includes(arg));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const outcome = await measureCrossSeedClicks({ extensionDir: DEFAULT_EXTENSION_DIRS.chromium, log, builds: clientBuilds({ all: true, kind, generation }) });
  console.log([...(outcome.report ?? []), ...outcome.figures.map((figure) => `${figure.label}: ${figure.value} ${figure.unit}`), ...(outcome.problems ?? []).map((problem) => `PROBLEM: ${problem}`)].join('\n'));
  process.exit(outcome.problems?.length ? 1 : 0);
}
