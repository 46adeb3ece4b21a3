// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * "Torrent clients" on the options page, against the real background: a person's way through the
 * form, by its labels, and what Test client says in words. The clients answer as the real daemons
 * did (test/fixtures/clients, recorded from qbittorrent-nox 4.5.2 with its CSRF protection on and
 * transmission-daemon 3.00), replayed strictly: a request that differs from the recorded one fails.
 * (The same flows against live daemons: test/unit/features/clients/clients.test.ts and the e2e tests.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ClientsSection } from '../../../../features/clients/ui/ClientsSection';
import { Options } from '../../../../entrypoints/options/OptionsApp';
import { CLIENTS_KEY, readClients } from '../../../../features/clients/clients.storage';
import type { ClientKind } from '../../../../utils/clients/client-types';
import { nodeClientFetch } from '../../../clients/node-fetch';
import { replayFetch, type Recording, type ReplayFetch } from '../../../clients/recording';
import { factsOf, recordings } from '../../clients/support';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { loadMessages } from '../../support/i18n';
import { $, accessibleName, choose, click, mount, startOptionsWorld, text, type, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');
const zh = loadMessages('zh_CN');

const [qbittorrentRecording] = recordings('qbittorrent') as [Recording];
const [transmissionRecording] = recordings('transmission') as [Recording];

/** The recorded daemon as the form is filled for it. */
function daemonOf(recording: Recording) {
  const facts = factsOf(recording);
  return { kind: recording.client as ClientKind, url: facts.url, username: facts.username, password: facts.password, version: recording.version };
}
const qbittorrent = daemonOf(qbittorrentRecording);
const transmission = daemonOf(transmissionRecording);

let world: OptionsWorld | undefined;
/** What the clients answer next: one recorded scenario at a time. */
let answering: typeof fetch = async () => {
  throw new Error('no recorded scenario is being replayed');
};
let replays: ReplayFetch[] = [];

/**
 * The next requests get the recorded answers of `scenario`. `throughRules`: sent as the extension's
 * fetch is, with the Origin the background's session rules set (else the extension's own, which the
 * recording would not match): the scenario recorded with the client's own Origin passes only if the
 * background installed the rule.
 */
function replaying(recording: Recording, scenario: string, { throughRules = false } = {}): ReplayFetch {
  const replay = replayFetch(recording.scenarios[scenario]!);
  replays.push(replay);
  answering = throughRules ? extensionClientFetch(replay, ['Origin']) : nodeClientFetch({ inner: replay });
  return replay;
}

afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const replay of replays.splice(0)) expect(replay.remaining(), 'recorded requests left unasked').toBe(0);
});

async function openSection(locale: 'en' | 'zh_CN' = 'en'): Promise<HTMLElement> {
  world = await startOptionsWorld({ locale, clientFetch: (input, init) => answering(input, init) });
  installSessionRules();
  const page = mount(<ClientsSection />);
  await waitFor(() => page.querySelector('#client-none, #client-list'), 'the client list');
  return page;
}

async function fillForm(page: HTMLElement, daemon: { kind: ClientKind; url: string; username: string; password: string }): Promise<void> {
  await choose($<HTMLSelectElement>(page, '#client-type'), daemon.kind);
  await type($<HTMLInputElement>(page, '#client-url'), daemon.url);
  await type($<HTMLInputElement>(page, '#client-username'), daemon.username);
  await type($<HTMLInputElement>(page, '#client-password'), daemon.password);
}

/** The outcome line once it says something other than "working". */
async function outcome(page: HTMLElement): Promise<string> {
  await waitFor(() => page.querySelector('#client-status.ok, #client-status.problem'), 'an outcome', 20_000);
  return text(page, '#client-status');
}

async function storedClients() {
  return readClients((await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY]).clients;
}

