/**
 * "In your client" on a client holding 5,000 torrents (issue #9): the popup's `client:status` for
 * a details page, through the real background (router, Clients feature, the client library) in
 * Node, against a real qbittorrent-nox filled with 5,000 torrents (test/clients/bench.ts), its CSRF
 * protection on. WXT's fake browser stands in for the extension APIs; the background's session
 * rule is honoured by a fetch that sets what the browser would (test/unit/support/client-browser.ts),
 * with a cookie jar as the browser's. Run in a process of its own:
 *
 *   node --import tsx bench/client-node.ts   → JSON on the last line
 *
 * The page has 1 hash and 10 candidates (3 of them in the client, as the page's own torrent is).
 * Warm: the background already logged in (the popup was opened before); after 10 answers not
 * counted, the median of 30 and the most requests any one of them sent. Cold: a fresh background (after the service worker restarted),
 * which logs in first.
 */
import { fakeBrowser } from './fake-browser';
import { pathToFileURL } from 'node:url';
import { median, type Figure } from './figures';
import type { NodeBenchOutput } from './lookup-node';


export const CLIENT_TORRENTS = 5_000;
const RUNS = 30;

async function main(): Promise<NodeBenchOutput> {
  const { installPermissions } = await import('../test/unit/support/permissions');
  const { installSessionRules, extensionClientFetch } = await import('../test/unit/support/client-browser');
  const { qbittorrentHolding } = await import('../test/clients/bench');
  const { BackgroundApp } = await import('../entrypoints/background/app');
  const { routeMessage } = await import('../entrypoints/background/router');
  installPermissions();
  installSessionRules();

  const { daemon, torrents } = await qbittorrentHolding(CLIENT_TORRENTS);
  try {
    const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
    const popup = { id: extension.id, url: `${extension.origin}popup.html` };
    const clientFetch = extensionClientFetch();
    const background = () => new BackgroundApp({ clientFetch });
    let app = background();
    const ask = (message: Record<string, unknown>) => routeMessage(app, message, popup, extension) as Promise<Record<string, unknown>>;

    const saved = await ask({ type: 'clients:save', client: { type: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password } });
    if (!('clients' in saved)) throw new Error(`the client was not saved: ${JSON.stringify(saved)}`);
    const page = torrents[Math.floor(CLIENT_TORRENTS / 2)]!.hash;
    const heldCandidates = [torrents[1]!, torrents[2]!, torrents[3]!].map((torrent) => torrent.hash);
    const absentCandidates = Array.from({ length: 7 }, (_, index) => `${'f'.repeat(39)}${index}`);
    const view = {
      tabId: 1,
      url: 'https://hdsky.me/details.php?id=1',
      host: 'hdsky.me',
      status: 'done' as const,
      hashes: [{ hash: page, source: 'info-row' as const }],
      candidates: [...heldCandidates, ...absentCandidates].map((infoHash, index) => ({ sid: index + 1, torrentId: index + 1, infoHash, forHash: page, siteName: `Site ${index}`, isCurrentSite: false })),
    };

    const timed = async () => {
      const before = clientFetch.sent.length;
      const started = performance.now();
      const answer = (await ask({ type: 'client:status', tabId: 1 })) as { state: string; held?: Record<string, { state: string }> };
      const ms = performance.now() - started;
      const held = Object.keys(answer.held ?? {}).sort();
      const expected = [page, ...heldCandidates].sort();
      if (answer.state !== 'answered' || held.join() !== expected.join()) throw new Error(`a wrong answer: ${JSON.stringify(answer).slice(0, 300)}`);
      return { ms, requests: clientFetch.sent.length - before };
    };

    await app.tabs.set(view);
    const cold = await timed();
    // qBittorrent settles after taking 5,000 torrents (resume data, its own timers): not measured.
    for (let run = 0; run < 10; run++) await timed();
    const warm: { ms: number; requests: number }[] = [];
    for (let run = 0; run < RUNS; run++) warm.push(await timed());
    // A restarted service worker: a fresh background, the same saved client.
    app = background();
    await app.tabs.set(view);
    const restarted = await timed();

    const warmMs = median(warm.map((sample) => sample.ms));
    const warmRequests = Math.max(...warm.map((sample) => sample.requests));
    const label = `"In your client": a details page (1 hash + 10 candidates) on qBittorrent ${daemon.version} holding ${CLIENT_TORRENTS.toLocaleString('en')} torrents`;
    const figures: Figure[] = [
      { id: 'client.status.warm', bench: 'client', label: `${label}, warm (median of ${RUNS})`, value: Math.round(warmMs * 100) / 100, unit: 'ms', budget: { op: '<=', limit: 100 } },
      { id: 'client.status.warm.requests', bench: 'client', label: '  … requests to the client, warm (most of any answer)', value: warmRequests, unit: 'requests', budget: { op: '<=', limit: 1 } },
      { id: 'client.status.cold', bench: 'client', label: '  … first answer after the background started (logs in first)', value: Math.round(Math.max(cold.ms, restarted.ms) * 100) / 100, unit: 'ms' },
      { id: 'client.status.cold.requests', bench: 'client', label: '  … requests to the client for that first answer', value: Math.max(cold.requests, restarted.requests), unit: 'requests' },
    ];
    return {
      figures,
      report: [
        `client (the real background in Node against qbittorrent-nox ${daemon.version} holding ${CLIENT_TORRENTS} torrents, CSRF protection on; ${RUNS} warm answers):`,
        `  warm: median ${warmMs.toFixed(2)} ms, min ${Math.min(...warm.map((sample) => sample.ms)).toFixed(2)} ms, max ${Math.max(...warm.map((sample) => sample.ms)).toFixed(2)} ms, ${warmRequests} request(s) each`,
        `  first answer: ${cold.ms.toFixed(2)} ms (${cold.requests} requests); after a restart: ${restarted.ms.toFixed(2)} ms (${restarted.requests} requests)`,
      ],
      problems: [],
      details: { warm, cold, restarted },
    };
  } finally {
    await daemon.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main();
  console.log(JSON.stringify(output));
  process.exit(0);
}
