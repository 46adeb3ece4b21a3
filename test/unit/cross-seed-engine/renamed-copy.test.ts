/**
 * The renamed-copy decision (utils/cross-seed-engine/renamed-copy.ts): which candidates are the
 * client torrent's bytes under other names, the steps that rename them to the names on disk, and
 * the traps that must stay "not the same files". A property: for any safe renaming of any file
 * list, carrying out the steps turns the candidate's paths into the client's, in order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchCopy, stepsExpressible, type RenameStep } from '../../../utils/cross-seed-engine/renamed-copy';

const MOVIE = [
  { path: 'Movie.2024.1080p.BluRay.x264-GRP/Movie.2024.1080p.BluRay.x264-GRP.mkv', size: 8_000_000_000 },
  { path: 'Movie.2024.1080p.BluRay.x264-GRP/Movie.2024.1080p.BluRay.x264-GRP.nfo', size: 4_321 },
  { path: 'Movie.2024.1080p.BluRay.x264-GRP/Sample/sample.mkv', size: 52_000_000 },
];
const under = (root: string) => MOVIE.map((file) => ({ ...file, path: `${root}/${file.path.slice(file.path.indexOf('/') + 1)}` }));

/** What a client does with the steps: the candidate's paths, renamed. */
function carryOut(paths: readonly string[], steps: readonly RenameStep[]): string[] {
  let current = [...paths];
  for (const step of steps) {
    if (step.kind === 'folder') current = current.map((path) => (path.startsWith(`${step.from}/`) ? `${step.to}/${path.slice(step.from.length + 1)}` : path));
    else {
      expect(current[step.index]).toBe(step.from);
      current[step.index] = step.to;
    }
  }
  return current;
}

describe('a renamed copy', () => {
  it('with every path equal is the same, added as is', () => {
    expect(matchCopy({ files: MOVIE }, { files: MOVIE })).toEqual({ kind: 'same' });
  });

  it('with its root folder renamed takes one folder step', () => {
    const match = matchCopy({ files: under('Movie 2024 1080p BluRay x264-GRP') }, { files: MOVIE });
    expect(match).toEqual({
      kind: 'renamed',
      plan: {
        steps: [{ kind: 'folder', from: 'Movie 2024 1080p BluRay x264-GRP', to: 'Movie.2024.1080p.BluRay.x264-GRP' }],
        files: MOVIE.map((file, index) => ({ from: under('Movie 2024 1080p BluRay x264-GRP')[index]!.path, to: file.path, size: file.size })),
      },
    });
    expect(stepsExpressible(match.kind === 'renamed' ? match.plan.steps : [], 'last-element')).toBe(true);
    // rTorrent places a torrent's own folder (d.directory_base): this one step is all it can do.
    expect(stepsExpressible(match.kind === 'renamed' ? match.plan.steps : [], 'root-folder')).toBe(true);
  });

  it('with files renamed inside (a site tag) renames those files only, in their folders', () => {
    const tagged = MOVIE.map((file, index) => (index === 0 ? { ...file, path: file.path.replace('.mkv', '@SITE.mkv') } : file));
    const match = matchCopy({ files: tagged }, { files: MOVIE });
    expect(match.kind === 'renamed' && match.plan.steps).toEqual([{ kind: 'file', index: 0, from: tagged[0]!.path, to: MOVIE[0]!.path }]);
    expect(stepsExpressible(match.kind === 'renamed' ? match.plan.steps : [], 'last-element')).toBe(true);
    expect(stepsExpressible(match.kind === 'renamed' ? match.plan.steps : [], 'root-folder')).toBe(false);
  });

  it('that wraps a lone file in a folder, or unwraps it, moves the file: not a last-element rename', () => {
    const bare = [{ path: 'Movie.2024.mkv', size: 7_000 }];
    const wrapped = [{ path: 'Movie.2024/Movie.2024.mkv', size: 7_000 }];
    for (const [candidate, client] of [
      [bare, wrapped],
      [wrapped, bare],
    ] as const) {
      const match = matchCopy({ files: candidate }, { files: client });
      expect(match.kind).toBe('renamed');
      const steps = match.kind === 'renamed' ? match.plan.steps : [];
      expect(steps).toEqual([{ kind: 'file', index: 0, from: candidate[0]!.path, to: client[0]!.path }]);
      expect(stepsExpressible(steps, 'any-path')).toBe(true);
      expect(stepsExpressible(steps, 'last-element')).toBe(false);
      expect(stepsExpressible(steps, 'root-folder')).toBe(false);
    }
  });

  it('leaves the client\'s padding files out, as the .torrent reader does', () => {
    const padded = [MOVIE[0]!, { path: 'Movie.2024.1080p.BluRay.x264-GRP/.pad/1234', size: 1234 }, MOVIE[1]!, MOVIE[2]!];
    expect(matchCopy({ files: under('Other') }, { files: padded }).kind).toBe('renamed');
  });
});

