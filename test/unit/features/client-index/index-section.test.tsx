// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * "Index of your client" in the options page, against the real background and reference service,
 * with qbittorrent-nox 4.5.2 as the default client, answering as it did when recorded (its list of
 * two seeding torrents, replayed strictly; the live daemons: test/unit/features/client-index/client-index.test.ts
 * and test/e2e/list-pages.test.ts): off by default with the plain statement of
 * what it sends (both languages), turned on, "Sync now", progress for a large client, the last
 * sync and the counts, why a sync cannot run, and the sites with row marks (turned off here).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ClientIndexSection } from '../../../../features/client-index/ui/ClientIndexSection';
import type { IndexProgressView, IndexRunView, IndexStatusView } from '../../../../features/client-index/client-index.messages';
import { CLIENTS_KEY } from '../../../../features/clients/clients.storage';
import { nodeClientFetch } from '../../../clients/node-fetch';
import { replayFetch, type Recording } from '../../../clients/recording';
import { factsOf, recordings } from '../../clients/support';
import { refuseIndexWrites } from '../../client-index/support';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { click, mount, startOptionsWorld, text, waitFor, type OptionsWorld } from '../../options/support';

let world: OptionsWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const [recording] = recordings('qbittorrent') as [Recording];
const daemon = factsOf(recording);
const listed = recording.scenarios.list!;
/** The recorded list, asked twice by one logged-in client (a first sync, then "Sync now"). */
const listedTwice = { ...listed, exchanges: [...listed.exchanges, listed.exchanges.at(-1)!] };

const SERVICE_HOST = '127.0.0.1';

async function open(options: { settings?: Record<string, unknown>; locale?: 'en' | 'zh_CN'; client?: boolean } = {}): Promise<HTMLElement> {
  world = await startOptionsWorld({ settings: options.settings, locale: options.locale, clientFetch: nodeClientFetch({ inner: replayFetch(listedTwice) }) });
  if (options.client) {
    await fakeBrowser.storage.local.set({
      [CLIENTS_KEY]: { version: 1, clients: [{ id: 'c1', type: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password, isDefault: true }] },
    });
  }
  const page = mount(<ClientIndexSection serviceHost={SERVICE_HOST} />);
  await waitFor(() => page.querySelector('#index-enabled'), 'the switch');
  return page;
}

const lookups = () => world!.service.requests.filter((request) => request.path === '/reseed/index/index').length;

