/**
 * The provider's limits and time-outs as the server counts them (ms, bytes,
 * calls): each with its default and why (DEFAULT_LIMITS), read from the
 * config's `limits`, written in the units a person sets (minutes, seconds)
 * and bounded by config-schema.ts; and the members of `limits` earlier
 * versions read, named in a warning when a config still sets one.
 */
import {
  BODY_BYTES_MAX,
  PLAYER_CALLS_PER_ADDRESS_MAX,
  PLAYER_RATE_WINDOW_S,
  REQUEST_TIMEOUT_MS,
  ROUND_CALLS_PER_LAUNCH_MAX,
  SHUTDOWN_TIMEOUT_MS,
} from '../http/limits.js';
import type { ProviderConfigFile } from './config-schema.js';
import { fail } from './config-values.js';

/** The config's `limits` as written. */
type LimitsFile = NonNullable<ProviderConfigFile['limits']>;

/**
 * Members of `limits` earlier versions read and this one does not, and
 * what replaced each: a config that still sets one is accepted, and the
 * server names it in a warning at start instead of dropping it silently.
 */
const RETIRED_LIMITS: Readonly<Record<string, string>> = {
  outboxIntervalSeconds:
    'rounds are delivered by the durable outbox, which sends each one as soon as it is written and resends it on the back-off of retryDelayMsMin and retryDelayMsMax until the operator answers (docs/provider.md)',
};

export interface ProviderLimits {
  bodyBytesMax: number;
  launchTokenTtlMs: number;
  sessionIdleMs: number;
  operatorAnswerMsMax: number;
  retryDelayMsMin: number;
  retryDelayMsMax: number;
  dispatchHorizonMs: number;
  operatorInFlightMax: number;
  roundSettleMsMax: number;
  roundCompletionMs: number;
  refreshIntervalMs: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  playerRateWindowMs: number;
  playerCallsPerAddressMax: number;
  roundCallsPerLaunchMax: number;
}

export const DEFAULT_LIMITS: ProviderLimits = {
  bodyBytesMax: BODY_BYTES_MAX, // bytes: docs/protocol.md §9
  launchTokenTtlMs: 10 * 60_000, // ms: a launch key lives 10 minutes until first use
  sessionIdleMs: 30 * 60_000, // ms: the operator's session idle expiry
  operatorAnswerMsMax: 5_000, // ms: docs/protocol.md §9
  retryDelayMsMin: 500, // ms: docs/protocol.md §9
  retryDelayMsMax: 60_000, // ms: docs/protocol.md §9
  dispatchHorizonMs: 72 * 3600 * 1000, // ms: 72 h, a weekend's outage at an operator; the outbox's own DISPATCH_HORIZON_MS (retry-schedule.ts), which a test holds it to
  operatorInFlightMax: 64, // requests: the outbox's own OPERATOR_IN_FLIGHT_MAX (outbox.ts), which a test holds it to
  roundSettleMsMax: 20_000, // ms: a player waits this long at most, then the round is left pending
  // ms: a reload or a lost connection comes back well within 10 minutes; a player gone longer has left, and the round must not stay open for days
  roundCompletionMs: 10 * 60_000,
  refreshIntervalMs: 300_000, // ms: well inside a 30-minute session
  requestTimeoutMs: REQUEST_TIMEOUT_MS, // ms: docs/protocol.md §9
  shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, // ms: docs/protocol.md §9
  playerRateWindowMs: PLAYER_RATE_WINDOW_S * 1000, // ms: http/limits.ts
  playerCallsPerAddressMax: PLAYER_CALLS_PER_ADDRESS_MAX, // calls per window: http/limits.ts
  roundCallsPerLaunchMax: ROUND_CALLS_PER_LAUNCH_MAX, // calls per window: http/limits.ts
};

/** `limits.roundCompletionSeconds`, or its older name in minutes: one of the two, or the default. */
function roundCompletionMsOf(limitsIn: { roundCompletionSeconds?: number; roundCompletionMinutes?: number }): number {
  const { roundCompletionSeconds: seconds, roundCompletionMinutes: minutes } = limitsIn;
  if (seconds !== undefined && minutes !== undefined) fail('limits.roundCompletionMinutes', 'is roundCompletionSeconds in minutes: set one of the two');
  if (seconds !== undefined) return seconds * 1000;
  return minutes === undefined ? DEFAULT_LIMITS.roundCompletionMs : minutes * 60_000;
}

/** The config's `limits`, each member given or its default, in the server's units. */
export function limitsOf(limitsIn: LimitsFile): ProviderLimits {
  const limits: ProviderLimits = {
    bodyBytesMax: limitsIn.bodyBytesMax ?? DEFAULT_LIMITS.bodyBytesMax,
    launchTokenTtlMs: (limitsIn.launchTokenTtlMinutes ?? DEFAULT_LIMITS.launchTokenTtlMs / 60_000) * 60_000,
    sessionIdleMs: (limitsIn.sessionIdleMinutes ?? DEFAULT_LIMITS.sessionIdleMs / 60_000) * 60_000,
    operatorAnswerMsMax: limitsIn.operatorAnswerMsMax ?? DEFAULT_LIMITS.operatorAnswerMsMax,
    retryDelayMsMin: limitsIn.retryDelayMsMin ?? DEFAULT_LIMITS.retryDelayMsMin,
    retryDelayMsMax: limitsIn.retryDelayMsMax ?? DEFAULT_LIMITS.retryDelayMsMax,
    dispatchHorizonMs: (limitsIn.dispatchHorizonSeconds ?? DEFAULT_LIMITS.dispatchHorizonMs / 1000) * 1000,
    operatorInFlightMax: limitsIn.operatorInFlightMax ?? DEFAULT_LIMITS.operatorInFlightMax,
    roundSettleMsMax: limitsIn.roundSettleMsMax ?? DEFAULT_LIMITS.roundSettleMsMax,
    roundCompletionMs: roundCompletionMsOf(limitsIn),
    refreshIntervalMs: (limitsIn.refreshIntervalSeconds ?? DEFAULT_LIMITS.refreshIntervalMs / 1000) * 1000,
    requestTimeoutMs: limitsIn.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs,
    shutdownTimeoutMs: limitsIn.shutdownTimeoutMs ?? DEFAULT_LIMITS.shutdownTimeoutMs,
    playerRateWindowMs: (limitsIn.playerRateWindowSeconds ?? DEFAULT_LIMITS.playerRateWindowMs / 1000) * 1000,
    playerCallsPerAddressMax: limitsIn.playerCallsPerAddressMax ?? DEFAULT_LIMITS.playerCallsPerAddressMax,
    roundCallsPerLaunchMax: limitsIn.roundCallsPerLaunchMax ?? DEFAULT_LIMITS.roundCallsPerLaunchMax,
  };
  if (limits.retryDelayMsMin > limits.retryDelayMsMax) fail('limits.retryDelayMsMin', 'must not exceed limits.retryDelayMsMax');
  return limits;
}

/** A warning for each member of `limits` that is no longer read, with what replaced it. */
export function retiredLimitWarnings(limitsIn: LimitsFile): string[] {
  return Object.entries(RETIRED_LIMITS)
    .filter(([name]) => Object.hasOwn(limitsIn, name))
    .map(([name, why]) => `limits.${name} is no longer read: ${why}`);
}
