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

export const nexusphpSchema = {
  detailsPage: 'details.php?id={}',
  download: {
    passkeyTemplate: 'download.php?id={}&passkey={passkey}',
    cookieTemplate: 'download.php?id={}',
  },
} satisfies EngineSchema;
