// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/** Export and import of the settings through the page, against the real background. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { CLIENTS_KEY, readClients } from '../../../../features/clients/clients.storage';
import { Options } from '../../../../entrypoints/options/OptionsApp';
import { exportFileName } from '../../../../features/settings/ui/BackupSection';
import { loadMessages } from '../../support/i18n';
import { $, click, mount, startOptionsWorld, storedSettings, text, waitFor, type OptionsWorld } from '../../options/support';

const en = loadMessages('en');

let world: OptionsWorld | undefined;
let downloads: { name: string; text: Promise<string> }[] = [];
const createObjectURL = URL.createObjectURL;
const anchorClick = HTMLAnchorElement.prototype.click;

beforeEach(() => {
  downloads = [];
  // Catch the file the page hands to the browser's download, by its name and content.
  URL.createObjectURL = (blob: Blob) => {
    const url = `blob:test/${downloads.length}`;
    downloads.push({ name: '', text: blob.text() });
    return url;
  };
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    if (this.download) downloads[downloads.length - 1]!.name = this.download;
    else anchorClick.call(this);
  };
});
afterEach(async () => {
  URL.createObjectURL = createObjectURL;
  HTMLAnchorElement.prototype.click = anchorClick;
  await world?.close();
  world = undefined;
});

async function openOptions(): Promise<HTMLElement> {
  const page = mount(<Options />);
  // Everything the page asks for at first, answered, so nothing is in flight when a test ends.
  await waitFor(() => page.querySelector('#site-list') && page.querySelector('#token-state dl, #token-state .notice'), 'the page');
  return page;
}

async function exported(page: HTMLElement): Promise<Record<string, unknown>> {
  const before = downloads.length;
  await click($(page, '#export'));
  await waitFor(() => downloads.length > before && page.querySelector('#export-status.ok'), 'the download');
  const file = downloads.at(-1)!;
  expect(file.name).toMatch(/^reseed-lens-settings-\d{4}-\d{2}-\d{2}\.json$/);
  expect(text(page, '#export-status')).toBe(en.exportDone!.message.replace('$1', file.name));
  return JSON.parse(await file.text) as Record<string, unknown>;
}

async function importFile(page: HTMLElement, content: string): Promise<void> {
  const input = $<HTMLInputElement>(page, '#import-file');
  const previous = page.querySelector('#import-result');
  Object.defineProperty(input, 'files', { configurable: true, value: [new File([content], 'settings.json', { type: 'application/json' })] });
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await waitFor(() => {
    const result = page.querySelector('#import-result.notice');
    return result !== previous && result;
  }, 'the import result');
}

/** The preview's rows: field label → "before → after". */
function previewRows(page: HTMLElement): Record<string, string> {
  return Object.fromEntries(
    [...page.querySelectorAll('#import-preview .import-change')].map((row) => [row.getAttribute('data-field')!, row.querySelector('dd')!.textContent!]),
  );
}

async function applyImport(page: HTMLElement): Promise<void> {
  await click($(page, '#import-apply'));
  await waitFor(() => page.querySelector('#import-result.notice:not(.import-preview)'), 'the import applied');
}

describe('export', () => {
  it('leaves the token, App ID and Secret out unless asked, and warns when they are in', async () => {
    world = await startOptionsWorld({ settings: { appId: 'demo-app', secret: 'demo-secret', heldSites: [4, 7] } });
    const page = await openOptions();
    const plain = await exported(page);
    expect(plain.app).toBe('reseed-lens');
    expect(plain.heldSites).toEqual([4, 7]);
    expect(plain).not.toHaveProperty('token');
    expect(plain).not.toHaveProperty('appId');
    expect(plain).not.toHaveProperty('secret');
    expect(JSON.stringify(plain)).not.toContain('demo-token');
    expect(JSON.stringify(plain)).not.toContain('demo-secret');

    expect(page.querySelector('#export-credentials-warning')).toBeNull();
    await click($(page, '#export-credentials'));
    expect(text(page, '#export-credentials-warning')).toBe(en.exportCredentialsWarning!.message);
    const full = await exported(page);
    expect(full).toMatchObject({ token: 'demo-token', appId: 'demo-app', secret: 'demo-secret' });
  });

  it('names the file by the local date', () => {
    expect(exportFileName(new Date(2026, 0, 9, 23, 59))).toBe('reseed-lens-settings-2026-01-09.json');
  });
});

