/**
 * What Firefox's own memory reporters (about:memory) say the extension's background page holds:
 * the one figure of Firefox comparable to Chromium's "service worker JS heap after GC". A profile
 * launched with memoryReportPrefs has a FIFO, `debug_info_trigger`, in its folder; writing
 * "minimize memory report" to it has Firefox collect garbage in every process (three GC and CC
 * passes, as about:memory's "Minimize memory usage" does), then write every process's reports as
 * gzipped JSON into the temp folder's `memory-reports` (nsMemoryInfoDumper). The background page's
 * share is every explicit heap report under its window, `explicit/window-objects/top(<its URL>, …)`:
 * its JS objects, strings and shapes (its JS realm's zone), its DOM and the rest.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The pref that makes the trigger. Firefox ESR 140 makes the FIFO in its temp folder (it did not
 * take `memory_info_dumper.watch_fifo.directory` from the profile's prefs: checked), so one such
 * browser at a time: the bench runs alone.
 */
export const memoryReportPrefs = (): Record<string, boolean> => ({ 'memory_info_dumper.watch_fifo.enabled': true });

interface Report {
  process: string;
  path: string;
  kind: number;
  units: number;
  amount: number;
}

/** Where nsMemoryInfoDumper writes: MOZ_UPLOAD_DIR when set, else the temp folder (ESR 140, checked), or its memory-reports. */
function reportsDirs(): string[] {
  const temp = process.env.TMPDIR ?? tmpdir();
  return [process.env.MOZ_UPLOAD_DIR, temp, join(temp, 'memory-reports')].filter((dir): dir is string => !!dir && existsSync(dir));
}

/** Reports written since `since` (ms), newest first. */
function reportsSince(since: number): string[] {
  return reportsDirs()
    .flatMap((dir) => readdirSync(dir).filter((name) => /^(unified-)?memory-report.*\.json\.gz$/.test(name)).map((name) => join(dir, name)))
    .filter((path) => statSync(path).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

export interface BackgroundPageMemory {
  /** Explicit heap bytes under the background page's window (JS included). */
  bytes: number;
  /** Of them, its JS (the paths with js-realm or js-zone in them). */
  jsBytes: number;
  /** The process whose reports these are ("WebExtensions (pid …)"). */
  process: string;
}

/**
 * Triggers a minimized memory report of the browser on `profileDir` and reads the background
 * page of the extension at `extensionOrigin` (moz-extension://<uuid>) from it. Waits up to
 * `timeoutMs` for the report; undefined when there is none (the pref was not set).
 */
export async function backgroundPageMemory(profileDir: string, extensionOrigin: string, timeoutMs = 60_000): Promise<BackgroundPageMemory | undefined> {
  // Firefox ESR 140 makes it in its temp folder whatever the directory pref says (checked): the
  // profile's own folder first, then there.
  const fifo = [join(profileDir, 'debug_info_trigger'), join(process.env.TMPDIR ?? tmpdir(), 'debug_info_trigger')].find((path) => existsSync(path));
  if (!fifo) return undefined;
  const since = Date.now() - 1000;
  writeFileSync(fifo, 'minimize memory report\n');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const path of reportsSince(since)) {
      let parsed: { reports?: Report[] };
      try {
        parsed = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as { reports?: Report[] };
      } catch {
        continue; // still being written
      }
      // A report's path writes a URL's slashes as backslashes (they separate the path's parts).
      const page = `top(${extensionOrigin.replaceAll('/', '\\')}\\_generated_background_page.html`;
      const mine = (parsed.reports ?? []).filter((report) => report.units === 0 && report.path.startsWith('explicit/') && report.path.includes(page));
      if (!mine.length) continue;
      rmSync(path, { force: true });
      return {
        bytes: mine.reduce((sum, report) => sum + report.amount, 0),
        jsBytes: mine.filter((report) => /js-(realm|zone)/.test(report.path)).reduce((sum, report) => sum + report.amount, 0),
        process: mine[0]!.process,
      };
    }
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
