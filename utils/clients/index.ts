/**
 * The user's torrent client from its settings: one factory over the client files. The
 * settings schema is the single source of truth for what a client configuration is.
 */
import { z } from 'zod';
import { createDeluge } from './deluge';
import { createFlood } from './flood';
import { ClientError } from './client-errors';
import { clientBaseUrl } from './http';
import { createQbittorrent } from './qbittorrent';
import { createRtorrent } from './rtorrent';
import { createTransmission } from './transmission';
import { CLIENT_KINDS, type TorrentClient } from './client-types';

export * from './client-types';
export * from './client-errors';
export { isQbittorrentApiKey } from './qbittorrent';

export const clientConfigSchema = z.object({
  type: z.enum(CLIENT_KINDS),
  url: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .refine((url) => {
      try {
        clientBaseUrl(url);
        return true;
      } catch {
        return false;
      }
    }, 'an http:// or https:// address without user name, password, query or fragment'),
  username: z.string().max(500).default(''),
  password: z.string().max(2000).default(''),
});
export type ClientConfig = z.infer<typeof clientConfigSchema>;

export interface ClientRuntime {
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Torrents per list() page (tests); each client's default otherwise. */
  pageSize?: number;
}

/** Builds the client a configuration names; a configuration that does not validate is a bad-config failure. */
export function createClient(config: unknown, runtime: ClientRuntime = {}): TorrentClient {
  const parsed = clientConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ClientError({ kind: 'bad-config', detail: `client settings: ${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'invalid'}` });
  }
  const { type, url, username, password } = parsed.data;
  const settings = { url, username, password, fetch: runtime.fetch, timeoutMs: runtime.timeoutMs, pageSize: runtime.pageSize };
  switch (type) {
    case 'qbittorrent':
      return createQbittorrent(settings);
    case 'transmission':
      return createTransmission(settings);
    case 'deluge':
      return createDeluge(settings);
    case 'rtorrent':
      return createRtorrent(settings);
    case 'flood':
      return createFlood(settings);
  }
}
