/**
 * Puts content into a client as a seeding torrent, the way a user's existing torrent is: the data
 * is already at the save path, the torrent is added there and the client verifies it.
 */
import type { ClientTorrent, TorrentClient } from '../../utils/clients/client-types';
import { until } from '../e2e/support/wait';
import type { Content, MadeTorrent } from './torrent-content';

/** Polls the client until `hash` is complete and seeding (verification included). */
export function untilSeeding(client: TorrentClient, hash: string, timeoutMs = 60_000): Promise<ClientTorrent> {
  return until(
    async () => (await client.lookup([hash])).get(hash),
    (torrent) => torrent !== undefined && torrent.progress === 1 && torrent.state === 'seeding',
    `${hash} seeding at 100 %`,
    timeoutMs,
  ) as Promise<ClientTorrent>;
}

/** Adds `torrent` for `content` (its data on disk) and waits until the client seeds it. */
export async function addSeeding(client: TorrentClient, torrent: MadeTorrent, content: Content, options: { skipCheck?: boolean } = {}): Promise<ClientTorrent> {
  const result = await client.add(torrent.bytes, { savePath: content.savePath, paused: false, skipCheck: options.skipCheck ?? false });
  if (result.hash !== torrent.hash) throw new Error(`the client added ${result.hash}, not ${torrent.hash}`);
  return untilSeeding(client, torrent.hash);
}
