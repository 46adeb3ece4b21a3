/**
 * M-Team: its own engine (utils/pages/mteam.ts reads its pages). Pages live on kp.m-team.cc; the
 * service's base_url for it is its API host, which serves no pages (utils/sites/links.ts).
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
};
