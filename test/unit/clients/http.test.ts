/** The shared transport: addresses, and failures sorted into kinds against real local servers. */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients/index';
import { clientBaseUrl, joinPath, normaliseHashes } from '../../../utils/clients/http';
import { freePort } from '../../clients/daemons';
import { failureOf } from './support';

describe('clientBaseUrl', () => {
  it('keeps a path prefix, drops trailing slashes', () => {
    expect(clientBaseUrl(' https://box.example/qbt/ ')).toBe('https://box.example/qbt');
    expect(clientBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(clientBaseUrl('http://[::1]:9091/')).toBe('http://[::1]:9091');
  });

  it('refuses what is not a plain http(s) address', () => {
    for (const url of ['', 'localhost:8080', 'ftp://host', 'http://u:p@host', 'http://host/?a=1', 'http://host/#x']) {
      expect(() => clientBaseUrl(url), url).toThrow(expect.objectContaining({ kind: 'bad-config' }));
    }
  });
});

describe('helpers', () => {
  it('normalises hashes and refuses anything else', () => {
    expect(normaliseHashes([` ${'A'.repeat(40)} `, 'a'.repeat(40)])).toEqual(['a'.repeat(40)]);
    expect(() => normaliseHashes(['a'.repeat(39)])).toThrow(expect.objectContaining({ kind: 'bad-input' }));
    expect(() => normaliseHashes(['z'.repeat(40)])).toThrow(expect.objectContaining({ kind: 'bad-input' }));
  });

  it("joins paths with the folder's own separator", () => {
    expect(joinPath('/data/', 'x')).toBe('/data/x');
    expect(joinPath('D:\\Media', 'x')).toBe('D:\\Media\\x');
    expect(joinPath('', 'x')).toBe('x');
  });
});

describe('failures against real local servers', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  it('a server that never answers is a timeout', async () => {
    const url = await listen(() => {
      // hold the request
    });
    const client = createClient({ type: 'transmission', url, username: 'u', password: 'p' }, { timeoutMs: 300 });
    expect(await failureOf(client.test())).toMatchObject({ kind: 'timeout' });
  });

  it('nothing listening is unreachable', async () => {
    const port = await freePort();
    const client = createClient({ type: 'deluge', url: `http://127.0.0.1:${port}`, username: '', password: 'p' });
    expect(await failureOf(client.test())).toMatchObject({ kind: 'unreachable' });
  });

  it('a web page where the client should be is a bad answer, not a crash', async () => {
    const url = await listen((_, response) => {
      response.setHeader('Content-Type', 'text/html');
      response.end('<html><body>router login</body></html>');
    });
    const failure = await failureOf(createClient({ type: 'deluge', url, username: '', password: 'p' }).test());
    expect(failure.kind).toBe('bad-answer');
    const qbt = await failureOf(createClient({ type: 'qbittorrent', url, username: 'a', password: 'b' }).test());
    expect(qbt.kind).toBe('bad-answer');
  });

  it('a 5xx is the client failing (server)', async () => {
    const url = await listen((_, response) => {
      response.statusCode = 502;
      response.end('Bad Gateway');
    });
    expect(await failureOf(createClient({ type: 'transmission', url, username: 'u', password: 'p' }).test())).toMatchObject({ kind: 'server', httpStatus: 502 });
  });
});
