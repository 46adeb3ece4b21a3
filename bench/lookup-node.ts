/**
 * The real Lookup and AnswerCache (utils/lookup) in Node, with WXT's fake browser standing in for
 * the extension APIs (storage.local is then an in-memory map in this same heap). Run in a process of
 * its own, so the heap holds nothing else and global.gc exists:
 *
 *   node --expose-gc --import tsx bench/lookup-node.ts memory   → JSON on the last line
 *   node --expose-gc --import tsx bench/lookup-node.ts flood first|steady|single
 *
 * memory: 10,000 answers cached; heap growth (process.memoryUsage().heapUsed after two full GCs) of
 *   the Lookup's in-memory front and of the stored copy, and the time to answer a page's hashes (1
 *   and 100) among them, from the in-memory front and from storage (a fresh Lookup, as after the
 *   service worker restarted). Fake storage is a Map in this process: the "from storage" times
 *   leave out the IPC and disk of a real browser (bench/page-views.ts measures that in Chromium).
 * flood: 10,000 distinct hashes (every hash the reference data knows, the rest unknown) against the
 *   reference service with its default rate limit (60 requests/min/token) and the background's own
 *   pacing (LOOKUP_DEFAULTS: 200 ms between calls, at most 55 a minute). 'first' and 'steady': as
 *   100 list pages of 100 rows read at once (100 tabs' readings reaching the background), on first
 *   use and once a site report is held; 'single': all in one call. Counts the requests per path, the
 *   HTTP 429s and the hashes left unanswered.
 */
import { fakeBrowser } from './fake-browser';
import { pathToFileURL } from 'node:url';
import { heapUsedAfterGc, median, type Figure } from './figures';
import { grantOrigin, installPermissions } from '../test/unit/support/permissions';

installPermissions();

/** The background's minimum gap between two calls to the service (entrypoints/background/index.ts). */

export const CACHED = 10_000;
export const FLOOD_HASHES = 10_000;
export const FLOOD_PAGE_ROWS = 100;

export interface NodeBenchOutput {
  figures: Figure[];
  report: string[];
  problems: string[];
  details: unknown;
}

/** Median per-call time (µs) of `call(i)` over `rounds` calls, after a warm-up. */
async function timeCalls(rounds: number, call: (round: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, rounds); i++) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint();
    await call(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return median(samples);
}

async function memory(): Promise<NodeBenchOutput> {
  const { Lookup } = await import('../utils/lookup/lookup');
  const { DEFAULT_SETTINGS } = await import('../utils/settings');
  const { answersFor } = await import('./seed-cache.page');
  const settings = { ...DEFAULT_SETTINGS, baseUrl: 'http://127.0.0.1:9', token: 'unused' };
  const make = () =>
    new Lookup({
      settings: async () => settings,
      sitesToReport: async () => {
        throw new Error('the memory benchmark must not reach the service');
      },
    });
  const sids = Array.from({ length: 116 }, (_, index) => index + 1);
  let answers: Map<string, { candidates: unknown[] }> | undefined = answersFor({ include: [], total: CACHED, sids, seed: 7 }, Date.now());
  const hashes = [...answers.keys()];
  let candidates = 0;
  for (const answer of answers.values()) candidates += answer.candidates.length;

  // The answers exist before they are cached: put() makes its front hold these very objects (its
  // Map replacing ours), so what put() adds is the stored copy.
  const base = heapUsedAfterGc();
  let first: InstanceType<typeof Lookup> | undefined = make();
  await first.cache.put(answers as never);
  answers = undefined;
  const withBoth = heapUsedAfterGc();
  first = undefined;
  const storageOnly = heapUsedAfterGc();

  // A fresh Lookup (service worker restarted): answers come from storage, then from its front.
  const fresh = () => make();
  let cold = fresh();
  const pick = (round: number, size: number) => hashes.slice((round * size) % (CACHED - size), ((round * size) % (CACHED - size)) + size);
  const coldOne = await timeCalls(200, async (round) => {
    if (round % 50 === 0) cold = fresh(); // keep its front far from full
    return cold.answers(pick(round, 1));
  });
  const coldHundred = await timeCalls(60, async (round) => {
    cold = fresh();
    return cold.answers(pick(round, 100));
  });
  const warm = fresh();
  await warm.answers(hashes);
  const withFront = heapUsedAfterGc();
  const warmOne = await timeCalls(2000, (round) => warm.answers(pick(round * 7, 1)));
  const warmHundred = await timeCalls(500, (round) => warm.answers(pick(round * 3, 100)));
  const check = await warm.answers(hashes.slice(0, 100));
  const problems = check.fromCache && check.answers.size === 100 ? [] : ['the warm Lookup did not answer 100 cached hashes from its cache'];

  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
  const figures: Figure[] = [
    {
      id: 'cache.node.frontHeap',
      bench: 'cache',
      label: `Lookup's in-memory cache front, ${CACHED.toLocaleString('en')} answers (${candidates.toLocaleString('en')} candidates): heap growth`,
      value: mb(withFront - storageOnly),
      unit: 'MB',
      note: 'heapUsed after GC, fresh Lookup before and after answering all 10,000 from storage',
    },
    {
      id: 'cache.node.storedHeap',
      bench: 'cache',
      label: `the same answers as stored (fake storage.local in Node's heap)`,
      value: mb(withBoth - base),
      unit: 'MB',
    },
    { id: 'cache.node.one.front', bench: 'cache', label: `answer 1 hash among ${CACHED.toLocaleString('en')}, from the in-memory front (median)`, value: Math.round(warmOne * 10) / 10, unit: 'µs' },
    { id: 'cache.node.hundred.front', bench: 'cache', label: `answer 100 hashes among ${CACHED.toLocaleString('en')}, from the in-memory front (median)`, value: Math.round(warmHundred * 10) / 10, unit: 'µs' },
    { id: 'cache.node.one.storage', bench: 'cache', label: `answer 1 hash among ${CACHED.toLocaleString('en')}, from storage (fake, in-process; median)`, value: Math.round(coldOne * 10) / 10, unit: 'µs' },
    { id: 'cache.node.hundred.storage', bench: 'cache', label: `answer 100 hashes among ${CACHED.toLocaleString('en')}, from storage (fake, in-process; median)`, value: Math.round(coldHundred * 10) / 10, unit: 'µs' },
  ];
  const report = [
    `cache in Node (real Lookup/AnswerCache, WXT fake browser storage): heapUsed after GC ${base} B with the answers made, ${withBoth} B once cached (front + storage), ${storageOnly} B storage only, ${withFront} B storage + a refilled front`,
  ];
  return { figures, report, problems, details: { base, withBoth, storageOnly, withFront, candidates, coldOne, coldHundred, warmOne, warmHundred } };
}

