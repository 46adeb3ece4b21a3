/**
 * Renamed copies (issue 25, Bench): the cost of the rename step per copy on every client build the
 * tests start (test/clients/daemons.ts buildRows(): qBittorrent 4.5/5.1/5.3, Transmission 3.00/4.1,
 * Deluge 2.0/2.2), each daemon started once, in Node against the real daemon, through the product's
 * client (the adapter the engine calls, with the Origin qBittorrent's CSRF check wants).
 *
 * For each layout of test/clients/renamed-layouts.ts the build can express, COPIES copies (each its
 * own bytes): the source seeding from disk, the candidate added stopped at its save path and settled
 * as the engine's addRenamed() has it before renaming (listed by the client, not checking). Timed:
 * `client.rename(hash, plan.steps)` until it is answered — what addRenamed() awaits before it goes
 * on to the recheck (it does not wait for the client to list the new names). Beside it, unbudgeted:
 * from the same moment until `client.files(hash)` lists the names on disk (polled back to back), and
 * how often the names were not listed yet when the rename was answered (the recheck would then be
 * asked before the client shows the rename). A layout a build cannot express (Transmission renames
 * only a path's last element: a lone file into or out of a folder) is reported as refused.
 *
 *   node --import tsx bench/rename-node.ts [qbittorrent|transmission|deluge]   → JSON on the last line (bench/run.ts reads it)
 */
import { pathToFileURL } from 'node:url';
import type { ClientFile, TorrentClient } from '../utils/clients/client-types';
import { measuredOrNoted, median, type Figure } from './figures';
import { percentile } from './job-figures';
import type { NodeBenchOutput } from './lookup-node';
import { buildLabel } from './crossseed-browser';

/** Copies renamed per layout and build. */
export const COPIES = 12;
const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';

const round = (ms: number) => Math.round(ms * 100) / 100;
const pathsOf = (files: readonly ClientFile[]) => files.map((file) => file.path).join('\n');
const log = (line: string) => process.stderr.write(`${line}\n`);

interface LayoutRun {
  title: string;
  steps: number;
  /** Absent: the build cannot express the steps (nothing added). */
  renameMs?: number[];
  listedMs?: number[];
  /** Copies whose new names the client did not list yet when its rename was answered. */
  lagging?: number;
}

async function measureBuild(build: import('../test/clients/daemons').ClientBuild): Promise<{ label: string; layouts: LayoutRun[] }> {
  const { startClient } = await import('../test/clients/daemons');
  const { clientOriginRule } = await import('../utils/clients/csrf');
  const { createClient } = await import('../utils/clients/index');
  const { nodeClientFetch } = await import('../test/clients/node-fetch');
  const { untilSeeding } = await import('../test/clients/seeding');
  const { makeTorrent, TRACKERS } = await import('../test/clients/torrent-content');
  const { candidateFilesOf, filesOf, RENAMED_LAYOUTS } = await import('../test/clients/renamed-layouts');
  const { until } = await import('../test/e2e/support/wait');
  const { matchCopy, stepsExpressible } = await import('../utils/cross-seed-engine/renamed-copy');
  const { CHECKING } = await import('../utils/cross-seed-engine/cross-seed');

  const daemon = await startClient(build);
  try {
    const label = buildLabel(build, daemon.version);
    const origin = build.kind === 'qbittorrent' ? clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')?.value : undefined;
    const client: TorrentClient = createClient(daemon.config, { fetch: nodeClientFetch(origin ? { origin } : {}) });
    const layouts: LayoutRun[] = [];
    for (const [layoutIndex, layout] of RENAMED_LAYOUTS.entries()) {
      const contents = Array.from({ length: COPIES }, (_, copy) => layout.content(`${daemon.dataDir}/layout-${layoutIndex}-copy-${copy}`, `rename bench ${layoutIndex} ${copy}`));
      const sources = contents.map((content) => makeTorrent(content, TRACKERS.alpha));
      // Not timed: the copies' sources seeding from disk. Added one after another (Deluge 2.0 lost some of 12 adds sent
      // at once), their checks waited for together.
      for (const [copy, source] of sources.entries()) {
        const added = await client.add(source.bytes, { savePath: contents[copy]!.savePath, paused: false, skipCheck: false });
        if (added.hash !== source.hash) throw new Error(`${label}: the client added ${added.hash}, not ${source.hash}`);
      }
      await Promise.all(sources.map((source) => untilSeeding(client, source.hash)));
      const run: LayoutRun = { title: layout.title, steps: 0 };
      layouts.push(run);
      for (const [copy, content] of contents.entries()) {
        const sourceFiles = await filesOf(client, sources[copy]!.hash, content.files.length);
        const match = matchCopy({ files: candidateFilesOf(layout, content) }, { files: sourceFiles });
        if (match.kind !== 'renamed') throw new Error(`${label}, ${layout.title}: matchCopy said ${match.kind}`);
        run.steps = match.plan.steps.length;
        if (!client.rename || !client.renames || !stepsExpressible(match.plan.steps, client.renames)) break;
        const candidate = makeTorrent(content, { ...TRACKERS.beta, layout: layout.renamed(content) });
        // As addRenamed() before its rename: added stopped, listed, settled (untilSettled: Transmission checks what it adds).
        await client.add(candidate.bytes, { savePath: content.savePath, paused: true, skipCheck: false, contentLayoutOriginal: true });
        await until(
          async () => (await client.lookup([candidate.hash])).get(candidate.hash),
          (torrent) => torrent !== undefined && !CHECKING.has(torrent.state),
          `${candidate.hash} added stopped and settled`,
          30_000,
        );
        const started = performance.now();
        await client.rename(candidate.hash, match.plan.steps);
        const renamed = performance.now() - started;
        let lagged = false;
        for (;;) {
          if (pathsOf(await client.files(candidate.hash)) === pathsOf(sourceFiles)) break;
          lagged = true;
          if (performance.now() - started > 30_000) throw new Error(`${label}, ${layout.title}: the client never listed the new names`);
        }
        (run.renameMs ??= []).push(renamed);
        (run.listedMs ??= []).push(performance.now() - started);
        run.lagging = (run.lagging ?? 0) + (lagged ? 1 : 0);
      }
      log(`  ${label}, ${layout.title}: ${run.renameMs ? `rename ${run.renameMs.map((ms) => ms.toFixed(1)).join(', ')} ms` : 'refused (the client cannot express the steps)'}`);
    }
    return { label, layouts };
  } finally {
    await daemon.stop();
  }
}

