/**
 * The test's own view of a running client daemon (setting up its torrents, reading back what the
 * extension did): the product's client over Node's fetch, with the Origin qBittorrent's CSRF check
 * wants. Its answers are waited for longer than the extension waits (60 s, not 15 s): a daemon
 * busy on a loaded test machine (two full runs side by side: Deluge 2.2 once took over 15 s to add
 * a source) is not what a test of set-up measures.
 */
import { createClient } from '../../utils/clients/index';
import type { TorrentClient } from '../../utils/clients/client-types';
import { nodeClientFetch } from './node-fetch';

export const OWN_CLIENT_TIMEOUT_MS = 60_000;

export function ownClient(daemon: { config: unknown }): TorrentClient {
  return createClient(daemon.config, { fetch: nodeClientFetch({ origin: 'same' }), timeoutMs: OWN_CLIENT_TIMEOUT_MS });
}