export type FloodScenario = 'first' | 'steady' | 'single';
export const FLOOD_SCENARIOS: readonly FloodScenario[] = ['first', 'steady', 'single'];

const SCENARIO_LABELS: Record<FloodScenario, string> = {
  first: `${FLOOD_HASHES.toLocaleString('en')} hashes as ${FLOOD_HASHES / FLOOD_PAGE_ROWS} list pages of ${FLOOD_PAGE_ROWS} at once, first use (no site report yet)`,
  steady: `${FLOOD_HASHES.toLocaleString('en')} hashes as ${FLOOD_HASHES / FLOOD_PAGE_ROWS} list pages of ${FLOOD_PAGE_ROWS} at once, site report already held`,
  single: `${FLOOD_HASHES.toLocaleString('en')} hashes in one call (first use)`,
};

interface FloodRun {
  requests: Record<string, number>;
  lookups: number;
  http429: number;
  wallMs: number;
  answered: number;
  errors: string[];
}

/**
 * One scenario against a reference service of its own (the rate limit is per token and service):
 * the scenarios run in separate processes, at the same time.
 */
async function flood(scenario: FloodScenario): Promise<NodeBenchOutput> {
  const { Lookup, LOOKUP_DEFAULTS } = await import('../utils/lookup/lookup');
  const { getSites } = await import('../utils/iyuu/operations');
  const { DEFAULT_SETTINGS } = await import('../utils/settings');
  const { DEMO_TOKEN, startReferenceService } = await import('../test/service/server');
  const { random, randomHash } = await import('../test/fixtures/pages/generate');

  const service = await startReferenceService();
  try {
    const known = [...new Set(service.data.torrents.flatMap((group) => group.members.map((member) => member.info_hash)))];
    const next = random(2025);
    const all = new Set(known);
    while (all.size < FLOOD_HASHES) all.add(randomHash(next));
    // Known and unknown hashes mixed through the pages, as on a real list.
    const hashes = [...all];
    for (let i = hashes.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [hashes[i], hashes[j]] = [hashes[j]!, hashes[i]!];
    }
    const settings = { ...DEFAULT_SETTINGS, baseUrl: service.url, token: DEMO_TOKEN };
    // As if saved in the options page, which grants a custom address its origin.
    grantOrigin(service.url);
    let http429 = 0;
    const countingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 429) http429++;
      return response;
    };
    let sites: Promise<number[]> | undefined;
    const lookup: InstanceType<typeof Lookup> = new Lookup({
      settings: async () => settings,
      // As the background does with no sites picked: every listed site, the list fetched once.
      sitesToReport: () => (sites ??= lookup.call((config) => getSites(config), settings).then((list) => list.sites.map((site) => site.id))),
      fetch: countingFetch,
      // Paced exactly as the background paces it.
      ...LOOKUP_DEFAULTS,
    });
    if (scenario === 'steady') {
      // Earlier use: one page looked up, so the site list and sid_sha1 are known; then a minute
      // passes and the service's rate-limit window starts afresh.
      await lookup.answers([randomHash(random(1))]);
      service.control.resetRateLimits();
    }
    const firstRequest = service.requests.length;
    http429 = 0;

    const started = Date.now();
    const errors = new Map<string, number>();
    let answered = 0;
    const asked = scenario === 'single' ? [hashes] : Array.from({ length: FLOOD_HASHES / FLOOD_PAGE_ROWS }, (_, page) => hashes.slice(page * FLOOD_PAGE_ROWS, (page + 1) * FLOOD_PAGE_ROWS));
    for (const outcome of await Promise.allSettled(asked.map((page) => lookup.answers(page)))) {
      if (outcome.status === 'fulfilled') answered += outcome.value.answers.size;
      else {
        const reason = String((outcome.reason as { kind?: string })?.kind ?? outcome.reason);
        errors.set(reason, (errors.get(reason) ?? 0) + 1);
      }
    }
    const wallMs = Date.now() - started;
    const requests: Record<string, number> = {};
    for (const request of service.requests.slice(firstRequest)) requests[`${request.method} ${request.path}`] = (requests[`${request.method} ${request.path}`] ?? 0) + 1;
    const result: FloodRun = {
      requests,
      lookups: requests['POST /reseed/index/index'] ?? 0,
      http429,
      wallMs,
      answered,
      errors: [...errors].map(([reason, count]) => `${count} call(s) failed: ${reason}`),
    };

    const allRequests = Object.values(requests).reduce((sum, count) => sum + count, 0);
    const budgetRequests = Math.ceil(FLOOD_HASHES / 200);
    const id = `flood.${scenario}`;
    const figures: Figure[] = [
      {
        id: `${id}.lookups`,
        bench: 'flood',
        label: `${SCENARIO_LABELS[scenario]}: lookup requests`,
        value: result.lookups,
        unit: 'requests',
        budget: { op: '<=', limit: budgetRequests },
      },
      {
        id: `${id}.requests`,
        bench: 'flood',
        label: '  … service requests of any kind (incl. site list and report)',
        value: allRequests,
        unit: 'requests',
        budget: { op: '<=', limit: budgetRequests + (scenario === 'steady' ? 0 : 2) },
        note: JSON.stringify(requests),
      },
      ...(scenario === 'steady'
        ? []
        : [
            {
              id: `${id}.reports`,
              bench: 'flood',
              label: '  … site reports sent (reportExisting)',
              value: requests['POST /reseed/sites/reportExisting'] ?? 0,
              unit: 'requests' as const,
              budget: { op: '<=' as const, limit: 1 },
            },
          ]),
      { id: `${id}.429`, bench: 'flood', label: '  … HTTP 429 answers', value: result.http429, unit: 'count', budget: { op: '<=', limit: 0 } },
      { id: `${id}.unanswered`, bench: 'flood', label: '  … hashes left without an answer', value: FLOOD_HASHES - answered, unit: 'count', budget: { op: '<=', limit: 0 } },
      { id: `${id}.wall`, bench: 'flood', label: '  … wall time', value: Math.round(wallMs / 10) / 100, unit: 's' },
    ];
    const report = [
      `  ${SCENARIO_LABELS[scenario]}: ${JSON.stringify(requests)}; ${http429} × HTTP 429; ${answered} answered` +
        `${result.errors.length ? ` (${result.errors.join('; ')})` : ''}; ${(wallMs / 1000).toFixed(2)} s`,
    ];
    return { figures, report, problems: [], details: { knownHashes: known.length, ...result } };
  } finally {
    await service.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [which, scenario] = process.argv.slice(2);
  const output =
    which === 'memory' ? await memory() : which === 'flood' && FLOOD_SCENARIOS.includes(scenario as FloodScenario) ? await flood(scenario as FloodScenario) : undefined;
  if (!output) {
    console.error(`usage: node --expose-gc --import tsx bench/lookup-node.ts memory | flood ${FLOOD_SCENARIOS.join('|')}`);
    process.exit(2);
  }
  // The last line is the result for bench/run.ts; everything else printed is for people.
  process.stdout.write(`\n${JSON.stringify(output)}\n`);
  process.exit(0);
}
