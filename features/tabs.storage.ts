/** Each tab's view, mirrored to storage.session (`tab:<id>`) so a restarted service worker still knows it (tabs.ts). */
import { z } from 'zod';
import type { TabView } from './lookup/lookup.messages';
import { defineStoredFamily } from '../utils/stored-item';

/**
 * Written by this very build in this browser session (storage.session is not kept across an
 * update or a restart of the browser): the read checks what the code relies on, the tab it is for,
 * and takes the rest as the view it was written as.
 */
const tabViewSchema = z.custom<TabView>((value) => !!value && typeof value === 'object' && typeof (value as { tabId?: unknown }).tabId === 'number');

export const tabViewItems = defineStoredFamily({ area: 'session', prefix: 'tab:', schema: tabViewSchema, fallback: undefined });
