/**
 * The torrent-clients feature (features/clients/clients.feature.ts) in the real background, against the
 * real daemons (qbittorrent-nox with its CSRF protection on, transmission-daemon; every qBittorrent
 * build of both generations, each beside a Transmission of its generation), reached
 * as the extension reaches them: through the router, with the extension's own Origin unless a
 * session rule says otherwise (test/unit/support/client-browser.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { CLIENTS_KEY, readClients } from '../../../../features/clients/clients.storage';
import { routeMessage } from '../../../../entrypoints/background/router';
import { createClient } from '../../../../utils/clients/index';
import type { ClientStatus, ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { torrentOn, writeSampleContent } from '../../../clients/torrent-content';
import { clientBuilds, startQbittorrent, startTransmission, type ClientBuild, type RunningDaemon } from '../../../clients/daemons';
import type { JarFetch } from '../../../clients/node-fetch';
import { addSeeding } from '../../../clients/seeding';
import { currentSessionRules, extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { ownClient } from '../../../clients/own-client';

const LIVE = { timeout: 90_000 };
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const optionsPage = { id: extension.id, url: `${extension.origin}options.html` };
const trackerPage = { id: extension.id, url: 'https://hdsky.me/details.php?id=1', frameId: 0, tab: { id: 3 } as never };

describe('stored clients', () => {
  const good = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'qbittorrent', url: 'http://127.0.0.1:8080/', username: 'a', password: 'p', ...extra });

  it('drops a bad entry alone, puts version 1\'s default first, names each client, reads a missing flag as false', () => {
    const { clients, dropped } = readClients({
      version: 1,
      clients: [good('one'), { ...good('bad'), url: 'ftp://x' }, good('one'), good('two', { isDefault: true }), good('three', { isDefault: true }), 'junk'],
    });
    expect(clients.map((client) => client.id)).toEqual(['two', 'one', 'three']);
    expect(dropped).toBe(3);
    // Its type and host; with the port, then numbered, where another has that name already.
    expect(clients.map((client) => client.name)).toEqual(['qBittorrent on 127.0.0.1', 'qBittorrent on 127.0.0.1:8080', 'qBittorrent on 127.0.0.1:8080 (2)']);
    expect(clients[0]).toMatchObject({ url: 'http://127.0.0.1:8080', skipCheckWhenFilesMatch: false, readOnly: false, folderPairs: [] });
    expect(clients[0]).not.toHaveProperty('isDefault');
  });

  it('keeps the order and the names of version 2, and reads anything else as none', () => {
    const { clients } = readClients({ version: 2, clients: [good('a', { name: 'NAS' }), good('b', { name: ' nas ' }), good('c', { name: 'Seedbox', readOnly: true })] });
    expect(clients.map((client) => [client.id, client.name, client.readOnly])).toEqual([
      ['a', 'NAS', false],
      ['b', 'nas (2)', false],
      ['c', 'Seedbox', true],
    ]);
    for (const value of [undefined, null, 'x', [], { clients: 'no' }]) expect(readClients(value).clients).toEqual([]);
  });
});

/**
 * Every qBittorrent build, each with the Transmission of its generation: bookworm's 4.5.2 and 3.00,
 * then today's 5.1 and 5.3, both with Transmission 4.1.
 */
const PAIRS: [string, ClientBuild, ClientBuild][] = clientBuilds({ kind: 'qbittorrent' }).map((qbittorrentBuild) => {
  const transmissionBuild = clientBuilds({ kind: 'transmission', generation: qbittorrentBuild.generation })[0]!;
  return [`${qbittorrentBuild.label} and ${transmissionBuild.label}`, qbittorrentBuild, transmissionBuild];
});

