/**
 * Whether something asked again is the thing there is: a payout asked with
 * an id already used, a campaign put again, a free round written against
 * the rounds its campaign has left. The stores ask these inside the
 * transaction that would write, so two callers cannot both pass them.
 */
import type { CampaignTerms, PayoutTerms, PlannedRound } from './facts.js';

/** Whether a payout asked again is the one there is: every field but `createdAt`. */
export function samePayout(seen: PayoutTerms, asked: PayoutTerms): boolean {
  return (
    seen.operatorId === asked.operatorId &&
    seen.playerId === asked.playerId &&
    seen.currency === asked.currency &&
    seen.amountMinor === asked.amountMinor &&
    seen.campaignId === asked.campaignId
  );
}

/** Whether a campaign put again is the one there is (its players may grow). */
export function sameCampaign(seen: CampaignTerms, asked: CampaignTerms): boolean {
  return (
    seen.operatorId === asked.operatorId &&
    seen.game === asked.game &&
    seen.currency === asked.currency &&
    seen.betMinor === asked.betMinor &&
    seen.rounds === asked.rounds &&
    seen.expiresAt === asked.expiresAt
  );
}

/**
 * Whether a free round may be written with `used` rounds of its campaign
 * already used: one is left, and the round says it is the last exactly
 * when it is (its request carries that flag to the operator).
 */
export function freeRoundFits(round: Pick<PlannedRound, 'campaignFinished'>, used: number, rounds: number): boolean {
  return used < rounds && (used + 1 === rounds) === (round.campaignFinished === true);
}
