/**
 * The figures a benchmark reports, their budgets, the printed table and results.json. Kept apart
 * from the benchmarks so the verdict logic (what is OVER) is tested on its own.
 */

export type Unit = 'bytes' | 'ms' | 's' | 'requests' | 'count' | 'ratio' | 'MB' | 'µs';

export interface Budget {
  /** `<=`: the value may equal the limit; `<`: it must stay below. */
  op: '<=' | '<';
  limit: number;
}

export interface Figure {
  /** Stable key, e.g. `size.chrome-mv3.content`: results.json and the README cite it. */
  id: string;
  /** Which benchmark produced it (the --only name). */
  bench: string;
  label: string;
  value: number;
  unit: Unit;
  budget?: Budget;
  /** How it was measured, in a few words (printed under the table when asked for). */
  note?: string;
}

export type Verdict = 'OK' | 'OVER' | '';

export function verdict(figure: Pick<Figure, 'value' | 'budget'>): Verdict {
  const { budget, value } = figure;
  if (!budget) return '';
  if (!Number.isFinite(value)) return 'OVER';
  return (budget.op === '<=' ? value <= budget.limit : value < budget.limit) ? 'OK' : 'OVER';
}

function trim(value: number, digits: number): string {
  return value.toFixed(digits);
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case 'bytes':
      return value >= 1024 ? `${trim(value / 1024, 2)} KB (${Math.round(value)} B)` : `${Math.round(value)} B`;
    case 'ms':
      return `${trim(value, value < 10 ? 3 : 1)} ms`;
    case 's':
      return `${trim(value, 2)} s`;
    case 'µs':
      return `${trim(value, 1)} µs`;
    case 'MB':
      return `${trim(value, 2)} MB`;
    case 'ratio':
      return `${trim(value, value < 10 ? 1 : 0)}×`;
    case 'requests':
    case 'count':
      return Number.isInteger(value) ? String(value) : trim(value, 1);
  }
}

export function formatBudget(budget: Budget | undefined, unit: Unit): string {
  if (!budget) return '';
  // Budgets are round numbers: print them as such (20 KB, 2 ms), not as measured values.
  const limit =
    unit === 'bytes' ? `${trim(budget.limit / 1024, 0)} KB` : Number.isInteger(budget.limit) && unit !== 'ratio' ? `${budget.limit}${unit === 'requests' || unit === 'count' ? '' : ` ${unit}`}` : formatValue(budget.limit, unit);
  return `${budget.op === '<=' ? '≤' : '<'} ${limit}`;
}

/** A plain-text table: figure, value, budget, verdict (and the previous run's value when known). */
export function formatTable(figures: readonly Figure[], previous?: ReadonlyMap<string, number>): string {
  const header = ['figure', 'value', 'budget', '', ...(previous ? ['last run'] : [])];
  const rows = figures.map((figure) => {
    const before = previous?.get(figure.id);
    return [
      figure.label,
      formatValue(figure.value, figure.unit),
      formatBudget(figure.budget, figure.unit),
      verdict(figure),
      ...(previous ? [before === undefined ? '' : formatValue(before, figure.unit)] : []),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  let lastBench = '';
  const body: string[] = [];
  figures.forEach((figure, index) => {
    if (figure.bench !== lastBench) {
      body.push(`[${figure.bench}]`);
      lastBench = figure.bench;
    }
    body.push(line(rows[index]!));
  });
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body].join('\n');
}

/** One line per figure over budget, saying by how much. */
export function overBudget(figures: readonly Figure[]): string[] {
  return figures
    .filter((figure) => verdict(figure) === 'OVER')
    .map(
      (figure) =>
        `${figure.id} (${figure.label.replace(/^\s*…\s*/, '')}): ${formatValue(figure.value, figure.unit)}, budget ${formatBudget(figure.budget, figure.unit)}` +
        (figure.note ? ` (${figure.note})` : ''),
    );
}

export interface BenchRecord {
  /** ISO time the bench ran. */
  measuredAt: string;
  seconds: number;
  /** Set when the bench itself failed (its figures are then missing). */
  error?: string;
  /** Anything else worth keeping (file lists, breakdowns, raw samples). */
  details?: unknown;
}

export interface Results {
  generatedAt: string;
  environment: Record<string, string | number | undefined>;
  figures: (Figure & { verdict: Verdict })[];
  benches: Record<string, BenchRecord>;
}

/**
 * Merges a run into the previous results: the benches that ran replace theirs, the others are kept
 * as they were (a `--only` run must not erase the rest of results.json).
 */
export function mergeResults(previous: Results | undefined, run: { ran: string[]; figures: Figure[]; benches: Record<string, BenchRecord>; environment: Results['environment']; at: string }): Results {
  const ran = new Set(run.ran);
  const kept = (previous?.figures ?? []).filter((figure) => !ran.has(figure.bench));
  const fresh = run.figures.map((figure) => ({ ...figure, verdict: verdict(figure) }));
  const benches: Record<string, BenchRecord> = {};
  for (const [name, record] of Object.entries(previous?.benches ?? {})) if (!ran.has(name)) benches[name] = record;
  Object.assign(benches, run.benches);
  return { generatedAt: run.at, environment: run.environment, figures: [...kept, ...fresh], benches };
}

/** results.md: the same figures as Markdown tables, one per benchmark, for the README to cite. */
export function formatMarkdown(results: Results, order: readonly string[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').trim();
  const env = Object.entries(results.environment)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key} ${value}`)
    .join(' · ');
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts) from bench/results.json; do not edit by hand. ${env}.`,
  ];
  const benches = [...order.filter((name) => results.benches[name]), ...Object.keys(results.benches).filter((name) => !order.includes(name))];
  for (const bench of benches) {
    const record = results.benches[bench]!;
    lines.push('', `## ${bench}`, '', `Measured ${record.measuredAt} in ${record.seconds.toFixed(0)} s.${record.error ? ` **Not measured:** ${cell(record.error.split('\n')[0]!)}` : ''}`);
    const figures = results.figures.filter((figure) => figure.bench === bench);
    if (!figures.length) continue;
    lines.push('', '| figure | value | budget | | id |', '|---|---|---|---|---|');
    for (const figure of figures) {
      lines.push(`| ${cell(figure.label)} | ${cell(formatValue(figure.value, figure.unit))} | ${cell(formatBudget(figure.budget, figure.unit))} | ${figure.verdict} | \`${figure.id}\` |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** What one benchmark hands back to bench/run.ts. */
export interface BenchOutcome {
  figures: Figure[];
  /** Printed after the table (breakdowns, file lists, how it was measured). */
  report?: string[];
  details?: unknown;
  /** Checks that failed outside any budget (a wrong reading, a 429): they fail the run too. */
  problems?: string[];
}

/** The JS heap in use after two full collections (the process must run with --expose-gc). */
export function heapUsedAfterGc(): number {
  const collect = (globalThis as unknown as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with node --expose-gc');
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/** Median of a list (the lower middle for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * One client build's measurement, or — when it cannot start or measure — a failed check naming it
 * and a line in the report (undefined): the other builds are still measured.
 */
export async function measuredOrNoted<T>(buildLabel: string, measure: () => Promise<T>, outcome: { problems: string[]; report: string[] }): Promise<T | undefined> {
  try {
    return await measure();
  } catch (error) {
    outcome.problems.push(`${buildLabel}: not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    outcome.report.push(`  ${buildLabel}: not measured`);
    return undefined;
  }
}
