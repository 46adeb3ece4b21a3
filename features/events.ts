/**
 * What the background announces, joined from each feature's declarations (one line per feature):
 * events to the extension's own pages (popup, options, confirmation window) and events to one
 * tab's content script. Each result reaches a page once: a command's outcome is either its reply
 * or its announcement, never both (see each declaration).
 */
import type { EventBody } from '../utils/messaging/protocol';
import { clientIndexEvents, clientIndexTabEvents } from './client-index/client-index.messages';
import { crossSeedEvents, crossSeedTabEvents } from './cross-seed/cross-seed.messages';
import { crossSeedJobEvents } from './cross-seed-job/cross-seed-job.messages';
import { lookupEvents, lookupTabEvents } from './lookup/lookup.messages';

export const extensionEvents = { ...lookupEvents, ...crossSeedEvents, ...clientIndexEvents, ...crossSeedJobEvents };
export const tabEvents = { ...lookupTabEvents, ...crossSeedTabEvents, ...clientIndexTabEvents };

/** An announcement to the extension's pages. */
export type ExtensionEvent = EventBody<(typeof extensionEvents)[keyof typeof extensionEvents]>;
/** An announcement to a tab's own content script (only what its panel or marks show). */
export type TabEvent = EventBody<(typeof tabEvents)[keyof typeof tabEvents]>;
