/**
 * The default limits (docs/protocol.md §9): a sender that stays within them
 * is accepted, and one past them is refused and books nothing. An operator
 * configured with other limits fails these cases where it differs: the kit
 * checks the defaults, which every provider may rely on.
 */
import type { CaseContext } from '../case-model.js';
import { writeJson } from '../json-text.js';
import { authenticate, call, operatorCases, probe, refusal, transaction, tx, type TransactionSpec } from './define.js';

/** docs/protocol.md §9: the default request body limit (bytes). */
const BODY_BYTES_LIMIT = 262_144;
/** docs/protocol.md §9: transactions per /transaction request. */
const TRANSACTIONS_MAX = 100;
/** docs/protocol.md §9: characters of `regulatory`. */
const REGULATORY_MAX = 16_384;
/** docs/protocol.md §9: characters of a playerId or a game slug. */
const ID_CHARACTERS_MAX = 128;
/** docs/protocol.md §9: characters of a launch key. */
const LAUNCH_KEY_CHARACTERS_MAX = 256;

const REFUSED = refusal('INVALID_REQUEST');
const WIN_1: TransactionSpec = { transactions: [{ type: 'win', amount: '1' }] };

/** A win of 1 padded with an unknown member to exactly `bytes` bytes: unknown members count towards the limit (docs/protocol.md §1.3). */
function paddedWin(bytes: number): (ctx: CaseContext) => string {
  return (ctx) => {
    const base = writeJson(transaction(ctx, WIN_1));
    const frame = ',"x-padding":""';
    return `${base.slice(0, -1)},"x-padding":"${'x'.repeat(bytes - base.length - frame.length)}"}`;
  };
}

export const LIMITS_CASES = operatorCases('limits', [
  {
    id: 'hundred-transactions',
    title: `${TRANSACTIONS_MAX} transactions in one request are booked`,
    clause: 'docs/protocol.md §9',
    steps: [
      tx(
        `${TRANSACTIONS_MAX} bets of 0.01`,
        { transactions: Array.from({ length: TRANSACTIONS_MAX }, () => ({ type: 'bet', amount: '0.01' })) },
        { status: 200, balance: '-1' },
      ),
    ],
  },
  {
    id: 'too-many-transactions',
    title: `${TRANSACTIONS_MAX + 1} transactions in one request are refused with 400 and none is booked`,
    clause: 'docs/protocol.md §9',
    steps: [
      tx(
        `${TRANSACTIONS_MAX + 1} wins of 0.01`,
        { transactions: Array.from({ length: TRANSACTIONS_MAX + 1 }, () => ({ type: 'win', amount: '0.01' })) },
        REFUSED,
      ),
      probe(),
    ],
  },
  {
    id: 'body-at-limit',
    title: `a body of exactly ${BODY_BYTES_LIMIT} bytes is accepted`,
    clause: 'docs/protocol.md §9',
    steps: [
      call({
        say: `win 1 in a body padded to ${BODY_BYTES_LIMIT} bytes with an unknown member`,
        endpoint: '/transaction',
        body: paddedWin(BODY_BYTES_LIMIT),
        expect: { status: 200, balance: '+1' },
      }),
    ],
  },
  {
    id: 'body-over-limit',
    title: 'a body one byte over the limit is refused with 413 PAYLOAD_TOO_LARGE, well signed as it is',
    clause: 'docs/protocol.md §9',
    steps: [
      call({
        say: `win 1 in a body padded to ${BODY_BYTES_LIMIT + 1} bytes`,
        endpoint: '/transaction',
        body: paddedWin(BODY_BYTES_LIMIT + 1),
        expect: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      }),
      probe(),
    ],
  },
  {
    id: 'regulatory-at-limit',
    title: `regulatory data of ${REGULATORY_MAX} characters is accepted`,
    clause: 'docs/protocol.md §9',
    steps: [tx(`win 1 with ${REGULATORY_MAX} characters of regulatory`, { ...WIN_1, regulatory: 'r'.repeat(REGULATORY_MAX) }, { status: 200, balance: '+1' })],
  },
  {
    id: 'regulatory-over-limit',
    title: `regulatory data of ${REGULATORY_MAX + 1} characters is refused with 400`,
    clause: 'docs/protocol.md §9',
    steps: [tx(`win 1 with ${REGULATORY_MAX + 1} characters of regulatory`, { ...WIN_1, regulatory: 'r'.repeat(REGULATORY_MAX + 1) }, REFUSED), probe()],
  },
  {
    id: 'player-id-over-limit',
    title: `a playerId of ${ID_CHARACTERS_MAX + 1} characters is refused with 400`,
    clause: 'docs/protocol.md §9',
    steps: [
      tx(`win 1 naming a playerId of ${ID_CHARACTERS_MAX + 1} characters`, { ...WIN_1, override: { playerId: 'p'.repeat(ID_CHARACTERS_MAX + 1) } }, REFUSED),
      probe(),
    ],
  },
  {
    id: 'game-slug-malformed',
    title: 'a game slug that does not start with a letter or digit is refused with 400',
    clause: 'docs/protocol.md §9',
    steps: [tx('win 1 naming the game "-dice"', { ...WIN_1, override: { game: '-dice' } }, REFUSED), probe()],
  },
  {
    id: 'game-slug-over-limit',
    title: `a game slug of ${ID_CHARACTERS_MAX + 1} characters is refused with 400`,
    clause: 'docs/protocol.md §9',
    steps: [
      call({
        say: `authenticate naming a game of ${ID_CHARACTERS_MAX + 1} characters`,
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { game: 'g'.repeat(ID_CHARACTERS_MAX + 1) }),
        expect: REFUSED,
      }),
    ],
  },
  {
    id: 'launch-key-over-limit',
    title: `a launch key of ${LAUNCH_KEY_CHARACTERS_MAX + 1} characters is refused with 400`,
    clause: 'docs/protocol.md §9',
    steps: [
      call({
        say: `authenticate with a key of ${LAUNCH_KEY_CHARACTERS_MAX + 1} characters`,
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: 'k'.repeat(LAUNCH_KEY_CHARACTERS_MAX + 1) }),
        expect: REFUSED,
      }),
    ],
  },
]);
