#!/usr/bin/env node
// The Debian packages the two README commands need, in one place. `npm test` and `npm run demo`
// call it first: it asks dpkg which are missing (one dpkg-query call, nothing else when all are
// there) and installs those with apt-get, as root or through `sudo -n`. When it cannot (not root,
// no password-less sudo, not Debian), it prints exactly what to install and how, and fails.
//
//   node scripts/system-packages.mjs test          install what `npm test` needs
//   node scripts/system-packages.mjs demo          install what `npm run demo` needs
//   node scripts/system-packages.mjs test --check  only say what is missing (exit 1 when something is)
//
// Torrent-client daemons (transmission-daemon, deluged, deluge-web) and lighttpd enable and start a system
// service when Debian installs them. The tests start their own instances on free ports, so the
// services this script installed are stopped and disabled right after (systemctl on systemd,
// update-rc.d elsewhere; where policy-rc.d forbids starting them, as in containers, they never ran).
//
// Plain Node ESM without dependencies: it runs before `npm install` has finished mattering.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What each README command needs from Debian. */
export const SYSTEM_PACKAGES = {
  // Both browsers the e2e tests drive, their Chinese UI (the zh-CN tests), and the torrent
  // clients the client tests start.
  test: [
    'chromium',
    'chromium-l10n',
    'firefox-esr',
    'firefox-esr-l10n-zh-cn',
    'qbittorrent-nox',
    'transmission-daemon',
    'deluged',
    'deluge-web',
    // rTorrent behind a web server's SCGI mount of its XML-RPC (/RPC2), as seedboxes serve it.
    'rtorrent',
    'lighttpd',
    // Chinese text in the zh-CN tests' pages and the screenshots: without a CJK font a fresh
    // machine draws boxes instead of characters.
    'fonts-noto-cjk',
  ],
  // The demo drives Chromium and (for one-click cross-seeding) a qBittorrent it starts itself; its
  // tracker-page screenshot shows Chinese titles, which need a CJK font.
  demo: ['chromium', 'qbittorrent-nox', 'fonts-noto-cjk'],
};

/** Packages whose install enables and starts a system service (package → its services). */
export const PACKAGE_SERVICES = {
  'transmission-daemon': ['transmission-daemon'],
  deluged: ['deluged'],
  'deluge-web': ['deluge-web'],
  lighttpd: ['lighttpd'],
};

const APT_INSTALL = ['install', '-y', '-q', '--no-install-recommends'];

