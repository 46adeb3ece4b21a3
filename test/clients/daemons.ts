/**
 * Real torrent clients for the tests, in two generations (see `clientBuilds()`):
 * - 'bookworm': the host's Debian 12 packages (qBittorrent 4.5.2, Transmission 3.00, Deluge 2.0.3);
 * - 'current': today's releases from the trixie root that scripts/clients/install-current-clients.sh
 *   builds (qBittorrent 5.1 and 5.3, Transmission 4.1.x, Deluge 2.2, rTorrent 0.16 from forky),
 *   run through its wrappers
 *   (unshare + chroot; the PID started is the daemon's own).
 * Each daemon runs on free loopback ports with its own profile folder and known
 * credentials. Nothing is weakened for the tests: qBittorrent keeps its CSRF protection and Host
 * header validation on (their defaults), Transmission its session-id exchange, whitelist and
 * password, Deluge its web password. Only what would reach outside is off (DHT, LSD, PeX, UPnP),
 * and queueing, so a torrent never waits for a slot. Deluge's daemon is started through
 * deluged-quiet (its libtorrent session is born with UPnP, NAT-PMP, LSD and DHT off; plain deluged
 * sends those before it reads core.conf).
 *
 * `stop()` kills the daemon and deletes its folder; a process 'exit' hook does the same for any
 * daemon a failed test left behind (found by its folder on its command line or in its environment;
 * see processes.mjs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_NAMES, type ClientKind } from '../../utils/clients/client-types';
import { currentClientsDir } from '../../scripts/clients/current-clients.mjs';
import { killClientProcesses } from './processes.mjs';
import { waitFor } from '../e2e/support/wait';

export interface RunningDaemon {
  kind: ClientKind;
  /** Which program this is (generation, version line, binaries). */
  build: ClientBuild;
  /** The address a user would type: the web UI's root. */
  url: string;
  username: string;
  password: string;
  /** The daemon's version as its binary prints it. */
  version: string;
  profileDir: string;
  /** The daemon's default download folder (inside the profile). */
  downloadDir: string;
  /** A scratch folder inside the profile for content (deleted with it). */
  dataDir: string;
  /** The configuration the library's createClient() takes. */
  config: { type: ClientKind; url: string; username: string; password: string };
  stop(): Promise<void>;
}

// --------------------------------------------------------------------------------------------
// Generations and builds

export type ClientGeneration = 'bookworm' | 'current';
export const CLIENT_GENERATIONS: readonly ClientGeneration[] = ['bookworm', 'current'];

/** One program the tests can start: a client kind in one generation (and release line). */
export interface ClientBuild {
  kind: ClientKind;
  generation: ClientGeneration;
  /** The release line: "4.5", "5.1", "5.3", "3.00", "4.1", "2.0", "2.2". */
  release: string;
  /** For test titles: "qBittorrent 5.3 (current)". */
  label: string;
  /** The executables by role (qbittorrent-nox, transmission-daemon, deluged, deluge-web) → command line. */
  commands: Record<string, string[]>;
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** The host's Debian Python (a pyenv or venv python3 first on PATH lacks python3-libtorrent). */
const HOST_PYTHON = '/usr/bin/python3';

function hostCommand(name: string): string[] {
  return [requireBinary(name)];
}

function rootCommand(wrapper: string): string[] {
  const path = join(currentClientsDir(), 'bin', wrapper);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `${path} is missing: today's clients are not installed. Run "npm test" once, or as root: bash scripts/clients/install-current-clients.sh (about 380 MB, 2-4 minutes)`,
    );
  }
  return [path];
}

function build(kind: ClientKind, generation: ClientGeneration, release: string): ClientBuild {
  return { kind, generation, release, label: `${CLIENT_NAMES[kind]} ${release} (${generation})`, commands: {} };
}

/**
 * Kinds that some every-build tests do not apply to, started only where a test asks for them by
 * kind (or with `all`): Flood has no pages of its list and cannot rename a torrent's files, so the
 * paging and renamed-copy rows are not its; the live client, engine, replay and network-namespace
 * tests add its row by kind. (rTorrent joined every row with issue 26.)
 */
const NOT_YET_IN_EVERY_BUILD: ReadonlySet<ClientKind> = new Set<ClientKind>(['flood']);

