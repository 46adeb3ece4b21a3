import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { formatAge } from '../../../utils/i18n';
import { installI18n } from '../support/i18n';

beforeEach(() => {
  fakeBrowser.reset();
  installI18n('en');
});

describe('formatAge', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('says how long ago', () => {
    expect(formatAge(now, now)).toBe('now');
    expect(formatAge(now - 5_000, now)).toBe('5 seconds ago');
    expect(formatAge(now - 3 * 60_000, now)).toBe('3 minutes ago');
    expect(formatAge(now - 2 * 3_600_000, now)).toBe('2 hours ago');
  });

  // The popup's clock ticks once a second: an answer that arrives between two ticks is newer than
  // the popup's "now". An age is never in the future ("Answered in 1 second").
  it('says "now" for a time just after the clock it is given', () => {
    expect(formatAge(now + 900, now)).toBe('now');
    expect(formatAge(now + 1_400, now)).toBe('now');
  });
});