describe.each(PAIRS)('%s', (_, qbittorrentBuild, transmissionBuild) => {
  let qbittorrent: RunningDaemon;
  let transmission: RunningDaemon;
  /**
   * Torrents both daemons seed (the same content from two trackers: a cross-seed pair, in each
   * daemon's own data folder), and one neither holds. The sample content is deterministic, so the
   * hashes are the same for both.
   */
  let seeded: { alpha: string; beta: string; absent: string };

  let app: BackgroundApp;
  let clientFetch: JarFetch;

  beforeAll(async () => {
    [qbittorrent, transmission] = await Promise.all([startQbittorrent({ build: qbittorrentBuild }), startTransmission({ build: transmissionBuild })]);
    for (const daemon of [qbittorrent, transmission]) {
      const content = writeSampleContent(daemon.dataDir);
      // The test's own client, as a user's web UI would be: same-origin requests.
      const client = ownClient(daemon);
      await addSeeding(client, torrentOn('alpha', content.folder), content.folder);
      await addSeeding(client, torrentOn('beta', content.folder), content.folder);
      seeded = {
        alpha: torrentOn('alpha', content.folder).hash,
        beta: torrentOn('beta', content.folder).hash,
        absent: torrentOn('alpha', content.single).hash,
      };
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all([qbittorrent?.stop(), transmission?.stop()]);
  }, 30_000);

  beforeEach(async () => {
    fakeBrowser.reset();
    installI18n('en');
    installSessionRules();
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, token: 'demo-token' } });
    clientFetch = extensionClientFetch();
    app = new BackgroundApp({ clientFetch });
  });

  /** A message from the options page or popup, through the router as the real background gets it. */
  function fromPage<T>(message: Record<string, unknown>): Promise<T> {
    return routeMessage(app, message, optionsPage, extension) as Promise<T>;
  }

  const form = (daemon: RunningDaemon, extra: Record<string, unknown> = {}) => ({
    type: daemon.kind,
    url: daemon.url,
    username: daemon.username,
    password: daemon.password,
    ...extra,
  });

  async function save(daemon: RunningDaemon, extra: Record<string, unknown> = {}): Promise<ClientsAnswer> {
    const answer = await fromPage<ClientsAnswer | { problem: unknown }>({ type: 'clients:save', client: form(daemon, extra) });
    if ('problem' in answer) throw new Error(`not saved: ${JSON.stringify(answer.problem)}`);
    return answer;
  }

  async function stored(): Promise<unknown> {
    return (await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY];
  }

  function viewWith(hashes: string[], candidates: string[]): TabView {
    return {
      tabId: 3,
      url: 'https://hdsky.me/details.php?id=1',
      host: 'hdsky.me',
      status: 'done',
      hashes: hashes.map((hash) => ({ hash, source: 'info-row' as const })),
      candidates: candidates.map((infoHash, index) => ({
        sid: 10 + index,
        torrentId: 100 + index,
        infoHash,
        forHash: hashes[0]!,
        siteName: `Site ${index}`,
        isCurrentSite: false,
      })),
    };
  }

  describe('the options page', () => {
    it('saves clients under their own key in the order added, each named, never lists a password; the order moves', async () => {
      const first = await save(qbittorrent, { skipCheckWhenFilesMatch: true });
      expect(first.clients).toEqual([
        {
          id: first.savedId,
          type: 'qbittorrent',
          url: qbittorrent.url,
          name: 'qBittorrent on 127.0.0.1',
          username: qbittorrent.username,
          hasPassword: true,
          skipCheckWhenFilesMatch: true,
          readOnly: false,
          folderPairs: [],
        },
      ]);
      const second = await save(transmission, { name: '  Long-term  ' });
      expect(second.clients.map((client) => [client.type, client.name])).toEqual([
        ['qbittorrent', 'qBittorrent on 127.0.0.1'],
        ['transmission', 'Long-term'],
      ]);
      const listed = await fromPage<ClientsAnswer>({ type: 'clients:list' });
      expect(JSON.stringify(listed)).not.toContain(qbittorrent.password);
      // Apart from the settings, which hold no client.
      expect(JSON.stringify((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY])).not.toContain(qbittorrent.url);
      expect(readClients(await stored()).clients.map((client) => client.password)).toEqual([qbittorrent.password, transmission.password]);

      const moved = await fromPage<ClientsAnswer>({ type: 'clients:move', id: second.savedId, index: 0 });
      expect(moved.clients.map((client) => client.name)).toEqual(['Long-term', 'qBittorrent on 127.0.0.1']);
      expect(readClients(await stored()).clients.map((client) => client.name)).toEqual(['Long-term', 'qBittorrent on 127.0.0.1']);
      const removed = await fromPage<ClientsAnswer>({ type: 'clients:remove', id: second.savedId });
      expect(removed.clients).toHaveLength(1);
      expect(removed.clients[0]).toMatchObject({ type: 'qbittorrent', name: 'qBittorrent on 127.0.0.1' });
    });

    it('refuses, in the rule it would break, two clients of one Name, a chain or loop of "Copies go to", a target that only reads, a folder that is no absolute path, and removing a named target', async () => {
      const refusal = async (message: Record<string, unknown>) => ((await fromPage<{ problem?: { kind: string; rule?: unknown; field?: string } }>(message)).problem ?? {}) as { kind?: string; rule?: unknown; field?: string };
      const nas = (await save(qbittorrent, { name: 'NAS' })).savedId!;
      const box = (await save(transmission, { name: 'Seedbox' })).savedId!;
      expect(await refusal({ type: 'clients:save', client: form(transmission, { id: box, name: 'nas ' }) })).toEqual({ kind: 'rule', detail: 'same-name', rule: { rule: 'same-name', name: 'nas' }, field: 'name' });
      expect(await refusal({ type: 'clients:save', client: form(qbittorrent, { id: nas, copiesTo: box, folderPairs: [{ from: 'downloads', to: '/srv' }] }) })).toMatchObject({
        rule: { rule: 'folder-not-absolute', client: 'NAS', path: 'downloads' },
        field: 'folderPairs',
      });
      expect(await refusal({ type: 'clients:save', client: form(qbittorrent, { id: nas, copiesTo: box, folderPairs: [] }) })).toMatchObject({ rule: { rule: 'no-folder-pair', client: 'NAS' } });
      // NAS → Seedbox, kept.
      const pairs = [{ from: '/downloads', to: 'D:\\Torrents' }];
      const sent = await save(qbittorrent, { id: nas, copiesTo: box, folderPairs: pairs });
      expect(sent.clients.find((client) => client.id === nas)).toMatchObject({ copiesTo: box, folderPairs: pairs });
      // Seedbox → NAS would be a loop; a third client → NAS a chain (NAS sends on to Seedbox).
      expect(await refusal({ type: 'clients:save', client: form(transmission, { id: box, copiesTo: nas, folderPairs: pairs }) })).toMatchObject({ rule: { rule: 'copies-loop', client: 'Seedbox', target: 'NAS' } });
      const third = { type: 'deluge', url: 'http://127.0.0.1:1', username: '', password: 'x', name: 'Third', copiesTo: nas, folderPairs: pairs };
      expect(await refusal({ type: 'clients:save', client: third })).toMatchObject({ rule: { rule: 'copies-chain', client: 'Third', target: 'NAS', next: 'Seedbox' } });
      // The target only reading, and the target removed while named.
      expect(await refusal({ type: 'clients:save', client: form(transmission, { id: box, readOnly: true }) })).toMatchObject({ rule: { rule: 'copies-target-read-only', client: 'NAS', target: 'Seedbox' } });
      expect(await refusal({ type: 'clients:remove', id: box })).toMatchObject({ rule: { rule: 'target-named', target: 'Seedbox', client: 'NAS' } });
      // Nothing refused was stored.
      expect(readClients(await stored()).clients.map((client) => [client.name, client.readOnly, client.copiesTo ?? ''])).toEqual([
        ['NAS', false, box],
        ['Seedbox', false, ''],
      ]);
      // "This client" again: the pairs go with the target.
      expect((await save(qbittorrent, { id: nas, copiesTo: '' })).clients.find((client) => client.id === nas)).toMatchObject({ folderPairs: [] });
      expect((await fromPage<ClientsAnswer>({ type: 'clients:remove', id: box })).clients).toHaveLength(1);
    });

    it('keeps the saved password when an update leaves it empty, but never carries it to another origin', async () => {
      const { savedId } = await save(qbittorrent);
      const kept = await save(qbittorrent, { id: savedId, password: '', url: `${qbittorrent.url}/` });
      expect(kept.clients).toHaveLength(1);
      expect(readClients(await stored()).clients[0]!.password).toBe(qbittorrent.password);

      const elsewhere = await fromPage<{ problem: { kind: string; field: string } }>({
        type: 'clients:save',
        client: form(qbittorrent, { id: savedId, password: '', url: 'http://localhost:1' }),
      });
      expect(elsewhere.problem).toMatchObject({ kind: 'password-needed', field: 'password' });
      // Nor does Test send it there.
      const tested = await fromPage<{ problem: { kind: string } }>({ type: 'clients:test', client: form(qbittorrent, { id: savedId, password: '', url: 'http://localhost:1' }) });
      expect(tested.problem.kind).toBe('password-needed');
      expect(clientFetch.sent).toEqual([]);
      expect(readClients(await stored()).clients[0]!.url).toBe(qbittorrent.url);
    });

    it('refuses an address that is not http(s) and one the browser has not granted, saving nothing', async () => {
      const bad = await fromPage<{ problem: { kind: string; field: string } }>({ type: 'clients:save', client: form(qbittorrent, { url: 'ftp://127.0.0.1:21' }) });
      expect(bad.problem).toMatchObject({ kind: 'bad-config', field: 'url' });
      const nas = 'http://nas.example.lan:8080';
      const refused = await fromPage<{ problem: { kind: string; origin: string } }>({ type: 'clients:save', client: form(qbittorrent, { url: nas }) });
      expect(refused.problem).toEqual({ kind: 'no-permission', detail: expect.any(String), origin: nas });
      expect(await stored()).toBeUndefined();
      // Once the user allowed it in the browser's prompt (no port: Firefox's match patterns have none).
      await fakeBrowser.permissions.request({ origins: ['http://nas.example.lan/*'] });
      expect((await save(qbittorrent, { url: nas })).clients[0]!.url).toBe(nas);
    });

    it('answers none of it to a tracker page', async () => {
      await save(qbittorrent);
      for (const type of ['clients:list', 'clients:test', 'client:status', 'clients:remove']) {
        expect(routeMessage(app, { type, tabId: 3, id: 'x' }, trackerPage, extension)).toBeUndefined();
      }
    });
  });

  describe("qBittorrent's CSRF protection, left on", () => {
    it('refuses the extension without the session rule (what the rule is for)', LIVE, async () => {
      const bare = createClient(qbittorrent.config, { fetch: extensionClientFetch() });
      await expect(bare.test()).rejects.toMatchObject({ kind: 'csrf' });
    });

    it('a rule for every saved qBittorrent address and none other, made for this extension only, renewed at start', LIVE, async () => {
      const { savedId } = await save(qbittorrent);
      await save(transmission);
      const rules = currentSessionRules();
      expect(rules.map((rule) => rule.condition.urlFilter)).toEqual([`|${qbittorrent.url}/`]);
      expect(rules[0]!.condition.initiatorDomains).toEqual([new URL(extension.origin).host]);
      expect(rules[0]!.action.requestHeaders).toContainEqual({ header: 'Origin', operation: 'set', value: qbittorrent.url });

      // A browser restart forgets session rules: the background's start puts them back.
      installSessionRules();
      const restarted = new BackgroundApp({ clientFetch });
      await restarted.start();
      expect(currentSessionRules().map((rule) => rule.condition.urlFilter)).toEqual([`|${qbittorrent.url}/`]);

      await fromPage({ type: 'clients:remove', id: savedId });
      expect(currentSessionRules()).toEqual([]);
    });

    it('a background woken by a message uses the client only once its rules are back', LIVE, async () => {
      await save(qbittorrent);
      installSessionRules(); // the browser restarted
      const woken = new BackgroundApp({ clientFetch });
      void woken.start();
      const [found] = await woken.clients.handles();
      expect(currentSessionRules().map((rule) => rule.condition.urlFilter)).toEqual([`|${qbittorrent.url}/`]);
      expect((await found!.client.lookup([seeded.alpha])).has(seeded.alpha)).toBe(true);
    });
  });

  describe('Test client', () => {
    it.each([
      ['qbittorrent', () => qbittorrent],
      ['transmission', () => transmission],
    ])('%s: the unsaved form says its version and how many torrents it holds; the rule lasts only as long as the test', LIVE, async (_, daemon) => {
      const answer = await fromPage<{ info: { client: string; version: string; torrentCount: number } }>({ type: 'clients:test', client: form(daemon()) });
      expect(answer).toEqual({ info: expect.objectContaining({ client: daemon().kind, version: daemon().version, torrentCount: 2 }) });
      expect(currentSessionRules()).toEqual([]);
      // Everything went to the client's own address.
      expect(clientFetch.sent.length).toBeGreaterThan(0);
      for (const request of clientFetch.sent) expect(request.url.startsWith(`${daemon().url}/`), request.url).toBe(true);
    });

    it.each([
      ['qbittorrent', () => qbittorrent],
      ['transmission', () => transmission],
    ])('%s: a wrong password is told as such, and a saved client is tested with its saved password', LIVE, async (_, daemon) => {
      const wrong = await fromPage<{ problem: { kind: string } }>({ type: 'clients:test', client: form(daemon(), { password: 'not-the-password' }) });
      expect(wrong.problem.kind).toBe('auth');
      const { savedId } = await save(daemon());
      expect(await fromPage({ type: 'clients:test', id: savedId })).toMatchObject({ info: { version: daemon().version } });
      expect(await fromPage({ type: 'clients:test', client: form(daemon(), { password: '' }), id: savedId })).toMatchObject({ info: { version: daemon().version } });
    });

    it('a stopped client is unreachable', LIVE, async () => {
      const stopping = await startTransmission({ build: transmissionBuild });
      await stopping.stop();
      const answer = await fromPage<{ problem: { kind: string } }>({ type: 'clients:test', client: form(stopping) });
      expect(answer.problem.kind).toBe('unreachable');
    });
  });

  describe('client:status (the popup\'s "In your client")', () => {
    const status = (tabId = 3) => fromPage<ClientStatus>({ type: 'client:status', tabId });

    it('says nothing where the tab has no hash, and that no client is set up where it has', async () => {
      expect(await status()).toEqual({ state: 'no-hashes' });
      await app.tabs.set(viewWith([seeded.alpha], []));
      expect(await status()).toEqual({ state: 'no-client' });
    });

    it.each([
      ['qbittorrent', () => qbittorrent],
      ['transmission', () => transmission],
    ])("%s: the page's torrent (seeding, save path) and the candidates the client holds, in one request when warm", LIVE, async (_, daemon) => {
      const { savedId } = await save(daemon());
      await app.tabs.set(viewWith([seeded.alpha], [seeded.beta, seeded.absent]));
      const first = await status();
      const sentBefore = clientFetch.sent.length;
      const answer = await status();
      expect(clientFetch.sent.length - sentBefore).toBe(1);
      expect(answer).toEqual(first);
      if (answer.state !== 'answered') throw new Error(`no answer: ${JSON.stringify(answer)}`);
      const [only] = answer.clients;
      if (answer.clients.length !== 1 || only?.state !== 'answered') throw new Error(`not one answer: ${JSON.stringify(answer)}`);
      expect(only.client).toEqual({ id: savedId, type: daemon().kind, url: daemon().url, name: `${daemon().kind === 'qbittorrent' ? 'qBittorrent' : 'Transmission'} on 127.0.0.1` });
      expect(answer.asked).toEqual([seeded.alpha, seeded.beta, seeded.absent]);
      expect(Object.keys(only.held).sort()).toEqual([seeded.alpha, seeded.beta].sort());
      // Its copies go into the client itself, at the torrent's own save path.
      expect(answer.copies).toEqual({ [seeded.alpha]: { from: only.client.name, into: only.client.name, savePath: daemon().dataDir, viaPair: false } });
      expect(only.held[seeded.alpha]).toEqual({
        hash: seeded.alpha,
        name: 'Reseed Lens Album (2024) [FLAC]',
        savePath: daemon().dataDir,
        state: 'seeding',
        progress: 1,
        size: 180_000 + 120_500 + 9_000,
      });
      expect(JSON.stringify(answer)).not.toContain(daemon().password);
    });

    it('asks every client at once, in the user\'s order: each one\'s holdings, and a stopped one\'s failure in its place', LIVE, async () => {
      const stopping = await startTransmission({ build: transmissionBuild });
      const nas = (await save(qbittorrent, { name: 'NAS' })).savedId;
      const box = (await save(transmission, { name: 'Box' })).savedId;
      const gone = (await save(stopping, { name: 'Gone' })).savedId;
      await stopping.stop();
      await app.tabs.set(viewWith([seeded.alpha], [seeded.beta, seeded.absent]));
      // The stopped one is asked again over 2.5 s (a moment's hiccup is ridden out): the others do
      // not wait for that; it is named as slow, or already as down.
      const first = await status();
      if (first.state !== 'answered') throw new Error(`no answer: ${JSON.stringify(first)}`);
      expect(first.clients.map((entry) => entry.client.id)).toEqual([nas, box, gone]);
      expect(first.clients.map((entry) => entry.state).slice(0, 2)).toEqual(['answered', 'answered']);
      expect(['slow', 'problem']).toContain(first.clients[2]!.state);
      // Asked with `wait` (the popup does once a client is slow), its own answer: down.
      const answer = await fromPage<ClientStatus>({ type: 'client:status', tabId: 3, wait: true });
      if (answer.state !== 'answered') throw new Error(`no answer: ${JSON.stringify(answer)}`);
      expect(answer.clients.map((entry) => [entry.client.id, entry.state])).toEqual([
        [nas, 'answered'],
        [box, 'answered'],
        [gone, 'problem'],
      ]);
      expect(answer.clients[2]).toMatchObject({ client: { name: 'Gone' }, problem: { kind: 'unreachable' } });
      for (const entry of answer.clients.slice(0, 2)) if (entry.state === 'answered') expect(Object.keys(entry.held).sort()).toEqual([seeded.alpha, seeded.beta].sort());
      // Both hold it complete: the first in the user's order takes the copy.
      expect(answer.copies?.[seeded.alpha]).toEqual({ from: 'NAS', into: 'NAS', savePath: qbittorrent.dataDir, viaPair: false });
      await fromPage({ type: 'clients:move', id: box, index: 0 });
      const moved = await status();
      expect(moved.state === 'answered' ? moved.copies?.[seeded.alpha] : undefined).toEqual({ from: 'Box', into: 'Box', savePath: transmission.dataDir, viaPair: false });
    });

    it("says a wrong qBittorrent password even while the browser holds a live session of it", LIVE, async () => {
      // The right password first: the browser's jar now holds a session qBittorrent still accepts.
      const { savedId } = await save(qbittorrent);
      await app.tabs.set(viewWith([seeded.alpha], []));
      expect(await status()).toMatchObject({ state: 'answered' });
      // With that session qBittorrent answers "Ok." to any password: the wrong one must still be said.
      await save(qbittorrent, { id: savedId, password: 'not-the-password' });
      expect(await status()).toMatchObject({ state: 'answered', clients: [{ state: 'problem', client: { id: savedId }, problem: { kind: 'auth' } }] });
      await expect((await app.clients.handles())[0]!.client.lookup([seeded.alpha])).rejects.toMatchObject({ kind: 'auth' });
    });

    it('leaves out a candidate hash that is not 40 hex rather than failing the lookup', LIVE, async () => {
      await save(qbittorrent);
      await app.tabs.set(viewWith([seeded.alpha], ['not-a-hash']));
      const answer = await status();
      expect(answer).toMatchObject({ state: 'answered', asked: [seeded.alpha] });
    });
  });

  describe('handles() for other features', () => {
    it('is every client in the user\'s order, each the same library client while its configuration stays, a new one after it changes', LIVE, async () => {
      expect(await app.clients.handles()).toEqual([]);
      const { savedId } = await save(qbittorrent, { skipCheckWhenFilesMatch: true });
      await save(transmission);
      const [found, other] = await app.clients.handles();
      expect(found?.config).toMatchObject({ id: savedId, type: 'qbittorrent', url: qbittorrent.url, password: qbittorrent.password, skipCheckWhenFilesMatch: true });
      expect(other?.config.type).toBe('transmission');
      expect((await found!.client.lookup([seeded.alpha])).get(seeded.alpha)?.state).toBe('seeding');
      expect((await app.clients.handle(savedId!))!.client).toBe(found!.client);
      await save(qbittorrent, { id: savedId, username: 'someone-else', password: 'other' });
      expect((await app.clients.handle(savedId!))!.client).not.toBe(found!.client);
    });

    it('tells listeners every change', async () => {
      const seen: number[] = [];
      app.clients.onChange((next) => void seen.push(next.length));
      const { savedId } = await save(qbittorrent);
      await save(transmission);
      await fromPage({ type: 'clients:remove', id: savedId });
      expect(seen).toEqual([1, 2, 1]);
    });
  });
});
