/** The first-run guide's one stored record: storage.local `getStarted`. */
import { z } from 'zod';
import { defineStoredItem } from '../../utils/stored-item';

export const getStartedSchema = z.object({
  /**
   * The options page was opened at "Get started" once. The install reason alone cannot say so:
   * Chromium started with --load-extension reports "install" at every start.
   */
  opened: z.boolean().default(false),
  /** The version an update brought, until the options page has said "Updated to <version>" once. */
  updatedTo: z.string().max(32).optional(),
});
export type GetStartedRecord = z.infer<typeof getStartedSchema>;

export const getStartedItem = defineStoredItem({ area: 'local', key: 'getStarted', schema: getStartedSchema, fallback: { opened: false } as GetStartedRecord });