/** The exact command a person runs to install these by hand. */
export function installCommand(packages) {
  return `sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * The packages of `wanted` that dpkg does not have installed, from one dpkg-query call; undefined
 * when dpkg-query cannot run (not a Debian system).
 */
export function missingPackages(wanted) {
  const answer = spawnSync('dpkg-query', ['-W', '-f=${Package}\\t${Status}\\n', ...wanted], { encoding: 'utf8' });
  // dpkg-query exits 1 when it knows nothing of some package, and still lists the ones it knows.
  if (answer.error || (answer.status !== 0 && answer.status !== 1)) return undefined;
  const installed = new Set();
  for (const line of answer.stdout.split('\n')) {
    const [name, status] = line.split('\t');
    if (name && status?.trim().endsWith('ok installed')) installed.add(name.replace(/:.*$/, ''));
  }
  return wanted.filter((name) => !installed.has(name));
}

/** How to run a command as root: directly, through `sudo -n`, or not at all (undefined). */
function rootPrefix() {
  if (process.getuid?.() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return !sudo.error && sudo.status === 0 ? ['sudo', '-n'] : undefined;
}

/**
 * True when apt's package lists have no install candidate for one of these (a fresh image ships
 * with empty lists): then `apt-get update` comes first. A stale list that still names the package
 * is found out by the install failing, which is retried once after an update.
 */
function listsLackCandidates(packages) {
  const policy = spawnSync('apt-cache', ['policy', ...packages], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (policy.error || policy.status !== 0) return true;
  const candidates = new Map();
  let current;
  for (const line of policy.stdout.split('\n')) {
    const heading = /^(\S+):$/.exec(line);
    if (heading) current = heading[1].replace(/:.*$/, '');
    const candidate = /^\s+Candidate:\s*(\S+)/.exec(line);
    if (candidate && current) candidates.set(current, candidate[1]);
  }
  return packages.some((name) => !candidates.has(name) || candidates.get(name) === '(none)');
}

/**
 * Makes sure every package `purpose` needs is installed; installs the missing ones when it may.
 * Returns ok, what is still missing and what it installed; `debian: false` when it could not even
 * ask dpkg. `checkOnly` reports without installing.
 */
export function ensureSystemPackages(purpose, { log = (line) => console.log(line), checkOnly = false } = {}) {
  const wanted = SYSTEM_PACKAGES[purpose];
  if (!wanted) throw new Error(`unknown purpose ${purpose} (one of: ${Object.keys(SYSTEM_PACKAGES).join(', ')})`);
  const what = purpose === 'test' ? 'the tests' : 'the demo';
  const whatNeeds = purpose === 'test' ? 'the tests need' : 'the demo needs';
  const missing = missingPackages(wanted);
  if (!missing) {
    log(`Cannot check Debian packages here (no dpkg-query). These are the Debian packages ${whatNeeds} (or their equivalents):`);
    log(`  ${wanted.join(' ')}`);
    log(`On Debian: ${installCommand(wanted)}`);
    return { ok: false, debian: false, missing: wanted, installed: [] };
  }
  if (!missing.length) {
    log(`System packages for ${what}: all ${wanted.length} installed (${wanted.join(', ')}).`);
    return { ok: true, debian: true, missing, installed: [] };
  }
  const cannot = (reason) => {
    log(`Missing Debian packages ${whatNeeds}: ${missing.join(', ')}.`);
    log(`${reason} Install them, then run the command again:`);
    log(`  ${installCommand(missing)}`);
    return { ok: false, debian: true, missing, installed: [] };
  };
  if (checkOnly) return cannot('(--check: nothing installed.)');
  const asRoot = rootPrefix();
  if (!asRoot) return cannot('Installing needs root or password-less sudo, and this user has neither.');

  log(`Installing the Debian packages ${whatNeeds}: ${missing.join(', ')}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // sudo may reset the environment: hand the variable over explicitly.
  const rootCommand = (command, args) =>
    asRoot.length ? [...asRoot, 'env', 'DEBIAN_FRONTEND=noninteractive', command, ...args] : [command, ...args];
  const run = (command, args) => {
    const [program, ...rest] = rootCommand(command, args);
    log(`$ ${[program, ...rest].join(' ')}`);
    const result = spawnSync(program, rest, { stdio: 'inherit', env });
    return !result.error && result.status === 0;
  };

  let updated = false;
  if (listsLackCandidates(missing)) {
    if (!run('apt-get', ['update', '-q'])) return cannot('`apt-get update` failed (see above).');
    updated = true;
  }
  let installed = run('apt-get', [...APT_INSTALL, ...missing]);
  if (!installed && !updated) {
    // Stale package lists (a version the mirror no longer has): refresh them and try once more.
    if (run('apt-get', ['update', '-q'])) installed = run('apt-get', [...APT_INSTALL, ...missing]);
  }
  const still = missingPackages(wanted) ?? missing;
  const installedNow = missing.filter((name) => !still.includes(name));
  quietServices(installedNow, run, log);
  if (!installed || still.length) {
    log(`Still missing Debian packages ${whatNeeds}: ${still.join(', ')}.`);
    log('apt-get could not install them (see above). Install them, then run the command again:');
    log(`  ${installCommand(still)}`);
    return { ok: false, debian: true, missing: still, installed: installedNow };
  }
  log(`Installed ${installedNow.join(', ')}.`);
  return { ok: true, debian: true, missing: still, installed: installedNow };
}

/**
 * The daemons this run installed must not stay running as system services: stop and disable them.
 * Only ours: a service the user had before is left alone.
 */
function quietServices(installedNow, run, log) {
  const services = installedNow.flatMap((name) => PACKAGE_SERVICES[name] ?? []);
  if (!services.length) return;
  if (existsSync('/run/systemd/system')) {
    run('systemctl', ['disable', '--now', '--quiet', ...services.map((service) => `${service}.service`)]);
  } else {
    for (const service of services) {
      if (!existsSync(`/etc/init.d/${service}`)) continue;
      run('invoke-rc.d', [service, 'stop']);
      run('update-rc.d', [service, 'disable']);
    }
  }
  log(`(${services.join(', ')}: system service stopped and disabled; the tests start their own on free ports.)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const purpose = args.find((arg) => !arg.startsWith('--'));
  if (!purpose || !SYSTEM_PACKAGES[purpose]) {
    console.error(`usage: node scripts/system-packages.mjs <${Object.keys(SYSTEM_PACKAGES).join('|')}> [--check]`);
    process.exit(2);
  }
  const { ok } = ensureSystemPackages(purpose, { checkOnly: args.includes('--check') });
  process.exit(ok ? 0 : 1);
}
