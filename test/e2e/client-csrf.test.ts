/**
 * utils/clients/csrf.ts in real browsers against a real qBittorrent 4.5.2 with its CSRF protection
 * on. A minimal probe extension (MV3 for Chromium, MV2 for Firefox, with
 * declarativeNetRequestWithHostAccess and host permission for 127.0.0.1) stands in for the built
 * one, so this runs before the background is wired. Requests go from the probe's background
 * (Chromium's service worker, Firefox's background page): without the rule the browser's own
 * Origin is refused (401); with the session rule csrf.ts builds, login and a session call work —
 * which also shows the SameSite=Strict session cookie travels with the background's requests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule, type OriginRule } from '../../utils/clients/csrf';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { BROWSER_KINDS, launchBrowser, type BrowserKind, type HarnessBrowser } from './harness';

function probeExtension(kind: BrowserKind): string {
  const dir = mkdtempSync(join(tmpdir(), `reseed-lens-dnr-probe-${kind}-`));
  mkdirSync(dir, { recursive: true });
  // The background makes the requests, as the real extension's background will.
  writeFileSync(
    join(dir, 'background.js'),
    `const api = globalThis.browser ?? globalThis.chrome;
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  fetch(message.url, message.init).then(
    async (response) => sendResponse({ status: response.status, text: (await response.text()).trim() }),
    (error) => sendResponse({ status: 0, text: String(error) }),
  );
  return true;
});
`,
  );
  const manifest =
    kind === 'chromium'
      ? {
          manifest_version: 3,
          name: 'Reseed Lens DNR probe',
          version: '1.0',
          background: { service_worker: 'background.js' },
          permissions: ['declarativeNetRequestWithHostAccess'],
          host_permissions: ['http://127.0.0.1/*'],
        }
      : {
          manifest_version: 2,
          name: 'Reseed Lens DNR probe',
          version: '1.0',
          background: { scripts: ['background.js'] },
          permissions: ['declarativeNetRequestWithHostAccess', 'http://127.0.0.1/*'],
          browser_specific_settings: { gecko: { id: 'dnr-probe@reseed-lens.test' } },
        };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

interface Answer {
  status: number;
  text: string;
}

describe.each(BROWSER_KINDS)('qBittorrent CSRF protection from an extension in %s', (kind) => {
  let daemon: RunningDaemon;
  let browser: HarnessBrowser;
  let extensionDir: string;

  beforeAll(async () => {
    daemon = await startQbittorrent();
    extensionDir = probeExtension(kind);
    browser = await launchBrowser(kind, { extensionDir });
  });

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    if (extensionDir) rmSync(extensionDir, { recursive: true, force: true });
  });

  /** A request made by the probe's background (service worker in Chromium, background page in Firefox). */
  const fromBackground = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; credentials: 'include' }) =>
    browser.evaluateInExtension((api, message) => api.runtime.sendMessage(message), { url, init }) as Promise<Answer>;

  const login = () =>
    fromBackground(`${daemon.url}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: daemon.username, password: daemon.password }).toString(),
      credentials: 'include',
    });

  it("is refused (401) with the browser's own Origin", async () => {
    expect(await login()).toEqual({ status: 401, text: 'Unauthorized' });
  });

  it('accepts login and session calls once the session rule is in place', async () => {
    const rule = clientOriginRule(daemon.url, `${browser.extensionOrigin}/`);
    const rules = await browser.evaluateInExtension(async (api, added: OriginRule) => {
      const dnr = (api as unknown as { declarativeNetRequest: { updateSessionRules(o: unknown): Promise<void>; getSessionRules(): Promise<{ id: number }[]> } }).declarativeNetRequest;
      await dnr.updateSessionRules({ removeRuleIds: [added.id], addRules: [added] });
      return (await dnr.getSessionRules()).map((one) => one.id);
    }, rule);
    expect(rules).toEqual([rule.id]);

    expect(await login()).toEqual({ status: 200, text: 'Ok.' });
    expect(await fromBackground(`${daemon.url}/api/v2/app/version`, { credentials: 'include' })).toEqual({ status: 200, text: daemon.version });
  });
});
