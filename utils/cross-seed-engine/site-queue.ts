/**
 * Fetching from a candidate's site on the user's click, with their session there: one request at
 * a time per site, and at least SITE_GAP_MS from the end of one to the start of the next on one
 * site, across every tab and click (a queue: a second click waits, it is not refused), through utils/torrent/fetch-torrent.ts (no
 * redirect followed, nothing read past its cap). What came back is told apart in the user's terms:
 * a .torrent, the site's login page, a download limit, a refusal, no answer.
 *
 * Private trackers punish bulk .torrent downloads (one froze a user for 4 hours after 60 in an
 * hour): the pace is per site and shared by the whole background (`sitePace`).
 */
import { readCapped } from '../read-capped';
import { downloadTorrent } from '../torrent/fetch-torrent';

/** At least this long between the end of one request to a site and the start of the next. */
export const SITE_GAP_MS = 1000;
/** A site that has not answered by then is taken as not answering (the queue moves on). */
export const SITE_TIMEOUT_MS = 30_000;
/** A details page is read no further than this. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PaceClock = {
  // Monotonic: a clock change cannot shorten the gap.
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A queue per site. `run` starts a task once the previous task for that site has finished and at
 * least `gapMs` has passed since it finished: measured from the end, the site sees at least the
 * gap between two requests arriving, however long each took. A failed task does not break the queue.
 * In the MV3 service worker this lives in memory: the worker only stops after ~30 s idle, far
 * longer than the gap, so losing it with the worker loses nothing.
 */
export class SitePace {
  private readonly lastEnd = new Map<string, number>();
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    readonly gapMs = SITE_GAP_MS,
    private readonly clock: PaceClock = realClock,
  ) {}

  /** How long a task for `site` would wait if asked now (ignoring tasks still queued or running). */
  readyIn(site: string): number {
    const last = this.lastEnd.get(site);
    return last === undefined ? 0 : Math.max(0, last + this.gapMs - this.clock.now());
  }

  run<T>(site: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(site) ?? Promise.resolve();
    const turn = previous.then(async () => {
      // Re-checked after each sleep: a timer may fire a little early.
      for (let wait = this.readyIn(site); wait > 0; wait = this.readyIn(site)) await this.clock.sleep(wait);
      try {
        return await task();
      } finally {
        this.lastEnd.set(site, this.clock.now());
      }
    });
    const tail = turn.catch(() => undefined);
    this.tails.set(site, tail);
    void tail.then(() => {
      if (this.tails.get(site) === tail) this.tails.delete(site);
    });
    return turn;
  }
}

/** The background's one pace, shared by every tab and click. */
export const sitePace = new SitePace();

export type SiteProblem =
  /** The site answered with its login page, or sent us elsewhere (NexusPHP redirects to login.php). */
  /** `host`: set when the address asked was a mirror the user set for the site, not its own host. */
  | { kind: 'not-logged-in'; evidence: 'login-page' | 'redirect'; host?: string }
  /** The site limits downloads now (HTTP 429, or a page saying so). */
  | { kind: 'site-limit'; status?: number; retryAfterSeconds?: number; siteWords?: string }
  /** The site refused (an HTTP error, or a page that is neither a torrent nor a login form). */
  | { kind: 'site-refused'; status?: number; siteWords?: string }
  /**
   * The site showed a page the user must read and confirm before it gives .torrent files: NexusPHP's
   * first-download notice, its client or ratio warning (download.php redirects a logged-in user to
   * downloadnotice.php until one download is confirmed by hand), or such a page shown in place.
   */
  | { kind: 'site-notice'; evidence: 'redirect' | 'page'; siteWords?: string }
  /** The site (or its CDN: Cloudflare, DDoS-Guard) answered with a browser check instead of the file. */
  | { kind: 'site-challenge'; status?: number }
  /** No answer at all (offline, DNS, blocked, or the answer was unreadable: no host permission). */
  | { kind: 'site-unreachable' }
  /** Far more than a .torrent file could be. */
  | { kind: 'too-large' };

export type SiteAnswer = { ok: true; bytes: Uint8Array } | { ok: false; problem: SiteProblem };

