/**
 * The engines, in the order they are tried when the site catalog names none. Specific engines
 * (which know a URL shape) come first; the label and magnet rules catch the rest.
 * Adding an engine: write utils/pages/<engine>.ts and list it here.
 */
import { nexusphp } from './nexusphp';
import { unit3d } from './unit3d';
import { gazelle } from './gazelle';
import { mteam } from './mteam';
import { generic } from './generic';
import { magnet } from './magnet';
import type { PageEngine } from './page-types';

export const engines: readonly PageEngine[] = [nexusphp, unit3d, gazelle, mteam, generic, magnet];