describe('the form', () => {
  it('has the labels a person (and the checks) know, and offers the clients by name', async () => {
    const page = await openSection();
    expect(text(page, '#clients-heading')).toBe('Torrent clients');
    expect(accessibleName($(page, '#client-type'))).toBe('Client type');
    expect([...page.querySelectorAll('#client-type option')].map((option) => [option.getAttribute('value'), option.textContent])).toEqual([
      ['qbittorrent', 'qBittorrent'],
      ['transmission', 'Transmission'],
      ['deluge', 'Deluge'],
      ['rtorrent', 'rTorrent'],
      ['flood', 'Flood'],
    ]);
    expect(accessibleName($(page, '#client-url'))).toBe('Client URL');
    expect(accessibleName($(page, '#client-username'))).toBe('Username');
    expect(accessibleName($(page, '#client-password'))).toBe('Password');
    expect($<HTMLInputElement>(page, '#client-password').type).toBe('password');
    expect(accessibleName($(page, '#client-skip-check'))).toBe('Skip the check when every file matches');
    expect(text(page, '#save-client')).toBe('Save client');
    expect(text(page, '#test-client')).toBe('Test client');
    expect(text(page, '#client-none')).toBe(en.clientNone!.message);
    // rTorrent: the address is the web server's /RPC2, the credentials its HTTP authentication.
    expect(text(page, '#client-url-hint')).toBe(en.clientUrlHint!.message);
    await choose($<HTMLSelectElement>(page, '#client-type'), 'rtorrent');
    expect(text(page, '#client-url-hint')).toBe(en.clientUrlHintRtorrent!.message);
    expect(text(page, '#client-password-hint')).toBe(en.clientPasswordHintRtorrent!.message);
    expect($<HTMLInputElement>(page, '#client-url').placeholder).toBe('http://127.0.0.1/RPC2');
    // Flood: its own address and its own users, and it always checks a cross-seed (the switch says so).
    await choose($<HTMLSelectElement>(page, '#client-type'), 'flood');
    expect(text(page, '#client-url-hint')).toBe(en.clientUrlHintFlood!.message);
    expect(text(page, '#client-password-hint')).toBe(en.clientPasswordHintFlood!.message);
    expect($<HTMLInputElement>(page, '#client-url').placeholder).toBe('http://127.0.0.1:3000');
    expect(page.textContent).toContain(`${en.clientSkipCheckHint!.message} ${en.clientSkipCheckFloodNote!.message}`);
  });

  it('says what is wrong with an address, in words, and marks the field', async () => {
    const page = await openSection();
    await fillForm(page, { kind: 'qbittorrent', url: 'ftp://127.0.0.1:8080', username: 'a', password: 'b' });
    await click($(page, '#save-client'));
    expect(await outcome(page)).toBe(en.clientProblemBadConfig!.message);
    expect($(page, '#client-url').getAttribute('aria-invalid')).toBe('true');
    expect(await storedClients()).toEqual([]);
  });

  it('"Cross-seed copies whose names differ": on by default, and turned off (and on) for every client, saved as a setting', async () => {
    const page = await openSection();
    await waitFor(() => page.querySelector('#cross-seed-renamed-copies'), 'the switch');
    const box = $<HTMLInputElement>(page, '#cross-seed-renamed-copies');
    expect(accessibleName(box)).toBe('Cross-seed copies whose names differ');
    expect(text(page, '#cross-seed-renamed-copies-hint')).toBe(en.settingRenamedCopiesHint!.message);
    expect(box.checked).toBe(true);
    await click(box);
    await waitFor(async () => (await world!.app.settings.get()).crossSeedRenamedCopies === false, 'the setting saved off');
    expect(box.checked).toBe(false);
    await click(box);
    await waitFor(async () => (await world!.app.settings.get()).crossSeedRenamedCopies === true, 'the setting saved on');
  });

  it('reads in Chinese for a Chinese browser', async () => {
    const page = await openSection('zh_CN');
    await waitFor(() => page.querySelector('#cross-seed-renamed-copies'), 'the switch');
    expect(accessibleName($(page, '#cross-seed-renamed-copies'))).toBe('辅种名称不同的副本');
    expect(text(page, '#clients-heading')).toBe('下载器');
    expect(accessibleName($(page, '#client-url'))).toBe(zh.clientUrlLabel!.message);
    expect(text(page, '#save-client')).toBe(zh.clientSave!.message);
  });

  it('sits in the options page with its entry in the table of contents', async () => {
    world = await startOptionsWorld();
    const page = mount(<Options />);
    await waitFor(() => page.querySelector('#clients-heading') && page.querySelector('#client-none'), 'the clients section');
    expect([...page.querySelectorAll('nav.toc a')].find((link) => link.getAttribute('href') === '#clients-heading')?.textContent).toBe('Torrent clients');
  });
});

