/**
 * "Test" of one site's pieces-hash API (options page, per site): ONE request with ONE random pieces
 * hash, so nothing of the user's client leaves the browser, signed with the passkey the user typed
 * (or saved), to the address utils/sites/pieces-hash-address.ts allows (the site's own hosts or its
 * confirmed mirror). The answer is a kind and numbers, never the site's text nor the passkey.
 */
import type { Shared } from '../context';
import { askPiecesHash, type PiecesHashAnswer } from '../../utils/pieces-hash/nexus-api';
import type { Handlers } from '../../utils/messaging/protocol';
import { originAllowed } from '../../utils/permission-pattern';
import { piecesHashPathSchema, type Settings, type SiteOverride } from '../../utils/settings';
import { piecesHashAddress, type CatalogSite } from '../../utils/sites';
import { siteForServiceSid } from '../../utils/sites/pinning';
import type { piecesHashMessages, PiecesHashTestRequest, PiecesHashTestView } from './pieces-hash.messages';

/** NexusPHP's passkey (what askPiecesHash sends): 32 letters and digits. */
const NEXUS_PASSKEY = /^[A-Za-z0-9]{32}$/;

export interface SiteTestDeps {
  settings(): Promise<Settings>;
  /** The catalog's site the service's list means by this sid (the catalog's own sid without a list). */
  siteFor(sid: number): Promise<CatalogSite | undefined>;
  /** Whether the browser lets the extension reach this origin (host permission). */
  originAllowed(origin: string): Promise<boolean>;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** One random lowercase 40-hex value: a pieces hash no torrent of the user's has. */
function randomPiecesHash(): string {
  return [...crypto.getRandomValues(new Uint8Array(20))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function viewOf(answer: PiecesHashAnswer): PiecesHashTestView {
  switch (answer.kind) {
    case 'found':
      return { kind: 'works' };
    case 'too-many':
      // One hash cannot be too many: the site's `ret: -1` is a refusal of its own.
      return { kind: 'refused', ret: -1 };
    case 'wrong-passkey':
      return { kind: 'wrong-passkey' };
    case 'rate-limited':
      return answer.retryAfterSeconds === undefined ? { kind: 'rate-limited' } : { kind: 'rate-limited', retryAfterSeconds: answer.retryAfterSeconds };
    case 'no-api':
      return { kind: 'no-api' };
    case 'refused':
      return { kind: 'refused', ret: answer.ret };
    case 'site-error':
      return { kind: 'site-error', status: answer.status };
    case 'unreachable':
      return { kind: 'unreachable' };
    case 'bad-request':
      return answer.why === 'passkey' ? { kind: 'bad-passkey' } : { kind: 'bad-path' };
  }
}

/** Why a site cannot be asked by pieces hash now, before anything is sent (the Test's words say each). */
export type SiteNotAskable = Extract<PiecesHashTestView, { kind: 'not-nexusphp' | 'bad-path' | 'other-host' | 'needs-passkey' | 'bad-passkey' | 'no-permission' }>;

/**
 * Where and with what a site is asked by pieces hash, the one way the Test and a sync decide it:
 * the path (typed, else saved, else the definition's) on the site's own address (the override as
 * the options page shows it, else the saved one), the passkey (typed, else saved) in NexusPHP's
 * shape, and the browser's permission for that origin; or why not. A typed override moves the
 * address by the same rule as a saved one (utils/sites/pieces-hash-address.ts): onto the site's own
 * hosts, or onto a mirror only with the user's yes for exactly that host.
 */
export async function askableSite(
  settings: Settings,
  sid: number,
  entry: CatalogSite | undefined,
  typed: { path?: string; passkey?: string; override?: SiteOverride | null },
  originAllowed: (origin: string) => Promise<boolean>,
): Promise<{ endpoint: string; passkey: string } | SiteNotAskable> {
  const key = String(sid);
  if (!entry) return { kind: 'not-nexusphp' };
  const path = piecesHashPathSchema.safeParse(typed.path ?? settings.piecesHashSites[key]?.path ?? '');
  if (!path.success) return { kind: 'bad-path' };
  const override = typed.override === undefined ? settings.siteOverrides[key] : (typed.override ?? undefined);
  const address = piecesHashAddress(entry, path.data, override);
  if ('problem' in address) return address.problem === 'other-host' ? { kind: 'other-host', host: address.host } : { kind: address.problem };
  const passkey = (typed.passkey ?? settings.sitePasskeys[key] ?? '').trim();
  if (!passkey) return { kind: 'needs-passkey' };
  if (!NEXUS_PASSKEY.test(passkey)) return { kind: 'bad-passkey' };
  const origin = new URL(address.endpoint).origin;
  if (!(await originAllowed(origin).catch(() => false))) return { kind: 'no-permission', origin };
  return { endpoint: address.endpoint, passkey };
}

export async function testPiecesHashSite(deps: SiteTestDeps, request: PiecesHashTestRequest): Promise<PiecesHashTestView> {
  const site = await askableSite(await deps.settings(), request.sid, await deps.siteFor(request.sid), request, deps.originAllowed);
  if ('kind' in site) return site;
  return viewOf(await askPiecesHash({ endpoint: site.endpoint, passkey: site.passkey, hashes: [randomPiecesHash()], fetch: deps.fetch, timeoutMs: deps.timeoutMs }));
}

/**
 * The background's handler of 'pieces:test' (registered in one line in entrypoints/background/app.ts
 * until a pieces-hash feature holds it). `fetch`: the one sites are reached with (tests: the router).
 */
export function piecesHashTestHandlers(shared: Shared, options: { fetch?: typeof fetch; timeoutMs?: number } = {}): { handlers: Handlers<typeof piecesHashMessages> } {
  const deps: SiteTestDeps = {
    settings: () => shared.settings.get(),
    // The list as stored (no call to the service for a test): the site the user sees under this sid.
    siteFor: async (sid) => siteForServiceSid(sid, await shared.directory.sites.peek((await shared.settings.get()).baseUrl)),
    originAllowed,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  };
  return { handlers: { 'pieces:test': (request) => testPiecesHashSite(deps, request) } };
}
