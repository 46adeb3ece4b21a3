/** The command line of `npm run bench` (kept apart from run.ts so it is tested without browsers). */

export const BENCHES = ['size', 'extraction', 'pageviews', 'pictures', 'cache', 'flood', 'client', 'index', 'indexbrowser', 'indexfull', 'indexmulti', 'indexmultifull', 'crossseed', 'checkend', 'job', 'pieces', 'rename'] as const;
export type BenchName = (typeof BENCHES)[number];
/** Benchmarks that measure the built extension. */
export const NEEDS_BUILD: readonly BenchName[] = ['size', 'pageviews', 'pictures', 'index', 'indexbrowser', 'indexfull', 'indexmulti', 'indexmultifull', 'crossseed'];
/** Run only when named: a 100,000-torrent first sync takes what it takes a user, about 17 minutes (indexmultifull: in each of two browsers). */
export const ON_REQUEST: readonly BenchName[] = ['indexfull', 'indexmultifull'];

export interface Options {
  only: BenchName[];
  /** false with --no-build: measure .output/ as it is. */
  build: boolean;
}

export function parseArgs(args: readonly string[]): Options {
  let only: BenchName[] = BENCHES.filter((name) => !ON_REQUEST.includes(name));
  let build = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--no-build') build = false;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
      const names = (value ?? '').split(',').map((name) => name.trim()).filter(Boolean);
      const unknown = names.filter((name) => !(BENCHES as readonly string[]).includes(name));
      if (!names.length || unknown.length) {
        throw new Error(`--only takes a comma-separated list of: ${BENCHES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
      }
      only = BENCHES.filter((name) => names.includes(name));
    } else throw new Error(`unknown argument ${arg} (use --only ${BENCHES.join(',')} and/or --no-build)`);
  }
  return { only, build };
}
