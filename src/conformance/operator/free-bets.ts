/**
 * Free bets (docs/protocol.md §6.6): a freeBets bet is not debited from the
 * player, its wins are credited, and `campaign.finished` closes the
 * campaign for that player alone; a campaign without a type changes nothing.
 */
import { call, operatorCases, probe, tx } from './define.js';

const FREE = (finished = false) => ({ id: 'c1', type: 'freeBets', finished });

export const FREE_BETS_CASES = operatorCases('free-bets', [
  {
    id: 'bet-not-debited',
    title: 'a freeBets bet is not debited from the player, even over the balance; its win is credited',
    clause: 'docs/protocol.md §6.6',
    players: { main: { currency: 'EUR', balance: '10' } },
    steps: [
      tx(
        'a freeBets bet of 50 in the open round r1',
        { transactions: [{ type: 'bet', amount: '50' }], round: { id: 'r1', finished: false }, campaign: FREE() },
        { status: 200, balance: 'unchanged' },
      ),
      tx('win 3 in r1, finishing it', { transactions: [{ type: 'win', amount: '3' }], round: 'r1', campaign: FREE() }, { status: 200, balance: '+3' }),
    ],
  },
  {
    id: 'finished-closes-campaign',
    title: 'campaign.finished closes the campaign for the player: a later freeBets bet is refused with 409 CAMPAIGN_FINISHED',
    clause: 'docs/protocol.md §6.6',
    steps: [
      tx(
        'a freeBets bet of 1 and a win of 2, finishing campaign c1',
        {
          transactions: [
            { type: 'bet', amount: '1' },
            { type: 'win', amount: '2' },
          ],
          campaign: FREE(true),
        },
        { status: 200, balance: '+2' },
      ),
      tx(
        'a freeBets bet of 1 on c1',
        { transactions: [{ type: 'bet', amount: '1' }], campaign: FREE() },
        { status: 409, code: 'CAMPAIGN_FINISHED', balance: 'unchanged' },
        { keep: 'late' },
      ),
      call({ say: 'send it again', endpoint: '/transaction', resend: 'late', expect: { status: 409, code: 'CAMPAIGN_FINISHED', balance: 'unchanged' } }),
      probe(),
    ],
  },
  {
    id: 'finished-for-that-player',
    title: 'a campaign finished for one player stays open for another',
    clause: 'docs/protocol.md §6.6',
    players: { other: { currency: 'EUR', balance: '100' } },
    steps: [
      tx(
        'the main player finishes campaign c1 with a freeBets bet of 1',
        { transactions: [{ type: 'bet', amount: '1' }], campaign: FREE(true) },
        { status: 200, balance: 'unchanged' },
      ),
      tx(
        'the other player makes a freeBets bet of 1 on c1',
        { session: 'other', transactions: [{ type: 'bet', amount: '1' }], campaign: FREE() },
        { status: 200, balance: 'unchanged' },
      ),
    ],
  },
  {
    id: 'win-after-finished',
    title: 'a win of a finished campaign is credited: only its bets are refused',
    clause: 'docs/protocol.md §6.6',
    steps: [
      tx(
        'a freeBets bet of 1, finishing campaign c1',
        { transactions: [{ type: 'bet', amount: '1' }], campaign: FREE(true) },
        { status: 200, balance: 'unchanged' },
      ),
      tx('a win of 2 naming c1', { transactions: [{ type: 'win', amount: '2' }], campaign: FREE() }, { status: 200, balance: '+2' }),
    ],
  },
  {
    id: 'untyped-is-paid',
    title: 'a bet of a campaign without a type is debited as usual',
    clause: 'docs/protocol.md §6.6',
    steps: [
      tx('bet 4 with campaign {id} and no type', { transactions: [{ type: 'bet', amount: '4' }], campaign: { id: 'c1' } }, { status: 200, balance: '-4' }),
    ],
  },
  {
    id: 'untyped-closes-nothing',
    title: 'a campaign without a type changes nothing: its finished does not close the campaign',
    clause: 'docs/protocol.md §6.6',
    steps: [
      tx(
        'bet 1 with campaign {id: c1, finished: true} and no type',
        { transactions: [{ type: 'bet', amount: '1' }], campaign: { id: 'c1', finished: true } },
        { status: 200, balance: '-1' },
      ),
      tx('a freeBets bet of 1 on c1', { transactions: [{ type: 'bet', amount: '1' }], campaign: FREE() }, { status: 200, balance: 'unchanged' }),
    ],
  },
]);
