import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';
import { LOOPBACK_CLIENT_HOST_PERMISSIONS } from './utils/clients/client-hosts';
import { contentScriptMatches } from './utils/sites/hosts';

/** Fixed so Firefox keeps the extension's storage across updates and tests can pin its moz-extension:// host. */
export const GECKO_ID = 'reseed-lens@reseed-lens.org';

/** The lookup service's known hosts (service-notes.md); any other base URL asks for its origin at run time. */
const SERVICE_HOST_PERMISSIONS = ['2025.iyuu.cn', 'vip.iyuu.cn', 'api.iyuu.cn'].flatMap((host) => [
  `http://${host}/*`,
  `https://${host}/*`,
]);

/** What a rebuild reads (the sources zip's whole content), relative to the project's root. */
export const SOURCES = [
  'BUILD.md',
  'CHANGELOG.md',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'wxt.config.ts',
  // The code and what the build copies; not the notes beside it (utils/**/*.md).
  '{components,entrypoints,features,public,utils}/**/*.{ts,tsx,css,html,json,png}',
] as const;

export default defineConfig({
  // The release's packaging builds apart (scripts/release/packages.mjs sets this), leaving the
  // builds in .output/ that a developer or a running test loads as they are.
  outDir: process.env.RESEED_OUTPUT_DIR || '.output',
  modules: ['@wxt-dev/webextension-polyfill'],
  vite: () => ({ plugins: [preact()] }),
  /*
   * The release's packages (scripts/release.mjs): reseed-lens-<version>-chrome.zip, -firefox.zip,
   * and -sources.zip, which holds only what rebuilding reads (Firefox Add-ons' reviewers rebuild
   * from it with BUILD.md): no tests, benches, docs, pictures, scripts or store texts.
   */
  zip: {
    name: 'reseed-lens',
    zipSources: false,
    excludeSources: ['**'],
    includeSources: [...SOURCES],
  },
  hooks: {
    // The options page's "Updated to <version>" links here: what changed, readable offline.
    'build:publicAssets': (_wxt, files) => {
      files.push({ absoluteSrc: fileURLToPath(new URL('CHANGELOG.md', import.meta.url)), relativeDest: 'changelog.txt' });
    },
    /**
     * The content script uses the browser's own namespace instead of webextension-polyfill: it only
     * sends and receives messages (answering with sendResponse) and reads i18n, which behave the
     * same natively in Firefox and Chrome MV3, and the polyfill's 2.7 KB gzipped would leave no room
     * in its 20 KB budget. Every other context keeps the polyfill.
     */
    'vite:build:extendConfig': (entrypoints, viteConfig) => {
      if (!entrypoints.length || !entrypoints.every((entrypoint) => entrypoint.type === 'content-script')) return;
      const native = createRequire(import.meta.url).resolve('@wxt-dev/browser');
      const existing = viteConfig.resolve?.alias ?? [];
      const list = Array.isArray(existing)
        ? existing
        : Object.entries(existing).map(([find, replacement]) => ({ find, replacement: replacement as string }));
      viteConfig.resolve = { ...viteConfig.resolve, alias: [{ find: /^wxt\/browser$/, replacement: native }, ...list] };
    },
    'build:manifestGenerated': (_wxt, manifest) => {
      const tracker = manifest.content_scripts?.find((script) => script.js?.some((file) => file.includes('tracker')));
      if (!tracker) throw new Error('the tracker content script is missing from the manifest');
      const catalogued = contentScriptMatches();
      tracker.matches = catalogued;
      // The same hosts as required host permissions: a "Cross-seed" click downloads the candidate's
      // .torrent from the background, and a background fetch carries the user's session cookies for
      // a site only with host permission there (test/e2e/site-cookies.test.ts). It must work on the
      // first click (Chromium's prompt cannot be answered by automation, and a prompt per site would
      // be a chore); the install warning does not change, as the content script already runs on them.
      if (manifest.manifest_version === 2) manifest.permissions = [...(manifest.permissions ?? []), ...catalogued];
      else manifest.host_permissions = [...(manifest.host_permissions ?? []), ...catalogued];
      // WXT drops optional_host_permissions from MV2 builds without a replacement: Firefox then
      // refuses every permissions.request (a custom service origin, "use on this site").
      if (manifest.manifest_version === 2) manifest.optional_permissions = [...(manifest.optional_permissions ?? []), '*://*/*'];
      // Firefox's settings (its add-on id, data-collection consent) mean nothing to Chromium, and the
      // background reads the consent declaration to know whether to ask for it (utils/data-collection.ts).
      else delete (manifest as { browser_specific_settings?: unknown }).browser_specific_settings;
    },
  },
  manifest: {
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    /*
     * declarativeNetRequestWithHostAccess: one session rule per saved qBittorrent address gives the
     * extension's own requests there the client's own Origin, so its CSRF protection stays on
     * (utils/clients/csrf.ts). "WithHostAccess" acts only where host permission is held, and shows
     * no install warning of its own.
     * notifications: "Tell me when there is something new to cross-seed" (off unless the user turns it on).
     */
    permissions: ['storage', 'activeTab', 'scripting', 'alarms', 'declarativeNetRequestWithHostAccess', 'notifications'],
    /*
     * Loopback (127.0.0.1, localhost; http and https, any port) is required, not optional: most
     * users run their client's web UI on the same machine, and a client there must work without a
     * prompt (Chromium's prompt cannot be answered by automation either). The extension sends
     * nothing to loopback but the requests to the client the user saved. [::1] is left to the
     * optional prompt: Firefox's match patterns do not reliably take an IPv6 literal. Any other
     * client address (a NAS, a LAN IP) is asked for, within the Save click, as an optional host.
     */
    host_permissions: [...SERVICE_HOST_PERMISSIONS, ...LOOPBACK_CLIENT_HOST_PERMISSIONS],
    optional_host_permissions: ['*://*/*'],
    action: { default_title: '__MSG_extName__' },
    browser_specific_settings: {
      gecko: {
        id: GECKO_ID,
        // ESR 140 and newer: the first releases that read data_collection_permissions.
        strict_min_version: '140.0',
        // What leaves the browser (utils/data-collection.ts): the info-hashes of tracker pages
        // visited and the user's site list go to the lookup service (required: it is what the
        // extension does); binding a token sends a user id and a passkey SHA-1 (asked when binding).
        data_collection_permissions: { required: ['browsingActivity'], optional: ['authenticationInfo', 'personallyIdentifyingInfo'] },
      } as { id: string; strict_min_version: string },
      gecko_android: { strict_min_version: '142.0' },
    },
  },
});
