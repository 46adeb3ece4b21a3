/**
 * Every way a call to a torrent client can fail, as a value with a kind (like utils/iyuu/service-errors.ts
 * for the lookup service). The UI maps a kind to a message and an action; `clientMessage` keeps the
 * client's own words (rendered as text only).
 */
export const CLIENT_ERROR_KINDS = [
  'bad-config', // the address is not an http(s) URL, or has credentials or a query in it
  'bad-input', // we were asked something impossible (not a hash, not a .torrent file)
  'auth', // wrong user name, password or API key
  'banned', // the client banned our IP after too many failed logins
  'csrf', // refused by qBittorrent's CSRF (Origin/Referer) or Host-header check
  'not-allowed', // Transmission: our address or host name is not on its whitelist
  'unreachable', // no answer at all (stopped, wrong port, offline, refused)
  'certificate', // https whose certificate is not trusted
  'timeout', // no answer in time
  'not-connected', // Deluge: the web UI is not connected to a daemon and could not connect
  'refused', // the client refused an add (its words in clientMessage)
  'not-found', // the torrent is not in the client
  'server', // the client failed (5xx)
  'bad-answer', // an answer we cannot read
] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

export interface ClientFailure {
  kind: ClientErrorKind;
  /** A short English description for logs and tests; the UI shows its own localized text. */
  detail: string;
  /** The client's own words, verbatim (cut to 500 characters). */
  clientMessage?: string;
  httpStatus?: number;
  /**
   * Browsers say nothing about why a request failed; on an https address an untrusted certificate
   * looks exactly like an unreachable client, so the UI can suggest opening the address once.
   */
  certificatePossible?: boolean;
}

export class ClientError extends Error implements ClientFailure {
  readonly kind: ClientErrorKind;
  readonly detail: string;
  readonly clientMessage?: string;
  readonly httpStatus?: number;
  readonly certificatePossible?: boolean;

  constructor(failure: ClientFailure) {
    super(`${failure.kind}: ${failure.detail}${failure.clientMessage ? ` (${failure.clientMessage})` : ''}`);
    this.name = 'ClientError';
    this.kind = failure.kind;
    this.detail = failure.detail;
    this.clientMessage = failure.clientMessage === undefined ? undefined : failure.clientMessage.slice(0, 500);
    this.httpStatus = failure.httpStatus;
    this.certificatePossible = failure.certificatePossible;
  }

  toFailure(): ClientFailure {
    const { kind, detail, clientMessage, httpStatus, certificatePossible } = this;
    const failure: ClientFailure = { kind, detail };
    if (clientMessage !== undefined) failure.clientMessage = clientMessage;
    if (httpStatus !== undefined) failure.httpStatus = httpStatus;
    if (certificatePossible !== undefined) failure.certificatePossible = certificatePossible;
    return failure;
  }
}

/** Any thrown value as a failure: ClientErrors keep their kind, anything else is a bad answer. */
export function toClientFailure(error: unknown): ClientFailure {
  if (error instanceof ClientError) return error.toFailure();
  return { kind: 'bad-answer', detail: error instanceof Error ? error.message : String(error) };
}

export function isClientError(error: unknown): error is ClientError {
  return error instanceof ClientError;
}
