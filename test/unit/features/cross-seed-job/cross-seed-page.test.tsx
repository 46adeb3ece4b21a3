// @vitest-environment happy-dom
/**
 * "Cross-seed your clients" (features/cross-seed-job/ui/CrossSeedPage.tsx): the index-off offer, the
 * preview table and its totals, the pace fields, what "Start cross-seeding" sends, the progress and
 * the report from the JobViews the background announces (`job:changed`, newest revision wins),
 * "Copy report", "Pause" / "Resume" / "Cancel", "Try again" and the switches. The background is
 * answered through the fake browser's messaging as features/cross-seed-job/cross-seed-job.feature.ts
 * does (its own tests run against the real clients and trackers); the words come from the real
 * locale files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { CrossSeedPage } from '../../../../features/cross-seed-job/ui/CrossSeedPage';
import { CrossSeedPageLink } from '../../../../features/cross-seed-job/ui/CrossSeedPageLink';
import { changeOf, wholeChange } from '../../../../features/cross-seed-job/job-change';
import type { JobChange, JobChanged, JobOutcome, JobPreview, JobSitePreview, JobSwitches, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import { installPermissions } from '../../support/permissions';
import { TAB_ID, answerBackground, click, defaultSettings, resetBrowser, show, tabView, text, unmount, waitFor } from '../../support/components';
import { Popup } from '../../../../entrypoints/popup/PopupApp';
import { ClientIndexSection } from '../../../../features/client-index/ui/ClientIndexSection';
import type { IndexStatusView } from '../../../../features/client-index/client-index.messages';

const GiB = 1024 ** 3;

function site(sid: number, siteName: string, extra: Partial<JobSitePreview> = {}): JobSitePreview {
  return {
    sid,
    siteName,
    homeUrl: `https://site${sid}.example/`,
    count: 0,
    bytes: 0,
    decided: 0,
    readiness: { state: 'ready' },
    secondsBetween: 5,
    perDay: 20,
    usedToday: 0,
    ...extra,
  };
}

const OURBITS = site(9, 'OurBits', { count: 12, bytes: 3 * GiB, usedToday: 3, decided: 2 });
const HDHOME = site(7, 'HDHome', { count: 4, bytes: 1.5 * GiB, readiness: { state: 'needs-login', loginUrl: 'https://hdhome.org/login.php' } });
const PTER = site(33, 'PTer', { count: 0, readiness: { state: 'needs-passkey' } });
const FAR = site(40, 'FarSite', { count: 2, bytes: 512 * 1024 ** 2, readiness: { state: 'needs-permission', origin: 'https://far.example' } });

const preview = (sites: JobSitePreview[], extra: Partial<JobPreview> = {}): JobPreview => ({ sites, at: Date.now(), ...extra });

const IDLE_JOB: JobView = { state: 'idle', total: 0, done: 0, sites: [], outcomes: [], revision: 0 };
const SWITCHES_OFF: JobSwitches = { notifyNewFinds: false, autoStartNewFinds: false };

/** The background announcing the job's state whole (as for a new job), as it does to every extension page. */
async function announce(job: JobView): Promise<void> {
  await announceChange(wholeChange(job));
}

/** The background announcing one change of the job (what changed since a revision). */
async function announceChange(change: JobChange): Promise<void> {
  const message: JobChanged = { type: 'job:changed', change };
  await act(async () => {
    await fakeBrowser.runtime.onMessage.trigger(message, {});
  });
}

function outcome(sid: number, torrentId: number, group: JobOutcome['group'], extra: Partial<JobOutcome> = {}): JobOutcome {
  return {
    sid,
    torrentId,
    infoHash: String(torrentId).padStart(40, 'a'),
    sourceHash: 'b'.repeat(40),
    name: `Torrent ${torrentId}`,
    bytes: 4 * GiB,
    detailsUrl: `https://site${sid}.example/details.php?id=${torrentId}`,
    group,
    at: Date.now(),
    ...extra,
  };
}

const byId = <T extends Element = HTMLElement>(root: ParentNode, id: string) => root.querySelector<T & HTMLElement>(`#${id}`);
const rowOf = (root: ParentNode, sid: number) => root.querySelector<HTMLTableRowElement>(`tr.job-site[data-sid="${sid}"]`)!;
const buttonNamed = (root: ParentNode, name: string) => [...root.querySelectorAll('button')].find((button) => text(button) === name) ?? null;

/** Opens the page with the background answering `handlers` (and an idle job, switches off, unless given). */
async function open(handlers: Parameters<typeof answerBackground>[0] = {}) {
  const background = answerBackground({
    'settings:get': () => defaultSettings({ clientIndexEnabled: true }),
    'job:status': () => IDLE_JOB,
    'job:switches': () => SWITCHES_OFF,
    ...handlers,
  });
  const root = await show(<CrossSeedPage />);
  return { root, background };
}

async function findWith(handlers: Parameters<typeof answerBackground>[0]) {
  const opened = await open(handlers);
  await click(buttonNamed(opened.root, 'Find what I can cross-seed'));
  return opened;
}

