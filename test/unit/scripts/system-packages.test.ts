/**
 * scripts/system-packages.mjs decides what to install and how; this runs it for real against
 * stand-in dpkg-query / apt-cache / apt-get / sudo / service tools (tiny shell scripts first on
 * PATH that record how they were called), so what is tested is the script's decisions, not Debian.
 *
 * "Not root" is real: when the tests run as root the script is started as nobody (setpriv). "Root"
 * is real root when the tests run as root, else the script's other way in, `sudo -n`, through a
 * stand-in sudo that lets it through.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM_PACKAGES } from '../../../scripts/system-packages.mjs';

const SCRIPT = join(import.meta.dirname, '../../../scripts/system-packages.mjs');
const TEST_PACKAGES = SYSTEM_PACKAGES.test;
const isRoot = process.getuid?.() === 0;

/** Stand-in tools: each appends "name args" to $FAKE/calls.log (printf: echo would read the \n in dpkg-query's format). */
const TOOLS: Record<string, string> = {
  'dpkg-query': `
printf '%s\\n' "dpkg-query $*" >> "$FAKE/calls.log"
status=0
for arg in "$@"; do
  case "$arg" in -*) continue ;; esac
  found=
  while IFS= read -r line; do [ "$line" = "$arg" ] && found=1; done < "$FAKE/installed"
  if [ -n "$found" ]; then printf '%s\\tinstall ok installed\\n' "$arg"; else echo "dpkg-query: no packages found matching $arg" >&2; status=1; fi
done
exit $status`,
  'apt-cache': `
printf '%s\\n' "apt-cache $*" >> "$FAKE/calls.log"
[ -e "$FAKE/lists-empty" ] && exit 0
for arg in "$@"; do
  [ "$arg" = policy ] && continue
  printf '%s:\\n  Installed: (none)\\n  Candidate: 1.0-1\\n  Version table:\\n' "$arg"
done`,
  'apt-get': `
printf '%s\\n' "apt-get DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> "$FAKE/calls.log"
[ -e "$FAKE/apt-fails" ] && exit 100
if [ "$1" = update ]; then rm -f "$FAKE/lists-empty"; exit 0; fi
if [ "$1" = install ]; then
  for arg in "$@"; do
    case "$arg" in install|-*) continue ;; esac
    echo "$arg" >> "$FAKE/installed"
  done
fi`,
  // Lets "sudo -n …" through when $FAKE/sudo-ok exists, else refuses as sudo does without a password.
  sudo: `
printf '%s\\n' "sudo $*" >> "$FAKE/calls.log"
[ -e "$FAKE/sudo-ok" ] || { echo "sudo: a password is required" >&2; exit 1; }
[ "$1" = -n ] && shift
exec "$@"`,
  systemctl: `printf '%s\\n' "systemctl $*" >> "$FAKE/calls.log"`,
  'invoke-rc.d': `printf '%s\\n' "invoke-rc.d $*" >> "$FAKE/calls.log"`,
  'update-rc.d': `printf '%s\\n' "update-rc.d $*" >> "$FAKE/calls.log"`,
};

interface Machine {
  dir: string;
  run(args: string[], options?: { asRoot?: boolean; tools?: string[] }): { status: number | null; output: string; calls: string[] };
}

