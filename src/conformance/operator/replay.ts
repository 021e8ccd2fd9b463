/**
 * Replay of a captured signed request (docs/protocol.md §2.1, §6.4): a
 * signature carries no time and no nonce, so whoever captured a request can
 * send it again. It must book nothing twice, and fail the signature if any
 * byte of it is changed. (That a refused request sent again stays refused,
 * whatever changed since, is the idempotency area's final-refusal cases.)
 */
import type { CallStep } from '../case-model.js';
import { authenticate, call, operatorCases, pay, probe, tx, type CaseSpec } from './define.js';

/** The kept bytes with `from` changed to `to` once: a tampered capture. */
function replaced(from: string, to: string): (bytes: Uint8Array) => Uint8Array {
  return (bytes) => {
    const text = Buffer.from(bytes).toString('utf8');
    if (!text.includes(from)) throw new Error(`the kept request holds no ${from}`);
    return new Uint8Array(Buffer.from(text.replace(from, to), 'utf8'));
  };
}

/** A request captured (kept), another that moves the balance, then the captured bytes again: 200 with the balance now, and nothing booked twice. */
function capturedResent(id: string, title: string, captured: CallStep, between: CallStep): CaseSpec {
  return {
    id,
    title,
    clause: 'docs/protocol.md §2.1',
    steps: [
      captured,
      between,
      call({
        say: 'send the captured bytes and signature again',
        endpoint: captured.endpoint,
        resend: 'captured',
        expect: { status: 200, balance: 'unchanged' },
      }),
      probe('it was booked once'),
    ],
  };
}

export const REPLAY_CASES = operatorCases('replay', [
  capturedResent(
    'captured-bet',
    'a captured bet sent again later books nothing and answers the balance now',
    tx('bet 1, captured', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }, { keep: 'captured' }),
    tx('win 2 in another round', { transactions: [{ type: 'win', amount: '2' }] }, { status: 200, balance: '+2' }),
  ),
  {
    id: 'captured-amount-changed',
    title: 'a captured request with its amount changed, under its old signature, is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx('win 1, captured', { transactions: [{ type: 'win', amount: '1' }] }, { status: 200, balance: '+1' }, { keep: 'captured' }),
      call({
        say: 'send it again with "amount":1 changed to "amount":9',
        endpoint: '/transaction',
        resend: 'captured',
        tamper: replaced('"amount":1', '"amount":9'),
        expect: { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
      }),
      probe('nothing more was credited'),
    ],
  },
  {
    id: 'captured-byte-added',
    title: 'a captured request with one space added, under its old signature, is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx('bet 1 (b1), captured', { transactions: [{ id: 'b1', type: 'bet', amount: '1' }], round: 'r1' }, { status: 200, balance: '-1' }, { keep: 'captured' }),
      call({
        say: 'send it again with a space before its last }',
        endpoint: '/transaction',
        resend: 'captured',
        tamper: (bytes) => new Uint8Array([...bytes.subarray(0, -1), 0x20, 0x7d]),
        expect: { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
      }),
      probe(),
    ],
  },
  capturedResent(
    'captured-payout',
    'a captured payout sent again later is credited once',
    pay('payout 5, captured', { amount: '5' }, { status: 200, balance: '+5' }, { keep: 'captured' }),
    tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
  ),
  {
    id: 'captured-authenticate',
    title: 'a captured /authenticate sent again answers the same session, not a new one',
    clause: 'docs/protocol.md §5.1',
    steps: [
      { kind: 'session', say: 'open a session with a new key', name: 'k' },
      call({
        say: 'authenticate with the key again, captured',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { session: 'k' }),
        keep: 'captured',
        expect: { status: 200, session: { sameAs: 'k' } },
      }),
      call({ say: 'send the captured request again', endpoint: '/authenticate', resend: 'captured', expect: { status: 200, session: { sameAs: 'k' } } }),
    ],
  },
]);
