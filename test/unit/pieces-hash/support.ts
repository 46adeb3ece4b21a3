/**
 * The set-up the pieces-hash unit test files share: the e2e router as the browser's proxy, test
 * NexusPHP sites on it (test/e2e/support/pieces-hash-site.ts), every console line captured, and after
 * all the file's tests the check that no passkey any of its sites held is in anything the tests saw
 * (the sites' error bodies echo the passkey: it must never reach a result, a view or the console).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { startRouter, type Router } from '../../e2e/harness/index.ts';
import { PiecesHashSite, type PiecesHashSiteOptions } from '../../e2e/support/pieces-hash-site';
import { proxiedFetch } from '../../clients/proxy-fetch';

export interface PiecesHashTestSites {
  readonly router: Router;
  readonly fetch: typeof globalThis.fetch;
  /** A test site on `host` (the file's defaults under `options`), answering on the router. */
  site(host: string, options?: PiecesHashSiteOptions): PiecesHashSite;
  /** What the tests got back (results, views, batches): no passkey may be in any. */
  readonly seen: unknown[];
  /** Every passkey any site of the file held, and any a test adds (a wrong one it typed): in nothing seen. */
  readonly passkeys: string[];
}

export interface PiecesHashTestSitesOptions {
  /** Options every site of the file gets (a test clock, say). */
  siteDefaults?: () => PiecesHashSiteOptions;
  /** Each test starts with no site and no request on the router (else sites stay for the file). */
  apartPerTest?: boolean;
  /** The file saw more than this many things (a check that the passkey check had something to read). */
  moreSeenThan: number;
}

/** Registers the file's hooks; the sites and the router are ready inside its tests. */
export function usePiecesHashSites(options: PiecesHashTestSitesOptions): PiecesHashTestSites {
  let router: Router | undefined;
  let fetch: typeof globalThis.fetch | undefined;
  const live: PiecesHashSite[] = [];
  const passkeys: string[] = [];
  const seen: unknown[] = [];
  const consoleLines: string[] = [];

  beforeAll(async () => {
    router = await startRouter();
    fetch = proxiedFetch(router.port);
  });

  beforeEach(() => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleLines.push(args.map(String).join(' ')));
    }
  });

  afterEach(() => {
    vi.restoreAllMocks();
    if (!options.apartPerTest) return;
    for (const one of live.splice(0)) {
      one.release();
      router?.removeHost(one.host);
    }
    router?.clear();
  });

  afterAll(async () => {
    for (const one of live.splice(0)) one.release();
    await router?.close();
    const text = JSON.stringify(seen, (_, value: unknown) => (value instanceof Map ? [...value] : value)) + consoleLines.join('\n');
    expect(seen.length).toBeGreaterThan(options.moreSeenThan);
    for (const passkey of passkeys) expect(text).not.toContain(passkey);
  });

  return {
    get router() {
      if (!router) throw new Error('the router starts in beforeAll');
      return router;
    },
    get fetch() {
      if (!fetch) throw new Error('the router starts in beforeAll');
      return fetch;
    },
    site(host, siteOptions = {}) {
      const made = new PiecesHashSite(host, { ...options.siteDefaults?.(), ...siteOptions });
      live.push(made);
      passkeys.push(made.passkey);
      this.router.setHost(host, made.handle);
      return made;
    },
    seen,
    passkeys,
  };
}