/** Every build the tests run, optionally of one kind or generation. Commands are resolved when started. */
export function clientBuilds(filter: { kind?: ClientKind; generation?: ClientGeneration; all?: boolean } = {}): ClientBuild[] {
  const all: ClientBuild[] = [
    build('qbittorrent', 'bookworm', '4.5'),
    build('qbittorrent', 'current', '5.1'),
    build('qbittorrent', 'current', '5.3'),
    build('transmission', 'bookworm', '3.00'),
    build('transmission', 'current', '4.1'),
    build('deluge', 'bookworm', '2.0'),
    build('deluge', 'current', '2.2'),
    build('rtorrent', 'bookworm', '0.9'),
    build('rtorrent', 'current', '0.16'),
    // Flood from npm (`flood` in devDependencies, today's release) over each generation's rTorrent.
    build('flood', 'bookworm', '4.16'),
    build('flood', 'current', '4.16'),
  ];
  return all.filter(
    (one) =>
      (filter.kind ? one.kind === filter.kind : filter.all || !NOT_YET_IN_EVERY_BUILD.has(one.kind)) && (!filter.generation || one.generation === filter.generation),
  );
}

/** Whether `version` ("v5.3.0", "4.1.4 (…)") is at least `major.minor`. */
export function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  return a > major || (a === major && b >= minor);
}

/** The command line for one role of a build (host binaries for bookworm, the root's wrappers for current). */
function commandOf(build: ClientBuild, role: string): string[] {
  const given = build.commands[role];
  if (given) return given;
  // The web server in front of rTorrent is the host's in both generations (only rTorrent differs).
  if (build.generation === 'bookworm' || role === 'lighttpd') {
    // deluged-quiet.py is the host's own deluged with a quiet first moment (see its header).
    if (role === 'deluged') return [HOST_PYTHON, join(HERE, '../../scripts/clients/deluged-quiet.py')];
    return hostCommand(role);
  }
  if (role === 'qbittorrent-nox' && build.release === '5.1') return rootCommand('qbittorrent-nox-5.1');
  return rootCommand(role);
}

/** The bookworm build of `kind`: what the start functions run when given no build. */
function defaultBuild(kind: ClientKind): ClientBuild {
  return clientBuilds({ kind, generation: 'bookworm' })[0]!;
}

/** `[label, build]` rows for describe.each, over every build of `kind` (or of every kind). */
export function buildRows(kind?: ClientKind): [string, ClientBuild][] {
  return clientBuilds({ kind }).map((build) => [build.label, build]);
}

export const TEST_USER = 'reseed';
export const TEST_PASSWORD = 'Lens-密码-2024';

// --------------------------------------------------------------------------------------------
// Processes and folders

const live = new Map<string, Set<ChildProcess>>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [dir, children] of live) {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      killClientProcesses(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A folder of its own for one daemon; under the test run's folder when scripts/test.mjs runs us. */
function profileFolder(kind: ClientKind): string {
  installExitHook();
  const root = join(tmpdir(), 'reseed-lens-clients');
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, `${kind}-`));
  live.set(dir, new Set());
  return dir;
}

const DEBIAN_PACKAGES: Record<string, string> = {
  'qbittorrent-nox': 'qbittorrent-nox',
  'transmission-daemon': 'transmission-daemon',
  deluged: 'deluged',
  'deluge-web': 'deluge-web',
  rtorrent: 'rtorrent',
  lighttpd: 'lighttpd',
};

/** The binary's path, or an error that says which Debian package to install. */
export function requireBinary(name: string): string {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const folder of folders) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  const pkg = DEBIAN_PACKAGES[name] ?? name;
  throw new Error(`${name} is not installed. The client tests need Debian's "${pkg}" package: apt-get install -y ${pkg}`);
}

export function binaryVersion(binary: string | string[], pattern: RegExp, flag = '--version'): string {
  const [command, ...args] = typeof binary === 'string' ? [binary] : binary;
  // HOME in a throw-away folder: qBittorrent writes its config folders even for --version.
  const home = mkdtempSync(join(tmpdir(), 'version-'));
  try {
    const result = spawnSync(command!, [...args, flag], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, HOME: home } });
    const text = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
    const match = pattern.exec(text);
    if (!match?.[1]) throw new Error(`cannot read the version of ${[command, ...args].join(' ')}: ${text.trim().slice(0, 200)}`);
    return match[1];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Version lines as each program prints them; release candidates and development builds included:
 * "qBittorrent v5.1.0", "transmission-daemon 4.1.0-beta.2 (…)", "deluged 2.2.1.dev0+g…".
 */
