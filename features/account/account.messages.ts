/** The IYUU account: the token's state, binding a site, the recommended sites, the connection test. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';

export interface RecommendedSiteView {
  sid: number;
  site: string;
  nickname: string;
  homeUrl?: string;
}

export interface ProfileView {
  /** The token is activated (bound to a recommended site). */
  activated: boolean;
  /** When the token's service period ends (ms), if the service said. */
  expiresAt?: number;
  /** A lifetime membership (is_ever_level). */
  lifetime: boolean;
}

export const accountMessages = {
  'recommended:get': message<{ sites: RecommendedSiteView[]; count: number; fetchedAt?: number; error?: ServiceFailure }>()(
    'extension',
    z.object({ refresh: z.boolean().optional() }),
  ),
  /** Options page: calls the recommended-site list with these (unsaved) values, or the saved ones. */
  'connection:test': message<{ ok: boolean; siteCount?: number; error?: ServiceFailure }>()(
    'extension',
    z.object({ baseUrl: z.string().max(300).optional(), token: z.string().max(256).optional() }),
  ),
  'profile:get': message<{ profile?: ProfileView; error?: ServiceFailure }>()('extension', z.object({})),
  /** Binding: the raw passkey goes only as far as the background, which sends its SHA-1. */
  'account:bind': message<{ ok: boolean; message?: string; profile?: ProfileView; error?: ServiceFailure }>()(
    'extension',
    z.object({
      sid: z.number().int().nonnegative(),
      site: z.string().min(1).max(100),
      userId: z.string().trim().regex(/^\d{1,12}$/),
      passkey: z.string().trim().min(1).max(200),
    }),
  ),
};
