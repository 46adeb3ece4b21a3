/**
 * The one place that decides, over every client the user saved (issue 33), which clients hold a
 * torrent and where its copy goes. The popup's and the panel's cross-seeds, list rows, "Cross-seed
 * all" and the whole-client job all go through it (as the engine's CrossSeedClients), and the list
 * pages and the job's preview say the same from the index (whereCopyGoes).
 *
 * - Held: a candidate any client holds is "Already in <Name>": never downloaded, never added. A
 *   client that cannot be asked now is taken at its index's word (what it held at its last sync).
 * - Source: the clients holding the page's torrent complete, in the user's order; the first whose
 *   copy can go somewhere wins.
 * - Where its copy goes: the source's own client at the source's save path, or its "Copies go to"
 *   client at that path through the longest folder pair holding it (none: not sent). A client that
 *   only reads takes no copy; one that only reads without "Copies go to" sends its copies nowhere.
 */
import { mapThroughPairs } from '../../utils/clients/folder-pairs';
import { toClientFailure, type ClientTorrent } from '../../utils/clients/index';
import { originOf } from '../../utils/url';
import type { CopyPlan, CrossSeedClients, CrossSeedResult, CrossSeedTarget, HeldBy } from '../../utils/cross-seed-engine/cross-seed';
import type { ClientHandle } from './clients.feature';
import type { StoredClient } from './clients.storage';

/** Where a source's copy goes, or why it goes nowhere (for the engine's words). */
export type CopyDestination =
  | { ok: true; target: StoredClient; savePath: string; viaPair: boolean }
  | { ok: false; result: Extract<CrossSeedResult, { kind: 'read-only' | 'no-folder-pair' | 'target-missing' }> };

/**
 * Where a copy of a torrent that `source` holds at `savePath` goes (pure: the user's settings only).
 * Its "Copies go to" client, through its folder pairs; else itself, unless it only reads.
 */
export function whereCopyGoes(source: StoredClient, clients: readonly StoredClient[], savePath: string): CopyDestination {
  if (!source.copiesTo) {
    if (source.readOnly) return { ok: false, result: { kind: 'read-only', clientName: source.name } };
    return { ok: true, target: source, savePath, viaPair: false };
  }
  const target = clients.find((client) => client.id === source.copiesTo);
  // A target that only reads is refused when saved (client-rules.ts); should one be stored all the same, it takes nothing.
  if (!target || target.readOnly || target.id === source.id) return { ok: false, result: { kind: 'target-missing', clientName: source.name } };
  const mapped = mapThroughPairs(source.folderPairs, savePath);
  if (mapped === undefined) return { ok: false, result: { kind: 'no-folder-pair', path: savePath, clientName: source.name, targetName: target.name } };
  return { ok: true, target, savePath: mapped, viaPair: true };
}

export interface PlacementOptions {
  /** Whether the browser lets the extension reach a client's address. */
  reachable(config: StoredClient): Promise<boolean>;
  /** "Cross-seed copies whose names differ" (on when absent). */
  renameCopies?: boolean;
  /**
   * For a client that cannot be asked now: which of `hashes` it held at its index's last sync
   * (none known: an empty set). Absent: nothing is known of it.
   */
  lastKnownHeld?(config: StoredClient, hashes: readonly string[]): Promise<ReadonlySet<string>>;
}

type Asked = { handle: ClientHandle; found: Map<string, ClientTorrent> } | { handle: ClientHandle; failed: CrossSeedResult & { kind: 'client-failed' | 'no-permission' } };

function targetOf(handle: ClientHandle, renameCopies: boolean | undefined): CrossSeedTarget {
  const { config, client } = handle;
  return { client, skipCheckWhenFilesMatch: config.skipCheckWhenFilesMatch, url: config.url, name: config.name, id: config.id, ...(renameCopies !== undefined && { renameCopies }) };
}

