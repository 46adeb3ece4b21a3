/** Files a person hands to a page: the settings import. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page as PlaywrightPage } from 'playwright-core';
import type { ElementHandle, Page as PuppeteerPage } from 'puppeteer-core';
import { RUN_DIR, type HarnessPage } from '../harness/index.ts';

/** Chooses a file in the import field as a person would (the browser's own file chooser API). */
export async function importFile(options: HarnessPage, content: string, kind: string): Promise<void> {
  const dir = join(RUN_DIR, 'options-import');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${kind}-settings.json`);
  writeFileSync(path, content);
  if (options.kind === 'chromium') await (options.raw as PlaywrightPage).setInputFiles('#import-file', path);
  else {
    const input = (await (options.raw as PuppeteerPage).$('#import-file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(path);
  }
}
