/**
 * Issue 33 "Every client at once", end to end in Chromium and Firefox with the built extension: two
 * real daemons at once, bookworm's qBittorrent 4.5.2 (named "NAS") and Transmission 3.00 (named
 * "Seedbox"), each seeding other torrents of support/cross-seed-world.ts from its own folder (some
 * torrents both, one a candidate already). The daemons and the world are started once for the file;
 * each browser has a profile of its own and cross-seeds only its own pairs of the world.
 *
 * As a user: both clients are added in "Torrent clients" by the form's labels (Name, Client type,
 * Client URL, Username, Password; Save client, Test client), Seedbox moved Up in "Your clients".
 * Then, on the tracker's details pages:
 * - the popup's "In your client" has one line per client holding the page's torrent ("<Name>:
 *   seeding, <save path>"), in the user's order; a candidate another client holds is "In <Name>";
 * - "Cross-seed" puts the copy into the client holding the data, at its save path, checked there
 *   and at 100 % from disk (no peer exists anywhere); a torrent both hold, into the first in the order;
 * - a candidate already in the other client, started from the page's panel and its confirmation
 *   window (which names the client the copy would go into), is "Already in <Name>": its .torrent is
 *   not downloaded (the site's server says) and nothing is added; the page's scripts find no
 *   client's Name, and the panel shows one only in that outcome's generated content;
 * - "Only read this client": nothing is added to Seedbox, its torrents still held and sources;
 * - "Copies go to" NAS, which sees Seedbox's data folder through a symlinked folder (another mount),
 *   with folder pairs typed in: the copy is checked by NAS at the mapped path and seeds at 100 %; a
 *   wrong pair leaves it stopped and tagged in NAS, in words; a folder under no pair sends nothing;
 * - Seedbox hung (SIGSTOP): the popup shows NAS's answer and names Seedbox as not answered yet;
 *   Seedbox stopped: named as down, and a cross-seed into NAS still goes through.
 *
 * Not repeated here: what cross-seed.test.ts proves of one client (other files, logged out, a
 * damaged copy, Cross-seed all, the panel's mouse-only clicks), the rules' refusals and the placement's
 * ties (unit tests of features/clients), the copy's add-stopped-then-check (the engine's tests).
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_NAMES, type TorrentClient } from '../../utils/clients/client-types';
import type { ClientsAnswer } from '../../features/clients/clients.messages';
import type { JobView } from '../../features/cross-seed-job/cross-seed-job.messages';
import { startQbittorrent, startTransmission, type RunningDaemon, type RunningTransmission } from '../clients/daemons';
import { ownClient } from '../clients/own-client';
import { findClientProcesses } from '../clients/processes.mjs';
import { addSeeding, untilSeeding } from '../clients/seeding';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { buttonCalled, chooseOption, clientRow, labelled, openClientsOptions, optionTexts, pressSaveClient, pressTestClient, setTicked, yourClients } from './support/client-options';
import { confirmationFacts, confirmationFor, confirmCrossSeed } from './support/confirm';
import { openCrossSeedWithIndexOn, setUpCrossSeedUser } from './support/cross-seed-user';
import { CANDIDATE_SITE, startCrossSeedWorld, type CrossSeedPair, type CrossSeedWorld } from './support/cross-seed-world';
import { candidateRow, clickPanelButton, crossSeedOutcomeOf, settledView } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';

afterAll(closeAllBrowsers);

const NAS = 'NAS' as const;
const SEEDBOX = 'Seedbox' as const;

/**
 * Each browser's pairs of the world, by what they are for (its own eight: the daemons are shared).
 * Where their sources are: nas in NAS, seedbox in Seedbox, both in each (each from its own folder),
 * heldElsewhere in NAS with its candidate in Seedbox already, good and wrongPair on Seedbox's two
 * shelves under folder pairs, outside in Seedbox's folder under none, down in NAS.
 */
const PAIR = { nas: 0, seedbox: 1, both: 2, heldElsewhere: 3, good: 4, wrongPair: 5, outside: 6, down: 7 } as const;
type PairName = keyof typeof PAIR;
const PAIRS_PER_BROWSER = Object.keys(PAIR).length;
/** The whole-client job's own pairs, after every browser's: each source in the client named. */
const JOB_PAIRS = [NAS, NAS, SEEDBOX, SEEDBOX] as const;
const JOB_FIRST = PAIRS_PER_BROWSER * BROWSER_KINDS.length;

