/**
 * Run by test/unit/clients/quiet-network.test.ts INSIDE a network namespace it made: loopback, and a
 * veth device `quiet0` holding the default route, whose peer is in the same namespace (nothing can
 * reach a real network from here, and quiet0's tx counter counts every attempt).
 *
 *   tsx test/clients/quiet-probe.ts KIND GENERATION RELEASE
 *
 * Starts that build, adds a public (non-private) torrent that announces to a closed loopback port,
 * waits until the client has verified it from disk, and prints one JSON line: the version, and
 * quiet0's tx_packets before the daemon, after it, and after one datagram of our own sent towards the
 * default route (the control that shows the counter counts).
 */
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { ClientKind } from '../../utils/clients/client-types';
import { makeTorrent, writeSampleContent } from './torrent-content';
import { clientBuilds, startClient, type ClientGeneration } from './daemons';
import { untilSeeding } from './seeding';
import { ownClient } from './own-client';

export const QUIET_DEVICE = 'quiet0';
/** TEST-NET-1 (RFC 5737): the dummy device's gateway; never a real host. */
export const QUIET_GATEWAY = '192.0.2.254';

function txPackets(): number {
  const answer = spawnSync('ip', ['-j', '-s', 'link', 'show', 'dev', QUIET_DEVICE], { encoding: 'utf8' });
  const [link] = JSON.parse(answer.stdout || '[]') as { stats64?: { tx?: { packets?: number } } }[];
  const packets = link?.stats64?.tx?.packets;
  if (typeof packets !== 'number') throw new Error(`no counters for ${QUIET_DEVICE}: ${answer.stderr || answer.stdout}`);
  return packets;
}

async function controlDatagram(): Promise<void> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => socket.send(Buffer.from('reseed-lens quiet control'), 9, QUIET_GATEWAY, (error) => (error ? reject(error) : resolve())));
  socket.close();
}

const [kind, generation, release] = process.argv.slice(2) as [ClientKind, ClientGeneration, string];
const build = clientBuilds({ kind, generation }).find((one) => one.release === release);
if (!build) throw new Error(`no build ${kind} ${generation} ${release}`);

const before = txPackets();
const daemon = await startClient(build);
let result: Record<string, unknown>;
try {
  const client = ownClient(daemon);
  const content = writeSampleContent(daemon.dataDir).folder;
  // Public, so only the daemon's own DHT/LSD/PeX settings keep it off the network.
  const torrent = makeTorrent(content, { announce: 'http://127.0.0.1:9/announce', private: false, source: 'QUIET' });
  const added = await client.add(torrent.bytes, { savePath: content.savePath, paused: false, skipCheck: false });
  if (added.hash !== torrent.hash) throw new Error(`added ${added.hash}, not ${torrent.hash}`);
  await untilSeeding(client, torrent.hash);
  const info = await client.test();
  const afterDaemon = txPackets();
  await daemon.stop();
  const afterStop = txPackets();
  await controlDatagram();
  result = { version: info.version, daemonVersion: daemon.version, before, afterDaemon, afterStop, afterControl: txPackets() };
} finally {
  await daemon.stop();
}
console.log(`QUIET-RESULT ${JSON.stringify(result)}`);
