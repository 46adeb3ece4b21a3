/**
 * The transport rule: a call to the service never follows a redirect, so the token never reaches
 * another origin. Real loopback servers: one answers with a redirect to the other.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { describeFailure } from '../../../utils/i18n';
import { getProfile, lookupBatch, reportExisting } from '../../../utils/iyuu/operations';
import { installI18n, loadMessages } from '../support/i18n';
import { failure } from './support';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

async function listen(handler: (seen: Seen[], respond: (status: number, headers: Record<string, string>, body?: string) => void) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      handler(seen, (status, headers, body = '') => {
        res.writeHead(status, headers);
        res.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let elsewhere: Awaited<ReturnType<typeof listen>>;
let service: Awaited<ReturnType<typeof listen>>;
let status = 302;

beforeAll(async () => {
  // Another origin that would gladly answer as the service.
  elsewhere = await listen((_, respond) => respond(200, { 'Content-Type': 'application/json' }, '{"code":0,"msg":"ok","data":{"state":1}}'));
  service = await listen((seen, respond) => respond(status, { Location: `${elsewhere.url}${seen.at(-1)!.url}` }));
});
afterAll(async () => {
  await service.close();
  await elsewhere.close();
});
beforeEach(() => {
  service.seen.length = 0;
  elsewhere.seen.length = 0;
});

const config = () => ({ baseUrl: service.url, token: 'secret-token-never-elsewhere', timeoutMs: 3000 });

describe('a redirect from the service address', () => {
  it.each([301, 302, 303, 307, 308])('HTTP %i is not followed: a bad answer that says so, and the token stays home', async (code) => {
    status = code;
    const error = await failure(getProfile(config()), 'bad-answer');
    expect(error.redirected).toBe(true);
    expect(error.toFailure().redirected).toBe(true);
    expect(error.detail).toContain('redirected elsewhere');
    expect(error.detail).toContain('check the API base URL');
    expect(error.httpStatus).toBe(code);
    expect(service.seen).toHaveLength(1);
    expect(service.seen[0]!.headers.token).toBe('secret-token-never-elsewhere');
    expect(elsewhere.seen).toEqual([]);
  });

  it('holds for POSTs with a form too (the lookup and the site report), and is not retried', async () => {
    status = 307; // 307 would resend the body, token and all
    await failure(reportExisting(config(), [1, 2]), 'bad-answer');
    await failure(lookupBatch(config(), ['ab'.repeat(20)], 'cd'.repeat(20)), 'bad-answer');
    expect(service.seen.map((request) => request.method)).toEqual(['POST', 'POST']);
    expect(elsewhere.seen).toEqual([]);
  });
});

describe('what the user reads', () => {
  beforeEach(() => fakeBrowser.reset());

  it.each(['en', 'zh_CN'] as const)('names the address as the thing to fix (%s)', (locale) => {
    installI18n(locale);
    const messages = loadMessages(locale);
    const text = describeFailure({ kind: 'bad-answer', detail: 'x', redirected: true });
    expect(text).toEqual({ title: messages.errRedirected!.message, action: messages.actRedirected!.message });
    expect(describeFailure({ kind: 'bad-answer', detail: 'x' }).title).toBe(messages.errBadAnswer!.message);
  });
});
