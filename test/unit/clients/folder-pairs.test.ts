/**
 * Folder pairs (utils/clients/folder-pairs.ts): where a "Copies go to" client sees this client's
 * folders. The longest folder holding a path wins; a folder holds a path only at a separator; paths
 * are compared as they are, POSIX and Windows alike.
 */
import { describe, expect, it } from 'vitest';
import { isAbsoluteFolder, mapThroughPairs, pairFor } from '../../../utils/clients/folder-pairs';

describe('folder pairs', () => {
  const pairs = [
    { from: '/data', to: '/mnt/nas/data' },
    { from: '/data/music/', to: '/srv/music' },
    { from: 'D:\\Torrents', to: '/mnt/d/Torrents' },
    { from: '/', to: '/mnt/root' },
  ];

  it('maps a path through the longest folder that holds it, the rest kept as it is', () => {
    expect(mapThroughPairs(pairs, '/data/music/Album (2024)')).toBe('/srv/music/Album (2024)');
    expect(mapThroughPairs(pairs, '/data/music')).toBe('/srv/music');
    expect(mapThroughPairs(pairs, '/data/movies')).toBe('/mnt/nas/data/movies');
    expect(mapThroughPairs(pairs, '/data/')).toBe('/mnt/nas/data');
    // At a separator only: /database is not under /data (it falls to the root pair).
    expect(mapThroughPairs(pairs, '/database')).toBe('/mnt/root/database');
    expect(pairFor(pairs, '/database')).toEqual({ from: '/', to: '/mnt/root' });
  });

  it('compares byte for byte: another case or Unicode form is another folder', () => {
    const only = [{ from: '/Data', to: '/x' }];
    expect(mapThroughPairs(only, '/data/a')).toBeUndefined();
    expect(mapThroughPairs([{ from: '/Caf\u00e9', to: '/x' }], '/Cafe\u0301/a')).toBeUndefined();
  });

  it('takes a Windows path with either separator, and turns the rest into the other side\'s', () => {
    expect(mapThroughPairs(pairs, 'D:\\Torrents\\Album\\CD1')).toBe('/mnt/d/Torrents/Album/CD1');
    expect(mapThroughPairs(pairs, 'D:/Torrents/Album')).toBe('/mnt/d/Torrents/Album');
    expect(mapThroughPairs([{ from: '/downloads', to: 'E:\\Seed' }], '/downloads/Album/CD1')).toBe('E:\\Seed\\Album\\CD1');
    expect(mapThroughPairs([{ from: '\\\\nas\\share', to: '/mnt/share' }], '\\\\nas\\share\\Album')).toBe('/mnt/share/Album');
  });

  it('maps nothing under no pair', () => {
    expect(mapThroughPairs([{ from: '/data', to: '/x' }], '/srv/other')).toBeUndefined();
    expect(mapThroughPairs([], '/data')).toBeUndefined();
    expect(mapThroughPairs([{ from: '/data', to: '/x' }], 'C:\\data')).toBeUndefined();
  });

  it('knows an absolute folder from anything else', () => {
    for (const path of ['/', '/data', 'C:\\', 'D:\\Torrents', 'd:/x', '\\\\nas\\share']) expect(isAbsoluteFolder(path), path).toBe(true);
    for (const path of ['', 'data', './data', '~/data', 'C:', ' /data', '/data ', '\\\\nas', '/da\0ta']) expect(isAbsoluteFolder(path), JSON.stringify(path)).toBe(false);
  });
});