let cs: CrossSeedWorld;
let nas: RunningDaemon;
let seedbox: RunningTransmission;
/** The daemons as the user's own web UIs show them: to set up their torrents and read back what the extension did. */
const reader = {} as Record<typeof NAS | typeof SEEDBOX, TorrentClient>;
/**
 * Seedbox's shelves ("good" and "wrong", in its data folder), and NAS's view of Seedbox's data folder:
 * a symlink in NAS's profile (the same disk mounted elsewhere), with the view of the good shelf.
 */
const folder = { good: '', wrong: '', view: '', viewOfGood: '' };

beforeAll(async () => {
  [cs, nas, seedbox] = await Promise.all([startCrossSeedWorld({ pairs: JOB_FIRST + JOB_PAIRS.length }), startQbittorrent(), startTransmission()]);
  reader[NAS] = ownClient(nas);
  reader[SEEDBOX] = ownClient(seedbox);
  folder.good = join(seedbox.dataDir, 'good');
  folder.wrong = join(seedbox.dataDir, 'wrong');
  for (const shelf of [folder.good, folder.wrong]) mkdirSync(shelf);
  folder.view = join(nas.profileDir, 'seedbox-data');
  symlinkSync(seedbox.dataDir, folder.view);
  folder.viewOfGood = join(folder.view, 'good');

  // As the user's own web UIs added them: seeding at 100 % from each client's folders.
  const seeds: { client: typeof NAS | typeof SEEDBOX; index: number; at: string; candidate?: true }[] = [];
  for (const [browserAt] of BROWSER_KINDS.entries()) {
    const index = (name: PairName) => browserAt * PAIRS_PER_BROWSER + PAIR[name];
    for (const name of ['nas', 'both', 'heldElsewhere', 'down'] as const) seeds.push({ client: NAS, index: index(name), at: nas.dataDir });
    for (const name of ['seedbox', 'both', 'outside'] as const) seeds.push({ client: SEEDBOX, index: index(name), at: seedbox.dataDir });
    seeds.push({ client: SEEDBOX, index: index('heldElsewhere'), at: seedbox.dataDir, candidate: true });
    seeds.push({ client: SEEDBOX, index: index('good'), at: folder.good });
    seeds.push({ client: SEEDBOX, index: index('wrongPair'), at: folder.wrong });
  }
  for (const [at, client] of JOB_PAIRS.entries()) seeds.push({ client, index: JOB_FIRST + at, at: client === NAS ? nas.dataDir : seedbox.dataDir });
  await Promise.all(
    ([NAS, SEEDBOX] as const).map(async (client) => {
      for (const seed of seeds.filter((entry) => entry.client === client)) {
        if (seed.candidate) await addSeeding(reader[client], cs.pairs[seed.index]!.candidate, cs.placeContent(seed.at, seed.index));
        else await cs.seed(reader[client], seed.at, seed.index);
      }
    }),
  );
}, 300_000);

afterAll(async () => {
  await cs?.close();
  await Promise.all([nas?.stop(), seedbox?.stop()]);
}, 60_000);

/** What the popup's "In your client" shows: its title, a line per client holding the torrent, those not answered, where copies go. */
interface InYourClientShown {
  title: string | null;
  held: string[];
  unanswered: string[];
  copies: string | null;
}

function inYourClient(popup: HarnessPage): Promise<InYourClientShown | null> {
  return popup.evaluate(() => {
    const section = document.querySelector('.client-status');
    const text = (element: Element | null | undefined) => element?.textContent?.replace(/\s+/g, ' ').trim() ?? null;
    return section
      ? {
          title: text(section.querySelector('.in-client-title')),
          held: [...section.querySelectorAll('.client-held-line')].map((line) => text(line)!),
          unanswered: [...section.querySelectorAll('.client-unanswered')].map((line) => text(line)!),
          copies: text(section.querySelector('.client-copies')),
        }
      : null;
  });
}

/** "In your client" once every client answered (a client a second slower than the other is shown slow first). */
const answered = (popup: HarnessPage) =>
  until(() => inYourClient(popup), (shown) => !!shown && !shown.unanswered.some((line) => line.endsWith('has not answered yet…')), '"In your client" with every client answered', 30_000);

