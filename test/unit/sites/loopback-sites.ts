/**
 * The search test sites (test/e2e/support/*-site.ts) over real HTTP on loopback, for their unit
 * tests: one e2e router for the file (started before its tests, closed after), a fetch through it,
 * and each site on a host of its own with a test clock it reads (`clock.now` moves it).
 */
import { afterAll, beforeAll } from 'vitest';
import { proxiedFetch } from '../../clients/proxy-fetch';
import { startRouter, type HostHandler, type Router } from '../../e2e/harness/host-router.ts';

/** What a test site gives the router: its host and its handler. */
interface RoutedSite {
  readonly host: string;
  readonly handle: HostHandler;
}

export function loopbackSites(): {
  fetch: typeof globalThis.fetch;
  site<S extends RoutedSite>(hostPrefix: string, make: (host: string, now: () => number) => S): { site: S; clock: { now: number } };
} {
  let router: Router;
  let through: typeof globalThis.fetch;
  beforeAll(async () => {
    router = await startRouter();
    through = proxiedFetch(router.port);
  });
  afterAll(async () => {
    await router.close();
  });
  let hosts = 0;
  return {
    fetch: ((input, init) => through(input, init)) as typeof globalThis.fetch,
    site(hostPrefix, make) {
      const clock = { now: 1_760_000_000_000 };
      const made = make(`${hostPrefix}-${++hosts}.test`, () => clock.now);
      router.setHost(made.host, made.handle);
      return { site: made, clock };
    },
  };
}
