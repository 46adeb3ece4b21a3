/**
 * The whole-client job over a client of more than 60 torrents whose candidates sit on three held
 * test trackers (plus a logged-out site, a first-download-notice site and one not held), on
 * qBittorrent 4.5.2 (Debian 12's): spread-scenario.ts says what is checked.
 */
import { startQbittorrent } from '../../../clients/daemons';
import { spreadScenario } from './spread-scenario';

spreadScenario('"Cross-seed your client" over a spread client (qBittorrent 4.5)', () => startQbittorrent(), {
  a: 14,
  both: 4,
  b: 10,
  c: 10,
  loggedOut: 3,
  notice: 3,
  elsewhere: 20,
  // What NexusPHP itself does: both redirect (to login.php, to downloadnotice.php).
  loggedOutStyle: 'redirect',
  noticeStyle: 'redirect',
});
