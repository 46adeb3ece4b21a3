/**
 * Records what the real clients answer, for the unit tests to replay (`npm run record:clients`
 * for every build of both generations; arguments narrow it down: a kind, a generation, a release,
 * e.g. `npm run record:clients -- qbittorrent current`). Each client is started fresh by the
 * harness, a fixed scenario is run through the library, and every HTTP exchange the library made is
 * written with the daemon's version to test/fixtures/clients/<client>-<version>.json.
 *
 * Facts (hashes, names, paths, the .torrent files and options used) are what the harness made;
 * only the exchanges come from the daemons. Nothing in those files is written by hand.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../../utils/clients/index';
import { toClientFailure } from '../../utils/clients/client-errors';
import type { AddOptions, ClientKind, TorrentClient } from '../../utils/clients/client-types';
import { until } from '../e2e/support/wait';
import { makeTorrent, torrentOn, unloadableTorrent, writeSampleContent, type Content, type MadeTorrent } from './torrent-content';
import { clientBuilds, startDeluge, startFlood, startQbittorrent, startRtorrent, startTransmission, type ClientBuild, type RunningDaemon } from './daemons';
import { nodeClientFetch, type JarFetch } from './node-fetch';
import { recordingFetch, type Exchange, type Recording } from './recording';
import { addSeeding, untilSeeding } from './seeding';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/clients');

/** A hash no client holds. */
export const ABSENT_HASH = '0123456789abcdef0123456789abcdef01234567';
/** What Chromium sends as Origin from an extension's background. */
export const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

export const CROSS_SEED_OPTIONS = (savePath: string): AddOptions => ({
  savePath,
  paused: false,
  skipCheck: false,
  category: 'cross-seed',
  tags: ['reseed-lens', 'beta'],
});

function summarise(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries(value);
  return value;
}

