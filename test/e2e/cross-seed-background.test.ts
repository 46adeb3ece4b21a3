/**
 * utils/cross-seed-engine in a real browser background, before the buttons exist: a probe extension
 * (Chromium MV3 service worker, Firefox MV2 background page) bundles crossSeed() with esbuild and
 * runs it on a message, with the browser's own fetch, cookie jar and permissions, against a real
 * qBittorrent (CSRF protection on, passed with csrf.ts's session rule) and the test trackers of
 * support/cross-seed-world.ts behind the e2e router.
 *
 * What this shows that Node cannot: the candidate's .torrent downloads with the cookies the user
 * got by logging in on the tracker in a tab; NexusPHP's redirect to login.php (which a browser
 * hands back as an opaque redirect, status 0) reads as "not logged in"; the site's origin is
 * checked with permissions.contains; the library needs nothing a service worker lacks (no DOM).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule, type OriginRule } from '../../utils/clients/csrf';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { CrossSeedCandidate, CrossSeedResult } from '../../utils/cross-seed-engine/cross-seed';
import type { SiteSettings } from '../../utils/cross-seed-engine/source';
import { startQbittorrent, type RunningDaemon } from '../clients/daemons';
import { untilSeeding } from '../clients/seeding';
import { ownClient } from '../clients/own-client';
import { BROWSER_KINDS, launchBrowser, REPO_ROOT, type BrowserKind, type HarnessBrowser } from './harness/index.ts';
import { CANDIDATE_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld } from './support/cross-seed-world';

const HOSTS = [CANDIDATE_SITE.host, PAGE_SITE.host];

async function probeExtension(kind: BrowserKind): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `reseed-lens-crossseed-probe-${kind}-`));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `import { createClient } from ${JSON.stringify(join(REPO_ROOT, 'utils/clients/index.ts'))};
import { crossSeed, permissionPattern } from ${JSON.stringify(join(REPO_ROOT, 'utils/cross-seed-engine/cross-seed.ts'))};
import { SitePace } from ${JSON.stringify(join(REPO_ROOT, 'utils/cross-seed-engine/site-queue.ts'))};
const api = (globalThis as any).browser ?? (globalThis as any).chrome;
const pace = new SitePace();
api.runtime.onMessage.addListener((message: any, _sender: unknown, sendResponse: (answer: unknown) => void) => {
  const client = createClient(message.client);
  crossSeed(message.pageHash, message.candidate, {
    target: { client, skipCheckWhenFilesMatch: false, url: message.client.url },
    sites: message.sites,
    pace,
    originAllowed: (origin: string) => Promise.resolve(api.permissions.contains({ origins: [permissionPattern(origin)] })),
  }).then(sendResponse, (error: unknown) => sendResponse({ kind: 'threw', detail: String(error) }));
  return true;
});
`,
  );
  await build({ entryPoints: [entry], bundle: true, format: 'iife', platform: 'browser', target: 'es2022', outfile: join(dir, 'background.js'), logLevel: 'silent' });
  const hostPermissions = ['http://127.0.0.1/*', ...HOSTS.map((host) => `http://${host}/*`)];
  const manifest =
    kind === 'chromium'
      ? {
          manifest_version: 3,
          name: 'Reseed Lens cross-seed probe',
          version: '1.0',
          background: { service_worker: 'background.js' },
          permissions: ['declarativeNetRequestWithHostAccess'],
          host_permissions: hostPermissions,
        }
      : {
          manifest_version: 2,
          name: 'Reseed Lens cross-seed probe',
          version: '1.0',
          background: { scripts: ['background.js'] },
          permissions: ['declarativeNetRequestWithHostAccess', ...hostPermissions],
          browser_specific_settings: { gecko: { id: 'crossseed-probe@reseed-lens.test' } },
        };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

describe.each(BROWSER_KINDS)('%s: crossSeed() in the extension background', (kind) => {
  let daemon: RunningDaemon;
  let cs: CrossSeedWorld;
  let node: TorrentClient;
  let browser: HarnessBrowser;
  let extensionDir: string;
  let sites: SiteSettings;

  beforeAll(async () => {
    daemon = await startQbittorrent();
    cs = await startCrossSeedWorld({ pairs: 2 });
    // The router serves http only: the user's per-site override makes the links (and downloads) http.
    sites = cs.siteSettings({ overrides: { [String(CANDIDATE_SITE.sid)]: { scheme: 'http' }, [String(PAGE_SITE.sid)]: { scheme: 'http' } } });
    node = ownClient(daemon);
    await cs.seed(node, daemon.dataDir, 0);
    await cs.seed(node, daemon.dataDir, 1);
    extensionDir = await probeExtension(kind);
    browser = await launchBrowser(kind, { extensionDir, proxyPort: cs.world.router.port });
    const rule = clientOriginRule(daemon.url, `${browser.extensionOrigin}/`);
    await browser.evaluateInExtension(async (api, added: OriginRule) => {
      const dnr = (api as unknown as { declarativeNetRequest: { updateSessionRules(o: unknown): Promise<void> } }).declarativeNetRequest;
      await dnr.updateSessionRules({ removeRuleIds: [added.id], addRules: [added] });
    }, rule);
    // The user logs in on the candidate's site in a tab, as they would.
    const tab = await browser.newPage();
    await tab.goto(cs.candidate.loginUrl('http'));
    await tab.close();
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.close();
    await daemon?.stop();
    if (extensionDir) rmSync(extensionDir, { recursive: true, force: true });
  });

  const crossSeedInBrowser = (pageHash: string, candidate: CrossSeedCandidate) =>
    browser.evaluateInExtension((api, message) => api.runtime.sendMessage(message), { pageHash, candidate, client: daemon.config, sites }) as Promise<CrossSeedResult>;

  it("downloads the candidate with the user's session on that site and adds it beside the source; it reaches 100 %", async () => {
    const pair = cs.pairs[0]!;
    const before = cs.candidate.downloads.length;
    const result = await crossSeedInBrowser(pair.source.hash, pair.ref);
    expect(result).toMatchObject({ kind: 'added', hash: pair.candidate.hash, savePath: daemon.dataDir, client: 'qbittorrent', checked: true });
    expect(cs.candidate.downloads.slice(before)).toEqual([expect.objectContaining({ id: pair.candidateId, served: true })]);
    const cookie = String(cs.world.router.requestsTo(CANDIDATE_SITE.host).find((request) => request.path === `/download.php?id=${pair.candidateId}`)?.headers.cookie);
    expect(cookie).toMatch(/c_secure_uid=.+; c_secure_pass=|c_secure_pass=.+; c_secure_uid=/);
    expect(await untilSeeding(node, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
  });

  it('a site without host permission is named, and nothing is fetched from it', async () => {
    const before = cs.world.router.requestsTo('pthome.net').length;
    const result = await crossSeedInBrowser(cs.pairs[1]!.source.hash, { sid: 2, torrentId: 77, infoHash: 'e'.repeat(40) });
    expect(result).toEqual({ kind: 'no-permission', for: 'site', origin: 'https://pthome.net' });
    expect(cs.world.router.requestsTo('pthome.net').length).toBe(before);
  });

  it("logged out: NexusPHP's redirect to login.php (an opaque redirect in a browser) reads as not logged in, and is not followed", async () => {
    const pair = cs.pairs[1]!;
    cs.candidate.endSessions();
    const result = await crossSeedInBrowser(pair.source.hash, pair.ref);
    expect(result).toEqual({ kind: 'not-logged-in', evidence: 'redirect' });
    expect(cs.world.router.requestsTo(CANDIDATE_SITE.host).some((request) => request.path.startsWith('/login.php?returnto='))).toBe(false);
  });
});