describe('not a renamed copy', () => {
  it('one file a byte larger: the file is named', () => {
    const larger = under('Other').map((file, index) => (index === 1 ? { ...file, size: file.size + 1 } : file));
    expect(matchCopy({ files: larger }, { files: MOVIE })).toEqual({
      kind: 'different',
      differences: [{ kind: 'size', path: 'Other/Movie.2024.1080p.BluRay.x264-GRP.nfo', size: 4_322, clientSize: 4_321 }],
      more: 0,
    });
  });

  it('two files swapped in order', () => {
    const swapped = [under('Other')[1]!, under('Other')[0]!, under('Other')[2]!];
    const match = matchCopy({ files: swapped }, { files: MOVIE });
    expect(match.kind).toBe('different');
    expect(match.kind === 'different' && match.differences.map((difference) => difference.path)).toEqual(['Other/Movie.2024.1080p.BluRay.x264-GRP.nfo', 'Other/Movie.2024.1080p.BluRay.x264-GRP.mkv']);
  });

  it('one file more or fewer', () => {
    const more = [...under('Other'), { path: 'Other/extra.nfo', size: 180_001 }];
    expect(matchCopy({ files: more }, { files: MOVIE })).toMatchObject({ kind: 'different', differences: [{ kind: 'missing', path: 'Other/extra.nfo', size: 180_001 }] });
    expect(matchCopy({ files: under('Other').slice(0, 2) }, { files: MOVIE })).toMatchObject({ kind: 'different', differences: [{ kind: 'extra', path: MOVIE[2]!.path }] });
  });

  it('other pieces where both are known', () => {
    expect(matchCopy({ files: under('Other'), piecesHash: 'a'.repeat(40) }, { files: MOVIE, piecesHash: 'b'.repeat(40) })).toEqual({ kind: 'other-pieces', what: 'pieces-hash' });
    expect(matchCopy({ files: under('Other'), pieceLength: 1 << 22 }, { files: MOVIE, pieceLength: 1 << 24 })).toEqual({ kind: 'other-pieces', what: 'piece-length' });
    expect(matchCopy({ files: under('Other'), piecesHash: 'A'.repeat(40) }, { files: MOVIE, piecesHash: 'a'.repeat(40) }).kind).toBe('renamed');
  });

  it('a target the client would not store there: `..`, empty, a backslash, NUL, not UTF-8', () => {
    const cases: [string, string, string][] = [
      ['Movie/../etc/passwd', '..', 'dot'],
      ['Movie//a.mkv', '', 'empty'],
      ['Movie/a\\b.mkv', 'a\\b.mkv', 'separator'],
      ['Movie/a\0.mkv', 'a\\0.mkv', 'nul'],
      ['Movie/a\uD800.mkv', 'a\uD800.mkv', 'not-utf8'],
    ];
    for (const [path, element, reason] of cases) {
      const client = [{ path, size: 10 }];
      expect(matchCopy({ files: [{ path: 'Other/a.mkv', size: 10 }] }, { files: client })).toMatchObject({ kind: 'unsafe-target', element, reason });
    }
  });

  it('two targets that are one file, a file where a folder is needed, or names swapped between two files', () => {
    const candidate = [
      { path: 'R/a', size: 5 },
      { path: 'R/b', size: 5 },
    ];
    expect(matchCopy({ files: candidate }, { files: [{ path: 'S/x', size: 5 }, { path: 'S/x', size: 5 }] })).toEqual({ kind: 'colliding-targets', path: 'S/x' });
    expect(matchCopy({ files: candidate }, { files: [{ path: 'S/x', size: 5 }, { path: 'S/x/y', size: 5 }] })).toEqual({ kind: 'colliding-targets', path: 'S/x' });
    // Q/a and Q/b on disk as R/b and R/a: after the folder step, the first rename's target is still the second file's name.
    const elsewhere = candidate.map((file) => ({ ...file, path: file.path.replace('R/', 'Q/') }));
    expect(matchCopy({ files: elsewhere }, { files: [{ path: 'R/b', size: 5 }, { path: 'R/a', size: 5 }] })).toEqual({ kind: 'colliding-targets', path: 'R/b' });
  });
});

describe('the steps', () => {
  const element = fc.stringMatching(/^[A-Za-z0-9 ._\-\u4e00-\u4e10]{1,12}$/).filter((name) => name !== '.' && name !== '..');
  it('turn the candidate\'s paths into the client\'s, in order, for any safe renaming', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.array(element, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6, selector: (elements) => elements.join('/') }),
        fc.array(fc.nat(1_000_000), { minLength: 6, maxLength: 6 }),
        element,
        element,
        fc.boolean(),
        (relative, sizes, candidateRoot, clientRoot, renameLast) => {
          const clientPaths = relative.map((elements) => [clientRoot, ...elements].join('/'));
          // No client path may be a folder of another (a torrent cannot hold both).
          if (clientPaths.some((path) => clientPaths.some((other) => other.startsWith(`${path}/`)))) return;
          const candidatePaths = relative.map((elements, index) => [candidateRoot, ...elements.slice(0, -1), renameLast && index === 0 ? `${elements.at(-1)}.renamed` : elements.at(-1)!].join('/'));
          if (new Set(candidatePaths).size !== candidatePaths.length) return;
          const match = matchCopy({ files: candidatePaths.map((path, index) => ({ path, size: sizes[index]! })) }, { files: clientPaths.map((path, index) => ({ path, size: sizes[index]! })) });
          if (match.kind === 'same') {
            expect(candidatePaths).toEqual(clientPaths);
            return;
          }
          if (match.kind === 'colliding-targets') return; // a swap of names between two files
          expect(match.kind).toBe('renamed');
          if (match.kind !== 'renamed') return;
          expect(carryOut(candidatePaths, match.plan.steps)).toEqual(clientPaths);
          // Same folders on both sides: a client that renames a last element can always carry it out.
          expect(stepsExpressible(match.plan.steps, 'last-element')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