describe('qBittorrent (CSRF protection on)', () => {
  it('Test client before saving says its version and torrent count; Save lists it by its Name, without showing the password', async () => {
    const page = await openSection();
    await fillForm(page, qbittorrent);
    replaying(qbittorrentRecording, 'csrf-same-origin', { throughRules: true });
    await click($(page, '#test-client'));
    // What the library made of that answer when it was recorded.
    const { torrentCount } = (qbittorrentRecording.scenarios['csrf-same-origin']!.outcome as { result: { torrentCount: number } }).result;
    expect(await outcome(page)).toBe(`Connected: qBittorrent ${qbittorrent.version}, ${torrentCount} torrents`);

    await click($(page, '#save-client'));
    await waitFor(() => page.querySelector('#client-list li.client'), 'the saved client');
    expect(text(page, '#client-status')).toBe(en.clientSaved!.message);
    const row = $(page, '#client-list li.client');
    expect(text(row, '.client-name')).toBe(`qBittorrent on 127.0.0.1 qBittorrent ${qbittorrent.url} ${qbittorrent.username}`);
    expect(page.textContent).not.toContain(qbittorrent.password);
    // The form now edits the saved client: its password stays in the background, and Test uses it.
    expect($<HTMLInputElement>(page, '#client-password').value).toBe('');
    expect(text(page, '#client-password-hint')).toContain(en.clientPasswordKept!.message);
    replaying(qbittorrentRecording, 'csrf-same-origin', { throughRules: true });
    await click($(page, '#test-client'));
    await waitFor(() => text(page, '#client-status').startsWith('Connected'), 'the second test');
    expect(await storedClients()).toEqual([expect.objectContaining({ type: 'qbittorrent', url: qbittorrent.url, password: qbittorrent.password, name: 'qBittorrent on 127.0.0.1' })]);
  });

  it('says "wrong password" for a wrong password', async () => {
    const page = await openSection();
    await fillForm(page, { ...qbittorrent, password: 'not-the-password' });
    replaying(qbittorrentRecording, 'test-wrong-password');
    await click($(page, '#test-client'));
    expect(await outcome(page)).toBe(en.clientProblemAuth!.message);
    expect($(page, '#client-status').classList.contains('problem')).toBe(true);
  });

  it('keeps the skip-check choice, names, edits, orders "Your clients", sends copies to another client through folder pairs, and removes', async () => {
    const page = await openSection();
    expect(accessibleName($(page, '#client-name'))).toBe('Name');
    expect(accessibleName($(page, '#client-read-only'))).toBe('Only read this client');
    expect(accessibleName($(page, '#client-copies-to'))).toBe('Copies go to');
    await fillForm(page, qbittorrent);
    // Its default Name, shown before it is saved.
    expect($<HTMLInputElement>(page, '#client-name').placeholder).toBe('qBittorrent on 127.0.0.1');
    await type($<HTMLInputElement>(page, '#client-name'), 'NAS');
    await click($(page, '#client-skip-check'));
    await click($(page, '#save-client'));
    await waitFor(() => page.querySelector('#client-list li.client'), 'the first client');
    expect((await storedClients())[0]).toMatchObject({ name: 'NAS', skipCheckWhenFilesMatch: true, readOnly: false });

    await click($(page, '#add-another-client'));
    expect($<HTMLInputElement>(page, '#client-url').value).toBe('');
    await fillForm(page, { kind: 'transmission', url: 'http://127.0.0.1:9', username: 'seed', password: 'secret' });
    // A Name another client has is refused in words, the field marked, nothing saved.
    await type($<HTMLInputElement>(page, '#client-name'), 'nas');
    await click($(page, '#save-client'));
    expect(await outcome(page)).toBe(en.clientRuleSameName!.message.replace('$1', 'nas'));
    expect($(page, '#client-name').getAttribute('aria-invalid')).toBe('true');
    expect(await storedClients()).toHaveLength(1);
    await type($<HTMLInputElement>(page, '#client-name'), 'Seedbox');
    await click($<HTMLInputElement>(page, '#client-read-only'));
    await click($(page, '#save-client'));
    await waitFor(() => page.querySelectorAll('#client-list li.client').length === 2, `the second client (${text(page, '#client-status')})`);
    const names = () => [...page.querySelectorAll('#client-list li.client .client-title')].map((title) => title.textContent);
    expect(names()).toEqual(['NAS', 'Seedbox']);
    expect(page.querySelector('#client-list li.client.read-only .client-title')?.textContent).toBe('Seedbox');

    // The order: Seedbox up, first now (the order decides only ties).
    const second = page.querySelectorAll<HTMLElement>('#client-list li.client')[1]!;
    expect(accessibleName($(second, '.move-up'))).toBe('Move Seedbox up');
    expect($<HTMLButtonElement>(page, '#client-list li.client .move-up').disabled).toBe(true);
    await click($(second, '.move-up'));
    await waitFor(() => names()[0] === 'Seedbox', 'the new order');
    expect((await storedClients()).map((client) => client.name)).toEqual(['Seedbox', 'NAS']);

    // NAS's copies to Seedbox: refused while Seedbox only reads, then through a folder pair that must be a full path.
    await click($(page, '#client-list li.client[data-type="qbittorrent"] .edit-client'));
    expect(text(page, '#client-editing')).toBe('Editing NAS');
    expect($<HTMLInputElement>(page, '#client-skip-check').checked).toBe(true);
    expect([...page.querySelectorAll('#client-copies-to option')].map((option) => option.textContent)).toEqual(['This client', 'Seedbox']);
    const seedboxId = (await storedClients())[0]!.id;
    await choose($<HTMLSelectElement>(page, '#client-copies-to'), seedboxId);
    expect(accessibleName($(page, '#client-pair-from-0'))).toBe('Folder in this client');
    expect(accessibleName($(page, '#client-pair-to-0'))).toBe('Same folder in that client');
    await type($<HTMLInputElement>(page, '#client-pair-from-0'), 'downloads');
    await type($<HTMLInputElement>(page, '#client-pair-to-0'), '/mnt/nas/downloads');
    await click($(page, '#save-client'));
    expect(await outcome(page)).toBe(en.clientRuleFolderNotAbsolute!.message.replace('$1', 'NAS').replace('$2', 'downloads'));
    await type($<HTMLInputElement>(page, '#client-pair-from-0'), '/downloads');
    await click($(page, '#save-client'));
    expect(await outcome(page)).toBe(en.clientRuleTargetReadOnly!.message.replaceAll('$1', 'NAS').replaceAll('$2', 'Seedbox'));
    await click($(page, '#client-list li.client[data-type="transmission"] .edit-client'));
    await click($<HTMLInputElement>(page, '#client-read-only'));
    await click($(page, '#save-client'));
    await waitFor(async () => (await storedClients())[0]!.readOnly === false, 'Seedbox taking copies');
    await click($(page, '#client-list li.client[data-type="qbittorrent"] .edit-client'));
    await choose($<HTMLSelectElement>(page, '#client-copies-to'), seedboxId);
    await type($<HTMLInputElement>(page, '#client-pair-from-0'), '/downloads');
    await type($<HTMLInputElement>(page, '#client-pair-to-0'), '/mnt/nas/downloads');
    await click($(page, '#add-folder-pair'));
    await type($<HTMLInputElement>(page, '#client-pair-from-1'), '/music');
    await type($<HTMLInputElement>(page, '#client-pair-to-1'), '/mnt/nas/music');
    await type($<HTMLInputElement>(page, '#client-username'), 'someone');
    await click($(page, '#save-client'));
    await waitFor(async () => (await storedClients()).find((client) => client.type === 'qbittorrent')?.username === 'someone', 'the edit');
    // Edited in place (still two), its saved password kept, its copies going to Seedbox.
    expect((await storedClients()).map((client) => [client.name, client.password, client.copiesTo ?? '', client.folderPairs])).toEqual([
      ['Seedbox', 'secret', '', []],
      [
        'NAS',
        qbittorrent.password,
        seedboxId,
        [
          { from: '/downloads', to: '/mnt/nas/downloads' },
          { from: '/music', to: '/mnt/nas/music' },
        ],
      ],
    ]);
    expect(text(page, '#client-list li.client[data-type="qbittorrent"] .client-copies-to')).toBe(`· ${en.clientCopiesToShort!.message.replace('$1', 'Seedbox')}`);

    // Seedbox is where NAS's copies go: not removed while named (said in words), then removed once NAS keeps its copies.
    await click($(page, '#client-list li.client[data-type="transmission"] .remove-client'));
    expect(await outcome(page)).toBe(en.clientRuleTargetNamed!.message.replaceAll('$1', 'Seedbox').replaceAll('$2', 'NAS'));
    expect(page.querySelectorAll('#client-list li.client')).toHaveLength(2);
    await click($(page, '#client-list li.client[data-type="qbittorrent"] .edit-client'));
    await choose($<HTMLSelectElement>(page, '#client-copies-to'), '');
    expect(page.querySelector('#client-folder-pairs')).toBeNull();
    await click($(page, '#save-client'));
    await waitFor(async () => !(await storedClients()).some((client) => client.copiesTo), 'NAS keeping its copies');
    await click($(page, '#client-list li.client[data-type="transmission"] .remove-client'));
    await waitFor(() => page.querySelectorAll('#client-list li.client').length === 1, 'the removal');
    expect((await storedClients()).map((client) => [client.name, client.folderPairs])).toEqual([['NAS', []]]);
  });
});

