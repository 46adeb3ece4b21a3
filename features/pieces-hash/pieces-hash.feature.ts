/**
 * The second source of candidates (issue 18): the user's own NexusPHP sites, asked by pieces hash.
 *
 * - Per site, opt-in (settings `piecesHashSites`), with the site's passkey; its address is the
 *   site's own (utils/sites/pieces-hash-address.ts): the passkey never goes anywhere else.
 * - During a sync of the client index (utils/client-index/sync.ts, `askByPieces`): each client
 *   torrent's pieces hash is read once from qBittorrent (Transmission and Deluge give none over their
 *   APIs) and kept beside the index with the site its tracker belongs to; then each site switched
 *   on, one after another, is asked only what it has not answered within a week, in batches of 100,
 *   at most one request every 2 s (utils/pieces-hash/ask-site.ts), never about torrents from itself.
 * - What the sites answer becomes places in the same index: list pages, the popup, the whole-client
 *   job and the options page's counts read both sources as one.
 * - The options page's "Test" of one site (site-test.ts).
 */
import type { Shared } from '../context';
import type { TorrentClient } from '../../utils/clients/client-types';
import type { PiecesReport, PiecesSite, PiecesSiteEnd, PiecesStep } from '../../utils/client-index/sync';
import type { Handlers } from '../../utils/messaging/protocol';
import { askSite, DEFAULT_PIECES_HASH_PACE_MS } from '../../utils/pieces-hash/ask-site';
import type { Settings } from '../../utils/settings';
import { siteForHost } from '../../utils/sites';
import { serviceSidOf, siteForServiceSid, type ListedSite } from '../../utils/sites/pinning';
import { siteName } from '../lookup/candidates';
import type { PiecesRunView, PiecesSiteRunView } from '../client-index/client-index.messages';
import { askableSite, piecesHashTestHandlers, type SiteNotAskable } from './site-test';
import { originAllowed } from '../../utils/permission-pattern';
import type { piecesHashMessages } from './pieces-hash.messages';

export interface PiecesHashOptions {
  /** The fetch sites are asked with (tests: the router); the browser's own when absent. */
  fetch?: typeof fetch;
  /** The pace per site (2 s; tests give less). */
  paceMs?: number;
}

/** A site switched on that cannot be asked now, and why (said on the options page). */
type Unusable = Pick<PiecesSiteRunView, 'sid' | 'outcome'>;

/** Why a site switched on was not asked, in the run's terms: an unknown site or one without the API has none to ask; an address off the site is a bad path. */
const UNASKABLE_OUTCOME: Record<SiteNotAskable['kind'], PiecesSiteRunView['outcome']> = {
  'not-nexusphp': 'no-api',
  'bad-path': 'bad-path',
  'other-host': 'bad-path',
  'needs-passkey': 'needs-passkey',
  'bad-passkey': 'bad-passkey',
  'no-permission': 'no-permission',
};

/**
 * The site a tracker address belongs to, by the catalog's hosts (and their subdomains), as the id
 * the service's list gives it now (`list`): the sites switched on and their answers are keyed by the
 * service's ids, and the service has renumbered sites before. The address itself is never kept (it
 * carries the user's passkey).
 */
