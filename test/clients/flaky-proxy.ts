/**
 * A real HTTP hop on loopback in front of a client daemon (as the reverse proxy many users put before
 * their WebUI), which a test can make misbehave for one chosen request at a time:
 * - 'drop': the connection is reset before the request reaches the daemon (nothing happened there);
 * - 'hold': the request is never answered (the caller's timeout decides), nor passed on;
 * - 'answer-lost': the daemon gets the request and answers, and the answer is lost on the way back
 *   (the connection reset): the daemon did it, the caller cannot know;
 * - 'bad-gateway': a 502 from the proxy itself, the daemon not asked.
 * Every other request passes through (headers, cookies, body; Host and Origin made the daemon's own, as
 * a reverse proxy set up for qBittorrent does), one connection upstream each.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fate = 'drop' | 'hold' | 'answer-lost' | 'bad-gateway';

export interface ProxiedRequest {
  method: string;
  /** Path and query as the caller sent them. */
  path: string;
  body: string;
}

export interface FlakyProxy {
  /** The address to give the extension instead of the daemon's. */
  url: string;
  /** Every request the proxy got, with what was done to it ('passed' for the untouched). */
  seen: (ProxiedRequest & { fate: Fate | 'passed' })[];
  /** The next `times` requests that `match` get `fate`. */
  next(match: (request: ProxiedRequest) => boolean, fate: Fate, times?: number): void;
  close(): Promise<void>;
}

interface Rule {
  match: (request: ProxiedRequest) => boolean;
  fate: Fate;
  left: number;
}

/** The daemon's headers as they go back (Set-Cookie lines kept apart), less those of its own connection. */
function answerHeaders(raw: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if (/^(transfer-encoding|connection|keep-alive|content-length)$/i.test(raw[index]!)) continue;
    kept.push(raw[index]!, raw[index + 1]!);
  }
  return kept;
}

/** Starts the proxy in front of `target` (the daemon's own http:// origin). */
export async function startFlakyProxy(target: string): Promise<FlakyProxy> {
  const upstream = new URL(target);
  const rules: Rule[] = [];
  const sockets = new Set<Socket>();
  const seen: FlakyProxy['seen'] = [];

  const fateOf = (asked: ProxiedRequest): Fate | undefined => {
    const rule = rules.find((candidate) => candidate.left > 0 && candidate.match(asked));
    if (!rule) return undefined;
    rule.left--;
    return rule.fate;
  };

  const pass = (req: IncomingMessage, res: ServerResponse, body: Buffer, loseAnswer: boolean) => {
    // As qBittorrent's wiki has a reverse proxy do: the daemon sees its own host (its Host-header check
    // compares the port) and, for a browser's request, its own origin (its CSRF check compares that with Host).
    const headers = { ...req.headers, host: upstream.host };
    if (headers.origin) headers.origin = upstream.origin;
    delete headers.referer;
    const out = httpRequest({ host: upstream.hostname, port: Number(upstream.port), method: req.method, path: req.url, headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        if (loseAnswer) {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.rawHeaders));
        res.end(Buffer.concat(chunks));
      });
    });
    out.on('error', () => req.socket.destroy());
    out.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const asked: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString('utf8') };
      const fate = fateOf(asked);
      seen.push({ ...asked, fate: fate ?? 'passed' });
      if (fate === 'drop') req.socket.destroy();
      else if (fate === 'hold') return;
      else if (fate === 'bad-gateway') res.writeHead(502, { 'Content-Type': 'text/plain' }).end('Bad Gateway');
      else pass(req, res, body, fate === 'answer-lost');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname === '/' ? '' : upstream.pathname}`,
    seen,
    next(match, fate, times = 1) {
      rules.push({ match, fate, left: times });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Which proxied requests are which, by client: the API path for qBittorrent, the JSON-RPC method for Deluge. */
export const CLIENT_ACTIONS: Record<'qbittorrent' | 'deluge', Record<'read' | 'add' | 'remove' | 'login', (request: ProxiedRequest) => boolean>> = {
  qbittorrent: {
    read: (request) => request.path.startsWith('/api/v2/torrents/info'),
    add: (request) => request.path.startsWith('/api/v2/torrents/add'),
    remove: (request) => request.path.startsWith('/api/v2/torrents/delete'),
    login: (request) => request.path.startsWith('/api/v2/auth/login'),
  },
  deluge: {
    read: (request) => request.body.includes('"core.get_torrents_status"'),
    add: (request) => request.body.includes('"core.add_torrent_file"'),
    remove: (request) => request.body.includes('"core.remove_torrent"'),
    login: (request) => request.body.includes('"auth.login"'),
  },
};