describe('Transmission', () => {
  it('tested running says its version; stopped, that it cannot be reached', async () => {
    const page = await openSection();
    await fillForm(page, transmission);
    replaying(transmissionRecording, 'test');
    await click($(page, '#test-client'));
    expect(await outcome(page)).toBe(`Connected: Transmission ${transmission.version}, 0 torrents`);
    replaying(transmissionRecording, 'unreachable');
    await click($(page, '#test-client'));
    await waitFor(() => page.querySelector('#client-status.problem'), 'the failure');
    expect(text(page, '#client-status')).toBe(en.clientProblemUnreachable!.message);
  });
});

describe('an address on another machine', () => {
  const nas = 'http://nas.example.lan:8080';

  it('is saved only once the browser granted it, asked for as its host without the port', async () => {
    const page = await openSection();
    const asked: string[][] = [];
    let answer = false;
    const request = fakeBrowser.permissions.request;
    fakeBrowser.permissions.request = async (permissions) => {
      asked.push(permissions.origins ?? []);
      return answer && request(permissions);
    };
    try {
      await fillForm(page, { kind: 'qbittorrent', url: nas, username: 'admin', password: 'secret' });
      await click($(page, '#save-client'));
      expect(await outcome(page)).toBe(en.permissionRefused!.message.replace('$1', nas));
      expect(await storedClients()).toEqual([]);

      answer = true;
      await click($(page, '#save-client'));
      await waitFor(() => page.querySelector('#client-list li.client'), 'the saved client');
      expect(asked).toEqual([['http://nas.example.lan/*'], ['http://nas.example.lan/*']]);
      expect((await storedClients())[0]!.url).toBe(nas);
    } finally {
      fakeBrowser.permissions.request = request;
    }
  });

  it('a client on this machine needs no prompt', async () => {
    const page = await openSection();
    let asked = 0;
    const request = fakeBrowser.permissions.request;
    fakeBrowser.permissions.request = async (permissions) => {
      asked++;
      return request(permissions);
    };
    try {
      await fillForm(page, qbittorrent);
      await click($(page, '#save-client'));
      await waitFor(() => page.querySelector('#client-list li.client'), 'the saved client');
      expect(asked).toBe(0);
    } finally {
      fakeBrowser.permissions.request = request;
    }
  });
});