beforeEach(() => {
  resetBrowser('en');
  installPermissions();
});
afterEach(async () => {
  await unmount();
  vi.restoreAllMocks();
});

describe('the index', () => {
  it('when the index is off, says why it is needed and turns it on with settings:save', async () => {
    let indexOn = false;
    const { root, background } = await findWith({
      'job:preview': () => (indexOn ? preview([OURBITS]) : preview([], { indexOff: true })),
      'settings:save': () => {
        indexOn = true;
        return defaultSettings({ clientIndexEnabled: true });
      },
    });
    expect(text(byId(root, 'page-title'))).toBe('Cross-seed your clients');
    const offer = await waitFor(() => byId(root, 'index-off'), 'the index-off offer');
    expect(text(offer)).toContain('The index of your client is off');
    expect(text(offer)).toContain('needs the index of your client');
    expect(byId(root, 'job-sites')).toBeNull();
    expect(byId(root, 'job-start')).toBeNull();

    await click(buttonNamed(offer, 'Turn on the index'));
    await waitFor(() => byId(root, 'job-sites'), 'the preview after turning the index on');
    expect(background.sentOf('settings:save')).toEqual([{ type: 'settings:save', update: { clientIndexEnabled: true } }]);
    expect(byId(root, 'index-off')).toBeNull();
    expect(text(byId(root, 'job-status'))).toContain('The index is on.');
  });

  it('offers to turn the index on as soon as the page opens when the settings have it off', async () => {
    const { root, background } = await open({ 'settings:get': () => defaultSettings({ clientIndexEnabled: false }) });
    const offer = await waitFor(() => byId(root, 'index-off'), 'the index-off offer');
    expect(text(offer)).toContain('Turning it on sends the hash of every torrent in your client to the lookup service');
    expect(background.sentOf('job:preview')).toHaveLength(0);
  });

  it('the page\'s static title is the English one the locale files give it', () => {
    const html = readFileSync(join(process.cwd(), 'entrypoints/cross-seed/index.html'), 'utf8');
    const en = JSON.parse(readFileSync(join(process.cwd(), 'public/_locales/en/messages.json'), 'utf8'));
    const zh = JSON.parse(readFileSync(join(process.cwd(), 'public/_locales/zh_CN/messages.json'), 'utf8'));
    expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]).toBe('Cross-seed your clients');
    expect(en.crossSeedPageTitle.message).toBe('Cross-seed your clients');
    expect(zh.crossSeedPageTitle.message).toBe('辅种你的所有客户端');
  });

  it('is in Chinese for a Chinese browser', async () => {
    resetBrowser('zh_CN');
    const { root } = await open({ 'job:preview': () => preview([], { indexOff: true }) });
    expect(text(byId(root, 'page-title'))).toBe('辅种你的所有客户端');
    await click(buttonNamed(root, '查找可辅种的内容'));
    await waitFor(() => byId(root, 'index-off'), 'the index-off offer');
    expect(buttonNamed(root, '开启索引')).not.toBeNull();
  });

  it('names what else is missing (no client, no sites, an empty index) with a way to the options', async () => {
    const { root } = await findWith({ 'job:preview': () => preview([], { problem: 'no-sites' }) });
    const problem = await waitFor(() => byId(root, 'preview-problem'), 'the problem');
    expect(text(problem)).toContain('Pick your sites in the options first');
    const openOptions = vi.spyOn(fakeBrowser.runtime, 'openOptionsPage').mockResolvedValue(undefined);
    await click(buttonNamed(problem, 'Open the options'));
    expect(openOptions).toHaveBeenCalled();
  });
});