// Each test is a few steps of a person's (the options page, two or three pages and popups): up to a
// minute in Firefox on a machine running other suites beside this one, hence more than the default.
describe.each(BROWSER_KINDS)('%s: two clients at once', { timeout: 240_000 }, (kind) => {
  const first = BROWSER_KINDS.indexOf(kind) * PAIRS_PER_BROWSER;
  const pair = (name: PairName): CrossSeedPair => cs.pairs[first + PAIR[name]]!;
  let browser: HarnessBrowser;
  let opened = 0;

  beforeAll(async () => {
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    // The token, the user's sites and their addresses over http, and a login on both trackers; the
    // clients are the first test's, through the options page.
    await setUpCrossSeedUser(browser, cs, { client: async () => undefined, alsoLoggedInOn: [cs.page] });
  });
  afterAll(() => browser?.close(), 60_000);

  const downloadsOf = (p: CrossSeedPair) => cs.candidate.downloads.filter((download) => download.path.startsWith('/download.php') && download.id === p.candidateId);

  /** Pair `name`'s details page (its source's), and the popup for that tab once the lookup found the candidate. */
  async function openPage(name: PairName): Promise<{ tab: HarnessPage; popup: HarnessPage; tabId: number }> {
    const marker = `seen=${kind}-${name}-${++opened}.`;
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(pair(name).sourceId)}&${marker}`);
    const tabId = await browser.tabIdOf(marker);
    expect(await settledView(browser, tabId, (view) => view.status === 'done' && view.candidates.length > 0)).toMatchObject({ status: 'done', candidates: expect.arrayContaining([expect.objectContaining({ torrentId: pair(name).candidateId })]) });
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.bringToFront();
    return { tab, popup, tabId };
  }

  async function closeAll(...pages: HarnessPage[]): Promise<void> {
    for (const page of pages) await page.close();
  }

  /** Presses the candidate's "Cross-seed" in the popup and gives its outcome. */
  async function crossSeed(popup: HarnessPage, p: CrossSeedPair) {
    const button = `${candidateRow(p.candidateId)} button.cross-seed`;
    await popup.waitForSelector(button, { timeoutMs: 30_000 });
    expect((await popup.textContent(button))?.trim()).toBe('Cross-seed');
    await popup.click(button);
    return crossSeedOutcomeOf(popup, p.candidateId, 90_000);
  }

  /** The candidate's mark in the popup ("In <Name>"), once there; and whether it still has a "Cross-seed". */
  async function markOf(popup: HarnessPage, p: CrossSeedPair): Promise<{ mark: string; button: boolean }> {
    await popup.waitForSelector(`${candidateRow(p.candidateId)} .tag.in-client`, { timeoutMs: 30_000 });
    return popup.evaluate(
      (row) => ({ mark: document.querySelector(`${row} .tag.in-client`)?.textContent ?? '', button: !!document.querySelector(`${row} button.cross-seed`) }),
      candidateRow(p.candidateId),
    );
  }

  /** What `client` itself says of pair `p`'s copy: at `savePath`, seeding at 100 %, with the files of the source in `sourceClient`. */
  async function expectCopyIn(client: typeof NAS | typeof SEEDBOX, p: CrossSeedPair, savePath: string, sourceClient = client): Promise<void> {
    expect(await untilSeeding(reader[client], p.candidate.hash)).toMatchObject({ savePath, progress: 1 });
    const files = async (from: TorrentClient, hash: string) => (await from.files(hash)).sort((a, b) => a.path.localeCompare(b.path));
    expect(await files(reader[client], p.candidate.hash)).toEqual(await files(reader[sourceClient], p.source.hash));
  }

  /** Opens the options page at "Torrent clients" and the form of the client named `name` (its Edit). */
  async function editClient(name: string): Promise<HarnessPage> {
    const options = await openClientsOptions(browser);
    await options.click(await buttonCalled(options, 'Edit', await clientRow(options, name)));
    await options.waitForSelector('#client-editing');
    expect(await options.textContent('#client-editing')).toBe(`Editing ${name}`);
    return options;
  }

  const FORM = '#client-form';

  it('the user adds both clients in "Torrent clients" by its labels, names them, tests them and moves Seedbox up', async () => {
    const options = await openClientsOptions(browser);
    expect(await buttonCalled(options, 'Save client', FORM)).toBe('#save-client');
    expect(await buttonCalled(options, 'Test client', FORM)).toBe('#test-client');
    for (const [name, daemon] of [
      [NAS, nas],
      [SEEDBOX, seedbox],
    ] as const) {
      // After a save the form shows the client saved: "Add another client" empties it.
      if (name === SEEDBOX) await options.click(await buttonCalled(options, 'Add another client', FORM));
      await chooseOption(options, await labelled(options, 'Client type', { within: FORM }), CLIENT_NAMES[daemon.kind]);
      await options.fill(await labelled(options, 'Name', { within: FORM }), name);
      await options.fill(await labelled(options, 'Client URL', { within: FORM }), daemon.url);
      await options.fill(await labelled(options, 'Username', { within: FORM }), daemon.username);
      await options.fill(await labelled(options, 'Password', { within: FORM }), daemon.password);
      const held = (await reader[name].list()).length;
      expect(await pressTestClient(options)).toEqual({ ok: true, said: '', text: `Connected: ${CLIENT_NAMES[daemon.kind]} ${daemon.version}, ${held} torrents` });
      expect(await pressSaveClient(options)).toBe('Client saved.');
    }
    // The form edits Seedbox now: its copies may go to itself or to every other client, by Name.
    expect(await optionTexts(options, await labelled(options, 'Copies go to', { within: FORM }))).toEqual(['This client', NAS]);
    expect(await yourClients(options)).toEqual([
      { name: NAS, readOnly: false, copiesTo: null },
      { name: SEEDBOX, readOnly: false, copiesTo: null },
    ]);
    expect(await options.textContent('#client-list-heading')).toBe('Your clients');
    await options.click(await buttonCalled(options, 'Up', await clientRow(options, SEEDBOX)));
    await until(() => yourClients(options), (list) => list[0]?.name === SEEDBOX, 'Seedbox first in "Your clients"');
    expect((await yourClients(options)).map((client) => client.name)).toEqual([SEEDBOX, NAS]);
    await options.close();
  });

  it('"In your client" has a line for each client holding the page\'s torrent, in the user\'s order, with its save path; a candidate another client holds is marked with its Name', async () => {
    const both = await openPage('both');
    expect(await answered(both.popup)).toEqual({
      title: 'In your client',
      held: [`${SEEDBOX}: seeding, ${seedbox.dataDir}`, `${NAS}: seeding, ${nas.dataDir}`],
      unanswered: [],
      copies: null,
    });
    await closeAll(both.popup, both.tab);

    const elsewhere = await openPage('heldElsewhere');
    expect(await answered(elsewhere.popup)).toMatchObject({ held: [`${NAS}: seeding, ${nas.dataDir}`], unanswered: [] });
    expect(await markOf(elsewhere.popup, pair('heldElsewhere'))).toEqual({ mark: `In ${SEEDBOX}`, button: false });
    await closeAll(elsewhere.popup, elsewhere.tab);
  });

  it('"Cross-seed" adds each copy into the client holding its data, at its save path, checked there to 100 % from disk; a torrent both hold goes into the first in the user\'s order', async () => {
    const cases = [
      { name: 'nas', into: NAS, at: nas.dataDir },
      { name: 'seedbox', into: SEEDBOX, at: seedbox.dataDir },
      // Held by both: Seedbox is first in "Your clients".
      { name: 'both', into: SEEDBOX, at: seedbox.dataDir },
    ] as const;
    for (const { name, into, at } of cases) {
      const p = pair(name);
      const { tab, popup } = await openPage(name);
      expect(await crossSeed(popup, p)).toMatchObject({ kind: 'added', ok: true, sentence: `Added to ${into}, seeding: its check found every file on disk.` });
      await expectCopyIn(into, p, at);
      expect(await holds(into === NAS ? SEEDBOX : NAS, p)).toBe(false);
      expect(downloadsOf(p)).toEqual([expect.objectContaining({ served: true })]);
      // Now held: marked with the client's Name, and no button.
      expect(await markOf(popup, p)).toEqual({ mark: `In ${into}`, button: false });
      await closeAll(popup, tab);
    }
  });

  it('a candidate already in the other client, started from the page\'s panel, is added nowhere and not downloaded; the confirmation names the client the copy would go into; no client\'s Name reaches the page', async () => {
    const p = pair('heldElsewhere');
    const names = [NAS, SEEDBOX];
    const tab = await browser.newPage();
    await tab.goto(`${cs.page.detailsUrl(p.sourceId)}&panel=${kind}.`);
    await tab.bringToFront();
    const tabId = await browser.tabIdOf(`panel=${kind}.`);
    /**
     * The client Names among the words the panel holds outside its outcome lines (text, generated
     * content, labels, titles); and, to show the words were read, whether the candidate's "#id" is among them.
     */
    const namesInPanel = () =>
      inPanel(
        tab,
        (root, { wanted, id }: { wanted: string[]; id: string }) => {
          const words: string[] = [];
          const walk = (node: Node) => {
            if (node.nodeType === 1) {
              const element = node as Element;
              if (element.classList.contains('cross-seed-outcome')) return;
              for (const attribute of ['data-text', 'aria-label', 'title']) words.push(element.getAttribute(attribute) ?? '');
            } else if (node.nodeType === 3) words.push(node.textContent ?? '');
            node.childNodes.forEach(walk);
          };
          walk(root);
          return { named: wanted.filter((name) => words.some((word) => word.includes(name))), read: words.includes(id) };
        },
        { wanted: names, id: `#${p.candidateId}` },
      );
    await until(
      () => inPanel(tab, (root) => [...root.querySelectorAll('button.cross-seed')].map((button) => button.getAttribute('data-text'))),
      (found) => found?.length === 1,
      'the panel with its Cross-seed button',
      30_000,
    );
    // The panel knows nothing of the clients: it offers the candidate another client holds like any other.
    expect(await namesInPanel()).toEqual({ named: [], read: true });
    expect(await clickPanelButton(tab, 'Cross-seed')).toBe(true);
    const confirmation = await confirmationFor(browser, tabId);
    const facts = await until(() => confirmationFacts(confirmation), (shown) => !!shown.client && shown.client !== '…', 'the client the confirmation names', 30_000);
    // Where a copy of the page's torrent goes: NAS, which holds it.
    expect(facts.client).toBe(`${NAS}, at ${nas.dataDir}`);
    expect(await confirmCrossSeed(confirmation)).toBe(`Already in ${SEEDBOX}.`);
    // Not downloaded (the site's server got no request for it), not added to NAS.
    expect(downloadsOf(p)).toEqual([]);
    expect(await holds(NAS, p)).toBe(false);
    // The panel says so as generated content only, and nothing else in it names a client.
    const outcome = await until(
      () => inPanel(tab, (root) => [...root.querySelectorAll('.cross-seed-outcome')].map((line) => `${line.getAttribute('data-text')}|${line.textContent}`)),
      (found) => !!found?.length && !found[0]!.startsWith('Cross-seeding'),
      'the outcome in the panel',
    );
    expect(outcome).toEqual([`Already in ${SEEDBOX}.|`]);
    expect(await namesInPanel()).toEqual({ named: [], read: true });
    // The page's own scripts find no client's Name anywhere (window.find searches even a closed
    // shadow root's text); they do find the info-hash the page shows, so the search works.
    const found = await tab.evaluate(
      (wanted) =>
        wanted.filter((text) => {
          getSelection()?.removeAllRanges();
          return (window as unknown as { find(text: string, caseSensitive: boolean, backwards: boolean, wrap: boolean): boolean }).find(text, false, false, true) || document.documentElement.textContent!.includes(text);
        }),
      [...names, p.source.hash],
    );
    expect(found).toEqual([p.source.hash]);
    await confirmation.close();
    await tab.close();
  });

  it('a client that only reads is never added to: its torrent\'s copy goes nowhere, in words, and nothing is downloaded; what it holds still counts', async () => {
    const options = await editClient(SEEDBOX);
    await setTicked(options, 'Only read this client', true, FORM);
    expect(await pressSaveClient(options)).toBe('Client saved.');
    expect(await yourClients(options)).toEqual([
      { name: SEEDBOX, readOnly: true, copiesTo: null },
      { name: NAS, readOnly: false, copiesTo: null },
    ]);
    await options.close();

    const p = pair('good');
    const sentence = `${SEEDBOX} only reads: nothing is added to it. To cross-seed its torrents, choose where their copies go under “Copies go to” in the settings.`;
    const { tab, popup } = await openPage('good');
    expect(await answered(popup)).toMatchObject({ held: [`${SEEDBOX}: seeding, ${folder.good}`], copies: sentence });
    expect(await crossSeed(popup, p)).toMatchObject({ kind: 'read-only', ok: false, sentence });
    expect(downloadsOf(p)).toEqual([]);
    expect([await holds(SEEDBOX, p), await holds(NAS, p)]).toEqual([false, false]);
    await closeAll(popup, tab);

    // Held all the same: the copy cross-seeded into it before is marked with its Name.
    const before = await openPage('seedbox');
    expect(await markOf(before.popup, pair('seedbox'))).toEqual({ mark: `In ${SEEDBOX}`, button: false });
    await closeAll(before.popup, before.tab);
  });

  it('"Copies go to": Seedbox\'s copies go to NAS, which sees its data through a symlinked folder; the folder pair maps the save path, and NAS checks the copy to 100 % and seeds it', async () => {
    const options = await editClient(SEEDBOX);
    await chooseOption(options, await labelled(options, 'Copies go to', { within: FORM }), NAS);
    await options.fill(await labelled(options, 'Folder in this client', { within: FORM }), folder.good);
    await options.fill(await labelled(options, 'Same folder in that client', { within: FORM }), folder.viewOfGood);
    // A second pair, wrong: NAS does not see the wrong shelf where it says (the good shelf is there).
    await options.click(await buttonCalled(options, 'Add a folder pair', FORM));
    await options.fill(await labelled(options, 'Folder in this client', { within: FORM, nth: 1 }), folder.wrong);
    await options.fill(await labelled(options, 'Same folder in that client', { within: FORM, nth: 1 }), folder.viewOfGood);
    expect(await pressSaveClient(options)).toBe('Client saved.');
    expect(await yourClients(options)).toEqual([
      { name: SEEDBOX, readOnly: true, copiesTo: `copies go to ${NAS}` },
      { name: NAS, readOnly: false, copiesTo: null },
    ]);
    await options.close();

    const p = pair('good');
    const { tab, popup } = await openPage('good');
    expect(await answered(popup)).toMatchObject({ held: [`${SEEDBOX}: seeding, ${folder.good}`], copies: `Its copies go to ${NAS}, at ${folder.viewOfGood}.` });
    expect(await crossSeed(popup, p)).toMatchObject({ kind: 'added', ok: true, sentence: `Added to ${NAS}, seeding: its check found every file on disk.` });
    await expectCopyIn(NAS, p, folder.viewOfGood, SEEDBOX);
    expect(await holds(SEEDBOX, p)).toBe(false);
    expect(await markOf(popup, p)).toEqual({ mark: `In ${NAS}`, button: false });
    await closeAll(popup, tab);
  });

  it('a wrong folder pair leaves the copy stopped and tagged in NAS, saying where NAS looked; a folder under no pair sends nothing', async () => {
    const wrong = pair('wrongPair');
    const page = await openPage('wrongPair');
    expect(await crossSeed(page.popup, wrong)).toMatchObject({
      kind: 'left-stopped',
      ok: false,
      sentence: `${NAS} does not see the data at ${folder.viewOfGood}: check the folder pair. The copy is left stopped (0% of the data found).`,
    });
    // NAS's own API: there, stopped, nothing of it found, tagged; nothing downloading (stopped).
    const left = (await reader[NAS].lookup([wrong.candidate.hash])).get(wrong.candidate.hash);
    expect(left).toMatchObject({ state: 'paused', progress: 0, savePath: folder.viewOfGood });
    expect(left!.tags).toContain('reseed-lens-incomplete');
    await closeAll(page.popup, page.tab);

    const outside = pair('outside');
    const sentence = `${seedbox.dataDir} is under no folder pair of ${SEEDBOX}: nothing was sent to ${NAS}. Add a folder pair for it in the settings.`;
    const { tab, popup } = await openPage('outside');
    expect(await answered(popup)).toMatchObject({ held: [`${SEEDBOX}: seeding, ${seedbox.dataDir}`], copies: sentence });
    expect(await crossSeed(popup, outside)).toMatchObject({ kind: 'no-folder-pair', ok: false, sentence });
    expect(downloadsOf(outside)).toEqual([]);
    expect([await holds(NAS, outside), await holds(SEEDBOX, outside)]).toEqual([false, false]);
    await closeAll(popup, tab);
  });

  it('one client hung, then stopped: the popup shows the other\'s answer without waiting for it and names the one that does not answer; a cross-seed into the other still goes through', async () => {
    const p = pair('down');
    const [daemon] = findClientProcesses(seedbox.profileDir).filter((found) => found.command.includes('transmission-daemon'));
    expect(daemon).toBeDefined();
    // Hung: Seedbox takes the connection and never answers while it is stopped by the signal.
    process.kill(daemon!.pid, 'SIGSTOP');
    try {
      const hung = await openPage('down');
      const shown = await until(() => inYourClient(hung.popup), (now) => !!now?.held.length && !!now.unanswered.length, '"In your client" with NAS\'s answer while Seedbox hangs', 30_000);
      // Named as not answered yet (or, on a machine so busy the popup was read 15 s later, as not answering in time).
      expect(shown).toMatchObject({ held: [`${NAS}: seeding, ${nas.dataDir}`], unanswered: [expect.stringMatching(/^Seedbox( has not answered yet…|: The client did not answer in time\.)$/)] });
      await closeAll(hung.popup, hung.tab);
    } finally {
      process.kill(daemon!.pid, 'SIGCONT');
    }

    await seedbox.stopDaemon();
    try {
      const { tab, popup } = await openPage('down');
      // Named slow at first (a client refusing the connection is asked again for 2.5 s: utils/clients/steady.ts), then down.
      const shown = await until(
        () => inYourClient(popup),
        (now) => !!now?.held.length && !!now.unanswered.length && !now.unanswered.some((line) => line.endsWith('has not answered yet…')),
        '"In your client" with NAS\'s answer and Seedbox down',
        30_000,
      );
      expect(shown).toMatchObject({
        held: [`${NAS}: seeding, ${nas.dataDir}`],
        unanswered: [`${SEEDBOX}: The client could not be reached at this address. Is it running, and are the address and port right?`],
      });
      expect(await crossSeed(popup, p)).toMatchObject({ kind: 'added', ok: true, sentence: `Added to ${NAS}, seeding: its check found every file on disk.` });
      await expectCopyIn(NAS, p, nas.dataDir);
      await closeAll(popup, tab);
    } finally {
      // Seedbox back for the next browser.
      await seedbox.startDaemon();
    }
  });
});

