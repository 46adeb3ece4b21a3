/**
 * The fake browser has no i18n: install one that reads our real _locales files, so component tests
 * render the same text a user sees. Call installI18n('zh_CN') for the Chinese UI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBrowser } from 'wxt/testing/fake-browser';

type Messages = Record<string, { message: string }>;

export function loadMessages(locale: 'en' | 'zh_CN'): Messages {
  return JSON.parse(readFileSync(join(__dirname, '../../../public/_locales', locale, 'messages.json'), 'utf8')) as Messages;
}

export function installI18n(locale: 'en' | 'zh_CN' = 'en'): void {
  const messages = loadMessages(locale);
  const i18n = fakeBrowser.i18n as unknown as {
    getMessage: (key: string, substitutions?: string | string[]) => string;
    getUILanguage: () => string;
  };
  i18n.getMessage = (key, substitutions) => {
    const text = messages[key]?.message;
    if (text === undefined) return '';
    const values = substitutions === undefined ? [] : Array.isArray(substitutions) ? substitutions : [substitutions];
    return text.replace(/\$(\d)/g, (_, index: string) => values[Number(index) - 1] ?? '');
  };
  i18n.getUILanguage = () => (locale === 'zh_CN' ? 'zh-CN' : 'en');
}
