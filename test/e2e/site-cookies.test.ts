/**
 * Does a background `fetch(url, { credentials: 'include' })` to a tracker carry the user's session
 * cookies there? Cross-seeding (utils/cross-seed-engine) downloads a candidate's .torrent from the
 * background with the user's session on that site, so this decides whether the design works.
 *
 * A minimal probe extension (MV3 service worker in Chromium, MV2 background page in Firefox) has
 * host permission for one tracker host (ourbits.club) and none for another (pthome.net). The user
 * logs in on both in a tab (each sets a default cookie, a SameSite=Strict one and an HttpOnly one,
 * as NexusPHP's login does); then the probe's background downloads from each.
 *
 * Each browser's own privacy setting is checked first, so the answer is for the strict case: Firefox
 * with Total Cookie Protection on (its default, cookieBehavior 5, "reject_trackers_and_partition_
 * foreign"), Chromium with third-party cookies blocked.
 */
import type { ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, startRouter, type BrowserKind, type HarnessBrowser, type RecordedRequest, type Router } from './harness/index.ts';

const GRANTED = 'ourbits.club';
const NOT_GRANTED = 'pthome.net';
const COOKIES = ['c_secure_uid=MTIzNDU%3D', 'c_secure_pass=0f1e2d3c4b5a', 'c_secure_login=strict-yes'];

function tracker(request: RecordedRequest, res: ServerResponse): void {
  const url = new URL(request.path, `http://${request.host}`);
  if (url.pathname === '/login.php') {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': [
        `${COOKIES[0]}; path=/; Max-Age=86400`,
        `${COOKIES[1]}; path=/; Max-Age=86400; HttpOnly`,
        `${COOKIES[2]}; path=/; Max-Age=86400; SameSite=Strict`,
      ],
    });
    res.end('<p>welcome back</p>');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-bittorrent', 'cache-control': 'no-store' });
  res.end('d4:infod6:lengthi1e4:name1:aee');
}

function probeExtension(kind: BrowserKind): string {
  const dir = mkdtempSync(join(tmpdir(), `reseed-lens-cookie-probe-${kind}-`));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'background.js'),
    `const api = globalThis.browser ?? globalThis.chrome;
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.cookieSetting) {
    const setting = api.privacy.websites.cookieConfig ?? api.privacy.websites.thirdPartyCookiesAllowed;
    Promise.resolve(setting.get({})).then((got) => sendResponse(got.value), (error) => sendResponse(String(error)));
    return true;
  }
  fetch(message.url, { credentials: 'include', redirect: 'manual', cache: 'no-store' }).then(
    async (response) => sendResponse({ status: response.status, type: response.type, text: await response.text() }),
    (error) => sendResponse({ status: -1, type: 'error', text: String(error) }),
  );
  return true;
});
`,
  );
  const manifest =
    kind === 'chromium'
      ? { manifest_version: 3, name: 'Reseed Lens cookie probe', version: '1.0', background: { service_worker: 'background.js' }, permissions: ['privacy'], host_permissions: [`http://${GRANTED}/*`] }
      : {
          manifest_version: 2,
          name: 'Reseed Lens cookie probe',
          version: '1.0',
          background: { scripts: ['background.js'] },
          permissions: ['privacy', `http://${GRANTED}/*`],
          browser_specific_settings: { gecko: { id: 'cookie-probe@reseed-lens.test' } },
        };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

const variants: { name: string; kind: BrowserKind; cookieSetting: unknown }[] = [
  // privacy.websites.thirdPartyCookiesAllowed: false, i.e. the strict case.
  { name: 'Chromium (third-party cookies blocked)', kind: 'chromium', cookieSetting: false },
  {
    name: 'Firefox with Total Cookie Protection (its default)',
    kind: 'firefox',
    cookieSetting: { behavior: 'reject_trackers_and_partition_foreign', nonPersistentCookies: false },
  },
];

describe.each(variants)('$name: a background download carries the site session', ({ kind, cookieSetting }) => {
  let router: Router;
  let browser: HarnessBrowser;
  let extensionDir: string;

  beforeAll(async () => {
    router = await startRouter({ hosts: { [GRANTED]: (_req, res, recorded) => tracker(recorded, res), [NOT_GRANTED]: (_req, res, recorded) => tracker(recorded, res) } });
    extensionDir = probeExtension(kind);
    browser = await launchBrowser(kind, { extensionDir, proxyPort: router.port });
    // The user logs in on both sites, in a tab, as they would.
    const tab = await browser.newPage();
    for (const host of [GRANTED, NOT_GRANTED]) await tab.goto(`http://${host}/login.php`);
    await tab.close();
  });

  afterAll(async () => {
    await browser?.close();
    await router?.close();
    if (extensionDir) rmSync(extensionDir, { recursive: true, force: true });
  });

  const fromBackground = (url: string) => browser.evaluateInExtension((api, asked) => api.runtime.sendMessage({ url: asked }), url) as Promise<Answer>;
  const cookieHeaderOf = (host: string, id: string) =>
    router.requestsTo(host).find((request) => request.path === `/download.php?id=${id}`)?.headers.cookie;

  it('the browser\'s cookie setting is the one this variant is about', async () => {
    expect(await browser.evaluateInExtension((api) => api.runtime.sendMessage({ cookieSetting: true }))).toEqual(cookieSetting);
  });

  it('with host permission: every session cookie (default, HttpOnly, SameSite=Strict) goes, and the answer is readable', async () => {
    const answer = await fromBackground(`http://${GRANTED}/download.php?id=1`);
    expect(answer).toMatchObject({ status: 200, text: 'd4:infod6:lengthi1e4:name1:aee' });
    const sent = String(cookieHeaderOf(GRANTED, '1') ?? '')
      .split(/;\s*/)
      .sort();
    expect(sent).toEqual([...COOKIES].sort());
  });

  it('without host permission: the answer cannot be read (the background must ask for the site first)', async () => {
    const answer = await fromBackground(`http://${NOT_GRANTED}/download.php?id=2`);
    expect(answer.status === -1 || answer.type === 'opaque').toBe(true);
    expect(answer.text).not.toContain('d4:info');
  });
});
