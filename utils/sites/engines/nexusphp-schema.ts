/**
 * NexusPHP (xiaomlove/nexusphp and its forks): `details.php?id=N`, and `download.php?id=N` with the
 * user's session (public/download.php: the session, else a redirect to login.php) or with
 * `&passkey=` when the site allows it.
 */
import type { DetailsPageLink, EngineSchema } from '../site-types';
import { strictQuery } from './strict-query';

const LINK_QUERY = ['id', 'passkey', 't', 'sign', 'https', 'letdown'];

/**
 * The download link of a NexusPHP details page, for sites that sign it per user (HDSky:
 * `download.php?id=N&passkey=…&sign=…`, or `&t=…&sign=…`): a signed link is preferred to a bare one.
 */
export const nexusphpDownloadLink: DetailsPageLink = {
  shape: 'nexusphp',
  rebuild(url, id) {
    if (url.pathname !== '/download.php') return undefined;
    const query = strictQuery(url, LINK_QUERY);
    if (!query || query.get('id') !== id) return undefined;
    const ordered = LINK_QUERY.filter((name) => query.has(name));
    return `${url.origin}/download.php?${ordered.map((name) => `${name}=${query.get(name)}`).join('&')}`;
  },
  isBest: (link) => /[?&](passkey|sign)=/.test(link),
};

/**
 * A `downhash` value: the user's uid, a `.` (NexusPHP 1.8's getDownloadUrl) or `|`, and the
 * encrypted part (base64 of the site's encryption, so `+`, `/` and `=` may appear); or a bare hash.
 */
const DOWNHASH = /^(?:\d{1,12}[.|])?[A-Za-z0-9_\-+/=]{8,2048}$/;

/**
 * The download link of the NexusPHP sites that give each user a `downhash` (HDHome, PTHome,
 * HDDolby: the official client asks for a uid and downhash for them; MoviePilot's IYUU plugin reads
 * the link of any site whose template carries a `hash=` from its details page): preferred is
 * `download.php?id=N&downhash=…` (the id checked), or the passkey / signed link, else the session's
 * bare `download.php?id=N`. NexusPHP 1.8's own `download.php?downhash=<uid>.<encrypted>` carries no
 * id (it is inside the encrypted part): nothing ties it to this torrent, so it is not taken.
 */
export const nexusphpDownhashLink: DetailsPageLink = {
  shape: 'nexusphp-downhash',
  rebuild(url, id) {
    if (url.pathname !== '/download.php') return undefined;
    const downhash = url.searchParams.get('downhash');
    if (downhash === null) return nexusphpDownloadLink.rebuild(url, id);
    const names = [...url.searchParams.keys()];
    if (!DOWNHASH.test(downhash) || names.length !== new Set(names).size || url.searchParams.get('id') !== id) return undefined;
    if (names.some((name) => name !== 'id' && name !== 'downhash' && name !== 'https')) return undefined;
    const https = url.searchParams.get('https');
    if (https !== null && !/^[01]$/.test(https)) return undefined;
    const link = new URL('/download.php', url.origin);
    link.searchParams.set('id', id);
    link.searchParams.set('downhash', downhash);
    if (https !== null) link.searchParams.set('https', https);
    return link.href;
  },
  isBest: (link) => /[?&](passkey|sign|downhash)=/.test(link),
};

export const nexusphpSchema = {
  detailsPage: 'details.php?id={}',
  download: {
    passkeyTemplate: 'download.php?id={}&passkey={passkey}',
    cookieTemplate: 'download.php?id={}',
  },
  // NexusPHP >= 1.8.5's routes/api.php (utils/sites/SOURCES.md "Pieces-hash API").
  piecesHashPath: '/api/pieces-hash',
} satisfies EngineSchema;
