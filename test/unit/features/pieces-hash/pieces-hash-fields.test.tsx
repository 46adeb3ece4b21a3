// @vitest-environment happy-dom
// @vitest-environment-options { "settings": { "fetch": { "disableSameOriginPolicy": true } } }
/**
 * "Ask this site by pieces hash" in a site's fieldset of "Your sites' addresses", against the real
 * background: the switch saves `piecesHashSites` with the fieldset, a path off the site is refused
 * like a bad host, and "Test" asks a test NexusPHP site (test/e2e/support/pieces-hash-site.ts on
 * hdsky.me, through the e2e router) and says its answer in English and in Chinese.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { SitesSections } from '../../../../features/sites/ui/SitesSections';
import { CLIENTS_KEY } from '../../../../features/clients/clients.storage';
import { loadMessages } from '../../support/i18n';
import { WithView } from '../../options/harness';
import { $, choose, click, mount, startOptionsWorld, storedSettings, text, type, waitFor, type OptionsWorld } from '../../options/support';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from '../../../e2e/harness/host-router.ts';
import { PiecesHashSite } from '../../../e2e/support/pieces-hash-site';
import { proxiedFetch } from '../../../clients/proxy-fetch';

const HDSKY = 4;
const DICMUSIC = 51;
const say = (messages: ReturnType<typeof loadMessages>) => (key: string, ...values: (string | number)[]) =>
  messages[key]!.message.replace(/\$(\d)/g, (_, index: string) => String(values[Number(index) - 1]));
const en = say(loadMessages('en'));
const zh = say(loadMessages('zh_CN'));

let world: OptionsWorld | undefined;
let hdsky: PiecesHashSite;
/** A mirror of HDSky the user confirmed (not a catalogued host: the manifest does not hold it). */
let mirror: PiecesHashSite | undefined;

/**
 * The site's host as the browser's proxy reaches it: a loopback server taking absolute-form
 * requests (what proxiedFetch sends), handing each to the test site. (The e2e router's module
 * cannot load under happy-dom, whose URL class Node's fileURLToPath refuses.)
 */
let server: Server;
let port = 0;
let seq = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^https?:\/\/([^/:]+)(?::\d+)?(\/.*)?$/.exec(req.url ?? '');
      const host = match?.[1]?.toLowerCase() ?? '';
      const recorded: RecordedRequest = { seq: ++seq, method: req.method ?? 'GET', url: req.url ?? '', host, path: match?.[2] ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), via: 'proxy', route: host, time: Date.now() };
      const site = host === hdsky?.host ? hdsky : host === mirror?.host ? mirror : undefined;
      if (site) site.handle(req, res, recorded);
      else res.writeHead(502).end();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  await world?.close();
  world = undefined;
  hdsky?.release();
  mirror?.release();
  mirror = undefined;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((closed) => server.close(() => closed()));
});

async function renderSites(options: Parameters<typeof startOptionsWorld>[0] = {}): Promise<HTMLElement> {
  hdsky = new PiecesHashSite('hdsky.me');
  world = await startOptionsWorld({ ...options, siteFetch: proxiedFetch(port), settings: { heldSites: [HDSKY, DICMUSIC], ...options.settings } });
  const page = mount(<WithView initial={await world.app.preferences.settingsView()} section={SitesSections} />);
  // The site list is in: the sites are named as the page names them (HDSky in English, 天空 in Chinese).
  await waitFor(() => page.querySelector('#site-list'), 'the site list');
  await waitFor(() => page.querySelector(`#pieces-hash-${HDSKY}`), 'the pieces-hash switch');
  return page;
}

