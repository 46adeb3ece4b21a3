/**
 * Issue 18 end to end: the user's NexusPHP sites asked by pieces hash, in the built extension, in
 * Chromium (English, qBittorrent 4.5.2, NO IYUU token) and Firefox (Chinese, qBittorrent 5.3 from
 * the trixie root, WITH a token whose service names one of the copies by info-hash).
 *
 * The user's client seeds two sources from HDSky; OurBits (support/pieces-hash-world.ts: a test
 * tracker and the pieces-hash API on one host) holds a copy of each (same bytes, another info-hash;
 * one under another root folder name: a renamed copy only pieces hashes find, added renamed).
 * Everything is done as a person does it: sites picked, passkey typed, "Ask this site by pieces
 * hash" ticked and tested in the options page, the client set up through its form, the index turned
 * on and synced there; then the popup on a source's details page and on OurBits' list page, and
 * "Cross-seed your client" run to its end, read back from qBittorrent itself.
 * Three more sites fail each their own way (wrong passkey, no API, rate limited): the Test and the
 * sync say so in words. Last, the passkeys are looked for everywhere they must not be: page text,
 * console messages, and every request the browser sent except the site's own API and downloads.
 */
import type { Page as PlaywrightPage, BrowserContext, ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { IndexStatusView } from '../../features/client-index/client-index.messages';
import type { JobView } from '../../features/cross-seed-job/cross-seed-job.messages';
import { clientBuilds, startClient, type ClientBuild, type RunningDaemon } from '../clients/daemons';
import { ownClient } from '../clients/own-client';
import { untilSeeding } from '../clients/seeding';
import { DEMO_TOKEN } from '../service/server';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type BrowserKind, type HarnessBrowser, type HarnessPage, type RecordedRequest } from './harness/index.ts';
import { fillClientForm, openClientsOptions, pressSaveClient, pressTestClient } from './support/client-options';
import { PAGE_SITE } from './support/cross-seed-world';
import { uiText } from './support/messages';
import { NO_API_SITE, PIECES_SITE, RATE_LIMIT_RETRY_AFTER, RATE_LIMITED_SITE, RENAMED_PAIR, startPiecesHashWorld, WRONG_PASSKEY_SITE, type PiecesHashWorld } from './support/pieces-hash-world';
import { configureThroughOptions, panelContent, tabView } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';
import { SERVICE_BASE_URL, SERVICE_HOST } from './world';

afterAll(closeAllBrowsers);

const qbittorrent = (generation: 'bookworm' | 'current', release: string): ClientBuild =>
  clientBuilds({ kind: 'qbittorrent', generation }).find((build) => build.release === release)!;

const CASES = [
  { kind: 'chromium' as BrowserKind, lang: 'en' as const, build: qbittorrent('bookworm', '4.5'), token: false },
  { kind: 'firefox' as BrowserKind, lang: 'zh-CN' as const, build: qbittorrent('current', '5.3'), token: true },
].map((entry) => ({ ...entry, label: entry.build.label, how: entry.token ? 'with an IYUU token' : 'without an IYUU token' }));

/** The pair whose copy the service names too (Firefox's user has a token). */
const NAMED_BY_IYUU = 0;