describe('import', () => {
  it('restores a changed setting, names what was imported and what was not, and the page shows it', async () => {
    world = await startOptionsWorld({ settings: { panelDisabledHosts: ['hdsky.me'] } });
    const page = await openOptions();
    const backup = await exported(page);

    // Changed after the export: the panel turned off, the hidden site shown again.
    await click($(page, '#panel-enabled'));
    await click($(page, '#panel-hidden-hosts button'));
    await waitFor(async () => {
      const stored = await storedSettings();
      return stored.panelEnabled === false && (stored.panelDisabledHosts as string[]).length === 0;
    }, 'the changes saved');

    const before = await storedSettings();
    await importFile(page, JSON.stringify({ ...backup, customHosts: ['not a host!'] }));
    // First what it would change, and nothing changed yet.
    expect(text(page, '#import-preview-title')).toBe(en.importPreviewTitle!.message);
    expect(previewRows(page)).toEqual({ panelEnabled: `${en.valueNo!.message} → ${en.valueYes!.message}`, panelDisabledHosts: `${en.valueNone!.message} → hdsky.me` });
    expect(text(page, '#import-result .import-skipped')).toBe(en.importSkipped!.message.replace('$1', en.fieldCustomHosts!.message));
    expect(await storedSettings()).toEqual(before);
    await applyImport(page);
    const result = $(page, '#import-result');
    expect(result.classList.contains('ok')).toBe(true);
    expect(text(result, '.notice-title')).toBe(en.importDone!.message);
    expect(text(result, '.import-imported')).toContain(en.fieldPanelEnabled!.message);
    expect(text(result, '.import-imported')).toContain(en.fieldPanelDisabledHosts!.message);
    expect(text(result, '.import-skipped')).toBe(en.importSkipped!.message.replace('$1', en.fieldCustomHosts!.message));
    const stored = await storedSettings();
    expect(stored.panelEnabled).toBe(true);
    expect(stored.panelDisabledHosts).toEqual(['hdsky.me']);
    // The credentials were not in the file, so they stay.
    expect(stored.token).toBe('demo-token');
    // The page shows the restored settings.
    await waitFor(() => $<HTMLInputElement>(page, '#panel-enabled').checked && text(page, '#panel-hidden-hosts').includes('hdsky.me'), 'the page updated');
    expect($<HTMLInputElement>(page, '#token').value).toBe('demo-token');
  });

  it('fills the connection form with an imported base URL and token', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    const document = { app: 'reseed-lens', version: 1, baseUrl: world.service.url, token: 'demo-forever-token' };
    await importFile(page, JSON.stringify(document));
    // The same address: nothing warns of a move; the new token is named only as set.
    expect(page.querySelector('#import-service-warning')).toBeNull();
    expect(previewRows(page)).toEqual({ token: `${en.valueSet!.message} → ${en.valueSet!.message}` });
    expect(text(page, '#import-preview')).not.toContain('demo-forever-token');
    await applyImport(page);
    await waitFor(() => $<HTMLInputElement>(page, '#token').value === 'demo-forever-token', 'the form updated');
    // A new token: its state is asked for again.
    await waitFor(() => text(page, '.token-expiry') === en.tokenLifetime!.message, 'the new token state');
    await waitFor(() => page.querySelector('#site-list'), 'the site list again');
  });

  it('says in words when the file is not ours or not readable, and changes nothing', async () => {
    world = await startOptionsWorld({ settings: { panelEnabled: false } });
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'another-extension', panelEnabled: true }));
    expect($(page, '#import-result').getAttribute('data-error')).toBe('not-ours');
    expect(text(page, '#import-result .notice-title')).toBe(en.importNotOurs!.message);
    expect(text(page, '#import-result .notice-action')).toBe(en.importAct!.message);

    await importFile(page, '{"app": "reseed-lens", "panelEnabled": tru');
    await waitFor(() => $(page, '#import-result').getAttribute('data-error') === 'unreadable', 'unreadable');
    expect(text(page, '#import-result .notice-title')).toBe(en.importUnreadable!.message);

    await importFile(page, '[1, 2, 3]');
    await waitFor(() => $(page, '#import-result').getAttribute('data-error') === 'unreadable', 'unreadable');
    expect((await storedSettings()).panelEnabled).toBe(false);
    // Only the well-formed documents reached the background.
    expect(world.messages.filter((message) => message.type === 'settings:import')).toHaveLength(2);
  });

  it('says when nothing in an export of ours could be used', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', panelEnabled: 'yes', heldSites: 'all' }));
    expect(text(page, '#import-result .notice-title')).toBe(en.importNothing!.message);
    expect(text(page, '#import-result .import-skipped')).toContain(en.fieldHeldSites!.message);
  });

  // Issue 15 point 4 changed this contract: a site moved to a host not its own is no longer part of
  // the "Site addresses" row but its own change (row `siteHost`), with its own yes.
  it('shows host overrides before applying them, and Cancel changes nothing', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    const before = await storedSettings();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', siteOverrides: { '7': { host: 'mirror.example.org', scheme: 'http' } } }));
    expect(previewRows(page).siteHost).toContain('HDHome: hdhome.org → mirror.example.org');
    expect(previewRows(page).siteOverrides).toBeUndefined();
    await click($(page, '#import-cancel'));
    expect(page.querySelector('#import-preview')).toBeNull();
    expect(await storedSettings()).toEqual(before);
  });

  it("a site moved to another site's host is its own change naming the site and both hosts; unticked, it is not applied (the rest is)", async () => {
    world = await startOptionsWorld({ settings: { sitePasskeys: { '23': 'ssd-passkey-0123456789' } } });
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', panelEnabled: false, siteOverrides: { '23': { host: 'tjupt.org' } } }));
    const row = $(page, '.import-change[data-field=siteHost][data-sid="23"]');
    expect(text(row, 'dt')).toBe(en.importSiteHostLabel!.message);
    expect(row.querySelector('dd')!.textContent).toContain('SpringSunday: springsunday.net → tjupt.org');
    // It names the site whose host it is, and that downloads never go there.
    expect(text(row, '.site-host-warning')).toBe(en.importSiteHostOtherSite!.message.replace('$1', 'tjupt.org').replace('$2', 'TJUPT').replaceAll('$3', 'SpringSunday'));
    // The "Site addresses" row is not where it hides.
    expect(previewRows(page).siteOverrides).toBeUndefined();
    expect($<HTMLInputElement>(page, '#import-site-host-23').checked).toBe(false);
    await applyImport(page);
    const stored = await storedSettings();
    expect(stored.panelEnabled).toBe(false);
    expect(stored.siteOverrides).toEqual({});
  });

  it('a new host for a site is applied, and confirmed for its downloads, only when ticked', async () => {
    world = await startOptionsWorld();
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', siteOverrides: { '23': { host: 'ssd-mirror.example.org' }, '5': { host: 'tjupt.org', scheme: 'http' } } }));
    // Moving TJUPT to one of its own hosts (only the scheme changes) asks nothing.
    expect([...page.querySelectorAll('.import-change[data-field=siteHost]')].map((row) => row.getAttribute('data-sid'))).toEqual(['23']);
    expect(previewRows(page).siteOverrides).toContain('tjupt.org');
    expect(text(page, '.site-host-warning')).toBe(en.importSiteHostNew!.message.replaceAll('$1', 'SpringSunday').replace('$2', 'ssd-mirror.example.org'));
    await click($(page, '#import-site-host-23'));
    await applyImport(page);
    expect((await storedSettings()).siteOverrides).toEqual({
      '23': { host: 'ssd-mirror.example.org', confirmedHost: 'ssd-mirror.example.org' },
      '5': { host: 'tjupt.org', scheme: 'http' },
    });
  });

  it("a file's own confirmation is never taken: a move is applied only for the sids the user confirmed", async () => {
    world = await startOptionsWorld();
    const file = { app: 'reseed-lens', siteOverrides: { '23': { host: 'evil.example.org', confirmedHost: 'evil.example.org' }, '9': { host: 'tjupt.org', confirmedHost: 'tjupt.org' } } };
    const preview = await world.app.preferences.importSettings(file);
    expect(preview.preview?.siteHosts).toEqual([
      { sid: 9, name: 'OurBits', from: 'ourbits.club', to: 'tjupt.org', owner: 'TJUPT' },
      { sid: 23, name: 'SpringSunday', from: 'springsunday.net', to: 'evil.example.org' },
    ]);
    await world.app.preferences.importSettings(file, { keepCredentials: false });
    expect((await storedSettings()).siteOverrides).toEqual({});
    await world.app.preferences.importSettings(file, { keepCredentials: false, confirmSiteHosts: [9] });
    // Another catalogued site's host: links only, never confirmed for downloads.
    expect((await storedSettings()).siteOverrides).toEqual({ '9': { host: 'tjupt.org' } });
  });

  it('moving the service elsewhere asks for that address, and leaves the saved token behind unless the user keeps it', async () => {
    world = await startOptionsWorld();
    const stranger = 'http://lookup.example.net';
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', baseUrl: stranger }));
    expect(text(page, '#import-service-warning')).toContain(en.importMovesService!.message.replace('$1', stranger));
    expect(text(page, '#import-service-warning')).toContain(en.plainHttpWarning!.message);
    expect($<HTMLInputElement>(page, '#import-keep-credentials').checked).toBe(false);
    await applyImport(page);
    expect(await storedSettings()).toMatchObject({ baseUrl: stranger, token: '' });
    expect(world.service.requests.every((request) => !request.url.includes('example.net'))).toBe(true);

    // Again, keeping the token this time: only after the user ticks it.
    await world.app.preferences.saveSettings({ baseUrl: world.service.url, token: 'demo-token' }, true);
    await importFile(page, JSON.stringify({ app: 'reseed-lens', baseUrl: stranger }));
    await click($(page, '#import-keep-credentials'));
    await applyImport(page);
    expect(await storedSettings()).toMatchObject({ baseUrl: stranger, token: 'demo-token' });
  });

  it('an import never writes anything before Apply, even through the background directly', async () => {
    world = await startOptionsWorld();
    const before = await storedSettings();
    const answer = await world.app.preferences.importSettings({ app: 'reseed-lens', baseUrl: 'https://elsewhere.example.org', panelEnabled: false });
    expect(answer.preview?.changes.map((change) => change.field).sort()).toEqual(['baseUrl', 'panelEnabled']);
    expect(answer.preview?.carriedCredentials).toEqual(['token']);
    expect(await storedSettings()).toEqual(before);
  });
});

