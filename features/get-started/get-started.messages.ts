/** The first-run guide: how far the user has got, and the one-time "Updated to <version>" note. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';

/** The three steps of "Get started", each done or not. */
export interface GetStartedSteps {
  /** An IYUU token is saved, or at least one site is asked by pieces hash (for users without a token). */
  service: boolean;
  /** "Your sites" holds at least one site. */
  sites: boolean;
  /** A torrent client is saved. */
  client: boolean;
}

export interface GetStartedView {
  steps: GetStartedSteps;
  /** Set once after an update, until the options page has shown it. */
  updatedTo?: string;
}

export const getStartedMessages = {
  'get-started:get': message<GetStartedView>()('extension', z.object({})),
  /** The options page has shown "Updated to <version>": it is not shown again. */
  'get-started:update-shown': message<{ ok: true }>()('extension', z.object({})),
};
