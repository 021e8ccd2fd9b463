/**
 * Proves the same-ness checks (src/rounds/sameness.ts): a payout asked
 * again is the same exactly when every term but its time is, a campaign put
 * again exactly when every term is (fast-check: any one term changed makes
 * it another); a free round fits its campaign only while a round is left,
 * and only when it says it is the last exactly when it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { CampaignTerms, PayoutTerms } from '../../src/rounds/facts.js';
import { freeRoundFits, sameCampaign, samePayout } from '../../src/rounds/sameness.js';

const payout: PayoutTerms = { payoutId: randomUUID(), operatorId: 'op-1', playerId: 'player-1', currency: 'EUR', amountMinor: 500n, campaignId: randomUUID() };
const campaign: CampaignTerms = { campaignId: randomUUID(), operatorId: 'op-1', game: 'dice', currency: 'EUR', betMinor: 100n, rounds: 5, expiresAt: null };

test('a payout asked again with the same terms is the same, whatever its time', () => {
  assert.equal(samePayout(payout, { ...payout, createdAt: 99 } as PayoutTerms), true);
});

test('a payout with any one term changed is another', () => {
  const changes: Partial<PayoutTerms>[] = [
    { operatorId: 'op-2' },
    { playerId: 'player-2' },
    { currency: 'USD' },
    { amountMinor: 501n },
    { campaignId: randomUUID() },
  ];
  fc.assert(fc.property(fc.constantFrom(...changes), (change) => assert.equal(samePayout(payout, { ...payout, ...change }), false)));
});

test('a campaign put again is the same only with every term the same', () => {
  assert.equal(sameCampaign(campaign, { ...campaign }), true);
  const changes: Partial<CampaignTerms>[] = [
    { operatorId: 'op-2' },
    { game: 'reels' },
    { currency: 'USD' },
    { betMinor: 101n },
    { rounds: 6 },
    { expiresAt: 1 },
  ];
  fc.assert(fc.property(fc.constantFrom(...changes), (change) => assert.equal(sameCampaign(campaign, { ...campaign, ...change }), false)));
});

test('a free round fits while one is left, and says it is the last exactly when it is', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 10 }), fc.constantFrom(true, false, null), (used, rounds, finished) => {
      const fits = freeRoundFits({ campaignFinished: finished }, used, rounds);
      assert.equal(fits, used < rounds && (used + 1 === rounds ? finished === true : finished !== true));
    }),
  );
  assert.equal(freeRoundFits({ campaignFinished: true }, 4, 5), true);
  assert.equal(freeRoundFits({ campaignFinished: false }, 4, 5), false);
  assert.equal(freeRoundFits({ campaignFinished: false }, 3, 5), true);
  assert.equal(freeRoundFits({ campaignFinished: true }, 5, 5), false);
});