function cookieHeader(jar: JarFetch, url: string): string {
  return [...(jar.jar.get(new URL(url).host) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
}

function torrentFact(torrent: MadeTorrent) {
  return { hash: torrent.hash, name: torrent.name, tracker: torrent.tracker, base64: torrent.bytes.toString('base64') };
}

class Session {
  readonly recording: Recording;
  readonly content: { single: Content; folder: Content };
  readonly torrents: Record<string, MadeTorrent>;

  constructor(readonly daemon: RunningDaemon) {
    this.content = writeSampleContent(daemon.dataDir);
    this.torrents = {
      singleAlpha: torrentOn('alpha', this.content.single),
      folderAlpha: torrentOn('alpha', this.content.folder),
      singleBeta: torrentOn('beta', this.content.single),
      folderBeta: torrentOn('beta', this.content.folder),
      unloadable: unloadableTorrent('unloadable.bin'),
    };
    this.recording = {
      client: daemon.kind,
      version: daemon.version,
      recordedAt: new Date().toISOString(),
      facts: {
        url: daemon.url,
        username: daemon.username,
        password: daemon.password,
        savePath: daemon.dataDir,
        absentHash: ABSENT_HASH,
        extensionOrigin: EXTENSION_ORIGIN,
        content: { single: this.content.single.files, folder: this.content.folder.files, folderName: this.content.folder.name, singleName: this.content.single.name },
        torrents: Object.fromEntries(Object.entries(this.torrents).map(([name, torrent]) => [name, torrentFact(torrent)])),
        crossSeedOptions: CROSS_SEED_OPTIONS(daemon.dataDir),
      },
      scenarios: {},
    };
  }

  /** A library client that no recording sees (for setting the daemon up between scenarios). */
  helper(): TorrentClient {
    return createClient(this.daemon.config, { fetch: nodeClientFetch() });
  }

  /** Runs `run` with a fresh library client whose exchanges are recorded as scenario `name`. */
  async scenario(
    name: string,
    description: string,
    run: (client: TorrentClient, jar: JarFetch) => Promise<unknown>,
    options: { origin?: string; password?: string } = {},
  ): Promise<void> {
    const exchanges: Exchange[] = [];
    // The jar sits between the client and the recorder, so a scenario's Origin is recorded as sent.
    const jar = nodeClientFetch({ origin: options.origin, inner: recordingFetch(globalThis.fetch, exchanges) });
    const config = { ...this.daemon.config, password: options.password ?? this.daemon.password };
    const client = createClient(config, { fetch: jar });
    let outcome: unknown;
    try {
      outcome = { result: summarise(await run(client, jar)) };
    } catch (error) {
      outcome = { error: toClientFailure(error) };
    }
    this.recording.scenarios[name] = { description, exchanges, outcome };
    const shown = JSON.stringify(outcome);
    console.log(`  ${name}: ${exchanges.length} exchange(s) → ${shown.length > 160 ? `${shown.slice(0, 160)}…` : shown}`);
  }

  fact(name: string, value: unknown): void {
    this.recording.facts[name] = value;
  }

  write(): string {
    const version = this.daemon.version.replace(/^v/, '').split(' ')[0]!;
    const file = join(FIXTURES, `${this.daemon.kind}-${version}.json`);
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, `${JSON.stringify(this.recording, null, 2)}\n`);
    return file;
  }
}

/** The scenarios every client goes through, in this order (each one leaves the daemon as the next expects). */
async function commonScenarios(session: Session): Promise<void> {
  const { torrents, daemon, content } = session;
  await session.scenario('test', 'test() on a client holding no torrent', (client) => client.test());
  await session.scenario('test-wrong-password', 'test() with a wrong password', (client) => client.test(), { password: 'not-the-password' });
  await session.scenario('list-empty', 'list() on a client holding no torrent', (client) => client.list());

  // The user's existing torrents: the sample content on tracker alpha, verified and seeding.
  const helper = session.helper();
  await addSeeding(helper, torrents.singleAlpha!, content.single);
  await addSeeding(helper, torrents.folderAlpha!, content.folder);

  await session.scenario('list', 'list() with two seeding torrents', (client) => client.list());
  await session.scenario('lookup', 'lookup() of both seeding torrents and one absent hash', (client) =>
    client.lookup([torrents.singleAlpha!.hash, torrents.folderAlpha!.hash.toUpperCase(), ABSENT_HASH]),
  );
  await session.scenario('files', 'files() of the multi-file torrent', (client) => client.files(torrents.folderAlpha!.hash));
  await session.scenario('files-absent', 'files() of a hash the client does not hold', (client) => client.files(ABSENT_HASH));
  await session.scenario('add-cross-seed', 'add() the same folder from tracker beta, at the existing save path, checked', (client) =>
    client.add(torrents.folderBeta!.bytes, CROSS_SEED_OPTIONS(daemon.dataDir)),
  );
  await untilSeeding(helper, torrents.folderBeta!.hash);
  await session.scenario('lookup-cross-seed', 'lookup() of the cross-seed once verified (no peer: the data was already there)', (client) =>
    client.lookup([torrents.folderBeta!.hash]),
  );
  await session.scenario('add-duplicate', 'add() the cross-seed torrent a second time', (client) => client.add(torrents.folderBeta!.bytes, CROSS_SEED_OPTIONS(daemon.dataDir)));
  await session.scenario('add-unloadable', 'add() a .torrent whose info dictionary the client cannot load', (client) =>
    client.add(torrents.unloadable!.bytes, { savePath: daemon.dataDir, paused: false, skipCheck: false }),
  );
  await session.scenario('add-paused-skip-check', 'add() the single file from tracker beta, paused, skipping the check', (client) =>
    client.add(torrents.singleBeta!.bytes, { savePath: daemon.dataDir, paused: true, skipCheck: true }),
  );
  await until(
    async () => (await helper.lookup([torrents.singleBeta!.hash])).get(torrents.singleBeta!.hash),
    (torrent) => torrent !== undefined && torrent.state !== 'checking' && torrent.state !== 'unknown',
    'the paused torrent to settle',
    30_000,
  );
  await session.scenario('lookup-paused', 'lookup() of the torrent added paused', (client) => client.lookup([torrents.singleBeta!.hash]));
}

async function recordQbittorrent(build: ClientBuild): Promise<string> {
  const daemon = await startQbittorrent({ maxAuthFailCount: 5, build });
  try {
    console.log(`qBittorrent ${daemon.version} at ${daemon.url}`);
    const session = new Session(daemon);
    session.fact('maxAuthFailCount', 5);
    await commonScenarios(session);
    await session.scenario('session-expired', 'lookup(), the session ends (logout), lookup() again: 403, log in, repeat', async (client, jar) => {
      await client.lookup([session.torrents.singleAlpha!.hash]);
      // The harness ends the session with the client's cookie, outside the recording.
      const logout = await fetch(`${daemon.url}/api/v2/auth/logout`, { method: 'POST', headers: { Cookie: cookieHeader(jar, daemon.url) } });
      if (logout.status !== 200) throw new Error(`logout answered ${logout.status}`);
      return client.lookup([session.torrents.singleAlpha!.hash]);
    });
    await session.scenario('csrf-refused', 'test() from an extension origin (what the browser sends without the declarativeNetRequest rule)', (client) => client.test(), {
      origin: EXTENSION_ORIGIN,
    });
    await session.scenario('csrf-same-origin', "test() with Origin set to the client's own origin (what the rule makes the browser send)", (client) => client.test(), {
      origin: 'same',
    });
    // Five failed logins ban the address (WebUI\MaxAuthenticationFailCount=5).
    for (let attempt = 0; attempt < 5; attempt++) {
      await fetch(`${daemon.url}/api/v2/auth/login`, { method: 'POST', body: new URLSearchParams({ username: daemon.username, password: 'wrong' }) });
    }
    await session.scenario('banned', 'test() with the right password after five failed logins', (client) => client.test());
    await daemon.stop();
    await session.scenario('unreachable', 'test() once the daemon has stopped', (client) => client.test());
    return session.write();
  } finally {
    await daemon.stop();
  }
}

async function recordTransmission(build: ClientBuild): Promise<string> {
  const daemon = await startTransmission({ build });
  try {
    console.log(`Transmission ${daemon.version} at ${daemon.url}`);
    const session = new Session(daemon);
    await commonScenarios(session);
    await session.scenario('add-relative-save-path', 'add() with a relative download dir', (client) =>
      client.add(session.torrents.singleBeta!.bytes, { savePath: 'relative/folder', paused: true, skipCheck: false }),
    );
    // Transmission 3.00 locks logins out after 100 failures, until it restarts. 4.x does so only with
    // anti-brute-force-enabled (off by default, as here), and then answers a bare "403: Forbidden",
    // the same words as for an address off its whitelist.
    const wrong = `Basic ${Buffer.from(`${daemon.username}:wrong`).toString('base64')}`;
    for (let attempt = 0; attempt < 100; attempt++) {
      await fetch(`${daemon.url}/transmission/rpc`, { method: 'POST', headers: { Authorization: wrong }, body: '{}' });
    }
    await session.scenario('banned', 'test() with the right password after 100 failed logins', (client) => client.test());
    await daemon.stop();
    await session.scenario('unreachable', 'test() once the daemon has stopped', (client) => client.test());
    return session.write();
  } finally {
    await daemon.stop();
  }
}

/** A front (Deluge's web UI, rTorrent's web server) whose daemon stopped, then the front stopped too. */
async function frontWithoutDaemon(session: Session, daemon: RunningDaemon & { stopDaemon(): Promise<void> }, front: string, behind: string): Promise<void> {
  await daemon.stopDaemon();
  await session.scenario('daemon-stopped', `test() with ${front} up but ${behind} stopped`, (client) => client.test());
  await daemon.stop();
  await session.scenario('unreachable', `test() once ${front} has stopped`, (client) => client.test());
}

async function recordDeluge(build: ClientBuild): Promise<string> {
  const daemon = await startDeluge({ build });
  try {
    console.log(`Deluge ${daemon.version} at ${daemon.url}`);
    const session = new Session(daemon);
    await commonScenarios(session);
    await session.scenario('session-expired', 'lookup(), the session is deleted, lookup() again: "Not authenticated", log in, repeat', async (client, jar) => {
      await client.lookup([session.torrents.singleAlpha!.hash]);
      const deleted = await fetch(`${daemon.url}/json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: cookieHeader(jar, daemon.url) },
        body: '{"method":"auth.delete_session","params":[],"id":99}',
      });
      if (deleted.status !== 200) throw new Error(`auth.delete_session answered ${deleted.status}`);
      return client.lookup([session.torrents.singleAlpha!.hash]);
    });
    await frontWithoutDaemon(session, daemon, 'the web UI', 'its daemon');
    return session.write();
  } finally {
    await daemon.stop();
  }
}

async function recordRtorrent(build: ClientBuild): Promise<string> {
  const daemon = await startRtorrent({ build });
  try {
    console.log(`rTorrent ${daemon.version} at ${daemon.url}`);
    const session = new Session(daemon);
    await commonScenarios(session);
    await frontWithoutDaemon(session, daemon, 'the web server', 'rTorrent behind it');
    return session.write();
  } finally {
    await daemon.stop();
  }
}

async function recordFlood(build: ClientBuild): Promise<string> {
  const daemon = await startFlood({ build });
  try {
    console.log(`Flood ${daemon.version} at ${daemon.url}, over rTorrent ${daemon.rtorrent.version}`);
    const session = new Session(daemon);
    session.fact('drives', { client: 'rtorrent', version: daemon.rtorrent.version });
    session.fact('allowedPath', daemon.rtorrent.profileDir);
    // First, while the client holds nothing (so it is not a duplicate, and adds nothing).
    await session.scenario('add-outside-allowed-path', "add() at a save path outside Flood's --allowedpath", (client) =>
      client.add(session.torrents.singleAlpha!.bytes, { savePath: '/var/tmp/not-allowed', paused: true, skipCheck: false }),
    );
    await commonScenarios(session);
    await session.scenario('session-expired', 'lookup(), the jwt cookie is gone from the jar, lookup() again: 401, log in, repeat', async (client, jar) => {
      await client.lookup([session.torrents.singleAlpha!.hash]);
      // Flood's jwt is stateless (its logout only clears the cookie): the harness drops it, outside the recording.
      if (!jar.jar.get(new URL(daemon.url).host)?.delete('jwt')) throw new Error('no jwt cookie in the jar');
      return client.lookup([session.torrents.singleAlpha!.hash]);
    });
    // A tracker by name (added stopped: rTorrent announces nothing, and its announces go to a dead loopback proxy anyway).
    const announce = 'http://tracker.gamma-tracker.org:9/announce.php?passkey=0c0c';
    const named = makeTorrent(session.content.single, { announce, source: 'GAMMA' });
    session.fact('namedTracker', { ...torrentFact(named), announce });
    await session.helper().add(named.bytes, { savePath: daemon.dataDir, paused: true, skipCheck: false });
    await session.scenario('lookup-named-tracker', 'lookup() of a torrent whose tracker has a host name', (client) => client.lookup([named.hash]));
    await frontWithoutDaemon(session, daemon, 'Flood', 'the rTorrent it drives');
    return session.write();
  } finally {
    await daemon.stop();
  }
}

const recorders: Record<ClientKind, (build: ClientBuild) => Promise<string>> = {
  qbittorrent: recordQbittorrent,
  transmission: recordTransmission,
  deluge: recordDeluge,
  rtorrent: recordRtorrent,
  flood: recordFlood,
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const wanted = process.argv.slice(2);
  // Every word given must name the build: its kind, generation or release ("qbittorrent current 5.3").
  const builds = clientBuilds({ all: true }).filter((build) => wanted.every((word) => [build.kind, build.generation, build.release].includes(word)));
  if (builds.length === 0) throw new Error(`no client build matches ${wanted.join(' ')}`);
  for (const build of builds) {
    // One Flood, one file (flood-<version>.json): recorded over bookworm's rTorrent; the live tests run it over today's too.
    if (build.kind === 'flood' && build.generation === 'current' && builds.some((one) => one.kind === 'flood' && one.generation === 'bookworm')) continue;
    console.log(`\n${build.label}`);
    const file = await recorders[build.kind](build);
    console.log(`wrote ${file}`);
  }
}
