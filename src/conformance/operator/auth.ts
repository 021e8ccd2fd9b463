/**
 * Authentication of the operator's endpoints (docs/protocol.md §2): the
 * bearer token is checked first, then the signature of the exact bytes,
 * and nothing is read or booked for a caller that fails either.
 */
import { sign } from '../../protocol/signing.js';
import type { CallStep, CaseContext, Headers } from '../case-model.js';
import { writeJson } from '../json-text.js';
import { authenticate, call, operatorCases, pay, probe, refusal, transaction, tx, type CaseSpec, type TransactionSpec } from './define.js';

const BET_1: TransactionSpec = { transactions: [{ type: 'bet', amount: '1' }] };
/** A secret the operator cannot hold: the kit never learns the operator's other secrets. */
const WRONG_SECRET = 'conformance-kit-not-the-secret';
const WRONG_TOKEN = 'conformance-kit-not-an-access-token';
const SIGNATURE = 'x-server-authorization';

function without(headers: Headers, name: string): Headers {
  const { [name]: _dropped, ...rest } = headers;
  return rest;
}

/** The same JSON value as the bytes sent, formatted: other bytes (docs/protocol.md Appendix A.2). */
function formatted(bytes: Uint8Array): string {
  return JSON.stringify(JSON.parse(Buffer.from(bytes).toString('utf8')), null, 2);
}

const NOT_JSON = '{"sessionId": "unfinished';

/** A fresh key sent unauthenticated is refused, and is not used up: sent as it should be, it opens a session. */
function unauthenticatedKey(
  id: string,
  title: string,
  clause: string,
  say: string,
  headers: NonNullable<CallStep['headers']>,
  code: 'INVALID_TOKEN' | 'INVALID_SIGNATURE',
): CaseSpec {
  const body = (ctx: CaseContext) => authenticate(ctx, { key: ctx.key('k') });
  return {
    id,
    title,
    clause,
    steps: [
      { kind: 'session', say: 'mint a launch key', name: 'k', open: false },
      call({ say, endpoint: '/authenticate', body, headers, expect: refusal(code, 'absent') }),
      call({ say: 'authenticate with the key, as it should be', endpoint: '/authenticate', body, expect: { status: 200, session: 'new' } }),
    ],
  };
}

