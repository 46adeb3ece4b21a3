/** UNIT3D: `torrents/N`, and `torrents/download/N`, its web route behind the user's session. */
import type { EngineSchema } from '../site-types';

export const unit3dSchema = {
  detailsPage: 'torrents/{}',
  download: { cookieTemplate: 'torrents/download/{}' },
} satisfies EngineSchema;
