/**
 * Authentication of the provider's endpoints (docs/protocol.md §2.1–§2.3):
 * the signature of the exact bytes under the calling operator's secret, or
 * its next one during a rotation; nothing in a body is read for a caller
 * that cannot sign, and a body naming an operator that did not sign it is
 * answered as an unsigned call is, with the same detail.
 */
import { sign } from '../../protocol/signing.js';
import {
  bets,
  call,
  gameBets,
  LAUNCHED,
  launch,
  onBoth,
  providerCases,
  realLaunch,
  refusal,
  SIGNATURE,
  UNKNOWN_OPERATOR,
  without,
  WRONG_SECRET,
} from './define.js';

/** The same JSON value as the bytes sent, formatted: other bytes (docs/protocol.md Appendix A.2). */
function formatted(bytes: Uint8Array): string {
  return JSON.stringify(JSON.parse(Buffer.from(bytes).toString('utf8')), null, 2);
}

export const AUTH_CASES = providerCases('auth', [
  ...onBoth((endpoint, body, name) => ({
    id: `signature-missing-${name}`,
    title: `a ${endpoint} without X-Server-Authorization is refused with 401 INVALID_SIGNATURE`,
    clause: 'docs/protocol.md §2.1',
    steps: [call('send a well-formed body unsigned', endpoint, body, refusal('INVALID_SIGNATURE'), { headers: (h) => without(h, SIGNATURE) })],
  })),
  ...onBoth((endpoint, body, name) => ({
    id: `signature-wrong-secret-${name}`,
    title: `a ${endpoint} signed with another secret is refused with 401 INVALID_SIGNATURE`,
    clause: 'docs/protocol.md §2.1',
    steps: [
      call("sign a well-formed body with a secret that is not the operator's", endpoint, body, refusal('INVALID_SIGNATURE'), {
        headers: (h, bytes) => ({ ...h, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
      }),
    ],
  })),
  {
    id: 'signature-other-bytes',
    title: 'the signature of the same JSON value formatted otherwise is refused: the provider checks the bytes it received',
    clause: 'docs/protocol.md §2.1',
    steps: [
      bets('send a /game-bets signed as if it were formatted with other whitespace', (ctx) => gameBets(ctx), refusal('INVALID_SIGNATURE'), {
        headers: (h, bytes, ctx) => ({ ...h, [SIGNATURE]: ctx.sign(formatted(bytes)) }),
      }),
    ],
  },
  {
    id: 'signature-tampered',
    title: 'a body changed in one byte after it was signed is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.1',
    steps: [
      bets('sign a /game-bets, then send it with the last character of the walletId changed', (ctx) => gameBets(ctx), refusal('INVALID_SIGNATURE'), {
        headers: (h, bytes, ctx) => {
          const text = Buffer.from(bytes).toString('utf8');
          const tampered = text.replace(`"${ctx.walletId()}"`, `"${ctx.walletId().slice(0, -1)}${ctx.walletId().endsWith('x') ? 'y' : 'x'}"`);
          return { ...h, [SIGNATURE]: ctx.sign(tampered) };
        },
      }),
    ],
  },
  {
    id: 'signature-upper-case',
    title: 'the right signature in upper-case hex is refused: exactly 64 characters 0-9a-f',
    clause: 'docs/protocol.md §2.1',
    steps: [
      bets('sign a /game-bets and send the hex in upper case', (ctx) => gameBets(ctx), refusal('INVALID_SIGNATURE'), {
        headers: (h) => ({ ...h, [SIGNATURE]: h[SIGNATURE]!.toUpperCase() }),
      }),
    ],
  },
  {
    id: 'signature-prefixed',
    title: 'the right signature with a sha256= prefix is refused',
    clause: 'docs/protocol.md §2.1',
    steps: [
      launch('sign a launch and send sha256=<hex>', (ctx) => realLaunch(ctx), refusal('INVALID_SIGNATURE'), {
        headers: (h) => ({ ...h, [SIGNATURE]: `sha256=${h[SIGNATURE]}` }),
      }),
    ],
  },
  {
    id: 'unsigned-not-json',
    title: 'an unsigned body that is not JSON is refused 401, not 400: nothing is read before the caller is authenticated',
    clause: 'docs/protocol.md §2',
    steps: [
      bets('send a body that is not JSON, unsigned', () => '{"walletId": "unfinished', refusal('INVALID_SIGNATURE'), { headers: (h) => without(h, SIGNATURE) }),
    ],
  },
  {
    id: 'other-operator-named-bets',
    title: 'a /game-bets naming an operator whose secret did not sign it is answered as an unsigned call, detail and all',
    clause: 'docs/protocol.md §2.3',
    steps: [
      bets('send a /game-bets unsigned', (ctx) => gameBets(ctx), refusal('INVALID_SIGNATURE'), { headers: (h) => without(h, SIGNATURE), keep: 'unsigned' }),
      bets(
        "sign a /game-bets naming another operator with this operator's secret",
        (ctx) => gameBets(ctx, { operatorId: UNKNOWN_OPERATOR }),
        refusal('INVALID_SIGNATURE', (answer, ctx) => {
          const unsigned = ctx.answer('unsigned').body?.detail;
          return answer.body?.detail === unsigned
            ? []
            : [
                `the detail ${JSON.stringify(answer.body?.detail)} differs from an unsigned call's ${JSON.stringify(unsigned)}: it tells a stranger which operator ids exist (docs/protocol.md §2.3)`,
              ];
        }),
      ),
    ],
  },
  {
    id: 'other-operator-named-launch',
    title: 'a real-mode launch naming an operator whose secret did not sign it is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.3',
    steps: [
      launch(
        "sign a launch naming another operator with this operator's secret",
        (ctx) => realLaunch(ctx, { operatorId: UNKNOWN_OPERATOR }),
        refusal('INVALID_SIGNATURE'),
      ),
    ],
  },
  ...onBoth((endpoint, body, name) => ({
    id: `next-secret-${name}`,
    title: `during a rotation, a ${endpoint} signed with the next secret is accepted`,
    clause: 'docs/protocol.md §2.2',
    needs: ['next-secret'],
    steps: [
      call('sign a well-formed body with the next secret', endpoint, body, name === 'launch' ? LAUNCHED : { status: 200 }, {
        headers: (h, bytes, ctx) => ({ ...h, [SIGNATURE]: ctx.sign(bytes, 'next') }),
      }),
    ],
  })),
]);