describe("a site's pieces-hash switch", () => {
  it('is offered for a NexusPHP site only, off, with what it sends and the definition’s path as placeholder; it saves with the fieldset', async () => {
    const page = await renderSites();
    const name = text(page, `fieldset[data-sid="${HDSKY}"] legend`);
    expect(name).toBe('HDSky');
    const box = $<HTMLInputElement>(page, `#pieces-hash-${HDSKY}`);
    expect(box.checked).toBe(false);
    expect(page.querySelector(`#pieces-hash-${DICMUSIC}`)).toBeNull();
    expect(page.querySelector(`#pieces-hash-test-${DICMUSIC}`)).toBeNull();
    expect(box.closest('label')!.textContent!.trim()).toBe(en('piecesHashAsk'));
    expect(text(page, `#pieces-hash-hint-${HDSKY}`)).toBe(en('piecesHashHint', name));
    expect(text(page, `#pieces-hash-hint-${HDSKY}`)).toContain('ALL the torrents');
    expect(box.getAttribute('aria-describedby')).toBe(`pieces-hash-hint-${HDSKY}`);
    expect($<HTMLInputElement>(page, `#pieces-hash-path-${HDSKY}`).placeholder).toBe('/api/pieces-hash');
    // No default client: no note.
    expect(page.querySelector(`#pieces-hash-client-note-${HDSKY}`)).toBeNull();

    await click(box);
    expect((await storedSettings()).piecesHashSites ?? {}).toEqual({});
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    expect((await storedSettings()).piecesHashSites).toEqual({ [HDSKY]: { on: true } });
    expect($<HTMLInputElement>(page, `#pieces-hash-${HDSKY}`).checked).toBe(true);

    await click($(page, `#pieces-hash-${HDSKY}`));
    await click($(page, '#overrides-save'));
    await waitFor(async () => ((await storedSettings()).piecesHashSites as object | undefined) && Object.keys((await storedSettings()).piecesHashSites as object).length === 0, 'turned off');
  });

  it('refuses a path that is no path, or one off the site, as the host field does; a good one is saved', async () => {
    const page = await renderSites();
    const path = $<HTMLInputElement>(page, `#pieces-hash-path-${HDSKY}`);
    await click($(page, `#pieces-hash-${HDSKY}`));
    await type(path, 'api/pieces-hash');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector(`#pieces-hash-path-error-${HDSKY}`), 'the error');
    expect(text(page, `#pieces-hash-path-error-${HDSKY}`)).toBe(en('piecesHashPathBad'));
    expect(path.getAttribute('aria-invalid')).toBe('true');
    expect(path.getAttribute('aria-describedby')).toBe(`pieces-hash-path-error-${HDSKY}`);
    expect(document.activeElement?.id).toBe(`pieces-hash-path-${HDSKY}`);
    expect(text(page, '#overrides-status')).toBe(en('overridesFixErrors'));

    await type(path, 'https://collector.example/api/pieces-hash');
    expect(page.querySelector(`#pieces-hash-path-error-${HDSKY}`)).toBeNull();
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector(`#pieces-hash-path-error-${HDSKY}`), 'the error');
    expect(text(page, `#pieces-hash-path-error-${HDSKY}`)).toBe(en('piecesHashPathOtherHost', 'collector.example'));
    expect((await storedSettings()).piecesHashSites ?? {}).toEqual({});

    await type(path, ' /npapi/pieces-hash ');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    expect((await storedSettings()).piecesHashSites).toEqual({ [HDSKY]: { on: true, path: '/npapi/pieces-hash' } });
  });

  it('Test says each answer in words: no passkey, works with the typed passkey, a wrong one, no API there, rate limited', async () => {
    const page = await renderSites();
    const name = text(page, `fieldset[data-sid="${HDSKY}"] legend`);
    const status = () => text(page, `#pieces-hash-test-status-${HDSKY}`);
    const test = async (expected: string) => {
      await click($(page, `#pieces-hash-test-${HDSKY}`));
      await waitFor(() => status() === expected && status(), `"${expected}" (shown: "${status()}")`).catch((error: Error) => { throw new Error(`${error.message}; shown: ${status()}`); });
    };
    await test(en('piecesHashNeedsPasskey'));
    expect(hdsky.requests).toHaveLength(0);

    // The typed passkey, not yet saved.
    await type($(page, `#site-passkey-${HDSKY}`), hdsky.passkey);
    await test(en('piecesHashWorks', name));
    expect(page.querySelector(`#pieces-hash-test-status-${HDSKY}.ok`)).not.toBeNull();
    expect(hdsky.requests).toHaveLength(1);
    expect(hdsky.requests[0]!.asked).toBe(1);

    await type($(page, `#site-passkey-${HDSKY}`), 'b'.repeat(32));
    await test(en('piecesHashWrongPasskey', name));
    await type($(page, `#site-passkey-${HDSKY}`), hdsky.passkey);
    await type($(page, `#pieces-hash-path-${HDSKY}`), '/nexusapi/pieces-hash');
    await test(en('piecesHashNoApi', name));
    await type($(page, `#pieces-hash-path-${HDSKY}`), '');
    // Every request the site counted this minute (the ones it answered): the next one is one too many.
    hdsky.perMinute = hdsky.requests.filter((request) => request.status === 200).length;
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await waitFor(() => status().startsWith(en('piecesHashRateLimitedFor', name, 'N').split('N')[0]!) && status(), 'rate limited');
    expect(status()).toMatch(/Try again in \d+ s\.$/);
    // Nothing the site said, and no passkey, on the page.
    expect(page.textContent).not.toContain(hdsky.passkey);
  });

  it('Test asks at the address the fieldset shows: a scheme chosen and not saved, the site’s own again, and one saved in the same turn as the Test', async () => {
    const page = await renderSites();
    const works = en('piecesHashWorks', text(page, `fieldset[data-sid="${HDSKY}"] legend`));
    const status = () => text(page, `#pieces-hash-test-status-${HDSKY}`);
    const asked = () => hdsky.seen.map((request) => request.url);
    const testAnswered = async (count: number) => {
      await waitFor(() => asked().length === count && status() === works, `Test number ${count} answered (shown: "${status()}")`);
    };
    await type($(page, `#site-passkey-${HDSKY}`), hdsky.passkey);
    // Nothing saved for HDSky (its own https); http chosen in the form, not saved.
    await choose($<HTMLSelectElement>(page, `#override-scheme-${HDSKY}`), 'http');
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await testAnswered(1);
    expect(asked()).toEqual(['http://hdsky.me/api/pieces-hash']);
    // The Test saved nothing.
    expect((await storedSettings()).siteOverrides ?? {}).toEqual({});

    // Back to the site's own scheme in the form: https again, though nothing was saved between.
    await choose($<HTMLSelectElement>(page, `#override-scheme-${HDSKY}`), '');
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await testAnswered(2);
    expect(asked().at(-1)).toBe('https://hdsky.me/api/pieces-hash');

    // http chosen, Save and Test pressed in one turn: the Test goes where the form says while the save is on its way.
    await choose($<HTMLSelectElement>(page, `#override-scheme-${HDSKY}`), 'http');
    $(page, '#overrides-save').click();
    $(page, `#pieces-hash-test-${HDSKY}`).click();
    await testAnswered(3);
    await waitFor(() => page.querySelector('#overrides-status.ok'), 'saved');
    expect(asked().at(-1)).toBe('http://hdsky.me/api/pieces-hash');
    expect((await storedSettings()).siteOverrides).toEqual({ [HDSKY]: { scheme: 'http' } });
  });

  it('Test of a host the form cannot save says so, and sends nothing', async () => {
    const page = await renderSites();
    await type($(page, `#site-passkey-${HDSKY}`), hdsky.passkey);
    await type($<HTMLInputElement>(page, `#override-host-${HDSKY}`), 'https://hdsky.me:8443/');
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await waitFor(() => text(page, `#pieces-hash-test-status-${HDSKY}`) === en('overrideBadHost'), 'the host refused');
    expect($<HTMLInputElement>(page, `#override-host-${HDSKY}`).getAttribute('aria-invalid')).toBe('true');
    expect(hdsky.seen).toEqual([]);
  });

  it('speaks Chinese: the switch, the hint, the path error and the Test’s answers', async () => {
    const page = await renderSites({ locale: 'zh_CN' });
    const name = text(page, `fieldset[data-sid="${HDSKY}"] legend`);
    expect(name).toBe('天空');
    expect($(page, `#pieces-hash-${HDSKY}`).closest('label')!.textContent!.trim()).toBe('用种子特征码（pieces hash）向此站查询');
    expect(text(page, `#pieces-hash-hint-${HDSKY}`)).toBe(zh('piecesHashHint', name));
    expect(text(page, `#pieces-hash-test-${HDSKY}`)).toBe(zh('piecesHashTest'));
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await waitFor(() => text(page, `#pieces-hash-test-status-${HDSKY}`) === zh('piecesHashNeedsPasskey'), 'needs passkey');
    await type($(page, `#site-passkey-${HDSKY}`), hdsky.passkey);
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await waitFor(() => text(page, `#pieces-hash-test-status-${HDSKY}`) === zh('piecesHashWorks', name), 'works');
    await type($(page, `#pieces-hash-path-${HDSKY}`), '//collector.example/x');
    await click($(page, '#overrides-save'));
    await waitFor(() => page.querySelector(`#pieces-hash-path-error-${HDSKY}`), 'the error');
    expect(text(page, `#pieces-hash-path-error-${HDSKY}`)).toBe(zh('piecesHashPathBad'));
  });

  it('Test of a site on a confirmed mirror asks the browser for that host within the click, then asks the mirror', async () => {
    const page = await renderSites({ settings: { siteOverrides: { [HDSKY]: { host: 'mirror.hdsky-test.example', confirmedHost: 'mirror.hdsky-test.example' } } } });
    mirror = new PiecesHashSite('mirror.hdsky-test.example');
    const pattern = { origins: ['https://mirror.hdsky-test.example/*'] };
    expect(await fakeBrowser.permissions.contains(pattern)).toBe(false);
    await type($(page, `#site-passkey-${HDSKY}`), mirror.passkey);
    await click($(page, `#pieces-hash-test-${HDSKY}`));
    await waitFor(() => page.querySelector(`#pieces-hash-test-status-${HDSKY}.ok`), 'works');
    expect(await fakeBrowser.permissions.contains(pattern)).toBe(true);
    expect(mirror.requests).toHaveLength(1);
    expect(hdsky.requests).toHaveLength(0);
  });

  it('says under the switch that a default Transmission or Deluge client gives no piece hashes; nothing for qBittorrent', async () => {
    for (const [type, note] of [['transmission', 'Transmission'], ['deluge', 'Deluge'], ['qbittorrent', undefined]] as const) {
      const page = await renderSites({ storage: { [CLIENTS_KEY]: { version: 1, clients: [{ id: 'c1', type, url: 'http://127.0.0.1:9091', username: 'u', password: 'p', isDefault: true }] } } });
      if (note) {
        await waitFor(() => page.querySelector(`#pieces-hash-client-note-${HDSKY}`), 'the note');
        expect(text(page, `#pieces-hash-client-note-${HDSKY}`)).toBe(en('piecesHashClientNote', note));
        expect($(page, `#pieces-hash-${HDSKY}`).getAttribute('aria-describedby')).toBe(`pieces-hash-hint-${HDSKY} pieces-hash-client-note-${HDSKY}`);
      } else {
        await waitFor(() => world!.messages.some((message) => message.type === 'clients:list'), 'the clients asked');
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(page.querySelector(`#pieces-hash-client-note-${HDSKY}`)).toBeNull();
      }
      await world!.close();
      world = undefined;
      hdsky.release();
    }
  });
});
