/**
 * The whole-client job on today's qBittorrent (5.3, from the trixie root: scripts/clients/), which
 * had never run through it: spread-scenario.ts on a reduced client (about 20 torrents), with the
 * other answers real sites give: a logged-out site that shows its login form in place, and a
 * first-download notice shown in place (some NexusPHP forks) rather than redirected to.
 */
import { clientBuilds, startQbittorrent } from '../../../clients/daemons';
import { spreadScenario } from './spread-scenario';

const build = clientBuilds({ kind: 'qbittorrent', generation: 'current' }).find((one) => one.release === '5.3')!;

spreadScenario(`"Cross-seed your client" over a spread client (${build.label})`, () => startQbittorrent({ build }), {
  a: 6,
  both: 2,
  b: 4,
  c: 7,
  loggedOut: 2,
  notice: 2,
  elsewhere: 1,
  loggedOutStyle: 'login-page',
  noticeStyle: 'page',
});
