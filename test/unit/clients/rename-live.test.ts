/**
 * Renamed copies on the real daemons of every build (issue 25): the candidate's bytes are the
 * source's, under other names. Added stopped at the source's save path, renamed in the client by
 * the steps renamed-copy.ts decides, then checked: the check finds 100 % of the data already on
 * disk (no peer exists here: DHT and friends are off, the trackers do not resolve), and the source
 * torrent keeps its files. Four layouts: a renamed root folder, renamed files inside, a lone file
 * wrapped in a folder on the candidate's side, and unwrapped. Where a client cannot express the
 * steps (Transmission renames only a path's last element; rTorrent only a torrent's own folder, its
 * d.directory_base), the decision says so and nothing is added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule } from '../../../utils/clients/csrf';
import { createClient } from '../../../utils/clients/index';
import type { TorrentClient } from '../../../utils/clients/client-types';
import { matchCopy, stepsExpressible } from '../../../utils/cross-seed-engine/renamed-copy';
import { makeTorrent, TRACKERS } from '../../clients/torrent-content';
import { candidateFilesOf, filesOf, RENAMED_LAYOUTS } from '../../clients/renamed-layouts';
import { buildRows, startClient, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch } from '../../clients/node-fetch';
import { addSeeding } from '../../clients/seeding';
import { until } from '../../e2e/support/wait';

const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const LIVE = { timeout: 120_000 };

describe.each(buildRows())('%s: renamed copies', (_, build) => {
  let daemon: RunningDaemon;
  let client: TorrentClient;

  beforeAll(async () => {
    daemon = await startClient(build);
    const origin = build.kind === 'qbittorrent' ? clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')!.value : undefined;
    client = createClient(daemon.config, { fetch: nodeClientFetch(origin ? { origin } : {}) });
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it.each(RENAMED_LAYOUTS.map((layout) => [layout.title, layout] as const))('%s: renamed in the client, checked to 100 % from disk, the source untouched (or refused where the client cannot)', async (_title, layout) => {
    const content = layout.content(`${daemon.dataDir}/${layout.title.replaceAll(' ', '-')}`);
    const source = makeTorrent(content, TRACKERS.alpha);
    await addSeeding(client, source, content);
    const sourceFiles = await filesOf(client, source.hash, content.files.length);
    const candidate = makeTorrent(content, { ...TRACKERS.beta, layout: layout.renamed(content) });
    const match = matchCopy({ files: candidateFilesOf(layout, content) }, { files: sourceFiles });
    expect(match.kind).toBe('renamed');
    if (match.kind !== 'renamed') return;
    if (!stepsExpressible(match.plan.steps, client.renames!)) {
      // Beyond a last-element rename: only a lone file moved into or out of a folder. Beyond
      // rTorrent, which can only place a torrent's own folder: every layout but that folder's.
      if (client.renames === 'last-element') expect(layout.title).toMatch(/lone file/);
      else expect([client.renames, layout.title]).toEqual(['root-folder', expect.not.stringMatching(/^a renamed root folder$/)]);
      return;
    }
    const added = await client.add(candidate.bytes, { savePath: content.savePath, paused: true, skipCheck: false });
    expect(added.hash).toBe(candidate.hash);
    await filesOf(client, candidate.hash, content.files.length);
    await client.rename!(candidate.hash, match.plan.steps);
    const renamed = await until(
      () => client.files(candidate.hash),
      (files) => files.map((file) => file.path).join('\n') === sourceFiles.map((file) => file.path).join('\n'),
      'the candidate under the names on disk',
      30_000,
    );
    expect(renamed).toEqual(sourceFiles);
    await client.recheck(candidate.hash);
    const checked = await until(
      async () => (await client.lookup([candidate.hash])).get(candidate.hash),
      (torrent) => torrent?.progress === 1 && torrent.state !== 'checking',
      'the renamed copy checked to 100 %',
      60_000,
    );
    expect(checked).toMatchObject({ progress: 1, savePath: content.savePath });
    // The source keeps its names, and still seeds.
    expect(await client.files(source.hash)).toEqual(sourceFiles);
    expect((await client.lookup([source.hash])).get(source.hash)).toMatchObject({ progress: 1, state: 'seeding' });
  }, LIVE.timeout);
});
