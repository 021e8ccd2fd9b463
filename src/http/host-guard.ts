/**
 * The check that keeps a server on the loopback interface out of reach of
 * DNS rebinding: a web page whose name an attacker points at 127.0.0.1 is
 * on the attacker's origin, so the browser lets its scripts read the
 * answers, but it still sends the attacker's name as Host. A server told
 * which authorities (host:port) are its own answers only requests that name
 * one of them; and a state-changing request a browser sent from a page
 * (it has an Origin) must come from a page of one of them too.
 *
 * Used by the sandbox, whose lobby takes no token (docs/sandbox.md#who-may-call-what);
 * a server behind a proxy or a public name leaves it off.
 */

/** The loopback authorities of a server on `port`: the names a browser on this machine reaches it by. */
export function loopbackAuthorities(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** Methods that change nothing: their answer is the only thing a page could take, and Host already guards it. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request is not for this server, or undefined when it is: its Host
 * is none of `allowed` (lower-case authorities), or it changes state and its
 * Origin is another site's (or `null`, an opaque origin: a sandboxed frame, a file).
 */
export function hostProblem(allowed: ReadonlySet<string>, method: string, host: string | undefined, origin: string | undefined): string | undefined {
  if (host === undefined || !allowed.has(host.toLowerCase())) {
    return `Host ${JSON.stringify(host ?? '')} is not an address of this server; it answers as ${[...allowed].join(', ')}`;
  }
  if (origin === undefined || SAFE_METHODS.has(method)) return undefined;
  const lower = origin.toLowerCase();
  if (lower.startsWith('http://') && allowed.has(lower.slice('http://'.length))) return undefined;
  return `Origin ${JSON.stringify(origin)} is not a page of this server: ${method} is taken only from its own pages`;
}