export interface SiteRequest {
  /** The queue this request waits in (one per site: `sid:N`). */
  siteKey: string;
  /** The fetch carrying the user's session there (the browser's own in the background). */
  fetch?: typeof fetch;
  pace?: SitePace;
  signal?: AbortSignal;
  /** Default SITE_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** A login form: a password field, or a form posting to a login script. */
const LOGIN_FORM = /<input\b[^>]*\btype\s*=\s*["']?password\b|<form\b[^>]*\baction\s*=\s*["']?[^"'>\s]*(?:take)?login\b/i;
/** A page about a download limit, in the words Chinese trackers and others use. */
const LIMIT_WORDS =
  /(?:下载|下載)[^<]{0,12}(?:次数|次數|数量|數量|频率|頻率|过快|過快|太快|上限|限制|过于频繁|過於頻繁)|(?:超过|超過|达到|達到)[^<]{0,12}(?:下载|下載)|\bdownload(?:s|ing)?\b[^<]{0,30}\b(?:limit|too (?:many|fast|frequent))|too many (?:downloads|requests)|rate.?limit/i;

/** A notice the user must confirm before downloading: NexusPHP's downloadnotice.php (its "letdown" link), in the words sites use. */
const NOTICE_PAGE = /downloadnotice\.php|[?&](?:amp;)?letdown=1|name=["']?hidenotice\b|(?:第一次|首次)(?:在本站)?下[载載]|first[- ]time download|download notice/i;
/** A browser check in place of the page: Cloudflare's, DDoS-Guard's, and the words such pages show. */
const CHALLENGE_PAGE = /\/cdn-cgi\/challenge-platform\/h\/|_cf_chl_opt|cf-browser-verification|<title>\s*(?:just a moment|attention required|ddos-guard)|checking your browser before accessing|正在(?:检查|檢查)(?:您的|你的)?浏览器/i;

/** Whether an HTTP error's headers are a CDN's browser check. */
function isChallenge(status: number | undefined, headers: Headers | undefined): boolean {
  if (!headers) return false;
  if (headers.get('cf-mitigated')?.toLowerCase() === 'challenge') return true;
  return (status === 403 || status === 503) && /^(?:cloudflare|ddos-guard)$/i.test(headers.get('server')?.trim() ?? '');
}

/** An API's own words for its request limit (M-Team: "請求過於頻繁"). */
const API_LIMIT_WORDS = /(?:请求|請求|访问|訪問)[^<]{0,6}(?:过于|過於|太|过|過)?(?:频繁|頻繁)|too many requests|rate.?limit/i;

const decoder = new TextDecoder('utf-8');

/** The site's own words on a page: its message cell, heading or title, as plain text (never rendered as HTML). */
export function siteWordsOf(html: string): string | undefined {
  const cleaned = html.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  const pick =
    /<td\b[^>]*class\s*=\s*["']?text\b[^>]*>([\s\S]*?)<\/td>/i.exec(cleaned)?.[1] ??
    /<h[12]\b[^>]*>([\s\S]*?)<\/h[12]>/i.exec(cleaned)?.[1] ??
    /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(cleaned)?.[1] ??
    cleaned;
  const text = pick
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/\s+/g, ' ')
    .trim();
  return text ? text.slice(0, 200) : undefined;
}

/** What a page (not a .torrent) from a download address means. */
export function problemOfPage(text: string, status?: number): SiteProblem {
  const head = text.slice(0, 512 * 1024);
  if (LOGIN_FORM.test(head)) return { kind: 'not-logged-in', evidence: 'login-page' };
  if (CHALLENGE_PAGE.test(head)) return status === undefined ? { kind: 'site-challenge' } : { kind: 'site-challenge', status };
  const siteWords = siteWordsOf(head);
  if (NOTICE_PAGE.test(head)) return siteWords ? { kind: 'site-notice', evidence: 'page', siteWords } : { kind: 'site-notice', evidence: 'page' };
  if (LIMIT_WORDS.test(head)) return siteWords ? { kind: 'site-limit', status, siteWords } : { kind: 'site-limit', status };
  return siteWords ? { kind: 'site-refused', status, siteWords } : { kind: 'site-refused', status };
}

/** Whether bytes could be a .torrent (a bencoded dictionary), before the hash reader says for sure. */
function looksLikeTorrent(bytes: Uint8Array): boolean {
  return bytes.length > 1 && bytes[0] === 0x64 /* d */ && /^\d$/.test(String.fromCharCode(bytes[1]!));
}

async function paced(url: string, request: SiteRequest, maxBytes?: number) {
  const pace = request.pace ?? sitePace;
  return pace.run(request.siteKey, () => {
    const timeout = AbortSignal.timeout(request.timeoutMs ?? SITE_TIMEOUT_MS);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    return downloadTorrent(new URL(url), { fetch: request.fetch, maxBytes, signal });
  });
}

function problemOfFailure(download: { problem: 'redirected' | 'too-large' | 'http-status' | 'network'; status?: number; retryAfterSeconds?: number; headers?: Headers }): SiteProblem {
  switch (download.problem) {
    case 'redirected':
      // Where it leads, when the fetch shows it (a browser's manual redirect does not: the caller asks the site once more).
      if (NOTICE_PAGE.test(download.headers?.get('location') ?? '')) return { kind: 'site-notice', evidence: 'redirect' };
      return { kind: 'not-logged-in', evidence: 'redirect' };
    case 'too-large':
      return { kind: 'too-large' };
    case 'network':
      return { kind: 'site-unreachable' };
    case 'http-status':
      if (isChallenge(download.status, download.headers)) return { kind: 'site-challenge', status: download.status };
      if (download.status === 429 || (download.status === 503 && download.retryAfterSeconds !== undefined)) {
        return download.retryAfterSeconds === undefined
          ? { kind: 'site-limit', status: download.status }
          : { kind: 'site-limit', status: download.status, retryAfterSeconds: download.retryAfterSeconds };
      }
      return { kind: 'site-refused', status: download.status };
  }
}

/** Downloads one .torrent (on the click only): its bytes, or what the site did instead. */
export async function downloadFromSite(url: string, request: SiteRequest): Promise<SiteAnswer> {
  const download = await paced(url, request);
  if ('problem' in download) return { ok: false, problem: problemOfFailure(download) };
  if (looksLikeTorrent(download.bytes)) return { ok: true, bytes: download.bytes };
  return { ok: false, problem: problemOfPage(decoder.decode(download.bytes.subarray(0, 512 * 1024)), 200) };
}

/** Reads a details page (for the download link it shows): its text, or what the site did instead. */
export async function readSitePage(url: string, request: SiteRequest): Promise<{ ok: true; html: string } | { ok: false; problem: SiteProblem }> {
  const download = await paced(url, request, MAX_PAGE_BYTES);
  if ('problem' in download) return { ok: false, problem: problemOfFailure(download) };
  return { ok: true, html: decoder.decode(download.bytes) };
}

/** The most an API's answer for one download address may be. */
export const MAX_API_ANSWER_BYTES = 64 * 1024;

/** How to ask a site's API for one torrent's download address (a site's `apiToken` rule, with the user's key). */
export interface ApiTokenRequest {
  url: string;
  keyHeader: string;
  key: string;
  idField: string;
  torrentId: number;
}

export type ApiTokenAnswer =
  /** `address`: what the API gave as the download address (not yet checked: `downloadAddressOf`). */
  | { ok: true; address: unknown }
  /** The API refused the key (HTTP 401 or 403). */
  | { ok: false; keyRefused: true; status: number }
  | { ok: false; keyRefused?: false; problem: SiteProblem };

const apiAnswerSchema = (value: unknown): { code?: unknown; message?: unknown; data?: unknown } | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/**
 * Asks a site's API for a torrent's download address (M-Team's genDlToken), in the site's queue:
 * POST, the torrent id as a form field, the user's key in its header and nowhere else, no cookies,
 * no redirect followed. The API answers `{ code, message, data }`: code 0 (or "0") and the address
 * in `data`; any other code is the site's refusal, in its own words.
 */
export async function askSiteApi(ask: ApiTokenRequest, request: SiteRequest): Promise<ApiTokenAnswer> {
  const pace = request.pace ?? sitePace;
  type Raw = { text: string } | { problem: 'network' | 'too-large' } | { problem: 'status'; status: number; retryAfterSeconds?: number };
  const answer = await pace.run(request.siteKey, async (): Promise<Raw> => {
    const timeout = AbortSignal.timeout(request.timeoutMs ?? SITE_TIMEOUT_MS);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const form = new FormData();
    form.set(ask.idField, String(ask.torrentId));
    let response: Response;
    try {
      response = await (request.fetch ?? fetch)(ask.url, {
        method: 'POST',
        body: form,
        headers: { [ask.keyHeader]: ask.key, accept: 'application/json' },
        credentials: 'omit',
        redirect: 'manual',
        cache: 'no-store',
        signal,
      });
    } catch {
      return { problem: 'network' };
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400) || !response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const retryAfter = /^\s*(\d{1,6})\s*$/.exec(response.headers.get('retry-after') ?? '');
      return retryAfter ? { problem: 'status', status: response.status, retryAfterSeconds: Number(retryAfter[1]) } : { problem: 'status', status: response.status };
    }
    try {
      const bytes = await readCapped(response, MAX_API_ANSWER_BYTES);
      return bytes ? { text: decoder.decode(bytes) } : { problem: 'too-large' };
    } catch {
      return { problem: 'network' };
    }
  });
  if ('text' in answer) {
    let body: ReturnType<typeof apiAnswerSchema>;
    try {
      body = apiAnswerSchema(JSON.parse(answer.text));
    } catch {
      body = undefined;
    }
    if (!body) return { ok: false, problem: problemOfPage(answer.text, 200) };
    if ((body.code === 0 || body.code === '0') && body.data !== undefined && body.data !== null) return { ok: true, address: body.data };
    const siteWords = typeof body.message === 'string' && body.message.trim() ? body.message.trim().slice(0, 200) : undefined;
    // M-Team says its limit in a 200 answer ("請求過於頻繁", code "1"): a limit, not a refusal of this torrent.
    if (siteWords && (API_LIMIT_WORDS.test(siteWords) || LIMIT_WORDS.test(siteWords))) return { ok: false, problem: { kind: 'site-limit', status: 200, siteWords } };
    return { ok: false, problem: siteWords ? { kind: 'site-refused', status: 200, siteWords } : { kind: 'site-refused', status: 200 } };
  }
  switch (answer.problem) {
    case 'network':
      return { ok: false, problem: { kind: 'site-unreachable' } };
    case 'too-large':
      return { ok: false, problem: { kind: 'too-large' } };
    case 'status':
      if (answer.status === 401 || answer.status === 403) return { ok: false, keyRefused: true, status: answer.status };
      if (answer.status === 0 || (answer.status >= 300 && answer.status < 400)) return { ok: false, problem: { kind: 'site-refused', status: answer.status } };
      return { ok: false, problem: problemOfFailure({ problem: 'http-status', status: answer.status, retryAfterSeconds: answer.retryAfterSeconds }) };
  }
}
