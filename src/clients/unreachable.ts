/**
 * A call that got no answer, told in words a person reads: `could not reach
 * http://127.0.0.1:8090 (connection refused)`, not the socket's error code.
 * The command line and the conformance kit say it alike.
 */

/** The socket's and undici's error codes, as the sentence says them. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped coming',
  UND_ERR_SOCKET: 'connection closed',
  TimeoutError: 'no answer in time',
};

/** `http://host:port` of a URL, or the text as it was when it is not one. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * The sentence for a call to `url` that failed with `code` (an error's code,
 * or a `CODE: message` detail); `fallback` is said when the code is not known.
 */
export function couldNotReach(url: string, code: string | undefined, fallback?: string): string {
  const key = code?.match(/^[A-Za-z_]+/)?.[0];
  const reason = (key === undefined ? undefined : REASONS[key]) ?? fallback ?? code ?? 'no answer';
  return `could not reach ${originOf(url)} (${reason})`;
}
