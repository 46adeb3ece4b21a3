/**
 * Where copies go, decided from the user's settings alone: the rules a list of clients keeps
 * (features/clients/client-rules.ts) and whereCopyGoes (features/clients/placement.ts), which the
 * engine, the list pages and the job all ask.
 */
import { describe, expect, it } from 'vitest';
import { brokenRule, removalRule } from '../../../../features/clients/client-rules';
import { whereCopyGoes } from '../../../../features/clients/placement';
import type { StoredClient } from '../../../../features/clients/clients.storage';

function client(id: string, name: string, extra: Partial<StoredClient> = {}): StoredClient {
  return { id, name, type: 'qbittorrent', url: `http://127.0.0.1:${8000 + id.length}`, username: '', password: '', skipCheckWhenFilesMatch: false, readOnly: false, folderPairs: [], ...extra };
}

describe('the rules a list of clients keeps', () => {
  const pairs = [{ from: '/downloads', to: '/mnt/nas/downloads' }];

  it('takes a list that keeps them all', () => {
    expect(brokenRule([client('a', 'NAS', { copiesTo: 'b', folderPairs: pairs }), client('b', 'Seedbox'), client('c', 'Archive', { readOnly: true })])).toBeUndefined();
  });

  it('names the rule a list breaks, about the client just saved first', () => {
    expect(brokenRule([client('a', 'NAS'), client('b', ' nas ')], 'b')).toEqual({ rule: 'same-name', name: 'nas' });
    expect(brokenRule([client('a', 'A', { copiesTo: 'b', folderPairs: pairs }), client('b', 'B', { copiesTo: 'a', folderPairs: pairs })])).toEqual({ rule: 'copies-loop', client: 'A', target: 'B' });
    expect(brokenRule([client('a', 'A', { copiesTo: 'b', folderPairs: pairs }), client('b', 'B', { copiesTo: 'c', folderPairs: pairs }), client('c', 'C')], 'a')).toEqual({
      rule: 'copies-chain',
      client: 'A',
      target: 'B',
      next: 'C',
    });
    expect(brokenRule([client('a', 'A', { copiesTo: 'gone', folderPairs: pairs })])).toEqual({ rule: 'copies-target-missing', client: 'A' });
    expect(brokenRule([client('a', 'A', { copiesTo: 'b', folderPairs: pairs }), client('b', 'B', { readOnly: true })])).toEqual({ rule: 'copies-target-read-only', client: 'A', target: 'B' });
    expect(brokenRule([client('a', 'A', { copiesTo: 'b' }), client('b', 'B')])).toEqual({ rule: 'no-folder-pair', client: 'A' });
    expect(brokenRule([client('a', 'A', { copiesTo: 'b', folderPairs: [{ from: '/x', to: 'relative' }] }), client('b', 'B')])).toEqual({ rule: 'folder-not-absolute', client: 'A', path: 'relative' });
  });

  it('keeps a named target from being removed', () => {
    const list = [client('a', 'NAS', { copiesTo: 'b', folderPairs: pairs }), client('b', 'Seedbox')];
    expect(removalRule(list, 'b')).toEqual({ rule: 'target-named', target: 'Seedbox', client: 'NAS' });
    expect(removalRule(list, 'a')).toBeUndefined();
  });
});

describe('where a copy goes', () => {
  const seedbox = client('b', 'Seedbox', { type: 'transmission' });
  const nas = client('a', 'NAS', { copiesTo: 'b', folderPairs: [{ from: '/downloads', to: '/mnt/nas' }, { from: '/downloads/music', to: '/mnt/music' }] });
  const all = [nas, seedbox];

  it('into the source\'s own client at its own path, or its "Copies go to" client through the longest folder pair', () => {
    expect(whereCopyGoes(seedbox, all, '/data/Album')).toEqual({ ok: true, target: seedbox, savePath: '/data/Album', viaPair: false });
    expect(whereCopyGoes(nas, all, '/downloads/music/Album')).toEqual({ ok: true, target: seedbox, savePath: '/mnt/music/Album', viaPair: true });
    expect(whereCopyGoes(nas, all, '/downloads')).toEqual({ ok: true, target: seedbox, savePath: '/mnt/nas', viaPair: true });
  });

  it('nowhere, said why: under no pair, a client that only reads without a target, a target no longer saved', () => {
    expect(whereCopyGoes(nas, all, '/srv/other')).toEqual({ ok: false, result: { kind: 'no-folder-pair', path: '/srv/other', clientName: 'NAS', targetName: 'Seedbox' } });
    const archive = client('c', 'Archive', { readOnly: true });
    expect(whereCopyGoes(archive, [archive], '/data')).toEqual({ ok: false, result: { kind: 'read-only', clientName: 'Archive' } });
    // Only reading, with a target: its copies go there.
    const reader = client('d', 'Reader', { readOnly: true, copiesTo: 'b', folderPairs: [{ from: '/', to: '/r' }] });
    expect(whereCopyGoes(reader, [reader, seedbox], '/x')).toMatchObject({ ok: true, target: seedbox, savePath: '/r/x' });
    expect(whereCopyGoes(nas, [nas], '/downloads/a')).toEqual({ ok: false, result: { kind: 'target-missing', clientName: 'NAS' } });
  });
});
