/**
 * What the loopback clients holding many torrents share (mass-qbittorrent.ts, mass-transmission.ts,
 * mass-deluge.ts): every entry is a REAL recorded one (test/fixtures/clients/*.json, made by
 * test/clients/record.ts) with only its per-torrent values made distinct and deterministic — the
 * hash, a 200-character name (Chinese and Latin), the save path, the state — from the copy's index
 * and a seed. Entries are made per request from the recorded JSON cut at those values (a template),
 * never stored, so 100,000 torrents take a few MB.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exchange as RecordedExchange, Recording } from './recording';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/clients');

/** A recording of test/fixtures/clients by its file's name (without .json). */
export function readRecording(name: string): Recording {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Recording;
}

/** The first exchange of a scenario that `matches` (its request's JSON body, path), failing loudly when the recording has none. */
export function recordedExchange(recording: Recording, file: string, scenario: string, matches: (exchange: RecordedExchange) => boolean): RecordedExchange & { response: NonNullable<RecordedExchange['response']> } {
  const exchange = recording.scenarios[scenario]?.exchanges.find((candidate) => candidate.response && matches(candidate));
  if (!exchange?.response) throw new Error(`${file}.json has no such exchange in "${scenario}"`);
  return exchange as RecordedExchange & { response: NonNullable<RecordedExchange['response']> };
}

/** A recorded request's JSON body (`{ method, arguments|params, … }`), or undefined. */
export function requestJson(exchange: RecordedExchange): Record<string, unknown> | undefined {
  const body = exchange.request.body as { type?: string; value?: unknown } | undefined;
  return body?.type === 'json' && body.value && typeof body.value === 'object' ? (body.value as Record<string, unknown>) : undefined;
}

export const MASS_FOLDERS = ['电影', '剧集', 'Movies', 'TV', '纪录片', 'Music', '动画', 'Anime', 'Games', '综艺', 'Books', '体育'];
const WORDS = [
  'The', 'Long', 'Night', '长夜', 'Season', '第二季', 'Complete', '全集', 'Remastered', '修复版', 'BluRay', 'WEB-DL', '2160p', '1080p', 'HDR10', 'DV', 'HEVC', 'x265',
  'DTS-HD', 'MA', '7.1', 'Atmos', 'TrueHD', 'AAC', '国语', '粤语', '中英字幕', 'Chinese', 'Subbed', 'Director’s', 'Cut', '导演剪辑版', 'Extended', 'Edition', '典藏版',
];
/** A long run of words to cut names from (each copy starts at its own place). */
const FILLER = Array.from({ length: 400 }, (_, index) => WORDS[(index * 7 + (index >> 3)) % WORDS.length]).join('.');
export const NAME_LENGTH = 200;

/** The copy's name: 200 characters, Chinese and Latin, its index in it. */
export function copyName(index: number, seed: string): string {
  const head = `[${seed}] 第${index + 1}部.`;
  const tail = `-RL${index.toString(36).toUpperCase()}`;
  const start = (index * 13) % 600;
  return `${head}${FILLER.slice(start, start + NAME_LENGTH - head.length - tail.length)}${tail}`;
}

/** The copy's info-hash, from the client kind, the seed and the index (never the same across clients or seeds). */
export function copyHash(kind: string, seed: string, index: number): string {
  return createHash('sha1').update(`mass-${kind} ${seed} ${index}`).digest('hex');
}

/** Where the copy is saved: under the recorded save path, one folder of twelve, a thousand a folder. */
export function copySavePath(recordedSavePath: string, index: number): string {
  return `${recordedSavePath}/${MASS_FOLDERS[index % MASS_FOLDERS.length]}/${Math.floor(index / 1000)}`;
}

/**
 * What the copy is doing, the same for every client kind: one in fifty a half-done download, one in
 * twenty stopped (complete), the rest seeding (one in three with peers). Each client says it in its own words.
 */
export type CopyActivity = 'downloading' | 'stopped' | 'seeding-active' | 'seeding-idle';
export function copyActivity(index: number): { activity: CopyActivity; progress: number } {
  if (index % 50 === 49) return { activity: 'downloading', progress: 0.5 };
  if (index % 20 === 19) return { activity: 'stopped', progress: 1 };
  return { activity: index % 3 === 0 ? 'seeding-active' : 'seeding-idle', progress: 1 };
}

/** Whether the copy is complete (a client can cross-seed from it). */
export function completeCopy(index: number): boolean {
  return copyActivity(index).progress === 1;
}

/**
 * A recorded JSON value as a template: `marked` is the value with the varied places replaced by
 * `marker(name)`; the result cuts its JSON there, so a copy is one string join.
 */
export interface JsonTemplate<Name extends string> {
  parts: string[];
  order: Name[];
}

export const marker = (name: string): string => `\u0000${name}\u0000`;