describe('Index of your clients', () => {
  it('is off by default and says plainly what turning it on sends, in English and Chinese', async () => {
    let page = await open();
    expect(text(page, '#client-index-heading')).toBe('Index of your clients');
    expect((page.querySelector('#index-enabled') as HTMLInputElement).checked).toBe(false);
    expect(text(page, 'label.check')).toBe('Keep an index of my clients');
    expect(text(page, '#index-enabled-hint')).toBe(
      'Off unless you turn it on. When on, Reseed Lens sends the info-hash of every torrent in your client to the lookup service (127.0.0.1), as the official IYUU daemon does: in batches of 200, within its rate limit, and later only the torrents it has not asked about. Turning it off deletes the index.',
    );
    expect(page.querySelector('#index-sync')).toBeNull();
    expect(text(page, '#index-marks-heading')).toBe("Row marks in sites' pages");
    expect(page.querySelector('#index-mark-hosts')).toBeNull();
    await world!.close();
    world = undefined;

    page = await open({ locale: 'zh_CN' });
    expect(text(page, '#client-index-heading')).toBe('你的下载器的索引');
    expect(text(page, 'label.check')).toBe('为我的下载器建立索引');
    expect(text(page, '#index-enabled-hint')).toBe(
      '默认关闭。开启后，Reseed Lens 会把下载器中每个种子的 Hash 发送给查询服务（127.0.0.1），与 IYUU 官方辅种程序相同：每批 200 个，遵守频率限制，之后只发送尚未查询过的种子。关闭即删除索引。',
    );
  });

  it('turned on with no client: says what to do, and "Sync now" waits for a client', async () => {
    const page = await open();
    await click(page.querySelector<HTMLElement>('#index-enabled')!);
    await waitFor(() => page.querySelector('.index-problem'), 'the problem');
    expect(text(page, '.index-problem')).toBe('Set up a torrent client under “Torrent clients” first: the index is of your clients.');
    expect((page.querySelector('#index-sync') as HTMLButtonElement).disabled).toBe(true);
    expect(lookups()).toBe(0);
  });

  it('turned on: the first sync sends the client\'s hashes, says how it went; "Sync now" again sends nothing', async () => {
    const page = await open({ client: true });
    await click(page.querySelector<HTMLElement>('#index-enabled')!);
    await waitFor(() => page.querySelector('.index-last-sync[data-outcome=done]'), 'the first sync', 15_000);
    expect(text(page, '.index-last-sync')).toMatch(/^Synced (now|\d+ seconds? ago) — torrents: 2, hashes sent: 2, requests: 1\.$/);
    expect(text(page, '.index-client-row .index-client-name')).toBe('qBittorrent on 127.0.0.1');
    expect(text(page, '.index-client')).toBe(`Of qBittorrent ${daemon.url}`);
    expect(page.querySelectorAll('.index-client-row')).toHaveLength(1);
    expect(text(page, '#index-counts')).toBe('Torrents indexed: 2 · torrents on sites already in your client: 0 · you can cross-seed: 0');
    expect(lookups()).toBe(1);

    await click(page.querySelector<HTMLElement>('#index-sync')!);
    await waitFor(() => /hashes sent: 0/.test(text(page, '.index-last-sync') ?? ''), 'the second sync', 15_000);
    expect(lookups()).toBe(1);
  });

  it('shows a run under way with its progress, and Stop', async () => {
    const page = await open({ settings: { clientIndexEnabled: true }, client: true });
    const counts = { torrents: 10_000, answered: 2_400, places: 9_000, inClient: 1_200, canCrossSeed: 5_100, toPlace: 0 };
    const client = { id: 'c1', type: 'qbittorrent', url: daemon.url, name: 'qBittorrent on 127.0.0.1' } as const;
    const asking: IndexProgressView = { job: 'sync', phase: 'asking', done: 2_400, total: 10_000, requests: 12 };
    const statusWith = (progress: IndexProgressView): IndexStatusView => ({ enabled: true, markHosts: [], counts, running: progress, clients: [{ client, counts, running: progress }] });
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: statusWith(asking) });
    await waitFor(() => page.querySelector('.index-progress progress'), 'the progress bar');
    expect(text(page, '.index-progress-text')).toBe('Looking up hashes: 2,400 of 10,000 (requests: 12)…');
    const bar = page.querySelector('.index-progress progress') as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([2_400, 10_000]);
    expect(page.querySelector('#index-cancel')).not.toBeNull();
    expect((page.querySelector('#index-sync') as HTMLButtonElement).disabled).toBe(true);
    expect(text(page, '#index-counts')).toBe('Torrents indexed: 10,000 · torrents on sites already in your client: 1,200 · you can cross-seed: 5,100');
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: statusWith({ job: 'place', phase: 'locating', done: 200, total: 7_600, requests: 51 }) });
    await waitFor(() => /pages/.test(text(page, '.index-progress-text') ?? ''), 'the placing progress');
    expect(text(page, '.index-progress-text')).toBe('Finding the pages of your torrents: 200 of 7,600 (requests: 51)…');
    // A long first sync: its time left, and that it went on after a restart.
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: statusWith({ ...asking, secondsLeft: 754, resumed: true }) });
    await waitFor(() => /left/.test(text(page, '.index-progress-text') ?? ''), 'the time left');
    expect(text(page, '.index-progress-text')).toBe(
      'Going on where the sync stopped (the browser or the extension restarted): Looking up hashes: 2,400 of 10,000 (requests: 12)… About 12 min 34 sec left.',
    );
  });

  it('a sync that stopped says where, why and what to do, and that nothing is lost, in English and Chinese', async () => {
    const counts = { torrents: 30_000, answered: 1_200, places: 900, inClient: 10, canCrossSeed: 40, toPlace: 0 };
    const client = { id: 'c1', type: 'qbittorrent', url: daemon.url, name: 'qBittorrent on 127.0.0.1' } as const;
    const lastSync: IndexRunView = {
      job: 'sync',
      at: Date.now(),
      outcome: 'failed',
      torrents: 30_000,
      asked: 0,
      requests: 0,
      phase: 'reading-client',
      progress: { done: 0, total: 0 },
      problem: { kind: 'client', problem: { kind: 'timeout', detail: 'list: no answer in 15 s' } },
    };
    const stopped: IndexStatusView = { enabled: true, markHosts: [], counts, revision: 1_000, lastSync, clients: [{ client, counts, lastSync }] };
    for (const locale of ['en', 'zh_CN'] as const) {
      const page = await open({ settings: { clientIndexEnabled: true }, client: true, locale });
      await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: stopped });
      await waitFor(() => page.querySelector('.index-failed-advice'), 'the advice');
      if (locale === 'en') {
        expect(text(page, '.index-last-sync')).toMatch(/^The last sync \((now|\d+ seconds? ago)\) stopped while reading your client: Your client could not be read: The client did not answer in time\.$/);
        expect(text(page, '.index-failed-advice')).toBe(
          'Check under Torrent clients that the client is running and that Test client answers, then press Sync now. Nothing is lost: the index keeps 30,000 torrents (1,200 answered), and Sync now goes on from where it stopped.',
        );
      } else {
        expect(text(page, '.index-last-sync')).toMatch(/^上次同步（.+）在读取下载器时中断：无法读取下载器：下载器响应超时。$/);
        expect(text(page, '.index-failed-advice')).toBe(
          '请在「下载器」中确认下载器正在运行、「测试下载器」能正常返回，然后点「立即同步」。 已有内容不会丢失：索引保留 30,000 个种子（1,200 个已有查询结果），「立即同步」会从中断处继续。',
        );
      }
      await world!.close();
      world = undefined;
    }
  });

  it('an older status arriving after a newer one does not take its place (the end of a run is not undone by an answer computed before it)', async () => {
    const page = await open({ settings: { clientIndexEnabled: true }, client: true });
    const client = { id: 'c1', type: 'qbittorrent', url: daemon.url, name: 'qBittorrent on 127.0.0.1' } as const;
    const failed: IndexRunView = { job: 'sync', at: Date.now(), outcome: 'failed', torrents: 0, asked: 0, requests: 0 };
    const asking: IndexProgressView = { job: 'sync', phase: 'asking', done: 0, total: 2, requests: 0 };
    const ended: IndexStatusView = { enabled: true, markHosts: [], revision: 1_000, lastSync: failed, clients: [{ client, lastSync: failed }] };
    const stillRunning: IndexStatusView = { enabled: true, markHosts: [], revision: 999, running: asking, clients: [{ client, running: asking }] };
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: ended });
    await waitFor(() => page.querySelector('.index-last-sync[data-outcome=failed]'), 'the end of the run');
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: stillRunning });
    // A newer one still shows: the stale one was dropped, not merely late.
    await fakeBrowser.runtime.sendMessage({ type: 'index:changed', status: { ...ended, revision: 1_001, counts: { torrents: 2, answered: 2, places: 2, inClient: 0, canCrossSeed: 0, toPlace: 0 } } });
    await waitFor(() => page.querySelector('#index-counts'), 'the newer status');
    expect(page.querySelector('.index-progress progress')).toBeNull();
    expect(page.querySelector('.index-last-sync[data-outcome=failed]')).not.toBeNull();
  });

  it('no room for the index (a full disk or quota): says so in English and Chinese, and the settings still save', async () => {
    const undo = refuseIndexWrites();
    try {
      for (const locale of ['en', 'zh_CN'] as const) {
        const page = await open({ client: true, locale });
        await click(page.querySelector<HTMLElement>('#index-enabled')!);
        // The line comes after the sync's first write, behind a real client and service: a busy
        // machine took over 15 s for that, so the wait is only a guard against a hang.
        await waitFor(() => page.querySelector('.index-storage[data-storage=full]'), 'the storage line', 90_000);
        expect(text(page, '.index-storage')).toBe(
          locale === 'en'
            ? "No room to store the index: the disk or the browser's storage for this extension is full. The index works from memory until the browser restarts, then syncs again. Your settings are kept apart and still save."
            : '没有空间保存索引：磁盘或浏览器为本扩展分配的存储空间已满。索引暂存于内存中，浏览器重启后会重新同步。你的设置单独保存，不受影响。',
        );
        // The switch itself is a setting: it was saved, and another setting saves after it.
        expect(((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as { clientIndexEnabled: boolean }).clientIndexEnabled).toBe(true);
        const saved = (await fakeBrowser.runtime.sendMessage({ type: 'settings:save', update: { panelDisabledHosts: ['s0.example.org'] } })) as { settings?: { panelDisabledHosts: string[] } };
        expect(saved.settings?.panelDisabledHosts).toEqual(['s0.example.org']);
        await world!.close();
        world = undefined;
      }
    } finally {
      undo();
    }
  }, 240_000);

  it('a failed sync says why: the service, the client, the token', async () => {
    const page = await open({ settings: { token: 'not-a-token' }, client: true });
    await click(page.querySelector<HTMLElement>('#index-enabled')!);
    await waitFor(() => page.querySelector('.index-last-sync[data-outcome=failed]'), 'the failure', 15_000);
    expect(text(page, '.index-last-sync')).toMatch(/^The last sync \((now|\d+ seconds? ago)\) stopped while asking the lookup service \(0 of 2 hashes\): The lookup service failed: /);
    expect(text(page, '.index-failed-advice')).toMatch(/ Nothing is lost: the index keeps 2 torrents \(0 answered\), and Sync now goes on from where it stopped\.$/);
    await world!.close();
    world = undefined;

    const noToken = await open({ settings: { token: '', appId: 'demo-app', secret: 'demo-secret', clientIndexEnabled: true }, client: true });
    await waitFor(() => noToken.querySelector('.index-problem'), 'the problem');
    expect(text(noToken, '.index-problem')).toBe('Indexing your client needs an IYUU token (App ID lookups ask one hash per request).');
  });

  it('lists the sites with row marks; "Turn off" takes one away', async () => {
    const page = await open({ settings: { clientIndexEnabled: true, indexMarkHosts: ['ourbits.club', 'hdsky.me'] }, client: true });
    await waitFor(() => page.querySelector('#index-mark-hosts'), 'the list');
    expect([...page.querySelectorAll('#index-mark-hosts code')].map((code) => code.textContent)).toEqual(['ourbits.club', 'hdsky.me']);
    await click(page.querySelector<HTMLElement>('#index-mark-hosts button[aria-label="Turn row marks off on ourbits.club"]')!);
    await waitFor(() => page.querySelectorAll('#index-mark-hosts code').length === 1, 'one host left');
    expect(text(page, '#index-status')).toBe('Row marks are off on ourbits.club.');
    expect((await world!.app.settings.get()).indexMarkHosts).toEqual(['hdsky.me']);
  });
});
