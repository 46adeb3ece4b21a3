import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../../..');
const load = (locale: string) =>
  JSON.parse(readFileSync(join(root, 'public/_locales', locale, 'messages.json'), 'utf8')) as Record<string, { message: string }>;
const en = load('en');
const zh = load('zh_CN');
const placeholders = (text: string) => [...text.matchAll(/\$(\d)/g)].map((match) => match[1]).sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

describe('locales', () => {
  it('has the same keys in English and Simplified Chinese', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });

  it('uses the same placeholders in both languages', () => {
    for (const key of Object.keys(en)) {
      expect(placeholders(zh[key]!.message), key).toEqual(placeholders(en[key]!.message));
    }
  });

  it('translates: a Chinese string differs from the English one unless it is a proper name', () => {
    const sameOnPurpose = new Set(['labelAppId', 'labelSecret', 'labelToken', 'foundByIyuu']);
    // Placeholders and punctuation only ("NAS → Seedbox: 120"): nothing to translate, and no word may hide in them.
    const noWords = new Set(['jobRouteName', 'jobRouteOwn', 'jobRouteTo']);
    for (const key of noWords) expect(`${en[key]!.message}${zh[key]!.message}`.replace(/\$\d/g, ''), key).not.toMatch(/[A-Za-z\u4e00-\u9fff]/);
    // Not text: the locale tag the page formats dates and numbers with.
    const identifiers = new Set(['uiLocale']);
    for (const key of Object.keys(en)) {
      if (sameOnPurpose.has(key) || identifiers.has(key) || noWords.has(key)) continue;
      expect(zh[key]!.message, key).not.toBe(en[key]!.message);
      expect(zh[key]!.message, key).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('defines every key the code asks for', () => {
    const used = new Set<string>();
    for (const file of [...sourceFiles(join(root, 'components')), ...sourceFiles(join(root, 'entrypoints')), ...sourceFiles(join(root, 'utils'))]) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([A-Za-z]+)'/g)) used.add(match[1]!);
      for (const match of text.matchAll(/'((?:serviceMsg|source|problem|err|act|status)[A-Z][A-Za-z]+)'/g)) used.add(match[1]!);
    }
    const missing = [...used].filter((key) => !(key in en));
    expect(missing).toEqual([]);
  });

  it('keeps the contract labels of the options page in English', () => {
    expect(en.labelBaseUrl!.message).toBe('API base URL');
    expect(en.labelToken!.message).toBe('Token');
    expect(en.labelAppId!.message).toBe('App ID');
    expect(en.labelSecret!.message).toBe('Secret');
    expect(en.save!.message).toBe('Save');
    expect(en.testConnection!.message).toBe('Test connection');
  });

  it('keeps the contract words of the torrent clients (issue #9) in English', () => {
    expect(en.clientsHeading!.message).toBe('Torrent clients');
    expect(en.clientTypeLabel!.message).toBe('Client type');
    expect(en.clientUrlLabel!.message).toBe('Client URL');
    expect(en.clientUsernameLabel!.message).toBe('Username');
    expect(en.clientPasswordLabel!.message).toBe('Password');
    expect(en.clientSave!.message).toBe('Save client');
    expect(en.clientTest!.message).toBe('Test client');
    expect(en.clientSkipCheckLabel!.message).toBe('Skip the check when every file matches');
    expect(en.clientInYour!.message).toBe('In your client');
    expect(en.clientConnected!.message).toBe('Connected: $1, $2 torrents');
    expect(en.clientSavePath!.message).toBe('Save path: $1');
  });
});
