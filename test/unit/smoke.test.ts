import { describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { infoHashSchema } from '../../utils/iyuu/answer-schemas';
describe('smoke', () => {
  it('normalises hashes', () => {
    expect(infoHashSchema.parse('A'.repeat(40))).toBe('a'.repeat(40));
    expect(fakeBrowser).toBeDefined();
  });
});
