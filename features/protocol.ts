/**
 * The one protocol: every message the background accepts, joined from each feature's own
 * declarations (one line per feature). The router checks against it, the handlers' and the
 * senders' types come from it. A new feature adds its `<feature>.messages.ts` here.
 */
import type { ReplyOf, SentRequestOf } from '../utils/messaging/protocol';
import { accountMessages } from './account/account.messages';
import { clientIndexMessages } from './client-index/client-index.messages';
import { clientsMessages } from './clients/clients.messages';
import { crossSeedMessages } from './cross-seed/cross-seed.messages';
import { crossSeedJobMessages } from './cross-seed-job/cross-seed-job.messages';
import { getStartedMessages } from './get-started/get-started.messages';
import { lookupMessages } from './lookup/lookup.messages';
import { piecesHashMessages } from './pieces-hash/pieces-hash.messages';
import { settingsMessages } from './settings/settings.messages';
import { sitesMessages } from './sites/sites.messages';

export const protocol = {
  ...lookupMessages,
  ...crossSeedMessages,
  ...crossSeedJobMessages,
  ...clientsMessages,
  ...clientIndexMessages,
  ...accountMessages,
  ...sitesMessages,
  ...settingsMessages,
  ...piecesHashMessages,
  ...getStartedMessages,
};

export type Protocol = typeof protocol;
export type MessageType = keyof Protocol;
/** What a sender writes for a message (its `type` aside). */
export type Request<K extends MessageType> = SentRequestOf<Protocol[K]>;
export type Reply<K extends MessageType> = ReplyOf<Protocol[K]>;
