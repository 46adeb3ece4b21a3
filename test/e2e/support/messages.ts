/**
 * The extension's own words in the UI language a browser runs in, for assertions on what a page
 * shows: the real _locales files, each `$N` replaced as browser.i18n does (every occurrence).
 */
import { loadMessages } from '../../unit/support/i18n';

const MESSAGES = { en: loadMessages('en'), zh: loadMessages('zh_CN') };

export type TextOf = (key: string, ...values: string[]) => string;

export function uiText(lang: 'en' | 'zh-CN'): TextOf {
  const messages = lang === 'zh-CN' ? MESSAGES.zh : MESSAGES.en;
  return (key, ...values) => {
    const message = messages[key]?.message;
    if (message === undefined) throw new Error(`no message ${key}`);
    return message.replace(/\$(\d)/g, (_, index: string) => values[Number(index) - 1] ?? '');
  };
}
