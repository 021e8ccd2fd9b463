/**
 * Call limits of the player-facing APIs (docs/provider.md, docs/sandbox.md):
 * each caller (an address, a launch) may make so many calls in a fixed
 * window; a call over it is answered 429 RATE_LIMITED as problem+json, with
 * `Retry-After` in seconds until the window ends, and nothing else is done.
 *
 * @fastify/rate-limit counts: its store keeps a window per key in a bounded
 * LRU map. Its route hooks are not used: they answer through a thrown error
 * and run one limit per request, while a play is held to two (its address's
 * on arrival, its launch's once the body names the launch). Its
 * `createRateLimit` counts a call and says whether it is over, and the
 * answer is written here, as every other problem is (json-api.ts).
 */
import rateLimit, { normalizeIP, type CreateRateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './json-api.js';

export interface CallLimit {
  /** Calls one key may make in a window. */
  callsMax: number;
  /** The window, ms. */
  windowMs: number;
}

/**
 * Keys (addresses, launches) each limit keeps a window for; the one seen
 * least recently is forgotten first, and starts a new window when it comes
 * back. A window takes about a hundred bytes: 10,000 keep about a megabyte
 * per limit, and more players than a node serves at once.
 */
const LIMITED_KEYS_MAX = 10_000;

/**
 * An IPv6 caller is counted by its /64: a host is given a /64 and can pick
 * any address in it, so counting single addresses would count nothing.
 */
const IPV6_PREFIX_BITS = 64;

/** Counts one call of `key`; false once the 429 is sent (the caller must stop), true when within the limit. */
export type CallLimiter = (request: FastifyRequest, reply: FastifyReply, key: string) => Promise<boolean>;

/** Makes the app able to count calls (once per app). */
export async function enableCallLimits(app: FastifyInstance): Promise<void> {
  if (!app.hasDecorator('createRateLimit')) await app.register(rateLimit, { global: false });
}

/** The key of a caller's address: IPv4 as it is (an IPv4-mapped IPv6 address too), IPv6 by its /64. */
export function addressKey(address: string | undefined): string {
  return address === undefined ? 'unknown' : normalizeIP(address, IPV6_PREFIX_BITS);
}

/**
 * A limit of `limit.callsMax` calls per window per key. `whose` names the
 * caller in the refusal's detail ("from this address").
 */
export function callLimiter(app: FastifyInstance, limit: CallLimit, whose: string): CallLimiter {
  // The library asks a request for its key; the key is known by the caller of the limiter, which hands it over here.
  const keys = new WeakMap<FastifyRequest, string>();
  const options: CreateRateLimitOptions & { cache: number } = {
    max: limit.callsMax,
    timeWindow: limit.windowMs,
    // The store of a limit made here reads its size from these options (LocalStore's child()), though
    // the library's types name `cache` for the plugin's own options only.
    cache: LIMITED_KEYS_MAX,
    keyGenerator: (request) => keys.get(request) ?? '',
  };
  const count = app.createRateLimit(options);
  const windowS = Math.ceil(limit.windowMs / 1000);
  return async (request, reply, key) => {
    keys.set(request, key);
    const verdict = await count(request);
    if (verdict.isAllowed || !verdict.isExceeded) return true;
    const afterS = Math.max(1, verdict.ttlInSeconds);
    reply.header('retry-after', String(afterS));
    sendProblem(reply, 'RATE_LIMITED', `more than ${limit.callsMax} calls ${whose} in ${windowS} s; resend after ${afterS} s`);
    return false;
  };
}