export function sidOfTracker(announce: string | undefined, list?: readonly ListedSite[]): number | undefined {
  if (!announce) return undefined;
  let host: string;
  try {
    host = new URL(announce).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  const entry = siteForHost(host);
  return entry && serviceSidOf(entry, list);
}

export class PiecesHash {
  readonly handlers: Handlers<typeof piecesHashMessages>;
  /** Per site, when its last answer came and the batch it takes: the pace holds across syncs. */
  private readonly lastAnswerAt = new Map<number, number>();
  private readonly batchSize = new Map<number, number>();
  /**
   * Per site, its asking under way: the syncs of several qBittorrents go side by side, and each
   * asks the same sites; one site is asked by one of them at a time, so its pace holds.
   */
  private readonly siteTurn = new Map<number, Promise<unknown>>();

  constructor(
    private readonly shared: Shared,
    private readonly options: PiecesHashOptions = {},
  ) {
    this.handlers = piecesHashTestHandlers(shared, { fetch: options.fetch }).handlers;
  }

  /** The sids switched on, in the order they are asked. */
  static switchedOn(settings: Settings): number[] {
    return Object.entries(settings.piecesHashSites)
      .filter(([, site]) => site.on)
      .map(([sid]) => Number(sid))
      .sort((a, b) => a - b);
  }

  /**
   * The step a sync of `client` runs for the second source, and the sites switched on that cannot
   * be asked (no passkey, an address off the site, no permission). No step: no site on, or a
   * client that gives no piece hashes.
   */
  async stepFor(client: TorrentClient): Promise<{ step?: PiecesStep; unusable: Unusable[] }> {
    const settings = await this.shared.settings.get();
    const sids = PiecesHash.switchedOn(settings);
    if (!sids.length || !client.piecesHash) return { unusable: [] };
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const sites: PiecesSite[] = [];
    const unusable: Unusable[] = [];
    for (const sid of sids) {
      const site = await askableSite(settings, sid, siteForServiceSid(sid, list), {}, originAllowed);
      if ('kind' in site) unusable.push({ sid, outcome: UNASKABLE_OUTCOME[site.kind] });
      else sites.push({ sid, ...site });
    }
    if (!sites.length) return { unusable };
    const read = client.piecesHash.bind(client);
    const step: PiecesStep = {
      sites,
      read: async (hash) => {
        const result = await read(hash);
        if ('skipped' in result) return { skipped: result.skipped };
        // Before qBittorrent 4.5 the hex list says nothing of the tracker: the client's list does.
        const tracker = result.announce ?? (result.via === 'pieceHashes' ? (await client.lookup([hash])).get(hash)?.tracker : undefined);
        const fromSid = sidOfTracker(tracker, list);
        return fromSid === undefined ? { hash: result.piecesHash } : { hash: result.piecesHash, fromSid };
      },
      ask: (site, hashes, onBatch, signal) => this.inTurn(site.sid, () => this.askNow(site, hashes, onBatch, signal)),
    };
    return { step, unusable };
  }

  /** `work` once the site's asking before it has ended (see siteTurn). */
  private inTurn<T>(sid: number, work: () => Promise<T>): Promise<T> {
    const turn = (this.siteTurn.get(sid) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.siteTurn.set(sid, turn);
    void turn.finally(() => {
      if (this.siteTurn.get(sid) === turn) this.siteTurn.delete(sid);
    }).catch(() => undefined);
    return turn;
  }

  /** Asks one site about `hashes` at its pace (held across syncs and clients). */
  private async askNow(site: PiecesSite, hashes: readonly string[], onBatch: Parameters<PiecesStep['ask']>[2], signal: AbortSignal | undefined): Promise<PiecesSiteEnd> {
    const end = await askSite(
      { endpoint: site.endpoint, passkey: site.passkey, hashes },
      {
        fetch: this.options.fetch,
        paceMs: this.options.paceMs ?? DEFAULT_PIECES_HASH_PACE_MS,
        signal,
        onBatch,
        previousRequestAt: this.lastAnswerAt.get(site.sid),
        batchSize: this.batchSize.get(site.sid),
        now: this.shared.now,
      },
    );
    if (end.lastRequestAt !== undefined) this.lastAnswerAt.set(site.sid, end.lastRequestAt);
    this.batchSize.set(site.sid, end.batchSize);
    const result: PiecesSiteEnd = { kind: end.kind, requests: end.requests, asked: end.asked, found: end.found };
    if (end.kind === 'stopped') {
      const { answer } = end;
      result.answer = {
        kind: answer.kind,
        ...('retryAfterSeconds' in answer && answer.retryAfterSeconds !== undefined && { retryAfterSeconds: answer.retryAfterSeconds }),
        ...('status' in answer && { status: answer.status }),
        ...('ret' in answer && { ret: answer.ret }),
      };
    }
    return result;
  }

  /** A run's report of the second source in the options page's terms (site names, kinds only). */
  async runView(report: PiecesReport | undefined, unusable: readonly Unusable[]): Promise<PiecesRunView | undefined> {
    if (!report && !unusable.length) return undefined;
    const settings = await this.shared.settings.get();
    const list = await this.shared.directory.sites.peek(settings.baseUrl);
    const sites: PiecesSiteRunView[] = [];
    for (const site of report?.sites ?? []) {
      const outcome = site.kind === 'stopped' ? outcomeOf(site.answer?.kind) : site.kind;
      sites.push({
        sid: site.sid,
        siteName: siteName(site.sid, list).name,
        outcome,
        asked: site.asked,
        requests: site.requests,
        found: site.found,
        ...(site.answer?.retryAfterSeconds !== undefined && { retryAfterSeconds: site.answer.retryAfterSeconds }),
        ...(site.answer?.status !== undefined && { status: site.answer.status }),
      });
    }
    for (const site of unusable) sites.push({ ...site, siteName: siteName(site.sid, list).name, asked: 0, requests: 0, found: 0 });
    sites.sort((a, b) => a.sid - b.sid);
    return { read: report?.read ?? 0, skipped: report?.skipped ?? 0, sites };
  }
}

function outcomeOf(kind: string | undefined): PiecesSiteRunView['outcome'] {
  switch (kind) {
    case 'wrong-passkey':
    case 'no-api':
    case 'rate-limited':
    case 'refused':
    case 'site-error':
    case 'unreachable':
      return kind;
    case 'bad-request':
      return 'bad-path';
    default:
      return 'site-error';
  }
}
