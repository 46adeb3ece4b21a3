/**
 * The loopback Transmission and Deluge of many torrents (test/clients/mass-*.ts) answer the
 * product's own adapters as the recorded daemons do: the bench measures the index against them, so a
 * list read whole, each torrent once, with its activity, and a look-up by hash must come out right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients';
import { nodeClientFetch } from '../../clients/node-fetch';
import { startMassDeluge } from '../../clients/mass-deluge';
import { startMassTransmission } from '../../clients/mass-transmission';
import { copyName, type MassClient } from '../../clients/mass-shared';

const ABSENT = '0123456789abcdef0123456789abcdef01234567';
let open: MassClient | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each([
  ['transmission', '3.00', () => startMassTransmission({ shape: '3.00', torrents: 2_100, seed: 'unit' })],
  ['transmission', '4.1.4', () => startMassTransmission({ shape: '4.1.4', torrents: 2_100, seed: 'unit' })],
  ['deluge', '2.0.3', () => startMassDeluge({ shape: '2.0.3', torrents: 2_100, seed: 'unit' })],
  ['deluge', '2.2.0', () => startMassDeluge({ shape: '2.2.0', torrents: 2_100, seed: 'unit' })],
] as const)('mass %s %s', (_kind, version, start) => {
  it('is read whole by the adapter, every torrent once, with its name, folder and activity', async () => {
    const mass = (open = await start());
    const client = createClient(mass.config, { fetch: nodeClientFetch() });
    const info = await client.test();
    expect(info.version).toContain(version);
    expect(info.torrentCount).toBe(2_100);
    const list = await client.list();
    expect(new Set(list.map((torrent) => torrent.hash)).size).toBe(2_100);
    const byHash = new Map(list.map((torrent) => [torrent.hash, torrent]));
    const second = byHash.get(mass.hashOf(1))!;
    expect(second.name).toBe(copyName(1, 'unit'));
    expect(second.savePath).toMatch(/\/剧集\/0$/);
    expect(second.state).toBe('seeding');
    expect(byHash.get(mass.hashOf(19))).toMatchObject({ state: 'paused', progress: 1 });
    expect(byHash.get(mass.hashOf(49))).toMatchObject({ state: 'downloading', progress: 0.5 });
    // The list in pages: no answer held every torrent's fields.
    expect(Math.max(...mass.listReads().map((read) => read.entries))).toBeLessThanOrEqual(2_100);
    const found = await client.lookup([mass.hashOf(7), ABSENT]);
    expect([...found.keys()]).toEqual([mass.hashOf(7)]);
  });
});