describe('site passkeys in the file', () => {
  const KEYS = { '4': 'hdsky-passkey-0123456789', '9': 'ourbits-passkey-abcdef01' };

  it('are left out of an export unless credentials are asked for', async () => {
    world = await startOptionsWorld({ settings: { sitePasskeys: KEYS } });
    const page = await openOptions();
    const plain = await exported(page);
    expect(plain.sitePasskeys).toBeUndefined();
    expect(JSON.stringify(plain)).not.toMatch(/passkey-/);
    await click($(page, '#export-credentials'));
    expect((await exported(page)).sitePasskeys).toEqual(KEYS);
  });

  it('are previewed as set for their sites, never as the passkeys themselves', async () => {
    world = await startOptionsWorld({ settings: { sitePasskeys: { '4': 'old-hdsky-passkey-000' } } });
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', version: 1, sitePasskeys: KEYS }));
    const rows = previewRows(page);
    expect(rows.sitePasskeys).toMatch(new RegExp(`: ${en.valueSet!.message}.*: ${en.valueSet!.message}`));
    expect(text(page, '#import-preview')).not.toMatch(/passkey-/);
    // What the background hands the page holds none of them either.
    expect(JSON.stringify(await world.app.preferences.importSettings({ app: 'reseed-lens', version: 1, sitePasskeys: KEYS }))).not.toMatch(/passkey-/);
    await applyImport(page);
    expect((await storedSettings()).sitePasskeys).toEqual(KEYS);
  });
});

