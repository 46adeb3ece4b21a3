/**
 * What a copy's tracker and its peers would see, on loopback: for the tests that prove a copy below
 * 100 % is never announced and never downloads a byte.
 *
 * - `tracker`: an HTTP tracker (BEP 3, compact answers) that records every announce it gets (the
 *   info-hash, event, left, downloaded) and answers with one peer: the seeder below.
 * - `seeder`: a BitTorrent peer holding the whole data of the torrents registered with it. It
 *   answers a handshake for those, says it has every piece, unchokes, and serves every block asked
 *   for, counting the bytes: a copy that ever ran would download from it, and the client's own
 *   counters would show it.
 *
 * Every record carries a number from one counter shared with `next()`, so a test orders what the
 * tracker and the seeder saw against what it did (no clock involved).
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { contentBytes, type Content } from './torrent-content';

export interface Announce {
  order: number;
  infoHash: string;
  event: string;
  left: number;
  downloaded: number;
}

export interface PeerVisit {
  order: number;
  infoHash: string;
  /** Bytes of piece data this peer sent for it. */
  served: number;
}

export interface AnnounceWatch {
  /** The announce URL to put in a .torrent. */
  announceUrl: string;
  announces: Announce[];
  visits: PeerVisit[];
  /** The next number of the shared counter (for the test's own records). */
  next(): number;
  /** The seeder holds `content` (its bytes as test/clients/torrent-content.ts writes them) under `infoHash`, in pieces of `pieceLength`. */
  seed(infoHash: string, content: Content, pieceLength?: number): void;
  announcesOf(infoHash: string): Announce[];
  visitsOf(infoHash: string): PeerVisit[];
  close(): Promise<void>;
}

/** The raw bytes of a percent-encoded query value (an info-hash is 20 bytes, not text). */
function queryBytes(raw: string): Buffer {
  const bytes: number[] = [];
  for (let at = 0; at < raw.length; at++) {
    if (raw[at] === '%') {
      bytes.push(Number.parseInt(raw.slice(at + 1, at + 3), 16));
      at += 2;
    } else bytes.push(raw.charCodeAt(at));
  }
  return Buffer.from(bytes);
}

const PROTOCOL = Buffer.from('\x13BitTorrent protocol', 'latin1');

export async function startAnnounceWatch(): Promise<AnnounceWatch> {
  let counter = 0;
  const next = () => ++counter;
  const announces: Announce[] = [];
  const visits: PeerVisit[] = [];
  const held = new Map<string, { data: Buffer; pieceLength: number }>();
  const sockets = new Set<Socket>();

  const seeder: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let visit: PeerVisit | undefined;
    let torrent: { data: Buffer; pieceLength: number } | undefined;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!visit) {
        if (buffer.length < 68) return;
        const infoHash = buffer.subarray(28, 48).toString('hex');
        visit = { order: next(), infoHash, served: 0 };
        visits.push(visit);
        buffer = buffer.subarray(68);
        torrent = held.get(infoHash);
        if (!torrent) return void socket.destroy();
        const pieces = Math.ceil(torrent.data.length / torrent.pieceLength);
        const bitfield = Buffer.alloc(Math.ceil(pieces / 8));
        for (let piece = 0; piece < pieces; piece++) bitfield[piece >> 3]! |= 0x80 >> (piece & 7);
        const peerId = Buffer.from(`-RL0001-${randomBytes(6).toString('hex')}`, 'latin1');
        socket.write(Buffer.concat([PROTOCOL, Buffer.alloc(8), Buffer.from(infoHash, 'hex'), peerId]));
        socket.write(message(5, bitfield));
        socket.write(message(1));
      }
      // Length-prefixed messages; only requests are answered.
      while (buffer.length >= 4) {
        const length = buffer.readUInt32BE(0);
        if (buffer.length < 4 + length) return;
        const id = length > 0 ? buffer[4] : undefined;
        if (id === 6 && torrent && visit) {
          const index = buffer.readUInt32BE(5);
          const begin = buffer.readUInt32BE(9);
          const size = buffer.readUInt32BE(13);
          const start = index * torrent.pieceLength + begin;
          const block = torrent.data.subarray(start, start + size);
          const header = Buffer.alloc(8);
          header.writeUInt32BE(index, 0);
          header.writeUInt32BE(begin, 4);
          socket.write(message(7, Buffer.concat([header, block])));
          visit.served += block.length;
        }
        buffer = buffer.subarray(4 + length);
      }
    });
  });
  await new Promise<void>((resolve) => seeder.listen(0, '127.0.0.1', resolve));
  const seederPort = (seeder.address() as { port: number }).port;
  const peer = Buffer.from([127, 0, 0, 1, seederPort >> 8, seederPort & 0xff]);

  const tracker: Server = createHttpServer((request, response) => {
    const query = (request.url ?? '').split('?')[1] ?? '';
    const params = new Map(query.split('&').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const));
    announces.push({
      order: next(),
      infoHash: queryBytes(params.get('info_hash') ?? '').toString('hex'),
      event: params.get('event') ?? '',
      left: Number(params.get('left')),
      downloaded: Number(params.get('downloaded')),
    });
    const body = Buffer.concat([Buffer.from('d8:completei1e10:incompletei0e8:intervali1800e5:peers6:'), peer, Buffer.from('e')]);
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => tracker.listen(0, '127.0.0.1', resolve));
  const trackerPort = (tracker.address() as { port: number }).port;

  return {
    announceUrl: `http://127.0.0.1:${trackerPort}/announce`,
    announces,
    visits,
    next,
    seed(infoHash, content, pieceLength = 16_384) {
      const data = Buffer.concat(content.files.map((file) => contentBytes(`${content.seed}/${file.path}`, file.size)));
      held.set(infoHash, { data, pieceLength });
    },
    announcesOf: (infoHash) => announces.filter((announce) => announce.infoHash === infoHash),
    visitsOf: (infoHash) => visits.filter((visit) => visit.infoHash === infoHash),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise((resolve) => tracker.close(resolve)), new Promise((resolve) => seeder.close(resolve))]);
    },
  };
}

function message(id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(1 + payload.length, 0);
  header[4] = id;
  return Buffer.concat([header, payload]);
}