export const VERSION_PATTERNS = {
  qbittorrent: /qBittorrent (v\d[\w.+~-]*)/,
  transmission: /transmission-daemon (\d[\w.+~-]*(?: \([0-9a-f]+\))?)/,
  deluge: /deluged (\d[\w.+~-]*)/,
  // `rtorrent -h`: "Rakshasa's BitTorrent client version 0.9.8." (it has no --version).
  rtorrent: /client version (\d[\w.+~-]*?)\.?\s*$/m,
} as const;

/** A TCP port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function spawnDaemon(dir: string, command: string[], args: string[], logName: string): ChildProcess {
  const log = openSync(join(dir, logName), 'a');
  const child = spawn(command[0]!, [...command.slice(1), ...args], {
    cwd: dir,
    stdio: ['ignore', log, log],
    env: {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      XDG_DATA_HOME: join(dir, '.local/share'),
      XDG_CACHE_HOME: join(dir, '.cache'),
      LANG: 'C.UTF-8',
      RESEED_CLIENT_PROFILE: dir,
    },
  });
  closeSync(log);
  live.get(dir)?.add(child);
  return child;
}

function logTail(dir: string, logName: string): string {
  try {
    return readFileSync(join(dir, logName), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `ready` until it says yes; fails early, with the daemon's log, if the daemon exits. */