describe('site API keys in the file (M-Team)', () => {
  const KEYS = { '3': 'mteam-apikey-0123456789abcdef' };

  it('are left out of an export unless credentials are asked for, and previewed only as set', async () => {
    world = await startOptionsWorld({ settings: { siteApiKeys: KEYS } });
    const page = await openOptions();
    const plain = await exported(page);
    expect(plain.siteApiKeys).toBeUndefined();
    expect(JSON.stringify(plain)).not.toMatch(/apikey-/);
    await click($(page, '#export-credentials'));
    expect((await exported(page)).siteApiKeys).toEqual(KEYS);

    await importFile(page, JSON.stringify({ app: 'reseed-lens', version: 1, siteApiKeys: { '3': 'mteam-apikey-fedcba9876543210' } }));
    expect(previewRows(page).siteApiKeys).toMatch(new RegExp(`: ${en.valueSet!.message}`));
    expect(text(page, '#import-preview')).not.toMatch(/apikey-/);
    expect(JSON.stringify(await world.app.preferences.importSettings({ app: 'reseed-lens', version: 1, siteApiKeys: KEYS }))).not.toMatch(/apikey-/);
    await applyImport(page);
    expect((await storedSettings()).siteApiKeys).toEqual({ '3': 'mteam-apikey-fedcba9876543210' });
  });
});

