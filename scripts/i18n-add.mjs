#!/usr/bin/env node
// Adds or updates UI strings in both locales at once, keeping the files sorted:
//   node scripts/i18n-add.mjs '{"key": ["English text", "中文文本"]}'
// Placeholders are $1..$9 (browser.i18n substitutions) and must match in both languages.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const additions = JSON.parse(process.argv[2] ?? '{}');
const files = { en: join(root, 'public/_locales/en/messages.json'), zh_CN: join(root, 'public/_locales/zh_CN/messages.json') };
const placeholders = (text) => [...text.matchAll(/\$(\d)/g)].map((m) => m[1]).sort().join();

for (const [key, pair] of Object.entries(additions)) {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(key) || !Array.isArray(pair) || pair.length !== 2) throw new Error(`bad entry ${key}`);
  if (placeholders(pair[0]) !== placeholders(pair[1])) throw new Error(`placeholders differ for ${key}`);
}
for (const [index, locale] of ['en', 'zh_CN'].entries()) {
  const messages = JSON.parse(readFileSync(files[locale], 'utf8'));
  for (const [key, pair] of Object.entries(additions)) messages[key] = { message: pair[index] };
  const sorted = Object.fromEntries(Object.keys(messages).sort().map((key) => [key, messages[key]]));
  writeFileSync(files[locale], `${JSON.stringify(sorted, null, 2)}\n`);
}
console.log(`${Object.keys(additions).length} message(s) written to en and zh_CN`);
