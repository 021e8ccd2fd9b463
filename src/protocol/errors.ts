/**
 * The one registry of error codes (docs/protocol.md §3). Every non-200 answer of
 * every Wagerlink server is built from an entry here, and a test keeps this
 * table, docs/errors.md (generated from it) and the problem+json mapping in sync.
 */

export const ERRORS = {
  INVALID_REQUEST: { status: 400, title: 'Invalid request' },
  INVALID_SIGNATURE: { status: 401, title: 'Invalid signature' },
  INVALID_TOKEN: { status: 401, title: 'Invalid token' },
  INVALID_LAUNCH_KEY: { status: 401, title: 'Invalid launch key' },
  INSUFFICIENT_FUNDS: { status: 402, title: 'Insufficient funds' },
  IP_NOT_ALLOWED: { status: 403, title: 'IP not allowed' },
  INTEGRATION_OFF: { status: 403, title: 'Integration off' },
  INTEGRATION_PAUSED: { status: 403, title: 'Integration paused' },
  INTEGRATION_MISMATCH: { status: 403, title: 'Integration mismatch' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  STAFF_LIMIT_EXCEEDED: { status: 403, title: 'Staff limit exceeded' },
  SESSION_EXPIRED: { status: 403, title: 'Session expired' },
  SESSION_MISMATCH: { status: 403, title: 'Session mismatch' },
  PLAYER_BLOCKED: { status: 403, title: 'Player blocked' },
  HOST_NOT_ALLOWED: { status: 403, title: 'Host not allowed' },
  SESSION_NOT_FOUND: { status: 404, title: 'Session not found' },
  PLAYER_NOT_FOUND: { status: 404, title: 'Player not found' },
  STAFF_NOT_FOUND: { status: 404, title: 'Staff not found' },
  INTEGRATION_NOT_FOUND: { status: 404, title: 'Integration not found' },
  GAME_NOT_FOUND: { status: 404, title: 'Game not found' },
  WALLET_NOT_FOUND: { status: 404, title: 'Wallet not found' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  DUPLICATE_CONFLICT: { status: 409, title: 'Duplicate conflict' },
  ROUND_CLOSED: { status: 409, title: 'Round closed' },
  ROUND_MISMATCH: { status: 409, title: 'Round mismatch' },
  CAMPAIGN_FINISHED: { status: 409, title: 'Campaign finished' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  PLAYER_EXISTS: { status: 409, title: 'Player exists' },
  STAFF_EXISTS: { status: 409, title: 'Staff exists' },
  INTEGRATION_EXISTS: { status: 409, title: 'Integration exists' },
  STATE_CONFLICT: { status: 409, title: 'State conflict' },
  ROUND_UNFINISHED: { status: 409, title: 'Round unfinished' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  URI_TOO_LONG: { status: 414, title: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  UNSUPPORTED_CURRENCY: { status: 422, title: 'Unsupported currency' },
  RATE_LIMITED: { status: 429, title: 'Rate limited' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/**
 * Codes that Wagerlink adds beyond docs/protocol.md §3's table: back office,
 * routing, and the answers of the HTTP layer itself (docs/protocol.md §1, §9).
 */
export const EXTRA_ERROR_CODES: readonly ErrorCode[] = [
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PLAYER_EXISTS',
  'STATE_CONFLICT',
  'ROUND_UNFINISHED',
  'REQUEST_TIMEOUT',
  'URI_TOO_LONG',
  'HEADERS_TOO_LARGE',
  'HOST_NOT_ALLOWED',
  'FORBIDDEN',
  'STAFF_LIMIT_EXCEEDED',
  'STAFF_NOT_FOUND',
  'STAFF_EXISTS',
  'INTEGRATION_OFF',
  'INTEGRATION_PAUSED',
  'INTEGRATION_MISMATCH',
  'INTEGRATION_NOT_FOUND',
  'INTEGRATION_EXISTS',
];

/** RFC 9457 body with docs/protocol.md's extra `code` member. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  /** Present wherever the player is known, as an exact JSON number text. */
  balance?: string;
}

/** An expected refusal: a value, never an exception (STYLE.md principle 2). */
export interface Refusal {
  ok: false;
  code: ErrorCode;
  detail: string;
  /** The player's balance as exact JSON number text, where the player is known. */
  balance?: string;
}

export function refuse(code: ErrorCode, detail: string, balance?: string): Refusal {
  return balance === undefined ? { ok: false, code, detail } : { ok: false, code, detail, balance };
}

export function errorType(code: ErrorCode): string {
  return `urn:wagerlink:error:${code.toLowerCase().replaceAll('_', '-')}`;
}

export function isRetryableStatus(status: number): boolean {
  // docs/protocol.md §3 retry rule: these, and network errors and time-outs, are resent with the same body.
  // 408 is the receiver's side of a time-out (docs/protocol.md §9): the request never arrived whole, so
  // nothing was applied, and treating it as final would drop a win or payout for good.
  return status === 408 || status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * Serialises a problem body. `balance` is written as raw JSON number text so
 * that it stays exact whatever its size (see money.ts).
 */
export function problemJson(code: ErrorCode, detail: string, balanceText?: string): string {
  const { status, title } = ERRORS[code];
  const head = `{"type":${JSON.stringify(errorType(code))},"title":${JSON.stringify(title)},"status":${status},"code":"${code}","detail":${JSON.stringify(detail)}`;
  return balanceText === undefined ? `${head}}` : `${head},"balance":${balanceText}}`;
}

/** Thrown for operational failures (storage down, overload): mapped to 503. */
export class UnavailableError extends Error {
  readonly code = 'SERVICE_UNAVAILABLE' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}
