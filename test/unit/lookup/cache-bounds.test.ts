/**
 * The answer cache keeps its bound as it writes (a page swapping in thousands of hashes cannot
 * fill storage past it), prunes on its timer job, and a full storage.local never blocks the
 * settings: the background makes room in the cache first.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../entrypoints/background/app';
import { AnswerCache, type CachedAnswer } from '../../../utils/lookup/answer-cache';
import { DEFAULT_SETTINGS } from '../../../utils/settings';
import { SETTINGS_KEY } from '../../../features/settings/settings.storage';

const hashOf = (n: number) => n.toString(16).padStart(40, '0');
const answer = (fetchedAt: number): CachedAnswer => ({ candidates: [{ sid: 1, torrent_id: 7, info_hash: 'f'.repeat(40) }], fetchedAt });

async function storedAnswers(): Promise<string[]> {
  return Object.keys(await fakeBrowser.storage.local.get(null)).filter((key) => key.startsWith('answer:'));
}

/** storage.local with Chromium's behaviour when full: the write is refused whole, with its quota message. */
function limitStorage(quotaBytes: number): void {
  const local = fakeBrowser.storage.local;
  const set = local.set.bind(local);
  local.set = async (items: Record<string, unknown>) => {
    const after = { ...(await local.get(null)), ...items };
    if (JSON.stringify(after).length > quotaBytes) throw new Error('Resource::kQuotaBytes quota exceeded');
    await set(items);
  };
}

beforeEach(() => {
  fakeBrowser.reset();
});

describe('the answer cache keeps its bound', () => {
  it('as it writes: 1,000 new hashes in batches never leave more than the bound stored, the newest kept', async () => {
    let now = 1_000_000;
    const cache = new AnswerCache(() => now, 50);
    for (let batch = 0; batch < 5; batch++) {
      const answers = new Map<string, CachedAnswer>();
      for (let i = 0; i < 200; i++) answers.set(hashOf(batch * 200 + i), answer(now++));
      await cache.put(answers);
      expect((await storedAnswers()).length).toBeLessThanOrEqual(50);
    }
    const kept = await storedAnswers();
    expect(kept).toContain(`answer:${hashOf(999)}`);
    expect(kept).not.toContain(`answer:${hashOf(0)}`);
    // What is kept is still read back.
    expect((await cache.get([hashOf(999)])).get(hashOf(999))?.fetchedAt).toBe(now - 1);
  });

  it('on its timer: the background names a repeated prune job, and running it drops expired answers', async () => {
    const app = new BackgroundApp();
    const old = new Map([[hashOf(1), answer(Date.now() - 30 * 24 * 3600 * 1000)]]);
    const fresh = new Map([[hashOf(2), answer(Date.now())]]);
    await app.lookup.cache.put(old);
    await app.lookup.cache.put(fresh);
    const job = app.repeatedJobs['prune-answers']!;
    expect(job.periodInMinutes).toBeGreaterThan(0);
    await job.run();
    expect(await storedAnswers()).toEqual([`answer:${hashOf(2)}`]);
  });
});

describe('a full storage.local', () => {
  it('never blocks saving the settings: the cache makes room first', async () => {
    const app = new BackgroundApp();
    // Storage full of answers: not one more fits.
    limitStorage(60_000);
    for (let n = 0; ; n++) {
      const item = { [`answer:${hashOf(n)}`]: { t: Date.now() + n, c: [[1, 7, 'f'.repeat(40)]] } };
      const written = await fakeBrowser.storage.local.set(item).then(() => true, () => false);
      if (!written) break;
    }
    const full = (await storedAnswers()).length;
    expect(full).toBeGreaterThan(100);
    // A setting worth a few kilobytes, with storage full.
    const hosts = Array.from({ length: 150 }, (_, i) => `tracker-${i}.example.org`);
    const saved = await app.preferences.saveSettings({ panelDisabledHosts: hosts });
    expect(saved).toHaveProperty('settings');
    const stored = (await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as typeof DEFAULT_SETTINGS;
    expect(stored.panelDisabledHosts).toEqual(hosts);
    expect((await storedAnswers()).length).toBeLessThan(full);
  });

  it('does not fail a lookup: answers that cannot be stored stay in memory', async () => {
    const cache = new AnswerCache(Date.now, 1000);
    limitStorage(10);
    const answers = new Map([[hashOf(3), answer(Date.now())]]);
    await expect(cache.put(answers)).resolves.toBeUndefined();
    expect((await cache.get([hashOf(3)])).has(hashOf(3))).toBe(true);
  });
});
