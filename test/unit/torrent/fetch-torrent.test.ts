/**
 * One .torrent download, against real loopback servers: a redirect is never followed (the other
 * origin gets no request), and a huge answer is cut off at the limit, chunked or declared.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { downloadTorrent, MAX_TORRENT_BYTES } from '../../../utils/torrent/fetch-torrent';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler!(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('downloadTorrent', () => {
  it('gives the bytes of an ordinary answer', async () => {
    const site = await serve((_req, res) => res.end(Buffer.from('d4:infod4:name1:aee')));
    const download = await downloadTorrent(new URL(`${site.url}/download.php?id=1`));
    expect('bytes' in download && Buffer.from(download.bytes).toString()).toBe('d4:infod4:name1:aee');
  });

  it('never follows a redirect: the other origin gets no request', async () => {
    const elsewhere = await serve((_req, res) => res.end('d4:infod4:name1:bee'));
    for (const status of [301, 302, 303, 307, 308]) {
      const site = await serve((_req, res) => res.writeHead(status, { Location: `${elsewhere.url}/x.torrent` }).end());
      expect(await downloadTorrent(new URL(`${site.url}/download.php?id=1`))).toMatchObject({ problem: 'redirected' });
    }
    expect(elsewhere.hits).toEqual([]);
  });

  it('stops reading past 10 MB, whether the size is declared or not', async () => {
    let written = 0;
    const chunked = await serve((_req, res) => {
      const piece = Buffer.alloc(64 * 1024, 0x61);
      const more = () => {
        while (written < 64 * 1024 * 1024) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => undefined);
      more();
    });
    expect(await downloadTorrent(new URL(`${chunked.url}/download.php?id=2`))).toEqual({ problem: 'too-large' });
    // The server was not read to the end: the 64 MB were never all sent.
    expect(written).toBeLessThan(64 * 1024 * 1024);

    const declared = await serve((_req, res) => res.writeHead(200, { 'Content-Length': String(MAX_TORRENT_BYTES + 1) }).end());
    expect(await downloadTorrent(new URL(`${declared.url}/download.php?id=3`))).toEqual({ problem: 'too-large' });
  });

  it('names a refusal by its status and an unreachable site as network', async () => {
    const site = await serve((_req, res) => res.writeHead(403, { server: 'nginx' }).end('no'));
    const refused = await downloadTorrent(new URL(`${site.url}/download.php?id=4`));
    expect(refused).toEqual({ problem: 'http-status', status: 403, headers: expect.any(Headers) });
    // The answer's own headers, for the caller to tell a CDN's check from a refusal.
    expect('headers' in refused && refused.headers?.get('server')).toBe('nginx');
    expect(await downloadTorrent(new URL('http://127.0.0.1:9/download.php'))).toEqual({ problem: 'network' });
  });
});
