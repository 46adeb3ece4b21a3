/**
 * The cross-seed user of support/cross-seed-world.ts set up in the built extension as in their own
 * browser: the e2e job tests share it.
 */
import type { ClientsAnswer } from '../../../features/clients/clients.messages';
import type { TorrentClient } from '../../../utils/clients/client-types';
import type { RunningDaemon } from '../../clients/daemons';
import type { IndexStatusView } from '../../../features/client-index/client-index.messages';
import { launchBrowser, type BrowserKind, type HarnessBrowser, type HarnessPage } from '../harness/index.ts';
import { crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld, type CrossSeedWorldOptions, type TestTracker } from './cross-seed-world';
import { until } from './wait';
import { ownClient } from '../../clients/own-client';

/** The test trackers and reference service, a real client seeding the pairs' sources, and a browser with the built extension. */
export interface CrossSeedBrowser {
  cross: CrossSeedWorld;
  daemon: RunningDaemon;
  /** The test's own view of the client. */
  client: TorrentClient;
  browser: HarnessBrowser;
  /** The browser, the world, then the client daemon. */
  close(): Promise<void>;
}

/**
 * The world of support/cross-seed-world.ts (`world`), the client `startDaemon` starts holding every
 * pair's source as the user's own web UI added it (seeding at 100 % from its data folder), and the
 * browser `kind` in `lang` going through the world's router. The user is not set up yet (setUpCrossSeedUser).
 */
export async function startCrossSeedBrowser(
  kind: BrowserKind,
  lang: 'en' | 'zh-CN',
  world: CrossSeedWorldOptions & { pairs: number },
  startDaemon: () => Promise<RunningDaemon>,
): Promise<CrossSeedBrowser> {
  const cross = await startCrossSeedWorld(world);
  let daemon: RunningDaemon | undefined;
  let browser: HarnessBrowser | undefined;
  const close = async () => {
    await browser?.close();
    await cross.close();
    await daemon?.stop();
  };
  try {
    daemon = await startDaemon();
    const client = ownClient(daemon);
    for (let index = 0; index < world.pairs; index++) await cross.seed(client, daemon.dataDir, index);
    browser = await launchBrowser(kind, { proxyPort: cross.world.router.port, lang });
    return { cross, daemon, client, browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A message to the background as an extension page sends it. */
const messenger =
  (browser: HarnessBrowser) =>
  <T,>(body: Record<string, unknown>) =>
    browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);

export interface CrossSeedUserOptions {
  /** The client saved through `clients:save`, or a function saving it (e.g. through the options page's form). */
  client: RunningDaemon | ((browser: HarnessBrowser) => Promise<void>);
  /** Sites held beside the page's and the candidate's, over http too. */
  alsoHeld?: number[];
  /** Trackers the user is logged in on after the candidate's. */
  alsoLoggedInOn?: TestTracker[];
}

/**
 * The user's settings (crossSeedUserSettings, the privacy notice seen), their client, and a login tab
 * on the candidate's site (then on `alsoLoggedInOn`), closed once logged in.
 */
export async function setUpCrossSeedUser(browser: HarnessBrowser, cross: CrossSeedWorld, options: CrossSeedUserOptions): Promise<void> {
  const message = messenger(browser);
  const alsoHeld = options.alsoHeld ?? [];
  const settings = crossSeedUserSettings(alsoHeld);
  await message({ type: 'settings:save', update: { ...settings, heldSites: [...settings.heldSites, ...alsoHeld], privacyNoticeSeen: true } });
  if (typeof options.client === 'function') await options.client(browser);
  else {
    const daemon = options.client;
    const saved = await message<ClientsAnswer | { problem: unknown }>({
      type: 'clients:save',
      client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password },
    });
    if ('problem' in saved) throw new Error(`${daemon.kind} not saved: ${JSON.stringify(saved.problem)}`);
  }
  const login = await browser.newPage();
  for (const tracker of [cross.candidate, ...(options.alsoLoggedInOn ?? [])]) await login.goto(tracker.loginUrl('http'));
  await login.close();
}

/**
 * cross-seed.html opened and brought to the front, the index off: the page's own offer turns it on;
 * resolves with the page once the index's first sync has ended (before any count is read).
 */
export async function openCrossSeedWithIndexOn(browser: HarnessBrowser): Promise<HarnessPage> {
  const page = await browser.openExtensionPage('cross-seed.html');
  await page.bringToFront();
  await page.waitForSelector('#turn-on-index', { timeoutMs: 30_000 });
  await page.click('#turn-on-index');
  await until(
    () => messenger(browser)<IndexStatusView>({ type: 'index:status' }),
    (status) => !status.running && status.lastSync?.outcome === 'done',
    'the first sync of the index',
    60_000,
  );
  return page;
}
