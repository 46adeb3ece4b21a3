/**
 * Feature: the settings as the options page sees them: read, save a partial update, export to a
 * file and import one. The SettingsStore stays the only writer.
 */
import { browser } from 'wxt/browser';
import type { z } from 'zod';
import type { SettingsView } from '../messages';
import { applySettingsUpdate, exportSettings, settingsFields, type Settings, type SettingsField } from '../settings';
import { syncCustomSites } from './custom-sites';
import type { PageHandlers, Shared } from './shared';

export class Preferences {
  constructor(private readonly shared: Shared) {}

  readonly pageHandlers: Pick<PageHandlers, 'settings:get' | 'settings:save' | 'settings:export' | 'settings:import'> = {
    'settings:get': () => this.settingsView(),
    'settings:save': (message) => this.saveSettings(message.update),
    'settings:export': (message) => this.exportSettings(message.includeCredentials),
    'settings:import': (message) => this.importSettings(message.data),
  };

  async settingsView(): Promise<SettingsView> {
    const { settings, resetFields, unreadable } = await this.shared.settings.load();
    return { settings, resetFields, unreadable, serviceOriginGranted: await this.originGranted(settings.baseUrl) };
  }

  async saveSettings(update: unknown): Promise<SettingsView | { refused: string }> {
    const current = await this.shared.settings.get();
    let next: Settings;
    try {
      next = applySettingsUpdate(current, update);
    } catch (error) {
      const issue = (error as { issues?: { path?: PropertyKey[] }[] }).issues?.[0];
      return { refused: String(issue?.path?.[0] ?? 'settings') };
    }
    await this.shared.settings.save(next);
    return this.settingsView();
  }

  async exportSettings(includeCredentials: boolean): Promise<{ json: string }> {
    const settings = await this.shared.settings.get();
    return {
      json: JSON.stringify({ ...exportSettings(settings, includeCredentials), exportedAt: new Date(this.shared.now()).toISOString() }, null, 2),
    };
  }

  /**
   * Applies an exported document field by field: what is valid is taken, what is not is named,
   * and credentials missing from the document (an export without them) are kept as they are.
   */
  async importSettings(data: unknown): Promise<{ view?: SettingsView; imported: string[]; skipped: string[]; error?: 'not-ours' | 'unreadable' }> {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return { imported: [], skipped: [], error: 'unreadable' };
    const document = data as Record<string, unknown>;
    if (document.app !== 'reseed-lens') return { imported: [], skipped: [], error: 'not-ours' };
    const current = await this.shared.settings.get();
    const next: Record<string, unknown> = { ...current };
    const imported: string[] = [];
    const skipped: string[] = [];
    for (const [field, schema] of Object.entries(settingsFields) as [SettingsField, z.ZodType][]) {
      if (document[field] === undefined) continue;
      const parsed = schema.safeParse(document[field]);
      if (parsed.success) {
        next[field] = parsed.data;
        imported.push(field);
      } else skipped.push(field);
    }
    await this.shared.settings.save(next as Settings);
    await syncCustomSites((next as Settings).customHosts).catch(() => undefined);
    return { view: await this.settingsView(), imported, skipped };
  }

  private async originGranted(baseUrl: string): Promise<boolean> {
    try {
      return await browser.permissions.contains({ origins: [`${new URL(baseUrl).origin}/*`] });
    } catch {
      return false;
    }
  }
}