export const AUTH_CASES = operatorCases('auth', [
  {
    id: 'token-missing',
    title: 'a /transaction without a bearer token is refused with 401 INVALID_TOKEN and books nothing',
    clause: 'docs/protocol.md §2.4',
    steps: [
      tx('bet 1 without Authorization', BET_1, { status: 401, code: 'INVALID_TOKEN', balance: 'absent' }, { headers: (h) => without(h, 'authorization') }),
      probe(),
    ],
  },
  {
    id: 'token-unknown',
    title: 'a bearer token the operator did not issue is refused with 401 INVALID_TOKEN',
    clause: 'docs/protocol.md §2.4',
    steps: [
      tx(
        'bet 1 with an unknown token',
        BET_1,
        { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
        {
          headers: (h) => ({ ...h, authorization: `Bearer ${WRONG_TOKEN}` }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'token-not-bearer',
    title: 'the access token under another scheme than Bearer is refused with 401 INVALID_TOKEN',
    clause: 'docs/protocol.md §2.4',
    steps: [
      tx(
        'bet 1 with Authorization: Basic',
        BET_1,
        { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
        {
          headers: (h) => ({ ...h, authorization: h.authorization!.replace(/^Bearer /, 'Basic ') }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'token-on-payout',
    title: 'a /payout without a bearer token is refused with 401 INVALID_TOKEN and credits nothing',
    clause: 'docs/protocol.md §2.4',
    steps: [
      pay(
        'payout 5 without Authorization',
        { amount: '5' },
        { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
        { headers: (h) => without(h, 'authorization') },
      ),
      probe(),
    ],
  },
  unauthenticatedKey(
    'token-on-authenticate',
    'an /authenticate without a bearer token is refused with 401 INVALID_TOKEN, and the key still opens its session',
    'docs/protocol.md §2.4',
    'authenticate with the key and no Authorization',
    (h) => without(h, 'authorization'),
    'INVALID_TOKEN',
  ),
  {
    id: 'token-before-body',
    title: 'the token is checked before the body is read: an unknown token with a body that is not JSON is 401 INVALID_TOKEN',
    clause: 'docs/protocol.md §2.4',
    steps: [
      call({
        say: 'send a body that is not JSON with an unknown token',
        endpoint: '/transaction',
        body: () => NOT_JSON,
        headers: (h) => ({ ...h, authorization: `Bearer ${WRONG_TOKEN}` }),
        expect: { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
      }),
    ],
  },
  {
    id: 'token-before-signature',
    title: 'an unknown token and a wrong signature together are answered INVALID_TOKEN: the token is checked first',
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'bet 1 with an unknown token and a wrong signature',
        BET_1,
        { status: 401, code: 'INVALID_TOKEN', balance: 'absent' },
        {
          headers: (h, bytes) => ({ ...h, authorization: `Bearer ${WRONG_TOKEN}`, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'signature-missing',
    title: 'a /transaction without X-Server-Authorization is refused with 401 INVALID_SIGNATURE and books nothing',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx('bet 1 without a signature', BET_1, { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' }, { headers: (h) => without(h, SIGNATURE) }),
      probe(),
    ],
  },
  {
    id: 'signature-wrong-secret',
    title: 'a body signed with another secret is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx(
        'bet 1 signed with a secret the operator does not hold',
        BET_1,
        { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
        {
          headers: (h, bytes) => ({ ...h, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'signature-upper-case',
    title: 'the right HMAC in upper-case hex is refused with 401 INVALID_SIGNATURE: one HMAC has one spelling',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx(
        'bet 1 with the signature in upper case',
        BET_1,
        { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
        {
          headers: (h) => ({ ...h, [SIGNATURE]: h[SIGNATURE]!.toUpperCase() }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'signature-prefixed',
    title: 'the right HMAC with a "sha256=" prefix is refused with 401 INVALID_SIGNATURE',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx(
        'bet 1 with the signature written sha256=<hex>',
        BET_1,
        { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
        {
          headers: (h) => ({ ...h, [SIGNATURE]: `sha256=${h[SIGNATURE]!}` }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'signature-of-other-bytes',
    title: 'the signature of the same JSON value in other bytes is refused: the receiver checks the bytes it received',
    clause: 'docs/protocol.md §2.1',
    steps: [
      tx(
        'bet 1, signed over the body formatted with other whitespace',
        BET_1,
        { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
        {
          headers: (h, bytes, ctx) => ({ ...h, [SIGNATURE]: ctx.sign(formatted(bytes)) }),
        },
      ),
      probe(),
    ],
  },
  {
    id: 'signature-of-formatted-body',
    title: 'a formatted body signed over its own bytes is booked: the signature is of the bytes, not of a re-serialised value',
    clause: 'docs/protocol.md §2.1',
    steps: [
      call({
        say: 'bet 1 in a body formatted with line breaks and indentation',
        endpoint: '/transaction',
        body: (ctx) => JSON.stringify(JSON.parse(writeJson(transaction(ctx, BET_1))), null, 2),
        expect: { status: 200, balance: '-1' },
      }),
    ],
  },
  {
    id: 'signature-before-json',
    title: 'nothing is read before the signature: a wrong signature on a body that is not JSON is 401, not 400',
    clause: 'docs/protocol.md §2',
    steps: [
      call({
        say: 'send a body that is not JSON, signed with another secret',
        endpoint: '/transaction',
        body: () => NOT_JSON,
        headers: (h, bytes) => ({ ...h, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
        expect: { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
      }),
    ],
  },
  {
    id: 'signature-on-payout',
    title: 'a /payout signed with another secret is refused with 401 INVALID_SIGNATURE and credits nothing',
    clause: 'docs/protocol.md §2.1',
    steps: [
      pay(
        'payout 5 signed with another secret',
        { amount: '5' },
        { status: 401, code: 'INVALID_SIGNATURE', balance: 'absent' },
        {
          headers: (h, bytes) => ({ ...h, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
        },
      ),
      probe(),
    ],
  },
  unauthenticatedKey(
    'signature-on-authenticate',
    'an /authenticate with a wrong signature is refused with 401 INVALID_SIGNATURE and does not use up the key',
    'docs/protocol.md §2.1',
    'authenticate with the key, signed with another secret',
    (h, bytes) => ({ ...h, [SIGNATURE]: sign(WRONG_SECRET, bytes) }),
    'INVALID_SIGNATURE',
  ),
]);