const machines: string[] = [];
afterEach(() => {
  for (const dir of machines.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function machine(installed: readonly string[], flags: { listsEmpty?: boolean; aptFails?: boolean } = {}): Machine {
  const dir = mkdtempSync(join(tmpdir(), 'system-packages-'));
  machines.push(dir);
  // nobody must reach it all: the directory, the script (no imports beyond Node's), the log.
  chmodSync(dir, 0o777);
  const script = join(dir, 'system-packages.mjs');
  copyFileSync(SCRIPT, script);
  chmodSync(script, 0o644);
  for (const [name, body] of Object.entries(TOOLS)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  }
  const writable = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o666);
  };
  writable('installed', installed.map((name) => `${name}\n`).join(''));
  writable('calls.log', '');
  if (flags.listsEmpty) writable('lists-empty', '');
  if (flags.aptFails) writable('apt-fails', '');
  return {
    dir,
    run(args, { asRoot = true, tools } = {}) {
      if (asRoot && !isRoot) writable('sudo-ok', '');
      if (tools) for (const name of Object.keys(TOOLS)) if (!tools.includes(name)) rmSync(join(dir, name));
      const command = [process.execPath, script, ...args];
      const dropRoot = !asRoot && isRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
      const [program, ...rest] = [...dropRoot, ...command];
      const result = spawnSync(program!, rest, {
        encoding: 'utf8',
        cwd: dir,
        // The stand-ins first; /usr/bin and /bin only for env, setpriv and the shell they run in.
        env: { PATH: tools ? dir : `${dir}:/usr/bin:/bin`, FAKE: dir, LANG: 'C.UTF-8' },
      });
      const calls = readFileSync(join(dir, 'calls.log'), 'utf8').split('\n').filter(Boolean);
      return { status: result.status, output: `${result.stdout}${result.stderr}`, calls };
    },
  };
}

/** How the script quiets the daemons it installed on this machine (systemd, else the init.d scripts it finds). */
function expectedServiceCalls(services: string[]): string[] {
  if (existsSync('/run/systemd/system')) return [expect.stringMatching(new RegExp(`^systemctl disable --now --quiet ${services.map((name) => `${name}\\.service`).join(' ')}$`))];
  return services.filter((name) => existsSync(`/etc/init.d/${name}`)).map((name) => `update-rc.d ${name} disable`);
}

const installs = (calls: string[]) => calls.filter((call) => /^apt-get \S+ install /.test(call));

describe('scripts/system-packages.mjs', () => {
  it('with every package present: one dpkg-query call, no apt, no sudo, exit 0', () => {
    const { status, output, calls } = machine(TEST_PACKAGES).run(['test']);
    expect(status).toBe(0);
    expect(calls).toEqual([`dpkg-query -W -f=\${Package}\\t\${Status}\\n ${TEST_PACKAGES.join(' ')}`]);
    expect(output).toContain(`all ${TEST_PACKAGES.length} installed`);
  });

  it('with two missing, as root: installs exactly those two, non-interactively, and quiets the daemon it installed', () => {
    const missing = ['firefox-esr-l10n-zh-cn', 'deluged'];
    const { status, output, calls } = machine(TEST_PACKAGES.filter((name) => !missing.includes(name))).run(['test']);
    expect(status, output).toBe(0);
    expect(installs(calls)).toEqual(['apt-get DEBIAN_FRONTEND=noninteractive install -y -q --no-install-recommends firefox-esr-l10n-zh-cn deluged']);
    // The lists know both packages: no update.
    expect(calls.filter((call) => call.startsWith('apt-get ') && call.includes(' update'))).toEqual([]);
    expect(calls.filter((call) => /^(systemctl|update-rc\.d) /.test(call))).toEqual(expectedServiceCalls(['deluged']));
    expect(output).toContain('Installed firefox-esr-l10n-zh-cn, deluged.');
  });

  it('with empty package lists (a fresh image): apt-get update first, then the install', () => {
    const { status, calls } = machine(['chromium'], { listsEmpty: true }).run(['demo']);
    expect(status).toBe(0);
    const apt = calls.filter((call) => call.startsWith('apt-get '));
    expect(apt).toEqual([
      'apt-get DEBIAN_FRONTEND=noninteractive update -q',
      'apt-get DEBIAN_FRONTEND=noninteractive install -y -q --no-install-recommends qbittorrent-nox fonts-noto-cjk',
    ]);
  });

  it('without root or sudo: names the missing packages and the exact command, installs nothing, exit 1', () => {
    const missing = ['firefox-esr-l10n-zh-cn', 'transmission-daemon'];
    const { status, output, calls } = machine(TEST_PACKAGES.filter((name) => !missing.includes(name))).run(['test'], { asRoot: false });
    expect(status).toBe(1);
    expect(output).toContain('Missing Debian packages the tests need: firefox-esr-l10n-zh-cn, transmission-daemon.');
    expect(output).toContain('  sudo apt-get install -y --no-install-recommends firefox-esr-l10n-zh-cn transmission-daemon\n');
    expect(calls.filter((call) => call.startsWith('apt-get '))).toEqual([]);
    // It did ask sudo (which refused), and did nothing as root.
    expect(calls.filter((call) => call.startsWith('sudo '))).toEqual(['sudo -n true']);
  });

  it('when apt-get fails: one retry after an update, then the exact command and exit 1', () => {
    const { status, output, calls } = machine(TEST_PACKAGES.filter((name) => name !== 'chromium-l10n'), { aptFails: true }).run(['test']);
    expect(status).toBe(1);
    expect(calls.filter((call) => call.startsWith('apt-get '))).toEqual([
      'apt-get DEBIAN_FRONTEND=noninteractive install -y -q --no-install-recommends chromium-l10n',
      'apt-get DEBIAN_FRONTEND=noninteractive update -q',
    ]);
    expect(output).toContain('  sudo apt-get install -y --no-install-recommends chromium-l10n\n');
  });

  it('--check only reports what is missing', () => {
    const { status, output, calls } = machine(['chromium']).run(['demo', '--check']);
    expect(status).toBe(1);
    expect(output).toContain('Missing Debian packages the demo needs: qbittorrent-nox, fonts-noto-cjk.');
    expect(calls.filter((call) => !call.startsWith('dpkg-query '))).toEqual([]);
  });

  it('off Debian (no dpkg-query): lists every package the tests need and fails', () => {
    const { status, output } = machine([]).run(['test'], { tools: [] });
    expect(status).toBe(1);
    expect(output).toContain(TEST_PACKAGES.join(' '));
  });
});
