/**
 * Imported first by the Node benches: `wxt/browser` picks `globalThis.chrome` when its module is
 * evaluated, and a bench's other imports (settings, permissions, clients) evaluate it. Set in the
 * bench's own body, the fake came after them and `browser` stayed undefined; an import evaluated
 * before every other one comes first.
 */
import { fakeBrowser } from 'wxt/testing/fake-browser';

(globalThis as unknown as { chrome: unknown }).chrome = fakeBrowser;

export { fakeBrowser };
