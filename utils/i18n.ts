/**
 * Text for the user, in their browser's language (public/_locales: en, zh_CN), and locale-aware
 * formatting. Used by the popup, the options page and the in-page panel; no zod here.
 */
import { browser } from 'wxt/browser';
import type { ServiceFailure } from './iyuu/service-errors';

export type MessageKey = Parameters<typeof browser.i18n.getMessage>[0];

export function t(key: MessageKey, ...substitutions: (string | number)[]): string {
  const text = browser.i18n.getMessage(key as never, substitutions.map(String));
  return text || String(key);
}

/**
 * The key of a count sentence in the right form. English says "1 torrent" but "2 torrents", and the
 * browser's i18n has no plural rules, so such a sentence has a key per form (`…One` for exactly
 * one); Chinese, with one form, says the same under both. Chosen by the number alone, not the UI
 * language: Chromium may serve one locale's messages while reporting another as its language.
 */
export function countKey<K extends MessageKey>(count: number, one: K, other: K): K {
  return count === 1 ? one : other;
}

export function uiLocale(): string {
  try {
    return browser.i18n.getUILanguage() || 'en';
  } catch {
    return 'en';
  }
}

export function formatNumber(value: number): string {
  return new Intl.NumberFormat(uiLocale()).format(value);
}

export function formatDateTime(ms: number): string {
  return new Intl.DateTimeFormat(uiLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

export function formatTime(ms: number): string {
  return new Intl.DateTimeFormat(uiLocale(), { timeStyle: 'medium' }).format(ms);
}

/** "3 minutes ago" / "3 分钟前". */
export function formatAge(ms: number, now = Date.now()): string {
  // An age is never in the future: a "now" that ticks once a second can lag behind a fresh answer.
  const seconds = Math.min(0, Math.round((ms - now) / 1000));
  const format = new Intl.RelativeTimeFormat(uiLocale(), { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86400), 'day');
}

/** A duration such as "2 min 5 s" in the user's locale. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.abs(Math.round(totalSeconds));
  const unit = (value: number, name: 'hour' | 'minute' | 'second') =>
    new Intl.NumberFormat(uiLocale(), { style: 'unit', unit: name, unitDisplay: 'short' }).format(value);
  if (seconds < 60) return unit(seconds, 'second');
  if (seconds < 3600) return `${unit(Math.floor(seconds / 60), 'minute')} ${unit(seconds % 60, 'second')}`;
  return `${unit(Math.floor(seconds / 3600), 'hour')} ${unit(Math.floor((seconds % 3600) / 60), 'minute')}`;
}

/**
 * The service's known messages (service-notes.md), mapped to our own words. The raw message is
 * still shown beside it, as text, for anything we do not know.
 */
const KNOWN_SERVICE_MESSAGES: [RegExp, MessageKey][] = [
  [/站点(缓存)?哈希值/, 'serviceMsgSiteHash'],
  [/缺少sid_list/i, 'serviceMsgSiteHash'],
  [/时间戳已过期|timestamp/i, 'serviceMsgTimestamp'],
  [/未绑定/, 'serviceMsgNotBound'],
  // Before the token rule: "该站点账号已被其他token绑定" is about the account, not a missing token.
  [/已(经)?绑定|已被.*绑定/, 'serviceMsgAlreadyBound'],
  [/缺少token|token未注册|token无效|token不存在|token.{0,4}(invalid|missing|required)/i, 'serviceMsgToken'],
  [/未查询到可辅种数据/, 'serviceMsgNoCandidates'],
  [/访问频率过快|过于频繁/, 'serviceMsgTooFast'],
  [/passkey/i, 'serviceMsgPasskey'],
];

export function friendlyServiceMessage(message: string | undefined): string | undefined {
  if (!message) return undefined;
  const known = KNOWN_SERVICE_MESSAGES.find(([pattern]) => pattern.test(message));
  return known ? t(known[1]) : undefined;
}

/** What happened and what to do, for a failure. */
export function describeFailure(failure: ServiceFailure, now = Date.now()): { title: string; action: string } {
  switch (failure.kind) {
    case 'no-credentials':
      return { title: t('errNoCredentials'), action: t('actNoCredentials') };
    case 'not-permitted':
      return { title: t('errNotPermitted'), action: t('actNotPermitted') };
    case 'no-consent':
      return { title: t('errNoConsent'), action: t('actNoConsent') };
    case 'auth':
      return { title: t('errAuth'), action: t('actAuth') };
    case 'not-bound':
      return { title: t('errNotBound'), action: t('actNotBound') };
    case 'stale-site-hash':
      return { title: t('errStaleSiteHash'), action: t('actRetry') };
    case 'expired-timestamp': {
      const skew = failure.clockOffsetSeconds;
      return {
        title: t('errExpiredTimestamp'),
        action: skew !== undefined ? t('actClockOffBy', formatDuration(skew), skew > 0 ? t('clockBehind') : t('clockAhead')) : t('actClock'),
      };
    }
    case 'bad-sign':
      return { title: t('errBadSign'), action: t('actBadSign') };
    case 'rate-limited': {
      const seconds = failure.retryAt ? Math.max(0, Math.ceil((failure.retryAt - now) / 1000)) : undefined;
      return {
        title: t('errRateLimited'),
        action: failure.retryAt ? t('actRateLimitedAt', formatTime(failure.retryAt), formatDuration(seconds ?? 0)) : t('actRateLimited'),
      };
    }
    case 'network':
      return { title: t('errNetwork'), action: t('actNetwork') };
    case 'timeout':
      return { title: t('errTimeout'), action: t('actRetryLater') };
    case 'bad-answer':
      // A redirect is never followed (the token would follow it): the address is what to fix.
      if (failure.redirected) return { title: t('errRedirected'), action: t('actRedirected') };
      return { title: t('errBadAnswer'), action: t('actBadAnswer') };
    case 'server':
      return { title: t('errServer'), action: t('actRetryLater') };
    case 'bad-request':
    default:
      return { title: t('errBadRequest'), action: t('actBadRequest') };
  }
}
