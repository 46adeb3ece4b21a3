/**
 * No packet leaves loopback when a client starts and adds a torrent, in every build of both
 * generations, rTorrent behind lighttpd and Flood over it. Deluge is the one that did (2.0.3 and 2.2.0 alike): UPnP multicast, NAT-PMP to the
 * gateway, a DHT bootstrap lookup and LSD within milliseconds of starting, before core.conf is read;
 * the harness starts it through deluged-quiet. qBittorrent would map its web UI port with UPnP unless
 * WebUI\UseUPnP is off.
 *
 * Each daemon runs in a network namespace made here (unshare, root): loopback plus a veth pair whose
 * both ends stay inside the namespace; one end holds the default route, and its tx_packets counter
 * must stay 0 through the daemon's start, a verified add of a public torrent and its stop. One
 * datagram of the test's own towards the default route must then count (its ARP request does), or
 * the test could not fail. Nothing in the namespace leads to a real network: whatever a daemon tries
 * ends at the pair's other end. The host's resolver address stays configured, so a name lookup a
 * daemon makes by itself (a DHT bootstrap host, an update check) would count too. IPv6 is off on the
 * pair (so the kernel's own router solicitations do not count) and has no route: it cannot leave.
 * (This kernel has no dummy device type; a veth pair counts the same way.)
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildRows } from '../../clients/daemons';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const DEVICE = 'quiet0';

/** Runs the probe for one build in a fresh network (and mount) namespace; resolves with its result line. */
function probe(kind: string, generation: string, release: string): Promise<{ result: Record<string, number | string>; output: string }> {
  const setUp = [
    'set -e',
    'ip link set lo up',
    `ip link add ${DEVICE} type veth peer name ${DEVICE}-end`,
    `sysctl -qw net.ipv6.conf.${DEVICE}.disable_ipv6=1 net.ipv6.conf.${DEVICE}-end.disable_ipv6=1`,
    `ip addr add 192.0.2.1/24 dev ${DEVICE}`,
    `ip link set ${DEVICE}-end up`,
    `ip link set ${DEVICE} up`,
    `ip route add default via 192.0.2.254 dev ${DEVICE}`,
    'exec "$@"',
  ].join('\n');
  const tsx = join(ROOT, 'node_modules/.bin/tsx');
  const child = spawn('unshare', ['--net', '--', 'sh', '-c', setUp, 'quiet', tsx, join(ROOT, 'test/clients/quiet-probe.ts'), kind, generation, release], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.split('\n').find((text) => text.startsWith('QUIET-RESULT '));
      if (code !== 0 || !line) reject(new Error(`the probe exited with ${code}:\n${output.slice(-3000)}`));
      else resolve({ result: JSON.parse(line.slice('QUIET-RESULT '.length)) as Record<string, number | string>, output });
    });
  });
}

// rTorrent too (DHT, PeX and UDP trackers off, HTTP announces through a dead loopback proxy), and
// Flood over that rTorrent (Flood itself fetches nothing).
describe.each([...buildRows(), ...buildRows('flood')])('%s in a network namespace of its own', (_, build) => {
  it('sends nothing off loopback while it starts, adds and verifies a public torrent, and stops; our own packet is counted', { timeout: 120_000 }, async () => {
    const { result } = await probe(build.kind, build.generation, build.release);
    expect(result.daemonVersion).toContain(build.release);
    expect(result.before).toBe(0);
    expect(result.afterDaemon).toBe(0);
    expect(result.afterStop).toBe(0);
    expect(result.afterControl).toBeGreaterThanOrEqual(1);
  });
});
