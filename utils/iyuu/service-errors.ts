/**
 * Every way a call to the lookup service can fail, as a value with a kind.
 * The UI maps a kind to a message and an action; `serviceMessage` keeps the service's own `msg`.
 * Errors cross message boundaries (background → popup/panel), so the plain shape is what travels.
 */
export const SERVICE_ERROR_KINDS = [
  'no-credentials', // nothing configured to call the service with
  'not-permitted', // the service address is neither a known IYUU host nor an origin the user granted
  'no-consent', // the user has not allowed what this call would send (Firefox's data-collection consent)
  'auth', // token missing, unknown or rejected
  'not-bound', // token exists but is not bound to a recommended site yet
  'stale-site-hash', // sid_sha1 missing or stale: report the site list again
  'expired-timestamp', // the service's clock and ours disagree
  'bad-sign', // App ID / Secret signature rejected
  'rate-limited', // 429 or "too fast": wait until retryAt
  'network', // no answer at all (offline, DNS, refused, CORS)
  'timeout', // no answer in time
  'bad-answer', // an answer that does not match the spec
  'bad-request', // the service refused the request for another stated reason
  'server', // the service failed (5xx)
] as const;
export type ServiceErrorKind = (typeof SERVICE_ERROR_KINDS)[number];

export interface ServiceFailure {
  kind: ServiceErrorKind;
  /** A short English description for logs and tests; the UI shows its own localized text. */
  detail: string;
  /** The service's own `msg`, verbatim (rendered as text only). */
  serviceMessage?: string;
  /** The envelope's `code`, when there was one. */
  code?: number;
  httpStatus?: number;
  /** Epoch ms before which no call may go out (rate-limited). */
  retryAt?: number;
  /** Seconds the service's clock is ahead of ours (expired-timestamp), from its Date header. */
  clockOffsetSeconds?: number;
  /** The service address answered with a redirect, which is never followed (bad-answer). */
  redirected?: boolean;
}

export class ServiceError extends Error implements ServiceFailure {
  readonly kind: ServiceErrorKind;
  readonly detail: string;
  readonly serviceMessage?: string;
  readonly code?: number;
  readonly httpStatus?: number;
  readonly retryAt?: number;
  readonly clockOffsetSeconds?: number;
  readonly redirected?: boolean;

  constructor(failure: ServiceFailure) {
    super(`${failure.kind}: ${failure.detail}${failure.serviceMessage ? ` (${failure.serviceMessage})` : ''}`);
    this.name = 'ServiceError';
    this.kind = failure.kind;
    this.detail = failure.detail;
    this.serviceMessage = failure.serviceMessage;
    this.code = failure.code;
    this.httpStatus = failure.httpStatus;
    this.retryAt = failure.retryAt;
    this.clockOffsetSeconds = failure.clockOffsetSeconds;
    if (failure.redirected) this.redirected = true;
  }

  toFailure(): ServiceFailure {
    const { kind, detail, serviceMessage, code, httpStatus, retryAt, clockOffsetSeconds, redirected } = this;
    return { kind, detail, serviceMessage, code, httpStatus, retryAt, clockOffsetSeconds, ...(redirected ? { redirected } : {}) };
  }
}

/** Any thrown value as a failure: ServiceErrors keep their kind, anything else is a bad answer. */
export function toFailure(error: unknown): ServiceFailure {
  if (error instanceof ServiceError) return error.toFailure();
  return { kind: 'bad-answer', detail: error instanceof Error ? error.message : String(error) };
}

/** True for errors thrown by the service client (any realm-independent check would do; this is the common case). */
export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError;
}
