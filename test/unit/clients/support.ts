/** Replaying recorded client answers (test/fixtures/clients) through the library. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../../../utils/clients/index';
import type { ClientKind, TorrentClient } from '../../../utils/clients/client-types';
import { nodeClientFetch } from '../../clients/node-fetch';
import { replayFetch, type Recording, type ReplayFetch } from '../../clients/recording';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/clients');

export interface Facts {
  url: string;
  username: string;
  password: string;
  savePath: string;
  absentHash: string;
  extensionOrigin: string;
  content: { single: { path: string; size: number }[]; folder: { path: string; size: number }[]; folderName: string; singleName: string };
  torrents: Record<'singleAlpha' | 'folderAlpha' | 'singleBeta' | 'folderBeta' | 'unloadable', { hash: string; name: string; base64: string }>;
  crossSeedOptions: { savePath: string; paused: boolean; skipCheck: boolean; category: string; tags: string[] };
}

/** Every recording in the fixtures folder, optionally of one client. */
export function recordings(kind?: ClientKind): Recording[] {
  return readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.json') && (!kind || name.startsWith(`${kind}-`)))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Recording);
}

export function factsOf(recording: Recording): Facts {
  return recording.facts as unknown as Facts;
}

export function torrentBytes(recording: Recording, name: keyof Facts['torrents']): Uint8Array {
  return new Uint8Array(Buffer.from(factsOf(recording).torrents[name].base64, 'base64'));
}

/**
 * A fresh library client whose requests are answered by the recorded scenario `name`, through the
 * same cookie jar (and Origin, when the scenario had one) as when it was recorded.
 */
export function replayed(recording: Recording, name: string, options: { password?: string; origin?: string } = {}): { client: TorrentClient; replay: ReplayFetch } {
  const scenario = recording.scenarios[name];
  if (!scenario) throw new Error(`${recording.client} ${recording.version}: no recorded scenario "${name}" (run npm run record:clients)`);
  const facts = factsOf(recording);
  const replay = replayFetch(scenario);
  const client = createClient(
    { type: recording.client, url: facts.url, username: facts.username, password: options.password ?? facts.password },
    { fetch: nodeClientFetch({ origin: options.origin, inner: replay }) },
  );
  return { client, replay };
}

/** The failure a promise rejects with (fails the test when it resolves). */
export async function failureOf(promise: Promise<unknown>): Promise<{ kind: string; clientMessage?: string; httpStatus?: number; detail: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { kind: string; clientMessage?: string; httpStatus?: number; detail: string };
  }
  throw new Error('expected a failure, got an answer');
}
