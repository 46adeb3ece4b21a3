/**
 * "Test" of one site's pieces-hash API (options page, per site): ONE request with ONE random pieces
 * hash, so nothing of the user's client leaves the browser, signed with the passkey the user typed
 * (or saved), to the address utils/sites/pieces-hash-address.ts allows (the site's own hosts or its
 * confirmed mirror). The answer is a kind and numbers, never the site's text nor the passkey.
 */
import { browser } from 'wxt/browser';
import type { Shared } from '../../entrypoints/background/context';
import { askPiecesHash, type PiecesHashAnswer } from '../../utils/pieces-hash/nexus-api';
import type { Handlers } from '../../utils/messaging/protocol';
import { permissionPattern } from '../../utils/permission-pattern';
import { piecesHashPathSchema, type Settings } from '../../utils/settings';
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

export async function testPiecesHashSite(deps: SiteTestDeps, request: PiecesHashTestRequest): Promise<PiecesHashTestView> {
  const settings = await deps.settings();
  const key = String(request.sid);
  const entry = await deps.siteFor(request.sid);
  if (!entry) return { kind: 'not-nexusphp' };

  const typedPath = request.path ?? settings.piecesHashSites[key]?.path;
  const path = piecesHashPathSchema.safeParse(typedPath ?? '');
  if (!path.success) return { kind: 'bad-path' };
  const address = piecesHashAddress(entry, path.data, settings.siteOverrides[key]);
  if ('problem' in address) return address.problem === 'other-host' ? { kind: 'other-host', host: address.host } : { kind: address.problem };

  const passkey = (request.passkey ?? settings.sitePasskeys[key] ?? '').trim();
  if (!passkey) return { kind: 'needs-passkey' };
  if (!NEXUS_PASSKEY.test(passkey)) return { kind: 'bad-passkey' };

  const origin = new URL(address.endpoint).origin;
  if (!(await deps.originAllowed(origin).catch(() => false))) return { kind: 'no-permission', origin };

  return viewOf(await askPiecesHash({ endpoint: address.endpoint, passkey, hashes: [randomPiecesHash()], fetch: deps.fetch, timeoutMs: deps.timeoutMs }));
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
    originAllowed: (origin) => browser.permissions.contains({ origins: [permissionPattern(origin)] }).catch(() => false),
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  };
  return { handlers: { 'pieces:test': (request) => testPiecesHashSite(deps, request) } };
}
