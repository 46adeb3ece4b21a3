/**
 * M-Team: its own engine (utils/pages/mteam.ts reads its pages). Pages live on kp.m-team.cc; the
 * service's base_url for it is its API host, which serves no pages (utils/sites/links.ts).
 *
 * Its .torrent files come only through its API: `POST /api/torrent/genDlToken` on its API host, the
 * torrent id as the form field `id`, the API key the user made in the site's control panel in the
 * header `x-api-key`; it answers `{ code, message, data }`, `code` "0" and `data` the download
 * address (the official client's DriverMTeam, utils/sites/SOURCES.md "MT").
 */
import type { SiteDefinition } from '../site-types';

export const mteam: SiteDefinition = {
  sid: 3,
  site: 'm-team',
  nickname: 'M-Team',
  nameZh: '馒头',
  engine: 'mteam',
  hosts: ['kp.m-team.cc', 'm-team.cc', 'm-team.io'],
  apiHosts: ['api.m-team.cc', 'api.m-team.io'],
  download: { apiToken: { url: 'https://api.m-team.cc/api/torrent/genDlToken', keyHeader: 'x-api-key', idField: 'id' } },
};
