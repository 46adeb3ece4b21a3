/** Run before every unit test file: browser parts the fake browser lacks. */
import { installPermissions } from './permissions';

installPermissions();
