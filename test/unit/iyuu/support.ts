/** Shared by the service tests: configs pointing at the reference server, and independent expectations. */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { SERVICE_CLIENT_VERSION, type ServiceConfig } from '../../../utils/iyuu/operations';
import { ServiceError, type ServiceErrorKind } from '../../../utils/iyuu/service-errors';
import type { RecordedRequest, ReferenceService } from '../../service/server';

/** What every request must carry as `version` (configs below set none, as the extension sets none). */
export const VERSION = SERVICE_CLIENT_VERSION;

export function configFor(service: ReferenceService, overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return { baseUrl: service.url, token: 'demo-token', timeoutMs: 3000, ...overrides };
}

export const nodeSha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** The call must fail with a ServiceError (of `kind`, when given); returns it for further checks. */
export async function failure(call: Promise<unknown>, kind?: ServiceErrorKind): Promise<ServiceError> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    if (kind) expect((error as ServiceError).kind, (error as ServiceError).message).toBe(kind);
    return error as ServiceError;
  }
  throw new Error(`expected a ServiceError${kind ? ` (${kind})` : ''}, got ${JSON.stringify(outcome)}`);
}

export function formOf(request: RecordedRequest | undefined): URLSearchParams {
  expect(request, 'a recorded request').toBeDefined();
  return new URLSearchParams(request!.body);
}

export function allSids(service: ReferenceService): number[] {
  return service.data.sites.map((site) => site.id);
}

export function sidOf(service: ReferenceService, short: string): number {
  const site = service.data.sites.find((entry) => entry.site === short);
  if (!site) throw new Error(`no site ${short} in sites.json`);
  return site.id;
}

/** A torrent group by a part of its title. */
export function groupTitled(service: ReferenceService, part: string) {
  const group = service.data.torrents.find((torrent) => torrent.title.includes(part));
  if (!group) throw new Error(`no group titled like ${part}`);
  return group;
}

export interface PlainCandidate {
  sid: number;
  torrent_id: number;
  info_hash: string;
}

/** What a lookup of `hash` should return, worked out from the data files (not from the server's index). */
export function expectedCandidates(service: ReferenceService, hash: string, sids?: readonly number[]): PlainCandidate[] {
  const group = service.data.torrents.find((torrent) => torrent.members.some((member) => member.info_hash === hash));
  if (!group) return [];
  return sortCandidates(
    group.members
      .filter((member) => member.info_hash !== hash)
      .map((member) => ({ sid: sidOf(service, member.site), torrent_id: member.torrent_id, info_hash: member.info_hash }))
      .filter((candidate) => !sids || sids.includes(candidate.sid)),
  );
}

export function sortCandidates<T extends PlainCandidate>(candidates: readonly T[]): PlainCandidate[] {
  return candidates
    .map(({ sid, torrent_id, info_hash }) => ({ sid, torrent_id, info_hash }))
    .sort((a, b) => a.sid - b.sid || a.torrent_id - b.torrent_id);
}

/** A valid-looking hash that no torrent in the data has. */
export const UNKNOWN_HASH = '0123456789abcdef0123456789abcdef01234567';

/** Raw HTTP to the reference server, for server-side strictness. */
export async function post(service: ReferenceService, path: string, fields: Record<string, string> | string, headers: Record<string, string> = {}) {
  const body = typeof fields === 'string' ? fields : new URLSearchParams(fields).toString();
  const response = await fetch(service.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

export async function get(service: ReferenceService, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(service.url + path, { headers });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}