describe('torrent clients in the file', () => {
  const QB = { id: 'qb-1', type: 'qbittorrent', url: 'http://127.0.0.1:8080', username: 'admin', password: 'qb-secret-pass', isDefault: true, skipCheckWhenFilesMatch: true };
  const NAS = { type: 'transmission', url: 'http://nas.example.lan:9091', username: 'seed', isDefault: false, skipCheckWhenFilesMatch: false };

  /** What the options page sends, through the router as the background gets it. */
  const fromPage = (message: Record<string, unknown>) => fakeBrowser.runtime.sendMessage(message);

  async function clientsStored() {
    return readClients((await fakeBrowser.storage.local.get(CLIENTS_KEY))[CLIENTS_KEY]).clients;
  }

  it('are exported without their passwords unless credentials are asked for', async () => {
    world = await startOptionsWorld({ storage: { [CLIENTS_KEY]: { version: 1, clients: [QB] } } });
    const page = await openOptions();
    const plain = await exported(page);
    expect(plain.clients).toEqual([{ type: 'qbittorrent', url: QB.url, name: 'qBittorrent on 127.0.0.1', username: 'admin', skipCheckWhenFilesMatch: true, readOnly: false }]);
    expect(JSON.stringify(plain)).not.toContain(QB.password);
    await click($(page, '#export-credentials'));
    const full = await exported(page);
    expect((full.clients as { password: string }[])[0]!.password).toBe(QB.password);
  });

  it('are previewed, asked for where not granted, and imported: a client without a password in the file keeps the saved one', async () => {
    world = await startOptionsWorld({ storage: { [CLIENTS_KEY]: { version: 1, clients: [QB] } } });
    const page = await openOptions();
    const asked: string[][] = [];
    const request = fakeBrowser.permissions.request;
    fakeBrowser.permissions.request = async (permissions) => {
      asked.push(permissions.origins ?? []);
      return request(permissions);
    };
    try {
      const { password: _, id: __, ...qbWithoutPassword } = QB;
      await importFile(page, JSON.stringify({ app: 'reseed-lens', version: 1, clients: [{ ...qbWithoutPassword, isDefault: false }, { ...NAS, password: 'nas-pass', isDefault: true }] }));
      // A file of version 1: its default client goes first in the order, as it decided alone.
      expect(previewRows(page)).toEqual({
        clients: `qBittorrent on 127.0.0.1: qBittorrent ${QB.url} (admin, ${en.valueSet!.message}) → Transmission on nas.example.lan: Transmission ${NAS.url} (seed, ${en.valueSet!.message}); qBittorrent on 127.0.0.1: qBittorrent ${QB.url} (admin, ${en.valueSet!.message})`,
      });
      expect(text(page, '#import-preview')).not.toContain('nas-pass');
      expect(await clientsStored()).toHaveLength(1);
      await applyImport(page);
      // The NAS was asked for within the click (its host, no port), the loopback client not.
      expect(asked).toEqual([['http://nas.example.lan/*']]);
      const clients = await clientsStored();
      expect(clients.map((client) => [client.type, client.url, client.password])).toEqual([
        ['transmission', NAS.url, 'nas-pass'],
        ['qbittorrent', QB.url, QB.password],
      ]);
      // The section shows them.
      await waitFor(() => page.querySelectorAll('#client-list li.client').length === 2, 'the client list');
    } finally {
      fakeBrowser.permissions.request = request;
    }
  });

  it('carry Names, order, "Only read", "Copies go to" and folder pairs; a new target is its own change, unticked, applied only when ticked; what the file gets wrong is repaired or refused in words', async () => {
    const BOX = { id: 'tr-1', type: 'transmission', url: 'http://127.0.0.1:9091', username: 'seed', password: 'box-pass', name: 'Seedbox' };
    const NASQB = { ...QB, name: 'NAS' };
    world = await startOptionsWorld({ storage: { [CLIENTS_KEY]: { version: 2, clients: [NASQB, BOX] } } });
    const page = await openOptions();
    // The export names the target, not this browser's id.
    await fromPage({ type: 'clients:save', client: { id: QB.id, type: 'qbittorrent', url: QB.url, username: 'admin', password: '', name: 'NAS', copiesTo: BOX.id, folderPairs: [{ from: '/downloads', to: '/mnt/nas' }] } });
    const file = await exported(page);
    expect(file.clients).toEqual([
      { type: 'qbittorrent', url: QB.url, name: 'NAS', username: 'admin', skipCheckWhenFilesMatch: true, readOnly: false, copiesTo: 'Seedbox', folderPairs: [{ from: '/downloads', to: '/mnt/nas' }] },
      { type: 'transmission', url: BOX.url, name: 'Seedbox', username: 'seed', skipCheckWhenFilesMatch: false, readOnly: false },
    ]);
    await fromPage({ type: 'clients:save', client: { id: QB.id, type: 'qbittorrent', url: QB.url, username: 'admin', password: '', name: 'NAS', copiesTo: '' } });

    // The same file back: NAS's target is a change of its own, not ticked; the order, names and "Only read" are the list's change.
    const changed = { ...file, clients: [{ ...(file.clients as object[])[1], readOnly: false }, (file.clients as object[])[0], { type: 'deluge', url: 'http://127.0.0.1:8112', username: '', name: 'seedbox', readOnly: true }] };
    await importFile(page, JSON.stringify(changed));
    const row = $(page, '#import-preview .client-target[data-client="NAS"]');
    expect(text(row, 'dd').startsWith(`NAS: ${en.clientCopiesToThis!.message} → Seedbox (/downloads → /mnt/nas)`)).toBe(true);
    expect($<HTMLInputElement>(row, 'input[type="checkbox"]').checked).toBe(false);
    // The third client's Name is Seedbox's, case aside: numbered, and said.
    expect(text(page, '.import-client-repairs')).toBe(en.importClientRenamed!.message.replace('$1', 'seedbox'));
    await applyImport(page);
    expect((await clientsStored()).map((client) => [client.name, client.readOnly, client.copiesTo ?? ''])).toEqual([
      ['Seedbox', false, ''],
      ['NAS', false, ''],
      ['seedbox (2)', true, ''],
    ]);
    // Ticked this time: applied.
    await importFile(page, JSON.stringify(changed));
    await click($(page, '#import-preview .client-target[data-client="NAS"] input[type="checkbox"]'));
    await applyImport(page);
    expect((await clientsStored()).find((client) => client.name === 'NAS')).toMatchObject({ copiesTo: BOX.id, folderPairs: [{ from: '/downloads', to: '/mnt/nas' }] });

    // A file whose targets make a loop, or send copies to a client that only reads: refused, said, nothing to tick.
    const loop = { app: 'reseed-lens', clients: [{ ...(file.clients as object[])[0] }, { ...(file.clients as object[])[1], copiesTo: 'NAS', folderPairs: [{ from: '/x', to: '/y' }] }] };
    await importFile(page, JSON.stringify(loop));
    const refused = $(page, '#import-preview .client-target[data-client="Seedbox"]');
    expect(text(refused, '.client-target-refused')).toBe(en.clientRuleLoop!.message.replace('$1', 'Seedbox').replace('$2', 'NAS'));
    expect(refused.querySelector('input[type="checkbox"]')).toBeNull();
  });

  it('a client list with an unreadable entry is skipped whole and named', async () => {
    world = await startOptionsWorld({ storage: { [CLIENTS_KEY]: { version: 1, clients: [QB] } } });
    const page = await openOptions();
    await importFile(page, JSON.stringify({ app: 'reseed-lens', panelEnabled: false, clients: [NAS, { type: 'utorrent', url: 'x' }] }));
    expect(text(page, '#import-result .import-skipped')).toBe(en.importSkipped!.message.replace('$1', en.clientsHeading!.message));
    await applyImport(page);
    expect((await clientsStored()).map((client) => client.id)).toEqual([QB.id]);
  });
});

describe('sites asked by pieces hash in the file (issue 18)', () => {
  it('are exported without asking for credentials, previewed per site as on or off with their path, and imported', async () => {
    world = await startOptionsWorld({ settings: { piecesHashSites: { '1': { on: true } } } });
    const page = await openOptions();
    expect((await exported(page)).piecesHashSites).toEqual({ '1': { on: true } });
    const next = { '1': { on: false }, '72': { on: true, path: '/npapi/pieces-hash' } };
    await importFile(page, JSON.stringify({ app: 'reseed-lens', version: 1, piecesHashSites: next }));
    const [before, after] = previewRows(page).piecesHashSites!.split(' → ');
    expect(before).toMatch(new RegExp(`: ${en.valueYes!.message}$`));
    expect(after).toMatch(new RegExp(`: ${en.valueNo!.message}; .+: ${en.valueYes!.message} /npapi/pieces-hash$`));
    expect(text(page, '#import-preview')).toContain(en.piecesHashFieldSites!.message);
    await applyImport(page);
    expect((await storedSettings()).piecesHashSites).toEqual(next);
  });
});