describe('the preview', () => {
  it('has one row per site: count, size, readiness with its fix, pace, used today; the ready sites ticked and totalled', async () => {
    const { root, background } = await findWith({ 'job:preview': () => preview([OURBITS, HDHOME, PTER]) });
    await waitFor(() => byId(root, 'job-sites'), 'the table');
    expect(background.sentOf('job:preview')).toHaveLength(1);
    const rows = [...root.querySelectorAll('tr.job-site')];
    expect(rows.map((row) => text(row.querySelector('.site-name label')))).toEqual(['OurBits', 'HDHome', 'PTer']);

    const ourbits = rowOf(root, 9);
    expect(text(ourbits.querySelector('.count'))).toBe('12 2 decided before');
    expect(text(ourbits.querySelector('.size'))).toBe('3 GB');
    expect(text(ourbits.querySelector('.readiness'))).toBe('Ready');
    expect(text(ourbits.querySelector('.used-today'))).toBe('3 of 20');
    expect(ourbits.querySelector<HTMLInputElement>('input.tick')!.checked).toBe(true);
    expect(ourbits.querySelector('input.tick')!.getAttribute('aria-label')).toBe('Cross-seed from OurBits');

    const hdhome = rowOf(root, 7);
    expect(text(hdhome.querySelector('.readiness'))).toBe('Not logged in Log in on HDHome');
    expect(hdhome.querySelector('.readiness a')!.getAttribute('href')).toBe('https://hdhome.org/login.php');
    expect(hdhome.querySelector('.readiness a')!.getAttribute('target')).toBe('_blank');
    expect(hdhome.querySelector<HTMLInputElement>('input.tick')!.checked).toBe(false);

    const pter = rowOf(root, 33);
    expect(text(pter.querySelector('.size'))).toBe('0 B');
    expect(text(pter.querySelector('.readiness'))).toBe('Needs your passkey Enter it in the options');
    expect(pter.querySelector<HTMLInputElement>('input.tick')!.disabled).toBe(true);

    expect(text(root.querySelector('#job-total .total-count'))).toBe('12');
    expect(text(root.querySelector('#job-total .total-size'))).toBe('3 GB');
    await click(hdhome.querySelector('input.tick'));
    expect(text(root.querySelector('#job-total .total-count'))).toBe('16');
    expect(text(root.querySelector('#job-total .total-size'))).toBe('4.5 GB');
    expect(text(root.querySelector('#job-total'))).toContain('Sites ticked: 2');
  });

  it('asks for a site\'s permission within the click, then finds again', async () => {
    const { root, background } = await findWith({ 'job:preview': () => preview([FAR]) });
    await waitFor(() => byId(root, 'job-sites'), 'the table');
    const request = vi.spyOn(fakeBrowser.permissions, 'request');
    const row = rowOf(root, 40);
    expect(text(row.querySelector('.readiness'))).toContain('Reseed Lens may not reach https://far.example yet');
    await click(buttonNamed(row, 'Allow access'));
    expect(request).toHaveBeenCalledWith({ origins: ['https://far.example/*'] });
    await waitFor(() => background.sentOf('job:preview').length === 2, 'the preview asked again');
  });

  it('saves a site\'s pace with job:site-pace, next to the warning about the official daemon\'s defaults', async () => {
    const { root, background } = await findWith({
      'job:preview': () => preview([OURBITS]),
      'job:site-pace': (request) => preview([{ ...OURBITS, secondsBetween: request.secondsBetween, perDay: request.perDay }]),
    });
    await waitFor(() => byId(root, 'job-sites'), 'the table');
    const seconds = root.querySelector<HTMLInputElement>('#seconds-9')!;
    const perDay = root.querySelector<HTMLInputElement>('#per-day-9')!;
    expect(text(root.querySelector('label[for="seconds-9"]'))).toBe('Seconds between downloads');
    expect(text(root.querySelector('label[for="per-day-9"]'))).toBe('Downloads per day');
    expect([seconds.value, perDay.value]).toEqual(['5', '20']);
    expect(seconds.getAttribute('aria-describedby')).toBe('pace-warning');
    expect(text(byId(root, 'pace-warning'))).toBe(
      'The official IYUU daemon uses the same defaults (5 seconds, 20 a day) and warns that raising them can get your account flagged by the site.',
    );

    await act(async () => {
      seconds.value = '10';
      seconds.dispatchEvent(new Event('input', { bubbles: true }));
      seconds.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await waitFor(() => background.sentOf('job:site-pace').length === 1, 'the pace sent');
    expect(background.sentOf('job:site-pace')[0]).toEqual({ type: 'job:site-pace', sid: 9, secondsBetween: 10, perDay: 20 });
    await waitFor(() => text(rowOf(root, 9).querySelector('.pace')).includes('Pace saved for OurBits.'), 'saved');
    expect(text(rowOf(root, 9).querySelector('.used-today'))).toBe('3 of 20');

    // Not a whole number in range: said, not sent.
    await act(async () => {
      perDay.value = '5000';
      perDay.dispatchEvent(new Event('input', { bubbles: true }));
      perDay.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(perDay.getAttribute('aria-invalid')).toBe('true');
    expect(text(rowOf(root, 9).querySelector('.pace'))).toContain('Could not save the pace for OurBits.');
    expect(background.sentOf('job:site-pace')).toHaveLength(1);
  });

  it('opens a site\'s list of torrents a page at a time, each linking to its details page', async () => {
    const torrents = Array.from({ length: 150 }, (_, index) => ({
      sid: 9,
      torrentId: 1000 + index,
      infoHash: String(index).padStart(40, 'c'),
      sourceHash: 'd'.repeat(40),
      name: `Film ${index}`,
      bytes: GiB,
      detailsUrl: `https://ourbits.club/details.php?id=${1000 + index}`,
    }));
    const { root, background } = await findWith({
      'job:preview': () => preview([OURBITS]),
      'job:site-torrents': (request) => ({ torrents: torrents.slice(request.offset ?? 0, (request.offset ?? 0) + (request.limit ?? 100)), total: torrents.length }),
    });
    await waitFor(() => byId(root, 'job-sites'), 'the table');
    const toggle = buttonNamed(rowOf(root, 9), 'Show torrents')!;
    await click(toggle);
    const list = await waitFor(() => root.querySelector('#site-torrents-9 .torrents-shown') && byId(root, 'site-torrents-9'), 'the list');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(list.querySelectorAll('li')).toHaveLength(100);
    expect(list.querySelector('li a')!.getAttribute('href')).toBe('https://ourbits.club/details.php?id=1000');
    expect(text(list.querySelector('li a'))).toBe('Film 0');
    expect(text(list.querySelector('.torrents-shown'))).toBe('100 of 150 shown Show more');
    await click(buttonNamed(list, 'Show more'));
    await waitFor(() => list.querySelectorAll('li').length === 150, 'the second page');
    expect(background.sentOf('job:site-torrents').map(({ offset, limit }) => [offset, limit])).toEqual([
      [0, 100],
      [100, 100],
    ]);
    expect(buttonNamed(list, 'Show more')).toBeNull();
  });

  it('"Start cross-seeding" sends the ticked sites', async () => {
    const { root, background } = await findWith({ 'job:preview': () => preview([OURBITS, HDHOME, FAR]), 'job:start': () => undefined });
    await waitFor(() => byId(root, 'job-sites'), 'the table');
    await click(rowOf(root, 7).querySelector('input.tick'));
    await click(rowOf(root, 40).querySelector('input.tick'));
    await click(rowOf(root, 9).querySelector('input.tick'));
    await click(buttonNamed(root, 'Start cross-seeding'));
    expect(background.sentOf('job:start')).toEqual([{ type: 'job:start', sids: [7, 40] }]);

    // Nothing ticked: the button is off and says why.
    await click(byId(root, 'tick-all'));
    await click(byId(root, 'tick-all'));
    expect(byId<HTMLButtonElement>(root, 'job-start')!.disabled).toBe(true);
    expect(text(root.querySelector('#preview-heading')!.closest('section'))).toContain('Tick at least one site to start.');
  });

  it('says what went wrong when the background fails', async () => {
    const { root } = await findWith({
      'job:preview': () => {
        throw new Error('not built yet');
      },
    });
    await waitFor(() => text(byId(root, 'job-status')).includes('not built yet'), 'the failure');
    expect(text(byId(root, 'job-status'))).toBe('Something went wrong: not built yet');
  });
});

const RUNNING: JobView = {
  state: 'running',
  startedAt: Date.now(),
  total: 10,
  done: 5,
  revision: 3,
  sites: [
    { sid: 9, siteName: 'OurBits', total: 6, done: 2, state: 'running', msLeft: 20_000 },
    { sid: 7, siteName: 'HDHome', total: 4, done: 3, state: 'stopped', msLeft: 0, problem: { kind: 'not-logged-in', evidence: 'login-page' }, openUrl: 'https://hdhome.org/' },
  ],
  outcomes: [outcome(9, 2001, 'added', { result: { kind: 'added', hash: 'a'.repeat(40), savePath: '/data', client: 'qbittorrent', checked: true, state: 'seeding', progress: 1 } })],
};

const DONE: JobView = {
  ...RUNNING,
  state: 'done',
  done: 10,
  revision: 9,
  sites: [
    { sid: 9, siteName: 'OurBits', total: 6, done: 6, state: 'capped', msLeft: 0 },
    { sid: 7, siteName: 'HDHome', total: 4, done: 4, state: 'stopped', msLeft: 0, problem: { kind: 'not-logged-in', evidence: 'login-page' }, openUrl: 'https://hdhome.org/' },
  ],
  outcomes: [
    ...RUNNING.outcomes,
    outcome(9, 2002, 'left-stopped', {
      name: 'Half there',
      result: { kind: 'left-stopped', hash: 'e'.repeat(40), savePath: '/data', client: 'qbittorrent', progress: 0.5, checkFinished: true, tagged: true },
    }),
    outcome(9, 2003, 'files-differ', { result: { kind: 'files-differ', client: 'qbittorrent', differences: [{ kind: 'missing', path: 'a/b.mkv', size: 1 }], more: 0 } }),
    outcome(7, 3001, 'site-problem', { result: { kind: 'not-logged-in', evidence: 'login-page' } }),
    outcome(9, 2004, 'waiting-for-tomorrow'),
  ],
};

describe('the job', () => {
  it('shows "N of M" overall and per site, the time left, and a stopped site\'s problem with a link to open it', async () => {
    const { root } = await open();
    await announce(RUNNING);
    const progress = await waitFor(() => byId(root, 'job-progress'), 'the progress');
    expect(progress.querySelector<HTMLProgressElement>('.overall progress')!.getAttribute('max')).toBe('10');
    expect(progress.querySelector('.overall')!.getAttribute('aria-live')).toBe('polite');
    expect(text(progress.querySelector('.overall-text'))).toBe('Cross-seeding… 5 of 10 · about 20 sec left');
    const [ourbits, hdhome] = [...progress.querySelectorAll('li.site-progress')];
    expect(text(ourbits!.querySelector('.site-progress-text'))).toBe('2 of 6 · Running · about 20 sec left');
    expect(text(hdhome!.querySelector('.site-progress-text'))).toBe('3 of 4 · Stopped');
    expect(text(hdhome!.querySelector('.site-problem'))).toBe('HDHome answered with its login page: log in to HDHome, then try again. Open HDHome');
    expect(hdhome!.querySelector('.site-problem a')!.getAttribute('href')).toBe('https://hdhome.org/');
    // The job under way: no second start.
    expect(buttonNamed(root, 'Pause')).not.toBeNull();
    expect(buttonNamed(root, 'Resume')).toBeNull();

    // An older revision arriving late changes nothing.
    await announce({ ...RUNNING, done: 1, revision: 2 });
    expect(text(progress.querySelector('.overall-text'))).toContain('5 of 10');
  });

  it('shows the state the background had on open (job:status)', async () => {
    const { root } = await open({ 'job:status': () => ({ ...RUNNING, state: 'paused', pausedBecause: { kind: 'restart' } }) });
    const paused = await waitFor(() => root.querySelector('.paused-because'), 'the paused notice');
    expect(text(paused)).toContain('The job was interrupted');
    expect(buttonNamed(root, 'Resume')).not.toBeNull();
    expect(buttonNamed(root, 'Pause')).toBeNull();
  });

  it('applies each change on the revision it follows, and asks job:status again when it missed one', async () => {
    let status: JobView = IDLE_JOB;
    const { root, background } = await open({ 'job:status': () => status });
    await announce(RUNNING);
    const progress = await waitFor(() => byId(root, 'job-progress'), 'the progress');
    // One more torrent added on OurBits: the change carries OurBits' view and the outcome, not the rest.
    const next: JobView = {
      ...RUNNING,
      done: 6,
      revision: RUNNING.revision + 1,
      sites: [{ ...RUNNING.sites[0]!, done: 3 }, RUNNING.sites[1]!],
      outcomes: [...RUNNING.outcomes, outcome(9, 2005, 'added', { name: 'Just added' })],
    };
    const change = changeOf({ revision: RUNNING.revision, sites: RUNNING.sites, outcomeCount: RUNNING.outcomes.length }, next);
    expect(change.sites.map((site) => site.sid)).toEqual([9]);
    expect(change.outcomes.map((added) => added.torrentId)).toEqual([2005]);
    await announceChange(change);
    await waitFor(() => text(progress.querySelector('.overall-text')).includes('6 of 10'), '6 of 10');
    expect(text([...progress.querySelectorAll('li.site-progress')][0]!.querySelector('.site-progress-text'))).toContain('3 of 6');
    expect(text(progress.querySelectorAll('li.site-progress')[1]!.querySelector('.site-progress-text'))).toBe('3 of 4 · Stopped');
    // A change that follows a revision the page never saw: it asks the whole job again.
    const asked = background.sent.filter((message) => message.type === 'job:status').length;
    status = { ...next, done: 8, revision: next.revision + 2, sites: [{ ...next.sites[0]!, done: 5 }, next.sites[1]!] };
    const gap = changeOf({ revision: next.revision + 1, sites: next.sites, outcomeCount: next.outcomes.length }, status);
    expect(gap).toMatchObject({ since: next.revision + 1, sites: [{ sid: 9, done: 5 }], outcomes: [] });
    expect(gap.whole).toBeUndefined();
    await announceChange(gap);
    await waitFor(() => text(progress.querySelector('.overall-text')).includes('8 of 10'), '8 of 10 from job:status');
    expect(background.sent.filter((message) => message.type === 'job:status').length).toBe(asked + 1);
    expect(text([...progress.querySelectorAll('li.site-progress')][0]!.querySelector('.site-progress-text'))).toContain('5 of 6');
  });

  it('a client that stopped answering pauses the job, and says so with "Resume"', async () => {
    const { root } = await open();
    await announce({ ...RUNNING, state: 'paused', revision: 4, pausedBecause: { kind: 'client', problem: { kind: 'unreachable', detail: 'connection refused' } } });
    const paused = await waitFor(() => root.querySelector('.paused-because'), 'the paused notice');
    expect(text(paused)).toMatch(/^The job paused: your torrent client stopped answering \(.+\)\. Resume once it answers again\.$/);
  });

  it('a client that answers without its torrents (just restarted) pauses the job, and says so with "Resume"', async () => {
    const { root } = await open();
    await announce({ ...RUNNING, state: 'paused', revision: 4, pausedBecause: { kind: 'sources-missing' } });
    const paused = await waitFor(() => root.querySelector('.paused-because'), 'the paused notice');
    expect(paused.getAttribute('data-kind')).toBe('sources-missing');
    expect(text(paused)).toMatch(/^The job paused: your torrent client answers but lists none of the torrents this job cross-seeds from .+ Resume once it shows them again/);
    expect(buttonNamed(root, 'Resume')).not.toBeNull();
  });

  it('"Pause", "Resume" and "Cancel" send their commands', async () => {
    const { root, background } = await open({ 'job:pause': () => undefined, 'job:resume': () => undefined, 'job:cancel': () => undefined });
    await announce(RUNNING);
    await click(await waitFor(() => buttonNamed(root, 'Pause'), 'Pause'));
    await announce({ ...RUNNING, state: 'paused', revision: 4 });
    await click(await waitFor(() => buttonNamed(root, 'Resume'), 'Resume'));
    await click(buttonNamed(root, 'Cancel'));
    expect(background.sent.filter((message) => ['job:pause', 'job:resume', 'job:cancel'].includes(message.type)).map((message) => message.type)).toEqual([
      'job:pause',
      'job:resume',
      'job:cancel',
    ]);
    await announce({ ...RUNNING, state: 'cancelled', revision: 5 });
    await waitFor(() => text(root.querySelector('.overall-text')).startsWith('Cancelled'), 'cancelled');
    expect(buttonNamed(root, 'Cancel')).toBeNull();
  });

  it('reports by group, each row linking to its torrent, and copies the report as text', async () => {
    const { root } = await open();
    await announce(DONE);
    const report = await waitFor(() => byId(root, 'job-report'), 'the report');
    const groups = [...report.querySelectorAll('.report-group')];
    expect(groups.map((group) => text(group.querySelector('h3')))).toEqual([
      'Added (1)',
      'Left stopped (1)',
      'Not the same files (1)',
      'Site problems (1)',
      'Waiting for tomorrow (1)',
    ]);
    const links = [...report.querySelectorAll('li.outcome a')].map((link) => link.getAttribute('href'));
    expect(links).toEqual([
      'https://site9.example/details.php?id=2001',
      'https://site9.example/details.php?id=2002',
      'https://site9.example/details.php?id=2003',
      'https://site7.example/details.php?id=3001',
      'https://site9.example/details.php?id=2004',
    ]);
    expect(text(report.querySelector('[data-group="left-stopped"] .on-disk'))).toBe('· 2 GB of 4 GB on disk');
    expect(text(report.querySelector('[data-group="site-problem"] li'))).toContain('HDHome answered with its login page');

    await click(buttonNamed(report, 'Copy report'));
    const copied = await navigator.clipboard.readText();
    expect(copied.split('\n')).toEqual([
      'Cross-seed your clients: report',
      '10 of 10',
      '',
      'Added (1)',
      '- OurBits #2001 Torrent 2001 <https://site9.example/details.php?id=2001> — Added to qBittorrent, seeding: its check found every file on disk.',
      '',
      'Left stopped (1)',
      expect.stringMatching(/^- OurBits #2002 Half there <https:\/\/site9\.example\/details\.php\?id=2002> — Left stopped in qBittorrent: .* 2 GB of 4 GB on disk$/),
      '',
      'Not the same files (1)',
      // No page is involved in the job: the user's torrent in their client, and each difference on a line of its own.
      '- OurBits #2003 Torrent 2003 <https://site9.example/details.php?id=2003> — The files differ from your torrent in qBittorrent: not added.',
      '    a/b.mkv — not in your torrent in qBittorrent',
      '',
      'Site problems (1)',
      '- HDHome #3001 Torrent 3001 <https://site7.example/details.php?id=3001> — HDHome answered with its login page: log in to HDHome, then try again.',
      '',
      'Waiting for tomorrow (1)',
      '- OurBits #2004 Torrent 2004 <https://site9.example/details.php?id=2004> — This site\'s downloads per day are used up; these wait for the next run.',
    ]);
  });

  it('lists each group by site and torrent id, whatever order the outcomes landed in (their checks end in any order)', async () => {
    const { root } = await open();
    const landed = [outcome(9, 2003, 'added'), outcome(7, 3002, 'added'), outcome(9, 2001, 'added'), outcome(7, 3001, 'added'), outcome(9, 2002, 'added')];
    await announce({ ...DONE, outcomes: landed, total: 5, done: 5 });
    const report = await waitFor(() => byId(root, 'job-report'), 'the report');
    const ids = [...report.querySelectorAll('[data-group="added"] li.outcome a')].map((link) => Number(/id=(\d+)/.exec(link.getAttribute('href') ?? '')?.[1]));
    expect(ids).toEqual([3001, 3002, 2001, 2002, 2003]);
    await click(buttonNamed(report, 'Copy report'));
    const rows = (await navigator.clipboard.readText()).split('\n').filter((line) => line.startsWith('- '));
    expect(rows.map((line) => Number(/id=(\d+)/.exec(line)?.[1]))).toEqual([3001, 3002, 2001, 2002, 2003]);
  });

  it('shows a large group 100 rows at first, all on "Show all", and copies them all', async () => {
    const { root } = await open();
    const many = Array.from({ length: 250 }, (_, index) => outcome(9, 5000 + index, 'waiting-for-tomorrow'));
    await announce({ ...DONE, outcomes: many, total: 250, done: 250 });
    const group = await waitFor(() => root.querySelector('[data-group="waiting-for-tomorrow"]'), 'the group');
    expect(text(group.querySelector('h3'))).toBe('Waiting for tomorrow (250)');
    expect(group.querySelectorAll('li')).toHaveLength(100);
    await click(buttonNamed(group, 'Show all 250'));
    expect(group.querySelectorAll('li')).toHaveLength(250);
    expect(buttonNamed(group, 'Show all 250')).toBeNull();
    await click(buttonNamed(root, 'Copy report'));
    expect((await navigator.clipboard.readText()).split('\n').filter((line) => line.startsWith('- '))).toHaveLength(250);
  });

  it('"Try again" forgets the job\'s sites\' outcomes and shows the new preview', async () => {
    const { root, background } = await open({ 'job:try-again': () => preview([OURBITS]) });
    await announce(DONE);
    await click(await waitFor(() => buttonNamed(root, 'Try again'), 'Try again'));
    expect(background.sentOf('job:try-again')).toEqual([{ type: 'job:try-again', sids: [9, 7] }]);
    await waitFor(() => byId(root, 'job-sites'), 'the new preview');
    expect(text(byId(root, 'job-status'))).toContain('Earlier outcomes forgotten');
  });
});

describe('several clients', () => {
  const NAS = { id: 'nas-id', name: 'NAS' };
  const SEEDBOX = { id: 'seedbox-id', name: 'Seedbox' };
  const route = (source: typeof NAS, target: typeof NAS, count: number, bytes: number) => ({ sourceId: source.id, sourceName: source.name, targetId: target.id, targetName: target.name, count, bytes });

  it('the preview says what each client will do over every site and in each site\'s row, and the finds a client can send nowhere', async () => {
    const ourbits = site(9, 'OurBits', { count: 5, bytes: 5 * GiB, routes: [route(NAS, SEEDBOX, 3, 3 * GiB), route(SEEDBOX, SEEDBOX, 2, 2 * GiB)], refused: 4 });
    const hdhome = site(7, 'HDHome', { count: 1, bytes: GiB, routes: [route(NAS, SEEDBOX, 1, GiB)] });
    const { root } = await findWith({
      'job:preview': () =>
        preview([ourbits, hdhome], {
          routes: [route(NAS, SEEDBOX, 4, 4 * GiB), route(SEEDBOX, SEEDBOX, 2, 2 * GiB)],
          refused: [{ clientId: 'reader-id', clientName: 'Reader', kind: 'read-only', count: 4, example: { kind: 'read-only', clientName: 'Reader' } }],
        }),
    });
    const clients = await waitFor(() => byId(root, 'job-clients'), 'what each client will do');
    expect([...clients.querySelectorAll('li.job-route')].map((item) => [item.getAttribute('data-source'), item.getAttribute('data-target'), text(item)])).toEqual([
      ['nas-id', 'seedbox-id', 'NAS → Seedbox: 4 (4 GB)'],
      ['seedbox-id', 'seedbox-id', 'Seedbox: 2 (2 GB)'],
    ]);
    const refused = clients.querySelector('li.job-refused')!;
    expect(refused.getAttribute('data-reason')).toBe('read-only');
    expect(text(refused)).toMatch(/^Reader: 4 not sent — Reader only reads: nothing is added to it\./);
    expect([...rowOf(root, 9).querySelectorAll('.site-route')].map(text)).toEqual(['NAS → Seedbox: 3', 'Seedbox: 2']);
    expect(text(rowOf(root, 9).querySelector('.site-refused'))).toBe('4 not sent (see above)');
    expect([...rowOf(root, 7).querySelectorAll('.site-route')].map(text)).toEqual(['NAS → Seedbox: 1']);
  });

  it('one client, into itself: no per-client words in the rows', async () => {
    const { root } = await findWith({ 'job:preview': () => preview([site(9, 'OurBits', { count: 2, bytes: GiB, routes: [route(NAS, NAS, 2, GiB)] })], { routes: [route(NAS, NAS, 2, GiB)] }) });
    const clients = await waitFor(() => byId(root, 'job-clients'), 'what the client will do');
    expect(text(clients.querySelector('li.job-route'))).toBe('NAS: 2 (1 GB)');
    expect(rowOf(root, 9).querySelector('.site-route')).toBeNull();
  });

  it('a client that stopped answering: its torrents wait, named with a "Resume" of its own; the others go on', async () => {
    const { root, background } = await open({ 'job:resume': () => undefined });
    const problem = { kind: 'unreachable' as const, detail: 'connection refused' };
    await announce({ ...RUNNING, revision: 4, clients: [{ ...NAS, paused: { kind: 'client', problem } }, SEEDBOX] });
    const notice = await waitFor(() => root.querySelector('#paused-clients li.client-paused'), 'the paused client');
    expect(notice.getAttribute('data-client-id')).toBe('nas-id');
    expect(notice.getAttribute('data-kind')).toBe('client');
    expect(text(notice.querySelector('.client-paused-text'))).toBe('NAS is not answering: its torrents wait.');
    expect(root.querySelectorAll('#paused-clients li')).toHaveLength(1);
    // The job goes on: "Pause", no job-wide "Resume" and no job-wide notice.
    expect(buttonNamed(root, 'Pause')).not.toBeNull();
    expect(buttonNamed(root, 'Resume')).toBeNull();
    expect(root.querySelector('.paused-because')).toBeNull();
    await click(buttonNamed(root, 'Resume NAS'));
    expect(background.sentOf('job:resume')).toEqual([{ type: 'job:resume', clientId: 'nas-id' }]);

    // Nothing else left: the job pauses whole; the client still named, and the job's "Resume" resumes them all.
    await announce({ ...RUNNING, state: 'paused', revision: 5, pausedBecause: { kind: 'sources-missing' }, clients: [{ ...NAS, paused: { kind: 'sources-missing' } }, SEEDBOX] });
    await waitFor(() => root.querySelector('#paused-clients li[data-kind="sources-missing"]'), 'the client without its sources');
    expect(text(root.querySelector('.client-paused-text'))).toMatch(/^NAS answers but lists none of the torrents this job cross-seeds from it .+: its torrents wait\.$/);
    expect(root.querySelector('.paused-because')).toBeNull();
    await click(buttonNamed(root, 'Resume'));
    expect(background.sentOf('job:resume')[1]).toEqual({ type: 'job:resume' });
  });

  it('the report names the client of an outcome whose words do not, on the page and in the copied report', async () => {
    const { root } = await open();
    const added = outcome(9, 2001, 'added', { sourceClientId: NAS.id, targetClientId: SEEDBOX.id, result: { kind: 'added', hash: 'a'.repeat(40), savePath: '/data', client: 'qbittorrent', checked: true, state: 'seeding', progress: 1, clientName: 'Seedbox', clientId: SEEDBOX.id } });
    const waiting = outcome(9, 2004, 'waiting-for-tomorrow', { sourceClientId: NAS.id, targetClientId: SEEDBOX.id });
    const own = outcome(9, 2005, 'waiting-for-tomorrow', { sourceClientId: SEEDBOX.id, targetClientId: SEEDBOX.id });
    await announce({ ...DONE, outcomes: [added, waiting, own], clients: [NAS, SEEDBOX] });
    const report = await waitFor(() => byId(root, 'job-report'), 'the report');
    const row = (id: number) => report.querySelector(`li.outcome a[href$="id=${id}"]`)!.closest('li')!;
    expect(row(2001).getAttribute('data-client-id')).toBe('seedbox-id');
    expect(text(row(2001).querySelector('.outcome-words'))).toContain('Added to Seedbox');
    expect(row(2001).querySelector('.outcome-client')).toBeNull();
    expect(text(row(2004).querySelector('.outcome-client'))).toBe('· NAS → Seedbox');
    expect(text(row(2005).querySelector('.outcome-client'))).toBe('· Seedbox');
    await click(buttonNamed(report, 'Copy report'));
    const copied = (await navigator.clipboard.readText()).split('\n');
    expect(copied.find((line) => line.includes('#2004'))).toMatch(/ \[NAS → Seedbox\] — /);
    expect(copied.find((line) => line.includes('#2001'))).not.toContain('[');
  });
});

describe('the switches', () => {
  it('are off by default, explained, and saved with job:switches', async () => {
    let stored = { ...SWITCHES_OFF };
    const { root, background } = await open({ 'job:switches': (request) => (stored = { ...stored, ...request }) });
    const notify = await waitFor(() => !byId<HTMLInputElement>(root, 'notify-new-finds')?.disabled && byId<HTMLInputElement>(root, 'notify-new-finds'), 'the switch');
    const auto = byId<HTMLInputElement>(root, 'auto-start-new-finds')!;
    expect(text(notify.closest('label'))).toBe('Tell me when there is something new to cross-seed');
    expect([notify.checked, auto.checked]).toEqual([false, false]);
    expect(text(byId(root, 'auto-start-new-finds-hint'))).toContain('without asking');

    await click(notify);
    await waitFor(() => background.sentOf('job:switches').length === 2, 'the switch sent');
    expect(background.sentOf('job:switches')).toEqual([{ type: 'job:switches' }, { type: 'job:switches', notifyNewFinds: true }]);
    await click(auto);
    await waitFor(() => background.sentOf('job:switches').length === 3, 'the second switch sent');
    expect(background.sentOf('job:switches')[2]).toEqual({ type: 'job:switches', autoStartNewFinds: true });
    await waitFor(() => auto.checked && notify.checked, 'both on');
  });
});

describe('the link "Cross-seed your clients"', () => {
  it('is in the popup\'s footer', async () => {
    answerBackground({ 'view:get': () => tabView() });
    const create = vi.spyOn(fakeBrowser.tabs, 'create').mockResolvedValue({} as never);
    const root = await show(<Popup tabId={TAB_ID} poppedOut={false} />);
    const link = await waitFor(() => root.querySelector('footer .cross-seed-page-link'), 'the link');
    expect(text(link)).toBe('Cross-seed your clients');
    await click(link);
    expect(create).toHaveBeenCalledWith({ url: fakeBrowser.runtime.getURL('/cross-seed.html') });
  });

  it('is next to the options page\'s "Index of your client"', async () => {
    const status: IndexStatusView = { enabled: false, markHosts: [] };
    answerBackground({ 'index:status': () => status });
    const root = await show(<ClientIndexSection serviceHost="api.iyuu.cn" />);
    const link = await waitFor(() => root.querySelector('#client-index-section .section-head .cross-seed-page-link'), 'the link');
    expect(text(link)).toBe('Cross-seed your clients');
  });

  it('opens cross-seed.html in a tab', async () => {
    const create = vi.spyOn(fakeBrowser.tabs, 'create').mockResolvedValue({} as never);
    const root = await show(<CrossSeedPageLink />);
    const link = root.querySelector('a')!;
    expect(text(link)).toBe('Cross-seed your clients');
    await click(link);
    expect(create).toHaveBeenCalledWith({ url: fakeBrowser.runtime.getURL('/cross-seed.html') });
  });
});
