/**
 * Every cross-seed result kind has its sentence in English and Simplified Chinese, naming the site
 * (or the client's words, or the file differences) where it matters.
 */
import { describe, expect, it } from 'vitest';
import type { CrossSeedResult } from '../../../utils/cross-seed-engine/cross-seed';
import { crossSeedText, crossSeedWords } from '../../../utils/cross-seed-engine/result-text';
import { installI18n, loadMessages } from '../support/i18n';

/** One result of every kind (and every variant that reads differently). */
const RESULTS: CrossSeedResult[] = [
  { kind: 'added', hash: 'a'.repeat(40), savePath: '/data', client: 'qbittorrent', checked: true, state: 'checking', progress: 0 },
  { kind: 'added', hash: 'a'.repeat(40), savePath: '/data', client: 'qbittorrent', checked: false, state: 'seeding', progress: 1 },
  { kind: 'left-stopped', hash: 'a'.repeat(40), savePath: '/data', client: 'qbittorrent', progress: 0.75, checkFinished: true, tagged: true },
  { kind: 'left-stopped', hash: 'a'.repeat(40), savePath: '/data', client: 'deluge', progress: 0.75, checkFinished: true, tagged: false },
  { kind: 'left-stopped', hash: 'a'.repeat(40), savePath: '/data', client: 'transmission', progress: 0.1, checkFinished: false, tagged: true },
  { kind: 'already-in-client', hash: 'a'.repeat(40), savePath: '/data' },
  { kind: 'no-client' },
  { kind: 'no-permission', for: 'site', origin: 'https://ourbits.club' },
  { kind: 'no-permission', for: 'client', origin: 'http://192.168.1.2:8080' },
  { kind: 'bad-request', detail: 'x' },
  { kind: 'source-missing', pageHash: 'b'.repeat(40) },
  { kind: 'source-incomplete', pageHash: 'b'.repeat(40), progress: 0.42 },
  { kind: 'unsupported-site', reason: 'needs-api' },
  { kind: 'unsupported-site', reason: 'unknown-site' },
  { kind: 'needs-passkey' },
  { kind: 'no-download-link' },
  { kind: 'not-logged-in', evidence: 'login-page' },
  { kind: 'not-logged-in', evidence: 'redirect' },
  { kind: 'not-logged-in', evidence: 'login-page', host: 'ob-mirror.example.org' },
  { kind: 'not-logged-in', evidence: 'redirect', host: 'ob-mirror.example.org' },
  { kind: 'other-site-host', host: 'tjupt.org', owner: 'TJUPT' },
  { kind: 'site-limit', status: 200, siteWords: '下载次数已达上限' },
  { kind: 'site-limit', status: 429, retryAfterSeconds: 120 },
  { kind: 'site-refused', status: 403 },
  { kind: 'site-refused', status: 200, siteWords: '权限不足！' },
  { kind: 'site-unreachable' },
  { kind: 'too-large' },
  { kind: 'not-a-torrent', problem: 'malformed' },
  { kind: 'other-torrent', hash: 'c'.repeat(40) },
  { kind: 'unsafe-file', path: 'Album/Scans/cover.jpg', element: 'Scans/cover.jpg', reason: 'separator' },
  { kind: 'unsafe-file', path: 'Album//01.flac', element: '', reason: 'empty' },
  { kind: 'unsafe-file', path: 'Album/../x', element: '..', reason: 'dot' },
  { kind: 'unsafe-file', path: 'Album/a\\0b', element: 'a\\0b', reason: 'nul' },
  { kind: 'unsafe-file', path: 'Album/\ufffd.flac', element: '\ufffd.flac', reason: 'not-utf8' },
  { kind: 'client-other-hash', hash: 'a'.repeat(40), clientHash: 'd'.repeat(40), stray: 'removed' },
  { kind: 'client-other-hash', hash: 'a'.repeat(40), clientHash: 'd'.repeat(40), stray: 'already-held' },
  { kind: 'client-other-hash', hash: 'a'.repeat(40), clientHash: 'd'.repeat(40), stray: 'remove-failed' },
  {
    kind: 'files-differ',
    differences: [
      { kind: 'size', path: 'Album/01.flac', size: 180_001, clientSize: 180_000 },
      { kind: 'missing', path: 'Album/extra.nfo', size: 700 },
      { kind: 'extra', path: 'Album/cover.jpg', size: 9_000 },
      { kind: 'unicode-form', path: 'Album/Cafe\u0301.flac', clientPath: 'Album/Caf\u00e9.flac', size: 10 },
    ],
    more: 4,
  },
  { kind: 'client-refused', clientMessage: 'Fails.' },
  { kind: 'client-refused' },
  { kind: 'client-failed', failure: { kind: 'auth', detail: 'x' } },
  { kind: 'client-failed', failure: { kind: 'unreachable', detail: 'x' } },
  { kind: 'client-failed', failure: { kind: 'csrf', detail: 'x', clientMessage: 'Unauthorized' } },
  { kind: 'not-confirmed', hash: 'a'.repeat(40) },
  { kind: 'site-skipped', after: 'not-logged-in' },
  { kind: 'daily-cap', perDay: 20 },
  { kind: 'site-notice', evidence: 'redirect' },
  { kind: 'site-notice', evidence: 'page', siteWords: '你是第一次在本站下载种子' },
  { kind: 'site-challenge', status: 403 },
];