/** The engine's view of the user's clients now (`handles`: every saved client, in the user's order). */
export function clientPlacement(handles: readonly ClientHandle[], options: PlacementOptions): CrossSeedClients {
  const configs = handles.map((handle) => handle.config);

  /** Every client asked about `hashes` at once: what each holds, or how it failed. */
  const askAll = (hashes: readonly string[]): Promise<Asked[]> =>
    Promise.all(
      handles.map(async (handle): Promise<Asked> => {
        if (!(await options.reachable(handle.config))) {
          const origin = originOf(handle.config.url) ?? handle.config.url;
          return { handle, failed: { kind: 'no-permission', for: 'client', origin } };
        }
        try {
          return { handle, found: await handle.client.lookup(hashes) };
        } catch (error) {
          return { handle, failed: { kind: 'client-failed', failure: toClientFailure(error), clientName: handle.config.name, clientId: handle.config.id } };
        }
      }),
    );

  /** Who holds each of `hashes`: the first client in the user's order that answered so, else a client not asked now whose index held it. */
  const holders = async (asked: readonly Asked[], hashes: readonly string[]): Promise<Map<string, HeldBy>> => {
    const held = new Map<string, HeldBy>();
    for (const entry of asked) {
      if (!('found' in entry)) continue;
      for (const hash of hashes) {
        const torrent = entry.found.get(hash);
        if (torrent && !held.has(hash)) held.set(hash, { torrent, clientName: entry.handle.config.name, clientId: entry.handle.config.id });
      }
    }
    const unknown = hashes.filter((hash) => !held.has(hash));
    if (unknown.length && options.lastKnownHeld) {
      for (const entry of asked) {
        if ('found' in entry) continue;
        const known = await options.lastKnownHeld(entry.handle.config, unknown).catch(() => new Set<string>());
        for (const hash of unknown) {
          // Only its hash and where it was: the torrent as the index last saw it is not at hand here.
          if (known.has(hash) && !held.has(hash)) held.set(hash, { torrent: { hash, name: '', savePath: '', size: 0, state: 'unknown', progress: 1 }, clientName: entry.handle.config.name, clientId: entry.handle.config.id });
        }
      }
    }
    return held;
  };

  return {
    async plan(pageHash, candidateHashes): Promise<CopyPlan | CrossSeedResult> {
      if (!handles.length) return { kind: 'no-client' };
      const asked = await askAll([pageHash, ...candidateHashes]);
      const held = await holders(asked, candidateHashes);
      // One candidate a client already holds needs nothing more, whatever the page's torrent's state.
      const [only] = candidateHashes;
      const already = candidateHashes.length === 1 && only ? held.get(only) : undefined;
      if (already) return { kind: 'already-in-client', hash: only!, savePath: already.torrent.savePath, ...(already.clientName && { clientName: already.clientName }), ...(already.clientId && { clientId: already.clientId }) };
      const failed = asked.flatMap((entry) => ('failed' in entry ? [entry.failed] : []));
      const sources = asked.flatMap((entry) => {
        const torrent = 'found' in entry ? entry.found.get(pageHash) : undefined;
        return torrent ? [{ handle: entry.handle, torrent }] : [];
      });
      const complete = sources.filter((source) => source.torrent.progress >= 1);
      // Nowhere complete: a client that could not be asked may hold it, so that is what is said.
      if (!complete.length) {
        if (failed[0]) return failed[0];
        return sources[0] ? { kind: 'source-incomplete', pageHash, progress: sources[0].torrent.progress } : { kind: 'source-missing', pageHash };
      }
      let refusal: CrossSeedResult | undefined;
      for (const source of complete) {
        const destination = whereCopyGoes(source.handle.config, configs, source.torrent.savePath);
        if (!destination.ok) {
          refusal ??= destination.result;
          continue;
        }
        const target = asked.find((entry) => entry.handle.config.id === destination.target.id)!;
        if ('failed' in target) {
          refusal ??= target.failed;
          continue;
        }
        held.delete(pageHash);
        return {
          source: { client: source.handle.client, torrent: source.torrent, name: source.handle.config.name },
          target: targetOf(target.handle, options.renameCopies),
          savePath: destination.savePath,
          viaPair: destination.viaPair,
          held,
        };
      }
      return refusal!;
    },

    async holder(hash) {
      const asked = await askAll([hash]);
      return (await holders(asked, [hash])).get(hash);
    },
  };
}
