/**
 * count() on qBittorrent 4.5 (no torrents/count: it probes the list sorted by hash) while torrents
 * arrive, against the loopback WebUI that answers with 4.5.2's recorded entries and, as 4.5.2 does,
 * wraps an offset past the end to the first entry (test/clients/mass-qbittorrent.ts).
 *
 * A torrent that sorts before the head count() read first, arriving after that read, is the first
 * entry every probe past the end is then given. count() took it for an entry held there and probed
 * on for ever (offsets doubling past 10^19, each probe a walk over every torrent in a real client):
 * list-paging-live.test.ts's set-up hung on it until its 180 s timeout on a busy machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients/index';
import { startMassQbittorrent, type MassQbittorrent } from '../../clients/mass-qbittorrent';
import { nodeClientFetch } from '../../clients/node-fetch';

const HELD = 1_500;

describe('qBittorrent 4.5 count() while a torrent that sorts first arrives between its probes', () => {
  let webui: MassQbittorrent;
  beforeAll(async () => {
    webui = await startMassQbittorrent({ shape: '4.5.2', torrents: HELD, seed: 'count-arrival' });
  });
  afterAll(async () => {
    await webui?.close();
  });

  it('ends, with the number held once the probes were done', async () => {
    const head = [...webui.hashes()].sort()[0]!;
    // The next copies the WebUI will make, up to the first whose hash sorts before the head.
    let arriving = HELD;
    while (webui.hashOf(arriving) > head) arriving++;
    const newcomers = arriving - HELD + 1;

    let infoRequests = 0;
    const fetch = nodeClientFetch({
      origin: 'same',
      inner: async (input, init) => {
        const answer = await globalThis.fetch(input, init);
        // Right after count()'s first read of the list (its head): the newcomers arrive.
        if (String(input).includes('torrents/info') && ++infoRequests === 1) expect(webui.add(newcomers).at(-1)! < head).toBe(true);
        return answer;
      },
    });
    const client = createClient(webui.config, { fetch });
    expect(await client.count()).toBe(HELD + newcomers);
    // About 2·log2(n / 1,000) + 2 reads, not one per doubling up to the end of the numbers.
    expect(infoRequests).toBeLessThanOrEqual(Math.ceil(2 * Math.log2((HELD + newcomers) / 1_000)) + 3);
  });
});
