/** Names of settings fields in the user's words, for notices that list fields (reset, imported, skipped). */
import { t, uiLocale, type MessageKey } from '../utils/i18n';

const FIELD_KEYS: Record<string, MessageKey> = {
  baseUrl: 'labelBaseUrl',
  token: 'labelToken',
  appId: 'labelAppId',
  secret: 'labelSecret',
  panelEnabled: 'fieldPanelEnabled',
  panelDisabledHosts: 'fieldPanelDisabledHosts',
  heldSites: 'fieldHeldSites',
  askedForSites: 'fieldAskedForSites',
  siteOverrides: 'fieldSiteOverrides',
  sitePasskeys: 'fieldSitePasskeys',
  siteApiKeys: 'fieldSiteApiKeys',
  piecesHashSites: 'piecesHashFieldSites',
  customHosts: 'fieldCustomHosts',
  privacyNoticeSeen: 'fieldPrivacyNoticeSeen',
  clientIndexEnabled: 'fieldClientIndexEnabled',
  indexMarkHosts: 'fieldIndexMarkHosts',
  clients: 'clientsHeading',
};

export function fieldLabel(field: string): string {
  const key = FIELD_KEYS[field];
  return key ? t(key) : field;
}

/** "A, B and C" / "A、B和C": joined the way the user's language joins a list. */
export function listOf(items: string[]): string {
  try {
    return new Intl.ListFormat(uiLocale(), { style: 'long', type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

export function fieldList(fields: string[]): string {
  return listOf(fields.map(fieldLabel));
}
