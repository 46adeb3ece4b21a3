/**
 * What each engine means for its sites (PT-depiler's schemas): the details page and download rule
 * a site has unless its definition says otherwise. Reading pages is utils/pages/'s work, not this.
 */
import type { Engine, EngineSchema } from '../site-types';
import { gazelleSchema } from './gazelle-schema';
import { mteamSchema } from './mteam-schema';
import { nexusphpSchema } from './nexusphp-schema';
import { unit3dSchema } from './unit3d-schema';

export const engineSchemas: Readonly<Record<Engine, EngineSchema>> = {
  nexusphp: nexusphpSchema,
  unit3d: unit3dSchema,
  gazelle: gazelleSchema,
  mteam: mteamSchema,
  // Sites of engines we have no schema for (TTG, Zhuque, …): each gives its own details page.
  other: { download: {} },
};

export { gazelleDownloadLink } from './gazelle-schema';
export { nexusphpDownhashLink, nexusphpDownloadLink } from './nexusphp-schema';
