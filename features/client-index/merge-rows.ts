/**
 * A list page's rows as every client's index answers them, merged into one answer (issue 33):
 *
 * - In a client: some client holds the row's torrent itself. Its own index says so, or another
 *   client's index offers the row to cross-seed with an info-hash this client holds (the service
 *   never names a queried torrent's own place, so a client's index may not know where its own
 *   torrent sits while another client's answers name that place): it is then in this client, never
 *   to cross-seed. Every client holding it is named, in the user's order.
 * - Can cross-seed: no client holds it, and some client holds its data complete whose copy can go
 *   somewhere (placement.ts's whereCopyGoes: its "Copies go to" client through its folder pair, or
 *   itself); the first such client in the user's order is the source, as a cross-seed's placement
 *   takes it.
 * - Refused: clients hold its data, but none can send a copy anywhere (a client that only reads,
 *   a save path under no folder pair, a target gone): shown with why, never counted.
 *
 * Pure: the indexes' answers and the user's clients in, the merged rows out.
 */
import type { ClientRows, IndexedTorrent, RowMatch } from '../../utils/client-index/indexes-by-client.ts';
import { whereCopyGoes, type CopyDestination } from '../clients/placement';
import type { StoredClient } from '../clients/clients.storage';

/** One client's answer for the page, with the client. */
export interface IndexedRows {
  config: StoredClient;
  rows: ClientRows;
}

export interface Holder {
  config: StoredClient;
  torrent: IndexedTorrent;
}

export type MergedRow =
  | { kind: 'in-client'; holders: Holder[]; match: RowMatch }
  | { kind: 'can-cross-seed'; source: Holder; match: RowMatch; destination: Extract<CopyDestination, { ok: true }> }
  | { kind: 'refused'; source: Holder; match: RowMatch; result: Extract<CopyDestination, { ok: false }>['result'] };

/**
 * The rows (`ids`) as the clients' indexes answer them together. `answers` in the user's order;
 * `clients`: every saved client (a "Copies go to" target may be any of them).
 */
export function mergeRows(answers: readonly IndexedRows[], clients: readonly StoredClient[], ids: readonly string[]): Map<string, MergedRow> {
  const merged = new Map<string, MergedRow>();
  for (const id of ids) {
    const matches = answers.map((answer) => answer.rows.matches.get(id));
    if (!matches.some(Boolean)) continue;
    // The info-hashes the indexes give this row's torrent (a row showing its own hash gives that one).
    const hashes = new Set(matches.flatMap((match) => (match?.candidateHash ? [match.candidateHash] : [])));
    const foundBy = matches.find((match) => match?.foundBy)?.foundBy;
    const holders: Holder[] = [];
    let heldMatch: RowMatch | undefined;
    for (const [at, answer] of answers.entries()) {
      const match = matches[at];
      if (match?.kind === 'in-client') {
        holders.push({ config: answer.config, torrent: match.clientTorrent });
        heldMatch ??= match;
        continue;
      }
      for (const hash of hashes) {
        const torrent = answer.rows.holds(hash);
        if (!torrent) continue;
        holders.push({ config: answer.config, torrent });
        heldMatch ??= { kind: 'in-client', clientTorrent: torrent, candidateHash: hash, ...(foundBy && { foundBy }) };
        break;
      }
    }
    if (holders.length && heldMatch) {
      merged.set(id, { kind: 'in-client', holders, match: heldMatch });
      continue;
    }
    let refused: Extract<MergedRow, { kind: 'refused' }> | undefined;
    for (const [at, answer] of answers.entries()) {
      const match = matches[at];
      if (match?.kind !== 'can-cross-seed') continue;
      const source = { config: answer.config, torrent: match.clientTorrent };
      const destination = whereCopyGoes(answer.config, clients, match.clientTorrent.savePath);
      if (destination.ok) {
        merged.set(id, { kind: 'can-cross-seed', source, match, destination });
        refused = undefined;
        break;
      }
      refused ??= { kind: 'refused', source, match, result: destination.result };
    }
    if (refused) merged.set(id, refused);
  }
  return merged;
}