/**
 * "Cross-seed your clients" over both clients, in one browser (a profile of its own, after the
 * browsers above: the world's other candidates are where their tests left them). Its oracle is the
 * daemons themselves at the moment of the preview: every candidate on the candidate's site that
 * neither client holds goes, in the preview and the run, into the first client (in the user's order)
 * holding its source; the job's own pairs (two sources in NAS, two in Seedbox) are added each into
 * its own client, at its source's save path, seeding at 100 % from that disk, and into no other.
 * (One client stopped mid-job while the other's torrents finish is proved with the job's rules over
 * two live daemons: test/unit/features/cross-seed-job/cross-seed-job.two-clients.test.ts.)
 */
describe('the whole-client job over both clients', { timeout: 300_000 }, () => {
  const kind = BROWSER_KINDS.at(-1)!;
  let browser: HarnessBrowser;
  const ids = {} as Record<typeof NAS | typeof SEEDBOX, string>;
  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);

  beforeAll(async () => {
    browser = await launchBrowser(kind, { proxyPort: cs.world.router.port });
    await setUpCrossSeedUser(browser, cs, {
      client: async () => {
        for (const [name, daemon] of [[NAS, nas], [SEEDBOX, seedbox]] as const) {
          const saved = await message<ClientsAnswer | { problem: unknown }>({ type: 'clients:save', client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password, name } });
          if ('problem' in saved) throw new Error(`${name} not saved: ${JSON.stringify(saved.problem)}`);
          ids[name] = saved.savedId!;
        }
      },
    });
  }, 120_000);
  afterAll(() => browser?.close(), 60_000);

  it('previews each find into the client holding its source ("NAS: n", "Seedbox: m"), then adds every one there at 100 % from its disk', async () => {
    const page = await openCrossSeedWithIndexOn(browser);
    const SID = CANDIDATE_SITE.sid;

    // The oracle, read from the daemons: each candidate neither client holds, by the client holding its source.
    const candidates = [...cs.pairs.map((p) => ({ id: p.candidateId, hash: p.candidate.hash, source: p.source.hash })), { id: cs.differentFiles.id, hash: cs.differentFiles.torrent.hash, source: cs.pairs[0]!.source.hash }];
    const holders = async (hash: string) => (await Promise.all(([NAS, SEEDBOX] as const).map(async (name) => ((await reader[name].lookup([hash])).get(hash)?.progress === 1 ? name : undefined)))).filter((name) => !!name);
    const expected = new Map<number, typeof NAS | typeof SEEDBOX>();
    for (const candidate of candidates) {
      const heldBy = (await Promise.all(([NAS, SEEDBOX] as const).map(async (name) => ((await reader[name].lookup([candidate.hash])).has(candidate.hash) ? name : undefined)))).filter(Boolean);
      const sourceIn = await holders(candidate.source);
      if (!heldBy.length && sourceIn.length) expected.set(candidate.id, sourceIn[0]!);
    }
    for (const [at, client] of JOB_PAIRS.entries()) expect(expected.get(cs.pairs[JOB_FIRST + at]!.candidateId)).toBe(client);
    const count = (client: typeof NAS | typeof SEEDBOX) => [...expected.values()].filter((name) => name === client).length;

    await page.click('#job-find');
    await page.waitForSelector(`tr.job-site[data-sid="${SID}"][data-readiness=ready]`, { timeoutMs: 60_000 });
    const routes = await until(
      () => page.evaluate(() => [...document.querySelectorAll('#job-clients li.job-route')].map((li) => ({ source: li.getAttribute('data-source'), target: li.getAttribute('data-target'), text: li.querySelector('.route-text')?.textContent ?? '' }))),
      (shown) => shown.length === 2,
      'a route per client',
      30_000,
    );
    expect(routes).toEqual([
      { source: ids[NAS], target: ids[NAS], text: `${NAS}: ${count(NAS)}` },
      { source: ids[SEEDBOX], target: ids[SEEDBOX], text: `${SEEDBOX}: ${count(SEEDBOX)}` },
    ]);
    const downloadsBefore = cs.candidate.downloads.filter((download) => download.path.startsWith('/download.php')).length;

    // One second between downloads, typed as a person does; then the run.
    await page.fill(`#seconds-${SID}`, '1');
    await page.click('#page-title');
    await page.waitForSelector(`#tick-${SID}:checked`, { timeoutMs: 30_000 });
    await page.click('#job-start');
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 240_000 });
    expect((await message<JobView>({ type: 'job:status' })).state).toBe('done');

    // The report's "Added": every expected find but the one whose files differ, each naming its client.
    const added = await page.evaluate(() =>
      [...document.querySelectorAll('#job-report .report-group[data-group=added] li.outcome')].map((li) => ({ id: Number(/[?&]id=(\d+)/.exec(li.querySelector('a')?.getAttribute('href') ?? '')?.[1]), client: li.getAttribute('data-client-id') })),
    );
    const addable = [...expected].filter(([id]) => id !== cs.differentFiles.id);
    expect(added.sort((a, b) => a.id - b.id)).toEqual(addable.map(([id, client]) => ({ id, client: ids[client] })).sort((a, b) => a.id - b.id));
    // Each downloaded once, in this run.
    const downloads = cs.candidate.downloads.filter((download) => download.path.startsWith('/download.php')).slice(downloadsBefore);
    expect(downloads.map((download) => download.id).sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));

    // The job's own pairs, read back from each daemon: in the client holding the source, beside it, at 100 %; in no other.
    for (const [at, client] of JOB_PAIRS.entries()) {
      const p = cs.pairs[JOB_FIRST + at]!;
      const other = client === NAS ? SEEDBOX : NAS;
      expect(await untilSeeding(reader[client], p.candidate.hash)).toMatchObject({ savePath: client === NAS ? nas.dataDir : seedbox.dataDir, progress: 1 });
      expect(await holds(other, p)).toBe(false);
    }
    await page.close();
  });
});

/** Whether `client` holds pair `p`'s candidate, as its own web UI says. */
async function holds(client: typeof NAS | typeof SEEDBOX, p: CrossSeedPair): Promise<boolean> {
  return (await reader[client].lookup([p.candidate.hash])).has(p.candidate.hash);
}