export function jsonTemplate<Name extends string>(json: string): JsonTemplate<Name> {
  const parts: string[] = [];
  const order: Name[] = [];
  let rest = json;
  for (;;) {
    const match = /"\\u0000([A-Za-z_0-9-]+)\\u0000"/.exec(rest);
    if (!match) break;
    parts.push(rest.slice(0, match.index));
    order.push(match[1] as Name);
    rest = rest.slice(match.index + match[0].length);
  }
  parts.push(rest);
  return { parts, order };
}

/** The template filled with a copy's values (each written as `json` writes it). */
export function fillTemplate<Name extends string>(template: JsonTemplate<Name>, values: Record<Name, unknown>, json: (value: unknown) => string = JSON.stringify): string {
  const { parts, order } = template;
  let text = parts[0]!;
  for (let at = 0; at < order.length; at++) text += json(values[order[at]!]) + parts[at + 1]!;
  return text;
}

/** Non-ASCII written as \uXXXX, as Transmission 3.00 and Deluge (Python's json.dumps) write it. */
export function asciiOnly(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's json.dumps with its defaults (", " and ": " between items, non-ASCII escaped): what Deluge's web UI answers. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `${asciiOnly(JSON.stringify(key))}: ${pythonJson(item)}`).join(', ')}}`;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return asciiOnly(JSON.stringify(value ?? null));
}

/** Whether a recorded answer escapes non-ASCII (the recorded folder torrent's file "02 - 结尾.flac"). */
export function escapesNonAscii(recording: Recording): boolean {
  return JSON.stringify(recording).includes('\\\\u7ed3');
}

/** One request as a mass client saw it, with how many torrent entries its answer carried. */
export interface MassRequest {
  method: string;
  /** qBittorrent: after /api/v2/ (e.g. `torrents/info`); Transmission and Deluge: the RPC method. */
  endpoint: string;
  /** Query and form fields (qBittorrent), or the RPC's arguments / params. */
  params: Record<string, unknown>;
  status: number;
  /** Torrent entries in the answer. */
  entries: number;
  /** Bytes of the answer's body. */
  bytes: number;
  at: number;
}

/** What every mass client offers the bench and the tests. */
export interface MassClient {
  /** The address a user would type: http://127.0.0.1:<port>. */
  readonly url: string;
  /** The version the client reports. */
  readonly version: string;
  /** What the extension's client form and createClient() take. */
  readonly config: { type: 'qbittorrent' | 'transmission' | 'deluge'; url: string; username: string; password: string };
  /** Torrents held now. */
  count(): number;
  /** The copy made for `index` (0-based, the order of creation). */
  hashOf(index: number): string;
  /** Every request, in order of arrival. */
  readonly requests: MassRequest[];
  /** The requests that read the list of torrents (the sync's pages). */
  listReads(): MassRequest[];
  close(): Promise<void>;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Writes an answer; its body's bytes. A 204 has no body, no length and no content type. */
export function textAnswer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): number {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, { ...(status === 204 ? {} : { 'content-type': 'text/plain; charset=UTF-8' }), ...headers, ...(status === 204 ? {} : { 'content-length': String(body.length) }) });
  res.end(status === 204 ? undefined : body);
  return body.length;
}

/** A request read whole and logged (its endpoint and params for the caller to fill in), with the way to answer it that logs the answer. */
export async function loggedRequest(requests: MassRequest[], req: IncomingMessage, res: ServerResponse): Promise<{ body: string; log: MassRequest; answer(status: number, text: string, headers?: Record<string, string>): void }> {
  const body = req.method === 'POST' ? await readBody(req) : '';
  const log: MassRequest = { method: req.method ?? '', endpoint: '', params: {}, status: 0, entries: 0, bytes: 0, at: Date.now() };
  requests.push(log);
  const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
    log.status = status;
    log.bytes = textAnswer(res, status, text, headers);
  };
  return { body, log, answer };
}

/** Writes a long answer in pieces, waiting for the socket (100,000 entries are never one string); its bytes. */
export async function streamAnswer(res: ServerResponse, contentType: string, head: string, items: Iterable<string>, tail: string, separator = ','): Promise<number> {
  res.writeHead(200, { 'content-type': contentType });
  let bytes = 0;
  let piece = head;
  let first = true;
  for (const item of items) {
    piece += (first ? '' : separator) + item;
    first = false;
    if (piece.length > 256 * 1024) {
      bytes += Buffer.byteLength(piece);
      if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve));
      piece = '';
    }
  }
  piece += tail;
  bytes += Buffer.byteLength(piece);
  res.end(piece);
  return bytes;
}

/** A loopback HTTP server for `handle`; a handler's failure answers 500 (or cuts an answer under way). */
export async function listenOnLoopback(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) textAnswer(res, 500, String(error));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