async function main(kind?: import('../utils/clients/client-types').ClientKind): Promise<NodeBenchOutput> {
  const { buildRows } = await import('../test/clients/daemons');
  const figures: Figure[] = [];
  const report: string[] = [
    `rename (renamed copies, issue 25: the rename step per copy as the engine's addRenamed() awaits it — client.rename() until answered; Node, real daemon of every build, each started once; ${COPIES} copies per layout it can express):`,
  ];
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  for (const [, build] of buildRows(kind)) {
    const id = `rename.${build.kind}-${build.release}`;
    log(`rename: ${build.label}…`);
    const measured = await measuredOrNoted(build.label, () => measureBuild(build), { problems, report });
    if (!measured) continue;
    const { label, layouts } = measured;
    const renamed = layouts.filter((layout) => layout.renameMs);
    const refused = layouts.filter((layout) => !layout.renameMs);
    const times = renamed.flatMap((layout) => layout.renameMs!);
    const listed = renamed.flatMap((layout) => layout.listedMs!);
    const lagging = renamed.reduce((sum, layout) => sum + layout.lagging!, 0);
    const what = `${times.length} copies over ${renamed.length} layouts${refused.length ? `, ${refused.length} refused` : ''}`;
    figures.push(
      { id: `${id}.median`, bench: 'rename', label: `rename step of a renamed copy (client.rename() until answered), ${label}, Node, real daemon: median of ${what}`, value: round(median(times)), unit: 'ms' },
      { id: `${id}.p95`, bench: 'rename', label: '  … p95', value: round(percentile(times, 95)), unit: 'ms' },
      { id: `${id}.listed.median`, bench: 'rename', label: `  … until client.files() lists the names on disk (the engine does not wait for it; ${lagging} of ${listed.length} not listed yet when answered), median`, value: round(median(listed)), unit: 'ms' },
      { id: `${id}.listed.p95`, bench: 'rename', label: '  … p95', value: round(percentile(listed, 95)), unit: 'ms' },
    );
    report.push(`  ${label}: renamed ${renamed.map((layout) => `${layout.title} (${layout.steps} step${layout.steps === 1 ? '' : 's'}): median ${round(median(layout.renameMs!))} ms, listed ${round(median(layout.listedMs!))} ms`).join('; ')}`);
    if (refused.length) report.push(`    refused (the client cannot express the steps): ${refused.map((layout) => layout.title).join('; ')}`);
    details[id] = {
      label,
      layouts: layouts.map((layout) => ({ ...layout, renameMs: layout.renameMs?.map(round), listedMs: layout.listedMs?.map(round) })),
    };
  }
  return { figures, report, problems, details };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main(process.argv[2] as import('../utils/clients/client-types').ClientKind | undefined);
  process.stdout.write(`\n${JSON.stringify(output)}\n`);
  process.exit(0);
}