describe.each(CASES.filter((entry) => BROWSER_KINDS.includes(entry.kind)))('$kind ($lang) with $label, $how: sites asked by pieces hash', ({ kind, lang, build, token }) => {
  const text = uiText(lang);
  let pieces: PiecesHashWorld;
  let daemon: RunningDaemon | undefined;
  let client: TorrentClient;
  let browser: HarnessBrowser;
  /** Every console message of every extension page (and, in Chromium, of the background), as text. */
  const consoleLines: string[] = [];
  /** Pages whose text is checked for the passkey at the end (read while open). */
  const pageTexts: { where: string; text: string }[] = [];
  const SID = PIECES_SITE.sid;
  /** The passkey the user types for each site (the failing ones' own, except the wrong one). */
  const typedPasskey = new Map<number, string>();
  const WRONG_PASSKEY = 'ab'.repeat(16);

  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);

  /**
   * Listens to the console of every extension page open now, the background included (Chromium
   * listens once for the whole profile through CDP). Firefox's WebDriver BiDi reports no console
   * line of a moz-extension page, so there each extension view's console is wrapped from the helper
   * tab (extension.getViews), into a list the helper tab keeps: what a page logs before it is
   * wrapped (while it loads) is not seen; the background is wrapped from the start.
   */
  const watch = async <T extends HarnessPage | undefined>(page?: T): Promise<T> => {
    if (kind !== 'firefox') return page as T;
    await browser.evaluateInExtension((api) => {
      const helper = globalThis as unknown as { reseedConsole?: string[] };
      const lines = (helper.reseedConsole ??= []);
      const said = (value: unknown) => {
        if (typeof value === 'string') return value;
        if (value && typeof value === 'object' && 'message' in value) return `${String((value as { name?: unknown }).name)}: ${String((value as { message?: unknown }).message)}`;
        try {
          return JSON.stringify(value) ?? String(value);
        } catch {
          return String(value);
        }
      };
      for (const view of api.extension.getViews()) {
        const watched = view as unknown as { reseedConsoleWatched?: boolean; console: Record<string, (...args: unknown[]) => void>; location: Location };
        if (watched.reseedConsoleWatched || view === (globalThis as unknown)) continue;
        watched.reseedConsoleWatched = true;
        const where = watched.location.pathname.includes('background') ? 'background' : 'page';
        for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
          const original = watched.console[level]!.bind(watched.console);
          watched.console[level] = (...args: unknown[]) => {
            lines.push(`${where}: ${level}: ${args.map(said).join(' ')}`);
            original(...args);
          };
        }
      }
    });
    return page as T;
  };
  /** The console lines seen so far (Firefox's are kept by the helper tab). */
  const consoleSeen = async (): Promise<string[]> =>
    kind === 'firefox' ? [...consoleLines, ...(await browser.evaluateInExtension(() => (globalThis as unknown as { reseedConsole?: string[] }).reseedConsole ?? []))] : consoleLines;

  const readText = async (where: string, page: HarnessPage) => {
    pageTexts.push({ where, text: await page.evaluate(() => `${document.body.innerText}\n${document.documentElement.outerHTML}`) });
  };

  beforeAll(async () => {
    pieces = await startPiecesHashWorld({ iyuuNames: token ? [NAMED_BY_IYUU] : [] });
    for (const [sid, site] of pieces.failing) typedPasskey.set(sid, sid === WRONG_PASSKEY_SITE.sid ? WRONG_PASSKEY : site.passkey);
    typedPasskey.set(SID, pieces.api.passkey);
    daemon = await startClient(build);
    client = ownClient(daemon);
    await pieces.seed(client, daemon.dataDir);
    browser = await launchBrowser(kind, { proxyPort: pieces.world.router.port, lang });
    if (kind === 'chromium') {
      const context = ((await browser.newPage()).raw as PlaywrightPage).context() as BrowserContext;
      const record = (from: string) => (line: ConsoleMessage) => consoleLines.push(`${from}: ${line.text()} (${line.location().url})`);
      context.on('console', record('page'));
      for (const worker of context.serviceWorkers()) worker.on('console', record('background'));
      context.on('serviceworker', (worker) => worker.on('console', record('background')));
    }
    await watch();
    // Past the first-run notice, as any returning user.
    await message({ type: 'settings:save', update: { privacyNoticeSeen: true, askedForSites: true } });
    if (token) await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
    // Logged in on HDSky and OurBits, as in their own browser.
    const login = await browser.newPage();
    for (const tracker of [pieces.page, pieces.tracker]) await login.goto(tracker.loginUrl('http'));
    await login.close();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await pieces?.close();
    await daemon?.stop();
  }, 60_000);

  /** Ticks these sites in "Your sites" (found by their short name) and saves. */
  async function holdSites(options: HarnessPage, sites: { sid: number; site: string }[]): Promise<void> {
    await options.waitForSelector('#site-list input', { timeoutMs: 30_000 });
    for (const { sid, site } of sites) {
      await options.fill('#site-search', site);
      await options.waitForSelector(`#site-list input[value="${sid}"]`, { state: 'visible' });
      const ticked = await options.evaluate((value) => document.querySelector<HTMLInputElement>(`#site-list input[value="${value}"]`)!.checked, sid);
      if (!ticked) await options.click(`#site-list input[value="${sid}"]`);
    }
    await options.fill('#site-search', '');
    const before = await options.textContent('#sites-saved-state');
    await options.click('#sites-save');
    await until(() => options.textContent('#sites-saved-state'), (now) => now !== before, 'the sites saved');
    await options.waitForSelector('#sites-status.ok');
  }

  /**
   * In each site's fieldset of "Your sites' addresses": http (the test sites serve no TLS), the
   * passkey typed, "Ask this site by pieces hash" ticked (when `ask`), then "Save".
   */
  async function fillSiteFields(options: HarnessPage, sids: number[], ask: boolean): Promise<void> {
    for (const sid of sids) {
      await options.waitForSelector(`#override-scheme-${sid}`, { timeoutMs: 30_000 });
      await options.select(`#override-scheme-${sid}`, 'http');
      const passkey = typedPasskey.get(sid);
      if (passkey) await options.fill(`#site-passkey-${sid}`, passkey);
      if (ask && !(await options.evaluate((id) => (document.getElementById(id) as HTMLInputElement).checked, `pieces-hash-${sid}`))) await options.click(`#pieces-hash-${sid}`);
    }
    await options.click('#overrides-save');
    await options.waitForSelector('#overrides-status.ok', { timeoutMs: 30_000 });
  }

  const siteNameIn = (options: HarnessPage, sid: number) => until(() => options.textContent(`fieldset[data-sid="${sid}"] legend`), (name) => !!name, `the name of site ${sid}`) as Promise<string>;

  /** Every request the router got while the last Test was under way (click to answer), any host. */
  let duringLastTest: RecordedRequest[] = [];

  /** Presses a site's Test and gives what its status line then says. */
  async function pressTest(options: HarnessPage, sid: number): Promise<string> {
    const status = `#pieces-hash-test-status-${sid}`;
    const before = (await options.textContent(status)) ?? '';
    const from = pieces.world.router.requests.length;
    await options.click(`#pieces-hash-test-${sid}`);
    return until(
      () => options.evaluate((css) => ({ text: document.querySelector(css)?.textContent ?? '', working: !!document.querySelector(`${css}.working`) }), status),
      (now) => !now.working && !!now.text && now.text !== before,
      `what Test of site ${sid} says`,
      30_000,
    ).then((now) => {
      duringLastTest = pieces.world.router.requests.slice(from);
      return now.text;
    });
  }

  /**
   * What a Test of `site` went by, for its assertion's message: every request the site's host got
   * (scheme, host, path, answer), every request of any host while that Test was under way (where it
   * went, if not there), what the background has stored for the site (address override,
   * pieces-hash choice; whether a passkey is saved, never the passkey) and what the form shows.
   */
  async function testEvidence(options: HarnessPage, site: { sid: number; host: string }): Promise<string> {
    const stored = await browser.evaluateInExtension(async (api, key) => {
      const settings = (await api.storage.local.get('settings')).settings as { siteOverrides?: Record<string, unknown>; piecesHashSites?: Record<string, unknown>; sitePasskeys?: Record<string, string> };
      return { override: settings.siteOverrides?.[key] ?? null, piecesHash: settings.piecesHashSites?.[key] ?? null, passkeySaved: !!settings.sitePasskeys?.[key] };
    }, String(site.sid));
    const form = await options.evaluate((sid) => ({
      scheme: (document.getElementById(`override-scheme-${sid}`) as HTMLSelectElement | null)?.value ?? null,
      host: (document.getElementById(`override-host-${sid}`) as HTMLInputElement | null)?.value ?? null,
      path: (document.getElementById(`pieces-hash-path-${sid}`) as HTMLInputElement | null)?.value ?? null,
      overridesStatus: document.getElementById('overrides-status')?.className ?? null,
    }), site.sid);
    const during = duringLastTest.map((request) => `  ${request.method} ${request.url} → ${request.status ?? 'no answer'}`).join('\n') || '  (none)';
    return `${pieces.requestsSeenBy(site.host)}\nevery request while the Test was under way (any host):\n${during}\nstored for site ${site.sid}: ${JSON.stringify(stored)}\nthe form shows: ${JSON.stringify(form)}`;
  }

  const piecesSites = (options: HarnessPage) =>
    options.evaluate(() => [...document.querySelectorAll('#index-pieces-sites li')].map((li) => ({ sid: Number(li.getAttribute('data-sid')), outcome: li.getAttribute('data-outcome'), text: li.textContent ?? '' })));
  const lastSyncAt = async () => (await message<IndexStatusView>({ type: 'index:status' })).lastSync?.at ?? 0;

  /** "Sync now", then the finished sync's report of each site. */
  async function syncNow(options: HarnessPage): Promise<Awaited<ReturnType<typeof piecesSites>>> {
    await options.waitForSelector('#index-sync:not([disabled])', { timeoutMs: 60_000 });
    const before = await lastSyncAt();
    await options.click('#index-sync');
    await until(lastSyncAt, (at) => at > before, 'the sync to end', 120_000);
    await options.waitForSelector('#index-last-sync', { timeoutMs: 30_000 });
    return until(() => piecesSites(options), (sites) => sites.length > 0, 'the sites asked in the sync');
  }

  let options: HarnessPage;
  let ourbitsName: string;

  it('Options: OurBits picked, its passkey typed, "Ask by pieces hash" ticked and saved; Test says it works', async () => {
    options = await watch(await browser.openExtensionPage('options.html'));
    await options.bringToFront();
    await holdSites(options, [PAGE_SITE, PIECES_SITE]);
    await fillSiteFields(options, [PAGE_SITE.sid], false);
    await fillSiteFields(options, [SID], true);
    const stored = await browser.evaluateInExtension(async (api) => (await api.storage.local.get('settings')).settings as { piecesHashSites?: unknown; sitePasskeys?: Record<string, string> });
    expect(stored.piecesHashSites).toEqual({ [SID]: { on: true } });
    ourbitsName = await siteNameIn(options, SID);
    const before = pieces.api.requests.length;
    expect(await pressTest(options, SID), await testEvidence(options, PIECES_SITE)).toBe(text('piecesHashWorks', ourbitsName));
    // One request, with the passkey, asking one pieces hash no torrent has.
    expect(pieces.api.requests.slice(before)).toEqual([expect.objectContaining({ status: 200, asked: 1 })]);
    await readText('options after Test', options);
  });

  it(`the client set up through its form; the index turned on and synced: OurBits found both copies${token ? '' : ' (no token needed)'}`, async () => {
    const clients = await watch(await openClientsOptions(browser));
    await fillClientForm(clients, daemon!);
    expect(await pressTestClient(clients)).toMatchObject({ ok: true });
    await pressSaveClient(clients);
    await clients.close();

    await options.reload();
    await options.bringToFront();
    await options.waitForSelector('#index-enabled', { state: 'visible', timeoutMs: 30_000 });
    const asked = pieces.api.requests.length;
    await options.click('#index-enabled');
    // The sync the switch starts: its end shows how OurBits answered.
    const first = await until(
      () => piecesSites(options),
      (sites) => sites.some((site) => site.sid === SID),
      'the first sync asking OurBits',
      120_000,
    );
    expect(first).toEqual([{ sid: SID, outcome: 'done', text: text('indexPiecesSiteDone', ourbitsName, '2', '2', '1') }]);
    expect(pieces.api.requests.slice(asked)).toEqual([expect.objectContaining({ status: 200, asked: 2 })]);
    expect(await options.textContent('#index-last-sync')).toBeTruthy();
    expect(await options.evaluate(() => document.querySelector('#index-last-sync')?.getAttribute('data-outcome'))).toBe('done');

    // "Sync now": OurBits answered this week, so nothing is asked again; the finds stay.
    const again = await syncNow(options);
    expect(again).toEqual([expect.objectContaining({ sid: SID, outcome: 'done' })]);
    expect(pieces.api.requests.length).toBe(asked + 1);
    expect((await message<IndexStatusView>({ type: 'index:status' })).counts).toMatchObject({ torrents: 2, canCrossSeed: 2 });
    if (!token) expect(pieces.world.router.requestsTo(SERVICE_HOST)).toEqual([]);
    await readText('options after sync', options);
  });

  /** The popup's candidates for a tab, once it lists `count` of them. */
  async function popupCandidates(tabId: number, count: number) {
    const popup = await watch(await browser.openExtensionPage(`popup.html?tabId=${tabId}`));
    const read = () =>
      popup.evaluate(() =>
        [...document.querySelectorAll('li.site')].flatMap((site) =>
          [...site.querySelectorAll('li.torrent')].map((row) => ({
            sid: Number(site.getAttribute('data-sid')),
            href: row.querySelector<HTMLAnchorElement>('a.candidate-link')?.getAttribute('href') ?? null,
            foundBy: row.querySelector('.tag.found-by')?.getAttribute('data-found-by') ?? null,
            tagText: row.querySelector('.tag.found-by')?.textContent ?? null,
          })),
        ),
      );
    const shown = await until(read, (rows) => rows.length >= count, `${count} candidates in the popup`, 30_000);
    return { popup, shown };
  }

  it('on a source\'s details page, the popup lists its copy on OurBits found by pieces hash (both sources where the service names it too); the in-page panel shows no pieces-only copy', async () => {
    for (const [index, pair] of pieces.pairs.entries()) {
      const tab = await watch(await browser.newPage());
      await tab.goto(pieces.page.detailsUrl(pair.sourceId, 'http'));
      const tabId = await browser.tabIdOf(`hdsky.me/details.php?id=${pair.sourceId}`);
      await until(() => tabView(browser, tabId), (view) => view.kind === 'details' && !['reading', 'looking-up'].includes(view.status) && view.hashes.length > 0, 'the page read', 30_000);
      const byBoth = token && index === NAMED_BY_IYUU;
      const { popup, shown } = await popupCandidates(tabId, 1);
      const copyLink = pieces.tracker.detailsUrl(pair.copyId, 'http');
      expect(shown).toEqual([{ sid: SID, href: copyLink, foundBy: byBoth ? 'both' : 'pieces', tagText: text(byBoth ? 'foundByBoth' : 'foundByPieces') }]);
      await readText(`popup of source ${index}`, popup);
      await popup.close();

      // The page's panel never hears of what only pieces hashes found (content scripts get no such candidate).
      const panel = await panelContent(tab);
      const links = panel?.links ?? [];
      expect(links).toEqual(byBoth ? [copyLink] : []);
      const panelHtml = await inPanel(tab, (root) => root.innerHTML);
      // Not even its number: the page's panel is the same whatever pieces hashes found.
      if (!byBoth) expect(panelHtml ?? '').not.toContain(String(pair.copyId));
      pageTexts.push({ where: `panel of source ${index}`, text: panelHtml ?? '' });
      await tab.close();
    }
  });

  it("on OurBits' list page, the popup says both copies' rows can be cross-seeded", async () => {
    const tab = await watch(await browser.newPage());
    await tab.goto(pieces.listPage.url);
    const tabId = await browser.tabIdOf(`${PIECES_SITE.host}/torrents.php`);
    await until(() => tabView(browser, tabId), (view) => view.kind === 'list' && !!view.rows?.length && !['reading', 'looking-up'].includes(view.status), 'the list page read', 30_000);
    const popup = await watch(await browser.openExtensionPage(`popup.html?tabId=${tabId}`));
    await popup.waitForSelector('.list-index[data-state=answered]', { timeoutMs: 30_000 });
    const listed = await popup.evaluate(() => ({
      heading: document.querySelector('#index-cross-seed-heading')?.textContent,
      canCrossSeed: [...document.querySelectorAll('ul.can-cross-seed li.index-row')].map((row) => row.getAttribute('data-row-id')).sort(),
    }));
    expect(listed).toEqual({ heading: text('indexCanCrossSeedHeading', String(pieces.pairs.length)), canCrossSeed: pieces.pairs.map((pair) => String(pair.copyId)).sort() });
    await readText('popup of the list page', popup);
    await popup.close();
    await tab.close();
  });

  it('"Cross-seed your client": Find counts both copies on OurBits; the job adds each, read back from qBittorrent at 100 % beside its source; each downloaded once', async () => {
    const page = await watch(await browser.openExtensionPage('cross-seed.html'));
    await page.bringToFront();
    await page.waitForSelector('#job-find', { state: 'visible', timeoutMs: 30_000 });
    await page.click('#job-find');
    const row = `tr.job-site[data-sid="${SID}"]`;
    await page.waitForSelector(`${row}[data-readiness=ready]`, { timeoutMs: 60_000 });
    expect(await page.evaluate((css) => document.querySelector(`${css} td.count`)?.firstChild?.textContent?.trim(), row)).toBe('2');
    // A second apart (typed, then left, as a person does).
    await page.fill(`#seconds-${SID}`, '1');
    await page.click('#page-title');
    await until(() => message<{ sites: { sid: number; secondsBetween: number }[] }>({ type: 'job:preview' }), (preview) => preview.sites.find((site) => site.sid === SID)?.secondsBetween === 1, 'the pace saved', 30_000);
    await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
    const downloads = () => pieces.tracker.downloads.filter((download) => download.path.startsWith('/download.php'));
    expect(downloads()).toEqual([]);

    await page.click('#job-start');
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 240_000 });
    expect((await message<JobView>({ type: 'job:status' })).state).toBe('done');
    const report = await page.evaluate(() =>
      Object.fromEntries([...document.querySelectorAll('#job-report .report-group')].map((group) => [group.getAttribute('data-group'), [...group.querySelectorAll('li.outcome a')].map((link) => link.getAttribute('href')).sort()])),
    );
    expect(report).toEqual({ added: pieces.pairs.map((pair) => pieces.tracker.detailsUrl(pair.copyId, 'http')).sort() });
    // The renamed copy (found only by pieces hash) was renamed in the client to the folder on disk.
    const renamed = pieces.pairs[RENAMED_PAIR]!;
    const renamedRow = await page.evaluate((href) => {
      const item = document.querySelector(`#job-report li.outcome:has(a[href="${href}"])`);
      return { words: item?.querySelector('.outcome-words')?.textContent ?? '', details: [...(item?.querySelectorAll('.outcome-details li') ?? [])].map((line) => line.textContent) };
    }, pieces.tracker.detailsUrl(renamed.copyId, 'http'));
    expect(renamedRow).toEqual({
      words: ` — ${text('crossSeedAddedRenamed', 'qBittorrent on 127.0.0.1')}`,
      details: renamed.files.map((file) => text('crossSeedRenamedFile', `${renamed.copyName}/${file.path}`, `${renamed.name}/${file.path}`)),
    });
    expect(await client.files(renamed.copy.hash)).toEqual(await client.files(renamed.source.hash));
    await readText('cross-seed.html after the job', page);

    // OurBits' log: each copy asked for once, served; nothing of HDSky (its torrents are the sources).
    expect(downloads().map((download) => [download.id, download.served]).sort()).toEqual(pieces.pairs.map((pair) => [pair.copyId, true]).sort());
    expect(pieces.page.downloads).toEqual([]);
    for (const pair of pieces.pairs) expect(await untilSeeding(client, pair.copy.hash)).toMatchObject({ savePath: daemon!.dataDir, progress: 1 });
    expect((await client.list()).map((torrent) => torrent.hash).sort()).toEqual(pieces.pairs.flatMap((pair) => [pair.source.hash, pair.copy.hash]).sort());
    await page.close();
  });

  it('three more sites fail each in words: a wrong passkey, no API (an older NexusPHP), rate limited; the sync says the same of each, and OurBits is still done', async () => {
    await options.bringToFront();
    const failing = [WRONG_PASSKEY_SITE, NO_API_SITE, RATE_LIMITED_SITE];
    await holdSites(options, failing);
    await fillSiteFields(options, failing.map((site) => site.sid), true);
    const names = new Map<number, string>();
    for (const site of failing) names.set(site.sid, await siteNameIn(options, site.sid));
    expect(await pressTest(options, WRONG_PASSKEY_SITE.sid), await testEvidence(options, WRONG_PASSKEY_SITE)).toBe(text('piecesHashWrongPasskey', names.get(WRONG_PASSKEY_SITE.sid)!));
    expect(await pressTest(options, NO_API_SITE.sid), await testEvidence(options, NO_API_SITE)).toBe(text('piecesHashNoApi', names.get(NO_API_SITE.sid)!));
    expect(await pressTest(options, RATE_LIMITED_SITE.sid), await testEvidence(options, RATE_LIMITED_SITE)).toBe(text('piecesHashRateLimitedFor', names.get(RATE_LIMITED_SITE.sid)!, String(RATE_LIMIT_RETRY_AFTER)));
    await readText('options after the failing Tests', options);

    const sites = await syncNow(options);
    expect(Object.fromEntries(sites.map((site) => [site.sid, site.outcome]))).toEqual({
      [SID]: 'done',
      [WRONG_PASSKEY_SITE.sid]: 'wrong-passkey',
      [NO_API_SITE.sid]: 'no-api',
      [RATE_LIMITED_SITE.sid]: 'rate-limited',
    });
    const said = Object.fromEntries(sites.map((site) => [site.sid, site.text]));
    expect(said[WRONG_PASSKEY_SITE.sid]).toBe(text('piecesHashWrongPasskey', names.get(WRONG_PASSKEY_SITE.sid)!));
    expect(said[NO_API_SITE.sid]).toBe(text('piecesHashNoApi', names.get(NO_API_SITE.sid)!));
    expect(said[RATE_LIMITED_SITE.sid]).toBe(text('indexPiecesSiteRateLimitedFor', names.get(RATE_LIMITED_SITE.sid)!, new Intl.NumberFormat(lang).format(RATE_LIMIT_RETRY_AFTER)));
    await readText('options after the failing sync', options);
  });

  it('no passkey anywhere: not in any page\'s text, any console message, nor any request but the site\'s own API and downloads', async () => {
    // The console is really listened to: a line logged in an extension page and in the background is caught.
    const probe = `reseed-lens console probe ${Date.now()}`;
    const popup = await watch(await browser.openExtensionPage('popup.html'));
    await popup.evaluate((line) => console.info(line), `${probe} page`);
    if (kind === 'chromium') {
      const worker = (popup.raw as PlaywrightPage).context().serviceWorkers().find((candidate) => candidate.url().startsWith(browser.extensionOrigin));
      await worker!.evaluate((line) => console.info(line), `${probe} background`);
    } else {
      await browser.evaluateInExtension((api, line) => {
        const background = api.extension.getViews().find((view) => view.location.pathname.includes('background'));
        (background as unknown as { console: Console }).console.info(line);
      }, `${probe} background`);
    }
    await until(consoleSeen, (lines) => ['page', 'background'].every((where) => lines.some((line) => line.startsWith(`${where}:`) && line.includes(`${probe} ${where}`))), 'the probes in the console lines');
    await readText('popup without a tab', popup);
    await popup.close();

    const passkeys = [...typedPasskey.entries()];
    for (const { where, text: shown } of pageTexts) for (const [sid, passkey] of passkeys) expect(shown.includes(passkey), `site ${sid}'s passkey in ${where}`).toBe(false);
    expect(pageTexts.length).toBeGreaterThanOrEqual(8);
    const lines = await consoleSeen();
    for (const [sid, passkey] of passkeys) expect(lines.filter((line) => line.includes(passkey)), `site ${sid}'s passkey in the console`).toEqual([]);

    const hostOf = new Map<string, number>([[PIECES_SITE.host, SID], ...[...pieces.failing.values()].map((site) => [site.host, [...pieces.failing.entries()].find(([, other]) => other === site)![0]] as [string, number])]);
    const carrying = pieces.world.router.requests.filter((request) =>
      passkeys.some(([, passkey]) => `${request.url}\n${request.body}\n${JSON.stringify(request.headers)}`.includes(passkey)),
    );
    // The API requests carry it (each site its own), and nothing else does: downloads go by session here.
    expect(carrying.length).toBeGreaterThan(0);
    for (const request of carrying) {
      const sid = hostOf.get(request.host);
      const own = sid === undefined ? undefined : typedPasskey.get(sid);
      const path = request.path.split('?')[0];
      expect({ host: request.host, path, own: !!own && `${request.url}\n${request.body}`.includes(own) }).toEqual({ host: request.host, path: expect.stringMatching(/^\/api\/pieces-hash$|^\/download\.php$/), own: true });
      for (const [otherSid, passkey] of passkeys) if (otherSid !== sid) expect(`${request.url}\n${request.body}`.includes(passkey), `site ${otherSid}'s passkey sent to ${request.host}`).toBe(false);
    }
  });
});
