/** The fields many messages share, each checked the one way (background only: zod). */
import { z } from 'zod';

export const hash = z.string().regex(/^[0-9a-f]{40}$/);
export const tabId = z.number().int().nonnegative();
/** A saved client's id (the clients feature makes them). */
export const clientId = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);
/** An IYUU site id and a torrent id there: whole numbers, as the service gives them. */
export const sid = z.number().int().nonnegative().max(1_000_000);
export const torrentId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
