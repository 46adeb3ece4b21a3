/**
 * The typed stored item (utils/stored-item.ts): a value that fails its schema reads as the fallback,
 * a versioned record climbs its numbered migrations in order on read (a newer one is left alone),
 * and a family of keys (`answer:<hash>`, `tab:<id>`) is read, written and cleared by its prefix only.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { z } from 'zod';
import { defineStoredFamily, defineStoredItem, setTogether, upgrade, type Migrations } from '../../utils/stored-item';

beforeEach(() => {
  fakeBrowser.reset();
});

const stored = async (key: string, area: 'local' | 'session' = 'local') => (await fakeBrowser.storage[area].get(key))[key];

describe('an item read by its schema', () => {
  const limit = defineStoredItem({ area: 'local', key: 'limit', schema: z.object({ until: z.number() }), fallback: { until: 0 } });

  it('gives the fallback when nothing is stored, and what was written once it is', async () => {
    expect(await limit.get()).toEqual({ until: 0 });
    expect(await limit.has()).toBe(false);
    await limit.set({ until: 42 });
    expect(await stored('limit')).toEqual({ until: 42 });
    expect(await limit.get()).toEqual({ until: 42 });
    expect(await limit.has()).toBe(true);
  });

  it('gives the fallback for a value that fails the schema, and says something is stored all the same', async () => {
    for (const bad of ['x', 7, [], null, { until: 'soon' }, { until: Number.NaN }]) {
      await fakeBrowser.storage.local.set({ limit: bad });
      expect(await limit.get()).toEqual({ until: 0 });
    }
    await fakeBrowser.storage.local.set({ limit: 'x' });
    expect(await limit.has()).toBe(true);
  });

  it('removes its own key only', async () => {
    await fakeBrowser.storage.local.set({ limit: { until: 1 }, other: 1 });
    await limit.remove();
    expect(await fakeBrowser.storage.local.get(null)).toEqual({ other: 1 });
  });

  it('keeps to its area: a session item reads and writes storage.session', async () => {
    const view = defineStoredItem({ area: 'session', key: 'limit', schema: z.number(), fallback: undefined });
    await view.set(5);
    expect(await stored('limit', 'session')).toBe(5);
    expect(await stored('limit')).toBeUndefined();
    expect(await limit.get()).toEqual({ until: 0 });
  });

  it('tells of changes to its key in its area, and stops when unsubscribed', async () => {
    const heard: string[] = [];
    const stop = limit.onChanged(() => heard.push('limit'));
    await fakeBrowser.storage.local.set({ other: 1 });
    await fakeBrowser.storage.session.set({ limit: { until: 1 } });
    await limit.set({ until: 2 });
    expect(heard).toEqual(['limit']);
    stop();
    await limit.set({ until: 3 });
    expect(heard).toEqual(['limit']);
  });
});

describe('a versioned record: numbered migrations run on read', () => {
  // v1 {name}, v2 {name, tags: []}, v3 {title, tags}: each step keyed by the version it produces.
  const steps: string[] = [];
  const migrations: Migrations = {
    2: (v1) => {
      steps.push('2');
      return { ...v1, tags: [] };
    },
    3: ({ name, ...v2 }) => {
      steps.push('3');
      return { ...v2, title: name };
    },
  };
  const note = defineStoredItem({
    area: 'local',
    key: 'note',
    schema: z.object({ title: z.string(), tags: z.array(z.string()) }),
    version: 3,
    migrations,
    fallback: undefined,
  });

  beforeEach(() => {
    steps.length = 0;
  });

  it('climbs from the stored version to the current one, in order, each step once', async () => {
    await fakeBrowser.storage.local.set({ note: { version: 1, name: 'first' } });
    expect(await note.get()).toEqual({ title: 'first', tags: [] });
    expect(steps).toEqual(['2', '3']);
    steps.length = 0;
    await fakeBrowser.storage.local.set({ note: { version: 2, name: 'second', tags: ['a'] } });
    expect(await note.get()).toEqual({ title: 'second', tags: ['a'] });
    expect(steps).toEqual(['3']);
  });

  it('runs nothing on a current record, and writes the record with its version inside it', async () => {
    await note.set({ title: 't', tags: ['x'] });
    expect(await stored('note')).toEqual({ version: 3, title: 't', tags: ['x'] });
    expect(await note.get()).toEqual({ title: 't', tags: ['x'] });
    expect(steps).toEqual([]);
  });

  it('reads a record of a newer version as it is (nothing downgraded), and one that no longer fits as the fallback', async () => {
    await fakeBrowser.storage.local.set({ note: { version: 9, title: 'later', tags: [], extra: true } });
    expect(await note.get()).toEqual({ title: 'later', tags: [] });
    await fakeBrowser.storage.local.set({ note: { version: 9, heading: 'renamed' } });
    expect(await note.get()).toBeUndefined();
    expect(steps).toEqual([]);
  });

  it('takes a record without a version, or with a foreign one, as version 0 and climbs from there', () => {
    for (const version of [undefined, -1, 1.5, '2', null]) {
      expect(upgrade({ version, name: 'n' }, 3, migrations)).toMatchObject({ from: 0, migrated: true, value: { title: 'n', tags: [] } });
    }
    expect(upgrade('not a record', 3, migrations)).toMatchObject({ from: 0, migrated: true, value: { tags: [] } });
    expect(upgrade({ version: 3, title: 't' }, 3, migrations)).toEqual({ from: 3, migrated: false, value: { version: 3, title: 't' } });
    expect(upgrade({ version: 7 }, 3, migrations)).toEqual({ from: 7, migrated: false, value: { version: 7 } });
  });

  it('a tolerant reading gets the record already upgraded, and the value as stored', async () => {
    const seen: unknown[] = [];
    const tolerant = defineStoredItem({
      area: 'local',
      key: 'note',
      schema: z.object({ title: z.string() }),
      version: 3,
      migrations,
      read: (upgraded, raw) => {
        seen.push(upgraded, raw);
        return typeof upgraded.value.title === 'string' ? upgraded.value.title : '(untitled)';
      },
    });
    await fakeBrowser.storage.local.set({ note: { version: 1, name: 'old' } });
    expect(await tolerant.get()).toBe('old');
    expect(seen).toEqual([{ from: 1, migrated: true, value: { version: 1, tags: [], title: 'old' } }, { version: 1, name: 'old' }]);
    expect(tolerant.decode(undefined)).toBe('(untitled)');
  });
});

describe('a family of keys under one prefix', () => {
  const answers = defineStoredFamily({ area: 'local', prefix: 'answer:', schema: z.object({ t: z.number() }), fallback: undefined });
  const count = defineStoredItem({ area: 'local', key: 'answerCount', schema: z.number(), fallback: 0 });

  it('reads many ids in one go, each by the schema: a missing or unreadable one is the fallback', async () => {
    await fakeBrowser.storage.local.set({ 'answer:a': { t: 1 }, 'answer:b': { t: 'bad' }, answerCount: 3 });
    expect(await answers.getMany(['a', 'b', 'c'])).toEqual(new Map([['a', { t: 1 }], ['b', undefined], ['c', undefined]]));
    expect(await answers.get('a')).toEqual({ t: 1 });
  });

  it('lists and clears its own keys only: a key that merely starts alike (answerCount) is not one of them', async () => {
    await answers.setMany([
      ['a', { t: 1 }],
      ['b', { t: 2 }],
    ]);
    await fakeBrowser.storage.local.set({ 'answer:junk': 'x', answerCount: 2, 'other:a': { t: 9 } });
    expect(await answers.all()).toEqual(new Map([['a', { t: 1 }], ['b', { t: 2 }], ['junk', undefined]]));
    await answers.remove(['a']);
    expect(await answers.get('a')).toBeUndefined();
    expect(await answers.removeAll()).toBe(2);
    expect(await fakeBrowser.storage.local.get(null)).toEqual({ answerCount: 2, 'other:a': { t: 9 } });
  });

  it('numeric ids name keys as the prefix and the number (tab:<id>)', async () => {
    const tabs = defineStoredFamily({ area: 'session', prefix: 'tab:', schema: z.object({ tabId: z.number() }), fallback: undefined });
    await tabs.set(12, { tabId: 12 });
    expect(await fakeBrowser.storage.session.get(null)).toEqual({ 'tab:12': { tabId: 12 } });
    expect(await tabs.get(12)).toEqual({ tabId: 12 });
    await tabs.remove(12);
    expect(await fakeBrowser.storage.session.get(null)).toEqual({});
  });

  it('writes entries and another item in one storage call, so a full storage refuses both', async () => {
    const local = fakeBrowser.storage.local;
    const calls: Record<string, unknown>[] = [];
    const set = local.set.bind(local);
    local.set = async (items: Record<string, unknown>) => {
      calls.push(items);
      await set(items);
    };
    await setTogether(answers.write([['a', { t: 1 }]]), count.write(1));
    expect(calls).toEqual([{ 'answer:a': { t: 1 }, answerCount: 1 }]);
    const session = defineStoredItem({ area: 'session', key: 's', schema: z.number(), fallback: 0 });
    await expect(setTogether(count.write(2), session.write(1))).rejects.toThrow(/one storage area/);
  });
});