async function waitUntilReady(what: string, child: ChildProcess, dir: string, logName: string, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const answered = await waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it answered:\n${logTail(dir, logName)}`);
      }
      return ready().catch(() => false);
    },
    (yes) => yes,
    timeoutMs,
  );
  if (!answered) throw new Error(`${what} did not answer within ${timeoutMs} ms:\n${logTail(dir, logName)}`);
}

async function stopChild(child: ChildProcess, graceMs = 8_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
  if ((await Promise.race([exited, timer])) === 'late') {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Where a daemon's log that reported a stall is kept (the profile goes with the daemon). */
const STALL_REPORTS = join(HERE, '../../test-results/client-stalls');

/**
 * A log in which a daemon reported its own stall (deluged-quiet.py has faulthandler write every
 * thread's stack, under "Timeout (0:00:10)!", when Twisted's reactor stops turning) is copied to test-results/client-stalls before the
 * profile is deleted, and said on stderr: the failing test's message says only that an answer was late.
 */
function keepStallReports(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.log')) continue;
      const text = readFileSync(join(dir, name), 'utf8');
      if (!/^Timeout \(\d+:\d\d:\d\d\)!$/m.test(text)) continue;
      mkdirSync(STALL_REPORTS, { recursive: true });
      const kept = join(STALL_REPORTS, `${basename(dir)}-${name}`);
      writeFileSync(kept, text);
      process.stderr.write(`a client daemon reported a stall: its log is kept at ${kept}\n`);
    }
  } catch {
    // Nothing to keep.
  }
}

function stopper(dir: string, children: ChildProcess[]): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      for (const child of [...children].reverse()) await stopChild(child);
      killClientProcesses(dir); // anything a daemon started, or a renamed one
      live.delete(dir);
      keepStallReports(dir);
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    })());
}

async function answers(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(2_000) });
  await response.arrayBuffer();
  return response.status;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// --------------------------------------------------------------------------------------------
// qBittorrent

export interface QbittorrentOptions {
  username?: string;
  password?: string;
  /** Failed logins before qBittorrent bans the address (its default is 5). */
  maxAuthFailCount?: number;
  /** Serve the web UI over https with a self-signed certificate made with openssl. */
  https?: boolean;
  /** An API key the web UI accepts (`WebUI\\APIKey`, qBittorrent 5.2 and later): `qbt_` + 28 letters or digits. */
  apiKey?: string;
  /** Which qBittorrent (default: bookworm's). */
  build?: ClientBuild;
}

/** A fresh key of the documented form (`qbt_` + 28 letters or digits). */
export function qbittorrentApiKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `qbt_${[...randomBytes(28)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** `WebUI\Password_PBKDF2` as qBittorrent writes it: PBKDF2-HMAC-SHA512, 100000 rounds, 16-byte salt, 64-byte key. */
export function qbittorrentPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(password, salt, 100_000, 64, 'sha512');
  return `@ByteArray(${salt.toString('base64')}:${key.toString('base64')})`;
}

export async function startQbittorrent(options: QbittorrentOptions = {}): Promise<RunningDaemon> {
  const build = options.build ?? defaultBuild('qbittorrent');
  const binary = commandOf(build, 'qbittorrent-nox');
  const version = binaryVersion(binary, VERSION_PATTERNS.qbittorrent);
  const dir = profileFolder('qbittorrent');
  const downloadDir = join(dir, 'downloads');
  const dataDir = join(dir, 'data');
  mkdirSync(downloadDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const username = options.username ?? TEST_USER;
  const password = options.password ?? TEST_PASSWORD;
  const [port, peerPort] = [await freePort(), await freePort()];

  const lines = [
    '[LegalNotice]',
    'Accepted=true',
    '',
    '[BitTorrent]',
    `Session\\Port=${peerPort}`,
    'Session\\Interface=lo',
    'Session\\InterfaceName=lo',
    'Session\\DHTEnabled=false',
    'Session\\LSDEnabled=false',
    'Session\\PeXEnabled=false',
    'Session\\QueueingSystemEnabled=false',
    `Session\\DefaultSavePath=${downloadDir}`,
    'Session\\TempPathEnabled=false',
    '',
    '[Network]',
    'PortForwardingEnabled=false',
    '',
    '[Preferences]',
    'Connection\\UPnP=false',
    'Connection\\ResolvePeerCountries=false',
    'WebUI\\UseUPnP=false',
    `Downloads\\SavePath=${downloadDir}`,
    'General\\Locale=en',
    'WebUI\\Address=127.0.0.1',
    `WebUI\\Port=${port}`,
    'WebUI\\LocalHostAuth=true',
    `WebUI\\Username=${username}`,
    `WebUI\\Password_PBKDF2="${qbittorrentPasswordHash(password)}"`,
    `WebUI\\MaxAuthenticationFailCount=${options.maxAuthFailCount ?? 5}`,
    'WebUI\\BanDuration=3600',
  ];
  if (options.apiKey) lines.push(`WebUI\\APIKey=${options.apiKey}`);
  let scheme = 'http';
  if (options.https) {
    const cert = join(dir, 'webui.crt');
    const key = join(dir, 'webui.key');
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
    lines.push('WebUI\\HTTPS\\Enabled=true', `WebUI\\HTTPS\\CertificatePath=${cert}`, `WebUI\\HTTPS\\KeyPath=${key}`);
    scheme = 'https';
  }
  mkdirSync(join(dir, 'qBittorrent/config'), { recursive: true });
  writeFileSync(join(dir, 'qBittorrent/config/qBittorrent.conf'), `${lines.join('\n')}\n`);

  const child = spawnDaemon(dir, binary, [`--profile=${dir}`, `--webui-port=${port}`], 'qbittorrent.log');
  const url = `${scheme}://127.0.0.1:${port}`;
  const stop = stopper(dir, [child]);
  try {
    await waitUntilReady('qbittorrent-nox', child, dir, 'qbittorrent.log', async () => {
      if (options.https) return portOpen(port);
      return (await answers(`${url}/api/v2/app/version`)) === 403; // up, and asking for a login
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { kind: 'qbittorrent', build, url, username, password, version, profileDir: dir, downloadDir, dataDir, config: { type: 'qbittorrent', url, username, password }, stop };
}

// --------------------------------------------------------------------------------------------
// Transmission

export interface TransmissionOptions {
  username?: string;
  password?: string;
  /** Which Transmission (default: bookworm's). */
  build?: ClientBuild;
}

export interface RunningTransmission extends RunningDaemon {
  /** Stops transmission-daemon, keeping its folder (its torrents and settings): a client that stopped answering. */
  stopDaemon(): Promise<void>;
  /** Starts it again over the same folder and port, once it answers. */
  startDaemon(): Promise<void>;
}

export async function startTransmission(options: TransmissionOptions = {}): Promise<RunningTransmission> {
  const build = options.build ?? defaultBuild('transmission');
  const binary = commandOf(build, 'transmission-daemon');
  const version = binaryVersion(binary, VERSION_PATTERNS.transmission);
  const dir = profileFolder('transmission');
  const downloadDir = join(dir, 'downloads');
  const dataDir = join(dir, 'data');
  mkdirSync(downloadDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const username = options.username ?? TEST_USER;
  const password = options.password ?? TEST_PASSWORD;
  const [port, peerPort] = [await freePort(), await freePort()];
  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, 'settings.json'),
    JSON.stringify(
      {
        'download-dir': downloadDir,
        'incomplete-dir-enabled': false,
        'dht-enabled': false,
        'lpd-enabled': false,
        'pex-enabled': false,
        'utp-enabled': false,
        'port-forwarding-enabled': false,
        'peer-port': peerPort,
        'peer-port-random-on-start': false,
        'bind-address-ipv4': '127.0.0.1',
        'bind-address-ipv6': '::1',
        'blocklist-enabled': false,
        'rpc-enabled': true,
        'rpc-bind-address': '127.0.0.1',
        'rpc-port': port,
        'rpc-authentication-required': true,
        'rpc-username': username,
        'rpc-password': password, // written in clear, hashed by Transmission when it saves
        'rpc-whitelist-enabled': true,
        'rpc-whitelist': '127.0.0.1',
        'rpc-host-whitelist-enabled': true,
        'download-queue-enabled': false,
        'seed-queue-enabled': false,
        'queue-stalled-enabled': false,
        'start-added-torrents': true,
        'watch-dir-enabled': false,
        'message-level': 2,
      },
      null,
      2,
    ),
  );
  const url = `http://127.0.0.1:${port}`;
  const children: ChildProcess[] = [];
  const stop = stopper(dir, children);
  const startDaemon = async () => {
    const child = spawnDaemon(dir, binary, ['-f', '-g', configDir, '-r', '127.0.0.1', '-p', String(port), '-t', '-u', username, '-v', password, '-a', '127.0.0.1', '-w', downloadDir], 'transmission.log');
    children.push(child);
    await waitUntilReady('transmission-daemon', child, dir, 'transmission.log', async () => {
      const status = await answers(`${url}/transmission/rpc`, { method: 'POST', body: '{}' });
      return status === 401 || status === 409;
    });
  };
  try {
    await startDaemon();
  } catch (error) {
    await stop();
    throw error;
  }
  const stopDaemon = async () => {
    for (const child of children) await stopChild(child);
  };
  return { kind: 'transmission', build, url, username, password, version, profileDir: dir, downloadDir, dataDir, config: { type: 'transmission', url, username, password }, stop, stopDaemon, startDaemon };
}

// --------------------------------------------------------------------------------------------
// Deluge

export interface DelugeOptions {
  password?: string;
  /** Which Deluge (default: bookworm's). */
  build?: ClientBuild;
}

/** A Deluge config file: a version object, then the values (deluge/config.py). */
function delugeConfig(fileVersion: number, values: Record<string, unknown>): string {
  return `${JSON.stringify({ file: fileVersion, format: 1 }, null, 4)}${JSON.stringify(values, null, 4)}`;
}

export interface RunningDeluge extends RunningDaemon {
  /** Stops deluged only, leaving the web UI up (a web UI without its daemon). */
  stopDaemon(): Promise<void>;
}

export async function startDeluge(options: DelugeOptions = {}): Promise<RunningDeluge> {
  const build = options.build ?? defaultBuild('deluge');
  const daemonBinary = commandOf(build, 'deluged');
  const webBinary = commandOf(build, 'deluge-web');
  const version = binaryVersion(daemonBinary, VERSION_PATTERNS.deluge);
  const dir = profileFolder('deluge');
  const downloadDir = join(dir, 'downloads');
  const dataDir = join(dir, 'data');
  mkdirSync(downloadDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const password = options.password ?? TEST_PASSWORD;
  const [webPort, daemonPort, peerPort] = [await freePort(), await freePort(), await freePort()];
  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const localPassword = randomBytes(20).toString('hex');
  writeFileSync(join(configDir, 'auth'), `localclient:${localPassword}:10\n`);
  writeFileSync(
    join(configDir, 'core.conf'),
    delugeConfig(1, {
      download_location: downloadDir,
      move_completed: false,
      listen_ports: [peerPort, peerPort],
      random_port: false,
      listen_interface: '127.0.0.1',
      outgoing_interface: '',
      dht: false,
      upnp: false,
      natpmp: false,
      lsd: false,
      utpex: false,
      new_release_check: false,
      allow_remote: false,
      max_active_limit: -1,
      max_active_downloading: -1,
      max_active_seeding: -1,
      add_paused: false,
      pre_allocate_storage: false,
      copy_torrent_file: false,
      enabled_plugins: [],
    }),
  );
  const salt = randomBytes(20).toString('hex');
  writeFileSync(
    join(configDir, 'web.conf'),
    delugeConfig(2, {
      pwd_salt: salt,
      pwd_sha1: createHash('sha1').update(salt, 'utf8').update(password, 'utf8').digest('hex'),
      default_daemon: '',
      first_login: false,
      interface: '127.0.0.1',
      port: webPort,
      https: false,
      base: '/',
      session_timeout: 3600,
      enabled_plugins: [],
    }),
  );
  writeFileSync(
    join(configDir, 'hostlist.conf'),
    delugeConfig(3, { hosts: [[randomBytes(16).toString('hex'), '127.0.0.1', daemonPort, 'localclient', localPassword]] }),
  );

  const daemon = spawnDaemon(dir, daemonBinary, ['-d', '-c', configDir, '-p', String(daemonPort), '-u', '127.0.0.1', '-i', '127.0.0.1', '-L', 'warning'], 'deluged.log');
  const children = [daemon];
  const stop = stopper(dir, children);
  const url = `http://127.0.0.1:${webPort}`;
  try {
    await waitUntilReady('deluged', daemon, dir, 'deluged.log', () => portOpen(daemonPort));
    const web = spawnDaemon(dir, webBinary, ['-d', '-c', configDir, '-p', String(webPort), '-i', '127.0.0.1', '-L', 'warning'], 'deluge-web.log');
    children.push(web);
    await waitUntilReady('deluge-web', web, dir, 'deluge-web.log', async () => {
      const status = await answers(`${url}/json`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"method":"web.connected","params":[],"id":1}' });
      return status === 200;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    kind: 'deluge',
    build,
    url,
    username: '',
    password,
    version,
    profileDir: dir,
    downloadDir,
    dataDir,
    config: { type: 'deluge', url, username: '', password },
    stop,
    stopDaemon: () => stopChild(daemon),
  };
}

// --------------------------------------------------------------------------------------------
// rTorrent behind lighttpd

export interface RtorrentOptions {
  username?: string;
  password?: string;
  /** Which rTorrent (default: bookworm's). */
  build?: ClientBuild;
}

export interface RunningRtorrent extends RunningDaemon {
  /** rTorrent's own SCGI port on 127.0.0.1 (what Flood connects to). */
  scgiPort: number;
  /** The same XML-RPC behind HTTP Digest instead of Basic (same user and password). */
  digestUrl: string;
  /** Stops rtorrent only, leaving lighttpd up (a web server whose rTorrent is not running). */
  stopDaemon(): Promise<void>;
}

/** A lighttpd/rtorrent.rc string value: quoted, with its quotes and backslashes escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/**
 * rTorrent headless on loopback (system.daemon.set), its XML-RPC mounted at /RPC2 by lighttpd
 * (mod_scgi) behind HTTP Basic auth (mod_auth, an htdigest user file), as a seedbox serves it, and
 * at /digest/RPC2 behind HTTP Digest. Nothing
 * leaves loopback: DHT, PeX and UDP trackers are off, and HTTP announces go through a proxy address
 * on loopback where nothing listens, so curl never even looks a tracker's name up.
 */
export async function startRtorrent(options: RtorrentOptions = {}): Promise<RunningRtorrent> {
  const build = options.build ?? defaultBuild('rtorrent');
  const binary = commandOf(build, 'rtorrent');
  const lighttpd = commandOf(build, 'lighttpd');
  const version = binaryVersion(binary, VERSION_PATTERNS.rtorrent, '-h');
  const dir = profileFolder('rtorrent');
  const downloadDir = join(dir, 'downloads');
  const dataDir = join(dir, 'data');
  const sessionDir = join(dir, 'session');
  const documentRoot = join(dir, 'www');
  for (const folder of [downloadDir, dataDir, sessionDir, documentRoot]) mkdirSync(folder, { recursive: true });
  const username = options.username ?? TEST_USER;
  const password = options.password ?? TEST_PASSWORD;
  const [webPort, scgiPort, peerPort, deadProxyPort] = [await freePort(), await freePort(), await freePort(), await freePort()];

  writeFileSync(
    join(dir, 'rtorrent.rc'),
    [
      'system.daemon.set = true',
      `session.path.set = ${quoted(sessionDir)}`,
      `directory.default.set = ${quoted(downloadDir)}`,
      `network.scgi.open_port = 127.0.0.1:${scgiPort}`,
      'network.bind_address.set = 127.0.0.1',
      `network.port_range.set = ${peerPort}-${peerPort}`,
      'network.port_random.set = no',
      'dht.mode.set = disable',
      'protocol.pex.set = no',
      'trackers.use_udp.set = no',
      // With its scheme: 0.16 refuses a proxy address without one; 0.9 hands it to curl as it is.
      `network.http.proxy_address.set = http://127.0.0.1:${deadProxyPort}`,
      // Room for a large .torrent in load.raw (base64 in XML).
      'network.xmlrpc.size_limit.set = 16M',
      '',
    ].join('\n'),
  );
  // lighttpd's htdigest user file ("user:realm:MD5(user:realm:password)") serves Basic and Digest alike.
  const realm = 'rTorrent';
  writeFileSync(join(dir, 'users'), `${username}:${realm}:${createHash('md5').update(`${username}:${realm}:${password}`).digest('hex')}\n`, { mode: 0o600 });
  const scgiBackend = `(("host" => "127.0.0.1", "port" => ${scgiPort}, "check-local" => "disable"))`;
  writeFileSync(
    join(dir, 'lighttpd.conf'),
    [
      `server.document-root = ${quoted(documentRoot)}`,
      'server.bind = "127.0.0.1"',
      `server.port = ${webPort}`,
      `server.errorlog = ${quoted(join(dir, 'lighttpd-error.log'))}`,
      'server.modules = ("mod_auth", "mod_authn_file", "mod_scgi")',
      'auth.backend = "htdigest"',
      `auth.backend.htdigest.userfile = ${quoted(join(dir, 'users'))}`,
      `auth.require = ("/RPC2" => ("method" => "basic", "realm" => "${realm}", "require" => "valid-user"), "/digest/RPC2" => ("method" => "digest", "realm" => "${realm}", "require" => "valid-user"))`,
      `scgi.server = ("/RPC2" => ${scgiBackend}, "/digest/RPC2" => ${scgiBackend})`,
      '',
    ].join('\n'),
  );
  // A page at the root: an address that answers, but not XML-RPC.
  writeFileSync(join(documentRoot, 'index.html'), '<!doctype html><title>seedbox</title><p>Welcome</p>\n');

  const url = `http://127.0.0.1:${webPort}/RPC2`;
  const children: ChildProcess[] = [];
  const stop = stopper(dir, children);
  try {
    const daemon = spawnDaemon(dir, binary, ['-n', '-o', `import=${join(dir, 'rtorrent.rc')}`], 'rtorrent.log');
    children.push(daemon);
    await waitUntilReady('rtorrent', daemon, dir, 'rtorrent.log', () => portOpen(scgiPort));
    const web = spawnDaemon(dir, lighttpd, ['-D', '-f', join(dir, 'lighttpd.conf')], 'lighttpd.log');
    children.push(web);
    const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    const body = '<?xml version="1.0"?><methodCall><methodName>system.client_version</methodName><params/></methodCall>';
    await waitUntilReady('lighttpd', web, dir, 'lighttpd.log', async () => (await answers(url, { method: 'POST', headers: { Authorization: authorization, 'Content-Type': 'text/xml' }, body })) === 200);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    kind: 'rtorrent',
    build,
    url,
    username,
    password,
    version,
    profileDir: dir,
    downloadDir,
    dataDir,
    config: { type: 'rtorrent', url, username, password },
    stop,
    scgiPort,
    digestUrl: url.replace(/\/RPC2$/, '/digest/RPC2'),
    stopDaemon: () => stopChild(children[0]!),
  };
}

// --------------------------------------------------------------------------------------------
// Flood over rTorrent

export interface FloodOptions {
  username?: string;
  password?: string;
  /** Which Flood (default: the one npm installed). */
  build?: ClientBuild;
}

export interface RunningFlood extends RunningDaemon {
  /** The rTorrent Flood drives (its own web server, SCGI port and folders). */
  rtorrent: RunningRtorrent;
  /** Stops rtorrent only, leaving Flood up (a Flood whose client is not running). */
  stopDaemon(): Promise<void>;
}

const FLOOD_MAIN = join(HERE, '../../node_modules/flood/dist/index.js');

/**
 * Flood (npm `flood`, run by this Node) on loopback with its own users (`--auth default`), over
 * the rTorrent of the build's generation, started exactly as startRtorrent starts it; the first
 * user, registered here, drives that rTorrent over TCP to its SCGI port, and Flood adds only inside
 * rTorrent's folder (`--allowedpath`). Flood's own folder (its user database) is a profile of its
 * own. Flood fetches nothing by itself: only its rTorrent and the browser talk to it.
 */
export async function startFlood(options: FloodOptions = {}): Promise<RunningFlood> {
  const build = options.build ?? defaultBuild('flood');
  const command = build.commands.flood ?? [process.execPath, FLOOD_MAIN];
  const version = binaryVersion(command, /^(\d+\.\d+\.\d[\w.+~-]*)\s*$/m);
  const username = options.username ?? TEST_USER;
  const password = options.password ?? TEST_PASSWORD;
  // The rTorrent of the same generation: bookworm's 0.9.8, or today's 0.16.
  const rtorrent = await startRtorrent({ build: clientBuilds({ kind: 'rtorrent', generation: build.generation })[0] });
  const dir = profileFolder('flood');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const children: ChildProcess[] = [];
  const stopFlood = stopper(dir, children);
  const stop = async () => {
    await stopFlood();
    await rtorrent.stop();
  };
  try {
    // File operations only inside rTorrent's folder, as a seedbox would allow (Flood compares real paths).
    const allowed = realpathSync(rtorrent.profileDir);
    const flood = spawnDaemon(dir, command, ['--host', '127.0.0.1', '--port', String(port), '--rundir', join(dir, 'run'), '--auth', 'default', '--allowedpath', allowed], 'flood.log');
    children.push(flood);
    // Up, with no user yet: /api/auth/verify says the next user is the first.
    await waitUntilReady('flood', flood, dir, 'flood.log', async () => (await answers(`${url}/api/auth/verify`)) === 200);
    const registered = await fetch(`${url}/api/auth/register?cookie=false`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password, client: { client: 'rTorrent', type: 'tcp', version: 1, host: '127.0.0.1', port: rtorrent.scgiPort }, level: 10 }),
      signal: AbortSignal.timeout(30_000),
    });
    if (registered.status !== 200) throw new Error(`Flood did not register its first user (${registered.status}): ${(await registered.text()).slice(0, 300)}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    kind: 'flood',
    build,
    url,
    username,
    password,
    version,
    profileDir: dir,
    downloadDir: rtorrent.downloadDir,
    dataDir: rtorrent.dataDir,
    config: { type: 'flood', url, username, password },
    stop,
    rtorrent,
    stopDaemon: () => rtorrent.stopDaemon(),
  };
}

// --------------------------------------------------------------------------------------------
// Any build

/** Starts `build` with its defaults (the start functions above take the options of each kind). */
export function startClient(build: ClientBuild): Promise<RunningDaemon> {
  if (build.kind === 'qbittorrent') return startQbittorrent({ build });
  if (build.kind === 'transmission') return startTransmission({ build });
  if (build.kind === 'rtorrent') return startRtorrent({ build });
  if (build.kind === 'flood') return startFlood({ build });
  return startDeluge({ build });
}
