/**
 * A client that rides out a moment's hiccup: a read (or a start, stop, recheck, tag) that met no
 * answer, a dropped connection or a 5xx is asked again after a short wait, as the daemons people run
 * today do (IYUUPlus's and MoviePilot's HTTP clients retry). A busy WebUI on a big client, a reverse
 * proxy restarting, a keep-alive connection the client closed just as it was reused: none of these
 * should stop a whole-client job until the user clicks "Resume", or call a check that is going well
 * a failure. A client that is really down still fails, a few seconds later.
 *
 * Only what is safe to ask twice is asked again. `add` is not (its own answer may have been lost
 * after the client took the torrent: the cross-seed engine reads the client back for that), `remove`
 * is not (a second one would fail on a torrent the first removed), nor `test` (the options page's
 * Test says at once what it met).
 */
import { ClientError, type ClientErrorKind } from './client-errors';
import type { TorrentClient } from './client-types';
import { abortableWait } from '../abortable-wait';

/** The waits before each new attempt: two more, about 2.5 s in all. */
export const CLIENT_RETRY_DELAYS_MS: readonly number[] = [500, 2_000];

/** Failures a moment can cure: nothing came back, or the client (or a proxy before it) failed. */
const TRANSIENT: ReadonlySet<ClientErrorKind> = new Set(['unreachable', 'timeout', 'server']);

export function isTransientClientError(error: unknown): boolean {
  return error instanceof ClientError && TRANSIENT.has(error.kind);
}

export interface SteadyOptions {
  delaysMs?: readonly number[];
  /** The wait itself (a test's clock may stand in for the timer). */
  wait?: (ms: number) => Promise<void>;
}

/** `attempt`, asked again after each of `delaysMs` while it fails transiently; a no-answer (timeout) is asked again once only, since each already took the client's whole timeout. */
export async function retried<T>(attempt: () => Promise<T>, options: SteadyOptions = {}): Promise<T> {
  const delays = options.delaysMs ?? CLIENT_RETRY_DELAYS_MS;
  const wait = options.wait ?? abortableWait;
  let timeouts = 0;
  for (let index = 0; ; index++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransientClientError(error) || index >= delays.length) throw error;
      if ((error as ClientError).kind === 'timeout' && ++timeouts > 1) throw error;
      await wait(delays[index]!);
    }
  }
}

/** `client` with its repeatable calls asked again on a transient failure (see the file's header). */
export function steadyClient(client: TorrentClient, options: SteadyOptions = {}): TorrentClient {
  const again = <T>(attempt: () => Promise<T>) => retried(attempt, options);
  const steady: TorrentClient = {
    kind: client.kind,
    test: () => client.test(),
    lookup: (hashes) => again(() => client.lookup(hashes)),
    // Each page is a read of its own: a page that failed is asked again, not the pages before it.
    list: () => client.list({ eachRead: again }),
    count: () => again(() => client.count()),
    files: (hash) => again(() => client.files(hash)),
    add: (torrent, addOptions) => client.add(torrent, addOptions),
    start: (hash) => again(() => client.start(hash)),
    stop: (hash) => again(() => client.stop(hash)),
    recheck: (hash) => again(() => client.recheck(hash)),
    remove: (hash) => client.remove(hash),
    addTags: (hash, tags) => again(() => client.addTags(hash, tags)),
  };
  const piecesHash = client.piecesHash?.bind(client);
  if (piecesHash) steady.piecesHash = (hash, via) => again(() => piecesHash(hash, via));
  const liveState = client.liveState?.bind(client);
  if (liveState) steady.liveState = (hash) => again(() => liveState(hash));
  const rechecksAtOnce = client.rechecksAtOnce?.bind(client);
  if (rechecksAtOnce) steady.rechecksAtOnce = rechecksAtOnce;
  // A rename is not asked again: after a lost answer the old path may be gone, and a second rename would fail on it.
  const rename = client.rename?.bind(client);
  if (rename && client.renames) Object.assign(steady, { renames: client.renames, rename });
  return steady;
}