describe('cross-seed messages', () => {
  it('cover every result kind with a key both locales define', () => {
    const en = loadMessages('en');
    const zh = loadMessages('zh_CN');
    const kinds = new Set(RESULTS.map((result) => result.kind));
    // The union's kinds, listed once more here: a new kind without a message fails the type check of crossSeedWords, and this list.
    expect([...kinds].sort()).toEqual(
      [
        'added', 'already-in-client', 'bad-request', 'daily-cap', 'client-failed', 'client-other-hash', 'client-refused', 'files-differ', 'left-stopped', 'needs-passkey', 'no-client', 'no-download-link',
        'no-permission', 'not-a-torrent', 'not-confirmed', 'not-logged-in', 'other-site-host', 'other-torrent', 'site-challenge', 'site-limit', 'site-notice', 'site-refused', 'site-skipped',
        'site-unreachable', 'source-incomplete', 'source-missing', 'too-large', 'unsafe-file', 'unsupported-site',
      ].sort(),
    );
    for (const result of RESULTS) {
      const { key } = crossSeedWords(result, 'OurBits');
      expect(en[key], key).toBeDefined();
      expect(zh[key], key).toBeDefined();
    }
  });

  it('say it plainly in English: the site, the client, the differences', () => {
    installI18n('en');
    const text = (result: CrossSeedResult) => crossSeedText(result, 'OurBits');
    // The outcome of the check, not the hope (issue 15: this once said "it checks the files on disk, then seeds" whatever the check found).
    expect(text(RESULTS[0]!)).toEqual(['Added to qBittorrent, seeding: its check found every file on disk.']);
    // Several clients (issue 33): the client by the Name the user gave it, wherever an outcome names one.
    expect(text({ ...(RESULTS[0] as Extract<CrossSeedResult, { kind: 'added' }>), clientName: 'NAS B' })).toEqual(['Added to NAS B, seeding: its check found every file on disk.']);
    expect(text({ kind: 'already-in-client', hash: 'a'.repeat(40), savePath: '/data', clientName: 'Seedbox' })).toEqual(['Already in Seedbox.']);
    expect(text({ kind: 'already-in-client', hash: 'a'.repeat(40), savePath: '/data' })).toEqual(['Already in your client.']);
    expect(text({ kind: 'read-only', clientName: 'Archive' })).toEqual([
      'Archive only reads: nothing is added to it. To cross-seed its torrents, choose where their copies go under “Copies go to” in the settings.',
    ]);
    expect(text({ kind: 'no-folder-pair', path: '/srv/other/Album', clientName: 'NAS', targetName: 'Seedbox' })).toEqual([
      '/srv/other/Album is under no folder pair of NAS: nothing was sent to Seedbox. Add a folder pair for it in the settings.',
    ]);
    expect(text({ kind: 'target-missing', clientName: 'NAS' })).toEqual(['NAS sends its copies to a client that is no longer saved: choose another under “Copies go to” in the settings.']);
    expect(text({ kind: 'left-stopped', hash: 'a'.repeat(40), savePath: '/mnt/nas/music', client: 'transmission', progress: 0, checkFinished: true, tagged: true, clientName: 'Seedbox', viaPair: true })).toEqual([
      'Seedbox does not see the data at /mnt/nas/music: check the folder pair. The copy is left stopped (0% of the data found).',
    ]);
    expect(text({ kind: 'client-failed', failure: { kind: 'unreachable', detail: 'x' }, clientName: 'NAS B' })).toEqual(['NAS B did not answer: is it running?']);
    expect(text(RESULTS[2]!)).toEqual([
      'Left stopped in qBittorrent: its check found only 75% of the data on disk, and started it would download the rest from the other site. Tagged “reseed-lens-incomplete”.',
    ]);
    expect(text(RESULTS[3]!)).toEqual([
      'Left stopped in Deluge: its check found only 75% of the data on disk, and started it would download the rest from the other site. (Deluge has no tags, so it is not tagged.)',
    ]);
    expect(text(RESULTS[4]!)[0]).toMatch(/^Left stopped in Transmission: its check had not ended .*\(10% of the data found so far\)/);
    expect(text({ kind: 'unsafe-file', path: 'Album/Scans/cover.jpg', element: 'Scans/cover.jpg', reason: 'separator' })).toEqual([
      'Not added: the candidate\'s file “Album/Scans/cover.jpg” has a name holding a folder separator (“Scans/cover.jpg”), which your client would store under another name.',
    ]);
    expect(text({ kind: 'client-other-hash', hash: 'a'.repeat(40), clientHash: 'd'.repeat(40), stray: 'removed' })).toEqual([
      `Not cross-seeded: your client read this .torrent as another torrent (hash ${'d'.repeat(40)}) than the one checked, so it was removed again; no file on disk was touched.`,
    ]);
    expect(text({ kind: 'not-logged-in', evidence: 'login-page' })).toEqual(['OurBits answered with its login page: log in to OurBits, then try again.']);
    // A mirror the user set answered: the host asked is named, not the site's own address.
    expect(text({ kind: 'not-logged-in', evidence: 'login-page', host: 'ob-mirror.example.org' })).toEqual([
      'ob-mirror.example.org, the address you set for OurBits, answered with its login page: log in there, or change the address of OurBits in the settings, then try again.',
    ]);
    expect(text({ kind: 'other-site-host', host: 'tjupt.org', owner: 'TJUPT' })).toEqual([
      'Not downloaded: the address set for OurBits is tjupt.org, which is TJUPT’s. Your passkey and session for OurBits never go to another site: fix the address of OurBits in the settings.',
    ]);
    expect(text({ kind: 'other-torrent', hash: 'c'.repeat(40) })).toEqual(['OurBits gave another torrent than the one IYUU lists: not added.']);
    expect(text({ kind: 'site-refused', status: 403 })).toEqual(['OurBits refused the download (HTTP 403).']);
    expect(text({ kind: 'site-refused', status: 200, siteWords: '权限不足！' })).toEqual(['OurBits did not give the torrent. It said: 权限不足！']);
    expect(text({ kind: 'client-refused', clientMessage: 'Fails.' })).toEqual(['Your client refused it: Fails.']);
    expect(text(RESULTS.find((result) => result.kind === 'files-differ')!)).toEqual([
      "The files differ from this page's torrent: not added.",
      "Album/01.flac — 180,000 bytes in this page's torrent, 180,001 bytes in the candidate",
      "Album/extra.nfo — not in this page's torrent",
      "Album/cover.jpg — only in this page's torrent",
      "Album/Cafe\u0301.flac — the same name as in this page's torrent only in another Unicode form (NFC/NFD): to your client it is another file",
      '…and 4 more',
    ]);
    expect(text({ kind: 'source-incomplete', pageHash: 'b'.repeat(40), progress: 0.42 })).toEqual([
      "This page's torrent is only 42% done in your client: cross-seed once it is complete.",
    ]);
  });

  it('a renamed copy: "Added (renamed to match your files)", then each file renamed, old → new; a same-data copy not taken says why', () => {
    const renamed: CrossSeedResult = {
      kind: 'added',
      hash: 'a'.repeat(40),
      savePath: '/data',
      client: 'qbittorrent',
      checked: true,
      state: 'seeding',
      progress: 1,
      renamed: [
        { from: 'Movie 2024/Movie.mkv', to: 'Movie.2024/Movie.mkv', size: 10 },
        { from: 'Movie 2024/Movie.nfo', to: 'Movie.2024/Movie.nfo', size: 1 },
      ],
    };
    installI18n('en');
    expect(crossSeedText(renamed, 'OurBits')).toEqual([
      'Added to qBittorrent, seeding (renamed to match your files): its check found every file on disk.',
      'Renamed: Movie 2024/Movie.mkv → Movie.2024/Movie.mkv',
      'Renamed: Movie 2024/Movie.nfo → Movie.2024/Movie.nfo',
    ]);
    // A name that changed only its Unicode form (a macOS-made torrent's NFD against NFC on disk) is said so, not as two names that look alike.
    const nfd = 'Cafe\u0301/01.flac';
    const nfc = 'Caf\u00e9/01.flac';
    expect(crossSeedText({ ...renamed, renamed: [{ from: nfd, to: nfc, size: 1 }] } as CrossSeedResult, 'OurBits')[1]).toBe(`Renamed (Unicode form only): ${nfc} — NFD in the candidate, NFC on disk`);
    const refused = (copy: NonNullable<Extract<CrossSeedResult, { kind: 'files-differ' }>['copy']>): CrossSeedResult => ({ kind: 'files-differ', differences: [], more: 0, copy });
    expect(crossSeedText(refused({ kind: 'client-cannot', client: 'transmission', renames: 'last-element' }), 'OurBits')[1]).toBe('The same data under other names, but Transmission cannot move a file into or out of a folder.');
    // Kept from before a refusal said what the client can rename: Transmission's words, as then.
    expect(crossSeedText(refused({ kind: 'client-cannot', client: 'transmission' }), 'OurBits')[1]).toBe('The same data under other names, but Transmission cannot move a file into or out of a folder.');
    expect(crossSeedText(refused({ kind: 'client-cannot', client: 'rtorrent', renames: 'root-folder' }), 'OurBits')[1]).toBe("The same data under other names, but rTorrent can only give a torrent's own folder another name, not the files in it.");
    expect(crossSeedText(refused({ kind: 'client-cannot', client: 'rtorrent', renames: 'none' }), 'OurBits')[1]).toBe("The same data under other names, but rTorrent cannot rename a torrent's files.");
    expect(crossSeedText(refused({ kind: 'setting-off' }), 'OurBits')[1]).toBe('The same data under other names: “Cross-seed copies whose names differ” is off.');
    expect(crossSeedText(refused({ kind: 'colliding-targets', path: 'R/a' }), 'OurBits')[1]).toBe('The same data under other names, but two of its files would take the name R/a.');
    installI18n('zh_CN');
    expect(crossSeedText(renamed, '我堡')).toEqual([
      '已添加到 qBittorrent，正在做种（已按你的文件重命名）：校验确认硬盘上的文件完整。',
      '已重命名：Movie 2024/Movie.mkv → Movie.2024/Movie.mkv',
      '已重命名：Movie 2024/Movie.nfo → Movie.2024/Movie.nfo',
    ]);
    expect(crossSeedText(refused({ kind: 'unsafe-target', path: 'R/../x', element: '..', reason: 'dot' }), '我堡')[1]).toBe('内容相同但名称不同，但 R/../x 不能作为文件的新名称。');
    expect(crossSeedText(refused({ kind: 'client-cannot', client: 'rtorrent', renames: 'root-folder' }), '我堡')[1]).toBe('内容相同但名称不同，但 rTorrent 只能改种子自身文件夹的名称，不能改其中文件的名称。');
  });

  it('in the whole-client job, where no page is involved: "your torrent in <client>", one difference a line', () => {
    const differ: CrossSeedResult = {
      kind: 'files-differ',
      client: 'deluge',
      differences: [
        { kind: 'size', path: 'Album/01.flac', size: 180_001, clientSize: 180_000 },
        { kind: 'missing', path: 'Album/extra.nfo', size: 700 },
        { kind: 'extra', path: 'Album/cover.jpg', size: 9_000 },
      ],
      more: 0,
    };
    installI18n('en');
    expect(crossSeedText(differ, 'OurBits', 'client')).toEqual([
      'The files differ from your torrent in Deluge: not added.',
      'Album/01.flac — 180,000 bytes in your torrent in Deluge, 180,001 bytes in the candidate',
      'Album/extra.nfo — not in your torrent in Deluge',
      'Album/cover.jpg — only in your torrent in Deluge',
    ]);
    installI18n('zh_CN');
    expect(crossSeedText(differ, '我堡', 'client')).toEqual([
      '文件与你在 Deluge 中的种子不一致，未添加。',
      'Album/01.flac —— 你 Deluge 中的种子 180,000 字节，候选种子 180,001 字节',
      'Album/extra.nfo —— 不在你 Deluge 中的种子里',
      'Album/cover.jpg —— 只在你 Deluge 中的种子里',
    ]);
  });

  it('and in Chinese', () => {
    installI18n('zh_CN');
    expect(crossSeedText({ kind: 'not-logged-in', evidence: 'redirect' }, '我堡')).toEqual([
      '我堡 没有返回种子，而是跳转到了其他页面（通常是登录页，或首次下载提示）：请打开 我堡 登录后重试。',
    ]);
    expect(crossSeedText({ kind: 'site-limit', status: 429, retryAfterSeconds: 120 }, '我堡')[0]).toMatch(/^我堡 当前限制下载，请 .+后再试。$/);
    for (const result of RESULTS) for (const line of crossSeedText(result, '我堡')) expect(line, result.kind).toMatch(/[\u4e00-\u9fff]/);
  });
});
