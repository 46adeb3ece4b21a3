/** Settings and backup: read, save, export and import the options page's settings. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import type { ClientKind } from '../../utils/clients/client-types';
import type { Settings, SettingsField } from '../../utils/settings';
import type { ClientTargetChange } from '../clients/client-import';
import type { ClientRule } from '../clients/client-rules';

export interface SettingsView {
  settings: Settings;
  /** Fields that could not be read from storage and were reset to their default. */
  resetFields: string[];
  /** List fields read without some of their stored entries (those could not be read). */
  repairedFields?: string[];
  /** Storage held something that was not settings at all: every field is back to its default. */
  unreadable?: boolean;
  /** Whether the extension holds the host permission for the configured service origin. */
  serviceOriginGranted: boolean;
}

export type SaveAnswer = SettingsView | { refused: string } | { confirm: 'credentials'; origin: string; fields: SettingsField[] };

/** A settings value as an import preview shows it; credentials only as set or not. */
export type PreviewValue = string | number | boolean | null | string[] | number[] | Record<string, unknown> | { credential: boolean } | ClientPreview[];

/** A torrent client as an import preview shows it: the password only as set or not. */
export interface ClientPreview {
  type: ClientKind;
  url: string;
  name: string;
  username: string;
  hasPassword: boolean;
  readOnly: boolean;
}

/** What an import may change: a settings field, or the list of torrent clients (stored apart). */
export type ImportField = SettingsField | 'clients';

export interface ImportPreview {
  changes: { field: ImportField; before: PreviewValue; after: PreviewValue }[];
  /** Set when the document moves the service to another address. */
  service?: { baseUrl: string; known: boolean; granted: boolean; plainHttp: boolean };
  /** Saved credentials the document would carry to that other address (kept only when the user says so). */
  carriedCredentials: SettingsField[];
  /**
   * Sites the document moves to a host that is not one of their catalogued hosts: each its own
   * change, applied only for the sids the user confirms (`confirmSiteHosts`); `changes` shows the
   * rest of the document as it would be applied without them.
   */
  siteHosts?: SiteHostMove[];
  /**
   * Client addresses in the document the browser has not granted: asked for within the Apply click
   * (as patterns for permissions.request).
   */
  clientPermissions?: string[];
  /**
   * Clients whose "Copies go to" or folder pairs the document changes: each its own change,
   * applied only for the client Names the user ticks (`confirmClientTargets`); `changes` shows the
   * clients as they would be without them. A change with `refused` breaks a rule and is not applied.
   */
  clientTargets?: ClientTargetChange[];
  /** What the document had wrong about its clients and the import repaired, each said. */
  clientRepairs?: ClientRule[];
}

/** A site's new address in an import: "SpringSunday: springsunday.net → tjupt.org". */
export interface SiteHostMove {
  sid: number;
  /** The site's name as the user knows it. */
  name: string;
  /** Where its links (and downloads) go now. */
  from: string;
  to: string;
  /** `to` is this other catalogued site's host: downloads for this site are never sent there. */
  owner?: string;
}

export interface ImportAnswer {
  preview?: ImportPreview;
  /** After applying: the new settings. */
  view?: SettingsView;
  imported: string[];
  skipped: string[];
  error?: 'not-ours' | 'unreadable';
}

export const settingsMessages = {
  'settings:get': message<SettingsView>()('extension', z.object({})),
  /**
   * A partial update; the answer is the new settings, the field that was refused, or a question:
   * the update moves the service to another address with the saved credentials (resend with
   * `keepCredentials` once the user said yes).
   */
  'settings:save': message<SaveAnswer>()(
    'extension',
    z.object({ update: z.record(z.string(), z.unknown()), keepCredentials: z.boolean().optional() }),
  ),
  /** The settings as a JSON document to save; the credentials only when asked. */
  'settings:export': message<{ json: string }>()('extension', z.object({ includeCredentials: z.boolean() })),
  /**
   * A previously exported document, read field by field; what could not be read is named. Without
   * `apply` nothing changes: the answer previews the changes for the user to confirm.
   */
  'settings:import': message<ImportAnswer>()(
    'extension',
    z.object({
      data: z.unknown(),
      apply: z.boolean().optional(),
      keepCredentials: z.boolean().optional(),
      confirmSiteHosts: z.array(z.number().int().nonnegative()).max(2000).optional(),
      confirmClientTargets: z.array(z.string().max(500)).max(100).optional(),
    }),
  ),
};
