/**
 * When a round is done, and what finishes it: the order of a reels round's
 * calls (each enqueued by the final answer of the one before), whether its
 * feature has been played, what the provider plays of a feature its player
 * left, and which seed may be revealed as the feature ends. The stores ask
 * these inside the transaction that records an answer or plays a spin; the
 * game service asks them of the rounds its players wait for.
 */
import assert from 'node:assert/strict';
import { commitment } from '../game/fairness.js';
import type { ReelsPart, RoundFacts } from './facts.js';

/** Whether a reels round's feature has been played to its end (by the player or the completion). */
export function featureDone(reels: ReelsPart): boolean {
  return reels.freeSpinsPlayed >= reels.freeSpins;
}

/**
 * What a reels call's final outcome does to its round, read from the round
 * as the outcome's transaction left it (its callsDone counting this call):
 * a refused bet refuses the round; the last call's answer settles it;
 * otherwise the next call is due now if it is the base spin's, or the
 * feature's with every free spin played (else playFreeSpins enqueues it).
 * A refused win goes on like an accepted one: the operator's refusal is
 * kept on its call, and the round still closes at the operator.
 */
export function reelsCallStep(reels: ReelsPart, callIndex: number, accepted: boolean): { finish: 'settled' | 'refused' | null; next: number | null } {
  if (callIndex === 1 && !accepted) return { finish: 'refused', next: null };
  if (reels.callsDone >= reels.calls) return { finish: 'settled', next: null };
  const next = reels.callsDone + 1;
  return { finish: null, next: next === 2 || featureDone(reels) ? next : null };
}

/**
 * A reels round's seed, revealed as its feature ends, is the one its
 * commitment names: a caller that opened another (a bug, or a row altered
 * in the database) must not write it as the round's.
 */
export function assertRevealable(round: Pick<RoundFacts, 'roundId' | 'serverSeedHash'>, serverSeed: string): void {
  assert.equal(commitment(serverSeed), round.serverSeedHash, `the seed revealed for round ${round.roundId} is the one its commitment names`);
}

/**
 * The free spins the provider plays of a feature its player left: every
 * one not yet played, from the draw fixed when the round was written, so
 * the outcome is the one the player would have got. `from` is the count
 * the completion read: its write plays them only if no one played one since.
 */
export function completionOf(reels: ReelsPart): { from: number; to: number } {
  return { from: reels.freeSpinsPlayed, to: reels.freeSpins };
}

/** Whether a round has its final answer (settled or refused): what a player of a one-request round waits for. */
export function roundFinished(round: Pick<RoundFacts, 'status'>): boolean {
  return round.status !== 'pending';
}

/** Whether a reels round's player may be shown its base spin: the bet and the base spin's win are booked, or the round is over. */
export function reelsBaseBooked(round: Pick<RoundFacts, 'status' | 'reels'>): boolean {
  return round.status !== 'pending' || round.reels!.callsDone >= 2;
}
