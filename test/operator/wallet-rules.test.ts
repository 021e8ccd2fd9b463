/**
 * Proves the wallet rules of docs/protocol.md §4 (money), §5 (/authenticate and
 * session expiry), §6 (/transaction) and §7 (/payout) through the operator's
 * HTTP API, as a provider would see them: each rule has a test that fails if
 * the rule breaks, and every refusal is checked to have applied nothing.
 * Every rule runs on every backend (SQLite, and PostgreSQL with
 * DATABASE_URL): a provider cannot tell which store answers it.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import {
  admin,
  balanceOf,
  makeOperator,
  OPERATOR_BACKENDS,
  playerWithSession,
  transactionBody,
  tx,
  wallet,
  walletHeaders,
  type Operator,
} from '../helpers.js';

const MINUTE_MS = 60_000;

interface TransferItem {
  id: string;
  kind: string;
  amount: number;
  jpAmount: number;
  freeBet: boolean;
  roundId: string | null;
  game: string | null;
  campaignId: string | null;
  regulatory: string | null;
}

interface RoundItem {
  roundId: string;
  game: string;
  finished: boolean;
  finishedAt: string | null;
}

/** Every transfer of a player, newest first (the opening deposit is the last one). */
async function transfersOf(app: FastifyInstance, playerId: string): Promise<TransferItem[]> {
  const listing = await admin(app, 'GET', `/admin/players/${playerId}/transactions?limit=500`);
  assert.equal(listing.status, 200, listing.raw);
  return listing.body.items as TransferItem[];
}

async function roundsOf(app: FastifyInstance, playerId: string): Promise<RoundItem[]> {
  const listing = await admin(app, 'GET', `/admin/players/${playerId}/rounds?limit=500`);
  assert.equal(listing.status, 200, listing.raw);
  return listing.body.items as RoundItem[];
}

/** A second session of an existing player, on another game. */
async function sessionFor(app: FastifyInstance, playerId: string, game: string) {
  const key = await admin(app, 'POST', '/admin/launch-keys', { playerId, game });
  assert.equal(key.status, 201, key.raw);
  const session = await wallet(app, '/authenticate', { key: key.body.key, game });
  assert.equal(session.status, 200, session.raw);
  return { playerId, game, sessionId: session.body.sessionId as string };
}

async function launchKey(app: FastifyInstance, playerId: string, game: string): Promise<string> {
  const key = await admin(app, 'POST', '/admin/launch-keys', { playerId, game });
  assert.equal(key.status, 201, key.raw);
  return key.body.key as string;
}

async function createPlayer(app: FastifyInstance, currency: string, balance: number, playerId = `p-${randomUUID().slice(0, 8)}`) {
  const created = await admin(app, 'POST', '/admin/players', { playerId, currency, balance, country: 'DE' });
  assert.equal(created.status, 201, created.raw);
  return playerId;
}

function payoutBody(sessionId: string, amount: number, extra: { payoutId?: string; campaignId?: string } = {}) {
  return {
    sessionId,
    payoutId: extra.payoutId ?? randomUUID(),
    amount,
    campaign: { id: extra.campaignId ?? randomUUID(), type: 'tournament' },
  };
}

async function assertBooksBalance(op: Operator): Promise<void> {
  const report = await op.store.verify();
  assert.ok(report.ok, report.problems.join('; '));
}

/** A refusal applied nothing: same balance, same transfers, books still balance. */
async function assertUnchanged(op: Operator, playerId: string, balance: number, transferCount: number): Promise<void> {
  assert.equal(await balanceOf(op.app, playerId), balance);
  assert.equal((await transfersOf(op.app, playerId)).length, transferCount);
  await assertBooksBalance(op);
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`wallet rules (${backend.name})`, { skip: backend.unavailable }, () => {
    // ------------------------------------------------------------------ §5

    describe('§5 /authenticate', () => {
      test('a fresh key opens a session describing the player', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const playerId = await createPlayer(op.app, 'EUR', 12.5);
          const key = await launchKey(op.app, playerId, 'dice');
          const session = await wallet(op.app, '/authenticate', { key, game: 'dice' });
          assert.equal(session.status, 200, session.raw);
          assert.match(session.body.sessionId as string, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          assert.equal(session.body.playerId, playerId);
          assert.equal(session.body.currency, 'EUR');
          assert.equal(session.body.balance, 12.5);
          assert.equal(session.body.country, 'DE');
        } finally {
          await op.close();
        }
      });

      test('a key is valid for 10 minutes until first use', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const playerId = await createPlayer(op.app, 'EUR', 10);
          const late = await launchKey(op.app, playerId, 'dice');
          const inTime = await launchKey(op.app, playerId, 'dice');
          op.clock.advance(10 * MINUTE_MS - 1);
          const ok = await wallet(op.app, '/authenticate', { key: inTime, game: 'dice' });
          assert.equal(ok.status, 200, ok.raw);
          op.clock.advance(1);
          const expired = await wallet(op.app, '/authenticate', { key: late, game: 'dice' });
          assert.equal(expired.status, 401, expired.raw);
          assert.equal(expired.body.code, 'INVALID_LAUNCH_KEY');
        } finally {
          await op.close();
        }
      });

      test('the key life is configurable', async () => {
        const op = await makeOperator({ backend: backend.name, rules: { sessionIdleMs: 30 * MINUTE_MS, launchKeyTtlMs: MINUTE_MS } });
        try {
          const playerId = await createPlayer(op.app, 'EUR', 10);
          const key = await launchKey(op.app, playerId, 'dice');
          op.clock.advance(MINUTE_MS);
          const expired = await wallet(op.app, '/authenticate', { key, game: 'dice' });
          assert.equal(expired.status, 401, expired.raw);
          assert.equal(expired.body.code, 'INVALID_LAUNCH_KEY');
        } finally {
          await op.close();
        }
      });

      test('a reload with the same key answers the same session while it is active, even past the key life', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          const again = await wallet(op.app, '/authenticate', { key: p.key, game: p.game });
          assert.equal(again.status, 200, again.raw);
          assert.equal(again.body.sessionId, p.sessionId);
          // The key's 10 minutes are over, but the session it opened is still active.
          op.clock.advance(20 * MINUTE_MS);
          const later = await wallet(op.app, '/authenticate', { key: p.key, game: p.game });
          assert.equal(later.status, 200, later.raw);
          assert.equal(later.body.sessionId, p.sessionId);
          assert.equal(later.body.balance, 10);
        } finally {
          await op.close();
        }
      });

      test('a reload after the session expired is refused with INVALID_LAUNCH_KEY', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app);
          op.clock.advance(30 * MINUTE_MS);
          const reload = await wallet(op.app, '/authenticate', { key: p.key, game: p.game });
          assert.equal(reload.status, 401, reload.raw);
          assert.equal(reload.body.code, 'INVALID_LAUNCH_KEY');
        } finally {
          await op.close();
        }
      });

      test('an unknown key is refused with INVALID_LAUNCH_KEY', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const refused = await wallet(op.app, '/authenticate', { key: 'no-such-key', game: 'dice' });
          assert.equal(refused.status, 401, refused.raw);
          assert.equal(refused.body.code, 'INVALID_LAUNCH_KEY');
        } finally {
          await op.close();
        }
      });

      test('a key issued for another game is refused with SESSION_MISMATCH and opens nothing', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const playerId = await createPlayer(op.app, 'EUR', 10);
          const key = await launchKey(op.app, playerId, 'dice');
          const refused = await wallet(op.app, '/authenticate', { key, game: 'slots' });
          assert.equal(refused.status, 403, refused.raw);
          assert.equal(refused.body.code, 'SESSION_MISMATCH');
          assert.equal(refused.body.balance, 10);
          // The key is still unused: it opens its own game.
          const ok = await wallet(op.app, '/authenticate', { key, game: 'dice' });
          assert.equal(ok.status, 200, ok.raw);
        } finally {
          await op.close();
        }
      });

      test('a blocked player cannot authenticate (PLAYER_BLOCKED), and can once unblocked', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const playerId = await createPlayer(op.app, 'EUR', 10);
          const key = await launchKey(op.app, playerId, 'dice');
          assert.equal((await admin(op.app, 'POST', `/admin/players/${playerId}/block`)).status, 200);
          const refused = await wallet(op.app, '/authenticate', { key, game: 'dice' });
          assert.equal(refused.status, 403, refused.raw);
          assert.equal(refused.body.code, 'PLAYER_BLOCKED');
          assert.equal(refused.body.balance, 10);
          assert.equal((await admin(op.app, 'POST', `/admin/players/${playerId}/unblock`)).status, 200);
          const ok = await wallet(op.app, '/authenticate', { key, game: 'dice' });
          assert.equal(ok.status, 200, ok.raw);
        } finally {
          await op.close();
        }
      });

      test('after 30 idle minutes bets are refused with SESSION_EXPIRED, while wins and payouts are accepted', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          op.clock.advance(30 * MINUTE_MS);
          const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)], { id: round, finished: false }));
          assert.equal(bet.status, 403, bet.raw);
          assert.equal(bet.body.code, 'SESSION_EXPIRED');
          assert.equal(bet.body.balance, 10);
          assert.equal(await balanceOf(op.app, p.playerId), 10);

          const win = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 2.5)]));
          assert.equal(win.status, 200, win.raw);
          assert.equal(win.body.balance, 12.5);

          const payout = await wallet(op.app, '/payout', payoutBody(p.sessionId, 5));
          assert.equal(payout.status, 200, payout.raw);
          assert.equal(payout.body.balance, 17.5);

          // A win does not revive the session: bets stay refused.
          const betAgain = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assert.equal(betAgain.status, 403, betAgain.raw);
          assert.equal(betAgain.body.code, 'SESSION_EXPIRED');
          assert.equal(await balanceOf(op.app, p.playerId), 17.5);
          await assertBooksBalance(op);
        } finally {
          await op.close();
        }
      });

      test('a session is active until 30 minutes after its last activity', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          op.clock.advance(30 * MINUTE_MS - 1);
          const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assert.equal(bet.status, 200, bet.raw);
          // The bet was activity: 29 more minutes leave the session active.
          op.clock.advance(29 * MINUTE_MS);
          const again = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assert.equal(again.status, 200, again.raw);
          assert.equal(again.body.balance, 8);
        } finally {
          await op.close();
        }
      });

      test('a request mixing a bet and a win on an expired session applies nothing', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          const before = (await transfersOf(op.app, p.playerId)).length;
          op.clock.advance(31 * MINUTE_MS);
          const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5), tx('bet', 1)]));
          assert.equal(refused.status, 403, refused.raw);
          assert.equal(refused.body.code, 'SESSION_EXPIRED');
          await assertUnchanged(op, p.playerId, 10, before);
        } finally {
          await op.close();
        }
      });

      test('session idle expiry is configurable', async () => {
        const op = await makeOperator({ backend: backend.name, rules: { sessionIdleMs: 2 * MINUTE_MS, launchKeyTtlMs: 10 * MINUTE_MS } });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          op.clock.advance(2 * MINUTE_MS);
          const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assert.equal(bet.status, 403, bet.raw);
          assert.equal(bet.body.code, 'SESSION_EXPIRED');
        } finally {
          await op.close();
        }
      });
    });

    // ------------------------------------------------------------------ §6

    describe('§6 /transaction', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      describe('rule 1: validation first', () => {
        test('a bad second transaction refuses the whole request before anything is applied', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          const badType = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5), { ...tx('bet', 1), type: 'refund' as 'bet' }]));
          assert.equal(badType.status, 400, badType.raw);
          assert.equal(badType.body.code, 'INVALID_REQUEST');
          assert.match(badType.body.detail as string, /transactions\[1\]\.type/);
          const badDecimals = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5), tx('bet', 1.005)]));
          assert.equal(badDecimals.status, 400, badDecimals.raw);
          assert.match(badDecimals.body.detail as string, /transactions\[1\]\.amount/);
          await assertUnchanged(op, p.playerId, 10, count);
          assert.equal((await roundsOf(op.app, p.playerId)).length, 0);
        });

        test('transactions holds 1 to 100 items', async () => {
          const p = await playerWithSession(op.app, { balance: 100 });
          const empty = await wallet(op.app, '/transaction', transactionBody(p, []));
          assert.equal(empty.status, 400, empty.raw);
          assert.match(empty.body.detail as string, /transactions/);

          const tooMany = Array.from({ length: 101 }, () => tx('bet', 0.01));
          const refused = await wallet(op.app, '/transaction', transactionBody(p, tooMany));
          assert.equal(refused.status, 400, refused.raw);
          assert.match(refused.body.detail as string, /transactions: at most 100/);
          assert.equal(await balanceOf(op.app, p.playerId), 100);

          const hundred = Array.from({ length: 100 }, () => tx('bet', 0.01));
          const ok = await wallet(op.app, '/transaction', transactionBody(p, hundred));
          assert.equal(ok.status, 200, ok.raw);
          assert.equal(ok.body.balance, 99);
        });

        test('the transactions limit is configurable', async () => {
          const small = await makeOperator({ backend: backend.name, app: { transactionsPerRequestMax: 2 } });
          try {
            const p = await playerWithSession(small.app, { balance: 10 });
            const refused = await wallet(small.app, '/transaction', transactionBody(p, [tx('win', 1), tx('win', 1), tx('win', 1)]));
            assert.equal(refused.status, 400, refused.raw);
            const ok = await wallet(small.app, '/transaction', transactionBody(p, [tx('win', 1), tx('win', 1)]));
            assert.equal(ok.status, 200, ok.raw);
          } finally {
            await small.close();
          }
        });

        test('ids repeated within a request are refused (in any letter case)', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          const id = randomUUID();
          const same = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1, { id }), tx('win', 1, { id })]));
          assert.equal(same.status, 400, same.raw);
          assert.equal(same.body.code, 'INVALID_REQUEST');
          assert.match(same.body.detail as string, /transactions\[1\]\.id/);
          const cased = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1, { id }), tx('win', 1, { id: id.toUpperCase() })]));
          assert.equal(cased.status, 400, cased.raw);
          await assertUnchanged(op, p.playerId, 10, count);
        });

        test('jpAmount may not exceed amount', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          const over = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1, { jpAmount: 1.01 })]));
          assert.equal(over.status, 400, over.raw);
          assert.match(over.body.detail as string, /jpAmount/);
          await assertUnchanged(op, p.playerId, 10, count);
          const equal = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1, { jpAmount: 1 })]));
          assert.equal(equal.status, 200, equal.raw);
          assert.equal(equal.body.balance, 9);
        });

        test('jpAmount is recorded on bets and wins, and is 0 when absent', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const bet = tx('bet', 2, { jpAmount: 0.02 });
          const win = tx('win', 7.5, { jpAmount: 7 });
          const plain = tx('win', 1);
          const done = await wallet(op.app, '/transaction', transactionBody(p, [bet, win, plain]));
          assert.equal(done.status, 200, done.raw);
          assert.equal(done.body.balance, 16.5);
          const byId = new Map((await transfersOf(op.app, p.playerId)).map((t) => [t.id, t]));
          assert.equal(byId.get(bet.id)?.jpAmount, 0.02);
          assert.equal(byId.get(win.id)?.jpAmount, 7);
          assert.equal(byId.get(plain.id)?.jpAmount, 0);
          assert.equal(byId.get(bet.id)?.amount, 2);
          assert.equal(byId.get(win.id)?.amount, 7.5);
        });
      });

      describe('rule 2: atomic', () => {
        test('a request whose second bet fails applies nothing, not even its first bet or its round', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          const first = tx('bet', 6);
          const second = tx('bet', 6);
          const round = { id: randomUUID(), finished: true };
          const refused = await wallet(op.app, '/transaction', transactionBody(p, [first, second], round));
          assert.equal(refused.status, 402, refused.raw);
          assert.equal(refused.body.code, 'INSUFFICIENT_FUNDS');
          assert.equal(refused.body.balance, 10);
          await assertUnchanged(op, p.playerId, 10, count);
          assert.equal((await roundsOf(op.app, p.playerId)).length, 0);
          // The first bet's id was not booked, but the refusal is final (§6.4): alone, it is answered the same refusal.
          const alone = await wallet(op.app, '/transaction', transactionBody(p, [first], round));
          assert.equal(alone.status, 402, alone.raw);
          assert.equal(alone.body.code, 'INSUFFICIENT_FUNDS');
          await assertUnchanged(op, p.playerId, 10, count);
        });
      });

      describe('rule 3: in order against the running balance', () => {
        test('[bet 10, win 5] on a balance of 10 passes', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const done = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 10), tx('win', 5)]));
          assert.equal(done.status, 200, done.raw);
          assert.equal(done.body.balance, 5);
        });

        test('[win 5, bet 15] on a balance of 10 passes', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const done = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5), tx('bet', 15)]));
          assert.equal(done.status, 200, done.raw);
          assert.equal(done.body.balance, 0);
        });

        test('[bet 15, win 5] on a balance of 10 fails with 402 and applies nothing', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 15), tx('win', 5)]));
          assert.equal(refused.status, 402, refused.raw);
          assert.equal(refused.body.code, 'INSUFFICIENT_FUNDS');
          assert.equal(refused.body.balance, 10);
          await assertUnchanged(op, p.playerId, 10, count);
        });

        test('transfers are booked in array order', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const list = [tx('win', 1), tx('bet', 2), tx('win', 3)];
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, list))).status, 200);
          const newestFirst = (await transfersOf(op.app, p.playerId)).slice(0, 3).map((t) => t.id);
          assert.deepEqual(newestFirst, list.map((t) => t.id).reverse());
        });
      });

      describe('rule 4: idempotent', () => {
        test('a replay is not applied again and answers the current balance', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const body = transactionBody(p, [tx('bet', 2), tx('win', 1)]);
          const first = await wallet(op.app, '/transaction', body);
          assert.equal(first.body.balance, 9);
          const count = (await transfersOf(op.app, p.playerId)).length;
          // Something else moves the balance; the replay answers the balance now, not the old answer.
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 3)]))).body.balance, 12);
          const replay = await wallet(op.app, '/transaction', body);
          assert.equal(replay.status, 200, replay.raw);
          assert.equal(replay.body.balance, 12);
          await assertUnchanged(op, p.playerId, 12, count + 1);
        });

        test('ids are compared without regard to letter case', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const bet = tx('bet', 2);
          const round = randomUUID();
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round }))).status, 200);
          const shouting = transactionBody(p, [{ ...bet, id: bet.id.toUpperCase() }], { id: round.toUpperCase() });
          const replay = await wallet(op.app, '/transaction', shouting);
          assert.equal(replay.status, 200, replay.raw);
          assert.equal(replay.body.balance, 8);
        });

        const conflicts: [string, (original: ReturnType<typeof tx>) => ReturnType<typeof tx>][] = [
          ['amount', (t) => ({ ...t, amount: t.amount + 1 })],
          ['type', (t) => ({ ...t, type: 'win' })],
          ['jpAmount', (t) => ({ ...t, jpAmount: 0.5 })],
        ];
        for (const [what, change] of conflicts) {
          test(`the same id with another ${what} is a DUPLICATE_CONFLICT and applies nothing`, async () => {
            const p = await playerWithSession(op.app, { balance: 10 });
            const bet = tx('bet', 2);
            const round = randomUUID();
            assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }))).status, 200);
            const count = (await transfersOf(op.app, p.playerId)).length;
            const fresh = tx('win', 4);
            const refused = await wallet(op.app, '/transaction', transactionBody(p, [fresh, change(bet)], { id: round, finished: false }));
            assert.equal(refused.status, 409, refused.raw);
            assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
            assert.equal(refused.body.balance, 8);
            await assertUnchanged(op, p.playerId, 8, count);
          });
        }

        test('the same id in another round is a DUPLICATE_CONFLICT', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const bet = tx('bet', 2);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet]))).status, 200);
          const count = (await transfersOf(op.app, p.playerId)).length;
          const refused = await wallet(op.app, '/transaction', transactionBody(p, [bet]));
          assert.equal(refused.status, 409, refused.raw);
          assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
          await assertUnchanged(op, p.playerId, 8, count);
        });

        test('the same id from another player is a DUPLICATE_CONFLICT', async () => {
          const a = await playerWithSession(op.app, { balance: 10 });
          const b = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          const win = tx('win', 2);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(a, [win], { id: round, finished: false }))).status, 200);
          const countB = (await transfersOf(op.app, b.playerId)).length;
          // Same round and content: only the player differs.
          const refused = await wallet(op.app, '/transaction', transactionBody(b, [win], { id: round, finished: false }));
          assert.equal(refused.status, 409, refused.raw);
          assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
          assert.equal(refused.body.balance, 10);
          await assertUnchanged(op, b.playerId, 10, countB);
          assert.equal(await balanceOf(op.app, a.playerId), 12);
        });

        test('a request mixing seen and new ids applies only the new ones', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          const bet = tx('bet', 3);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }))).body.balance, 7);
          const win = tx('win', 5);
          const mixed = await wallet(op.app, '/transaction', transactionBody(p, [bet, win], { id: round, finished: true }));
          assert.equal(mixed.status, 200, mixed.raw);
          assert.equal(mixed.body.balance, 12);
          const ids = (await transfersOf(op.app, p.playerId)).map((t) => t.id);
          assert.equal(ids.filter((id) => id === bet.id).length, 1);
          assert.equal(ids.filter((id) => id === win.id).length, 1);
          await assertBooksBalance(op);
        });
      });

      describe('rule 5: rounds', () => {
        test('a round of another player is a ROUND_MISMATCH', async () => {
          const a = await playerWithSession(op.app, { balance: 10 });
          const b = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          assert.equal((await wallet(op.app, '/transaction', transactionBody(a, [tx('bet', 1)], { id: round, finished: false }))).status, 200);
          const count = (await transfersOf(op.app, b.playerId)).length;
          const refused = await wallet(op.app, '/transaction', transactionBody(b, [tx('bet', 1)], { id: round, finished: false }));
          assert.equal(refused.status, 409, refused.raw);
          assert.equal(refused.body.code, 'ROUND_MISMATCH');
          assert.equal(refused.body.balance, 10);
          await assertUnchanged(op, b.playerId, 10, count);
        });

        test('a round of another game is a ROUND_MISMATCH, even for the same player', async () => {
          const dice = await playerWithSession(op.app, { balance: 10, game: 'dice' });
          const slots = await sessionFor(op.app, dice.playerId, 'slots');
          const round = randomUUID();
          assert.equal((await wallet(op.app, '/transaction', transactionBody(dice, [tx('bet', 1)], { id: round, finished: false }))).status, 200);
          const count = (await transfersOf(op.app, dice.playerId)).length;
          const refused = await wallet(op.app, '/transaction', transactionBody(slots, [tx('win', 1)], { id: round, finished: false }));
          assert.equal(refused.status, 409, refused.raw);
          assert.equal(refused.body.code, 'ROUND_MISMATCH');
          await assertUnchanged(op, dice.playerId, 9, count);
        });

        test('an open round takes more requests; round.finished closes it; new ids after that are ROUND_CLOSED', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          const bet = tx('bet', 4);
          const win = tx('win', 6);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }))).status, 200);
          assert.equal((await roundsOf(op.app, p.playerId))[0]?.finished, false);
          const closing = await wallet(op.app, '/transaction', transactionBody(p, [win], { id: round, finished: true }));
          assert.equal(closing.status, 200, closing.raw);
          assert.equal(closing.body.balance, 12);
          const rounds = await roundsOf(op.app, p.playerId);
          assert.equal(rounds.length, 1);
          assert.equal(rounds[0]?.roundId, round);
          assert.equal(rounds[0]?.finished, true);
          assert.notEqual(rounds[0]?.finishedAt, null);

          const count = (await transfersOf(op.app, p.playerId)).length;
          for (const finished of [false, true]) {
            const late = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 1)], { id: round, finished }));
            assert.equal(late.status, 409, late.raw);
            assert.equal(late.body.code, 'ROUND_CLOSED');
            assert.equal(late.body.balance, 12);
          }
          // A replay of ids the round already holds is still answered.
          const replayBet = await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }));
          assert.equal(replayBet.status, 200, replayBet.raw);
          const replayWin = await wallet(op.app, '/transaction', transactionBody(p, [win], { id: round, finished: true }));
          assert.equal(replayWin.status, 200, replayWin.raw);
          assert.equal(replayWin.body.balance, 12);
          // A seen id beside a new one is not a replay: the new one is refused, so nothing is applied.
          const mixed = await wallet(op.app, '/transaction', transactionBody(p, [win, tx('win', 1)], { id: round, finished: true }));
          assert.equal(mixed.status, 409, mixed.raw);
          assert.equal(mixed.body.code, 'ROUND_CLOSED');
          await assertUnchanged(op, p.playerId, 12, count);
        });

        test('a round finished in its first request is closed at once', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)], { id: round, finished: true }))).status, 200);
          const late = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 1)], { id: round, finished: true }));
          assert.equal(late.status, 409, late.raw);
          assert.equal(late.body.code, 'ROUND_CLOSED');
        });

        test('amount 0 is valid: a zero win closes a losing round, a zero bet is booked', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const round = randomUUID();
          const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0), tx('bet', 3)], { id: round, finished: false }));
          assert.equal(bet.status, 200, bet.raw);
          const zeroWin = tx('win', 0);
          const close = await wallet(op.app, '/transaction', transactionBody(p, [zeroWin], { id: round, finished: true }));
          assert.equal(close.status, 200, close.raw);
          assert.equal(close.body.balance, 7);
          assert.equal((await roundsOf(op.app, p.playerId))[0]?.finished, true);
          const booked = (await transfersOf(op.app, p.playerId)).find((t) => t.id === zeroWin.id);
          assert.equal(booked?.amount, 0);
          await assertBooksBalance(op);
        });

        test('a win needs no bet', async () => {
          const p = await playerWithSession(op.app, { balance: 0 });
          const win = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 4.2)]));
          assert.equal(win.status, 200, win.raw);
          assert.equal(win.body.balance, 4.2);
        });
      });

      describe('rule 6: free bets', () => {
        test('a freeBets bet is not debited from the player; its wins are credited', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const campaignId = randomUUID();
          const round = randomUUID();
          const campaign = { id: campaignId, type: 'freeBets', finished: false };
          // More than the balance: the player does not pay for it.
          const bet = tx('bet', 50);
          const placed = await wallet(op.app, '/transaction', transactionBody(p, [bet], { id: round, finished: false }, { campaign }));
          assert.equal(placed.status, 200, placed.raw);
          assert.equal(placed.body.balance, 10);
          const won = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 3)], { id: round, finished: true }, { campaign }));
          assert.equal(won.status, 200, won.raw);
          assert.equal(won.body.balance, 13);
          const booked = (await transfersOf(op.app, p.playerId)).find((t) => t.id === bet.id);
          assert.equal(booked?.freeBet, true);
          assert.equal(booked?.campaignId, campaignId);
          await assertBooksBalance(op);
        });

        test('a bet with a campaign of no type is debited as usual', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const done = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 4)], {}, { campaign: { id: randomUUID() } }));
          assert.equal(done.status, 200, done.raw);
          assert.equal(done.body.balance, 6);
        });

        test('campaign.finished closes the campaign for that player only: later freeBets bets are CAMPAIGN_FINISHED', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const other = await playerWithSession(op.app, { balance: 10 });
          const campaignId = randomUUID();
          const last = await wallet(
            op.app,
            '/transaction',
            transactionBody(p, [tx('bet', 1), tx('win', 2)], {}, { campaign: { id: campaignId, type: 'freeBets', finished: true } }),
          );
          assert.equal(last.status, 200, last.raw);
          assert.equal(last.body.balance, 12);
          const count = (await transfersOf(op.app, p.playerId)).length;

          const later = await wallet(
            op.app,
            '/transaction',
            transactionBody(p, [tx('bet', 1)], {}, { campaign: { id: campaignId, type: 'freeBets', finished: false } }),
          );
          assert.equal(later.status, 409, later.raw);
          assert.equal(later.body.code, 'CAMPAIGN_FINISHED');
          assert.equal(later.body.balance, 12);
          await assertUnchanged(op, p.playerId, 12, count);

          const elsewhere = await wallet(
            op.app,
            '/transaction',
            transactionBody(other, [tx('bet', 1)], {}, { campaign: { id: campaignId, type: 'freeBets', finished: false } }),
          );
          assert.equal(elsewhere.status, 200, elsewhere.raw);
          assert.equal(elsewhere.body.balance, 10);
        });

        test('a freeBets campaign without an id, or campaign.finished without one, is refused and books nothing', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const count = (await transfersOf(op.app, p.playerId)).length;
          for (const campaign of [{ type: 'freeBets' }, { type: 'freeBets', finished: true }, { finished: true }]) {
            const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1), tx('win', 2)], {}, { campaign }));
            assert.equal(refused.status, 400, refused.raw);
            assert.match(String(refused.body.detail), /^campaign\.id: is required/);
          }
          await assertUnchanged(op, p.playerId, 10, count);
        });
      });

      describe('rules 7 and 8: regulatory, response balance', () => {
        test('regulatory is stored verbatim with every transaction of the request', async () => {
          const p = await playerWithSession(op.app, { balance: 10 });
          const regulatory = '{"jurisdiction":"DE","spinId":42}\n\ttab "quotes" \\ backslash ✓ €';
          const list = [tx('bet', 1), tx('win', 2)];
          const done = await wallet(op.app, '/transaction', transactionBody(p, list, {}, { regulatory }));
          assert.equal(done.status, 200, done.raw);
          const empty = tx('bet', 1);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [empty], {}, { regulatory: '' }))).status, 200);
          const none = tx('bet', 1);
          assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [none]))).status, 200);
          const byId = new Map((await transfersOf(op.app, p.playerId)).map((t) => [t.id, t]));
          for (const t of list) assert.equal(byId.get(t.id)?.regulatory, regulatory);
          assert.equal(byId.get(empty.id)?.regulatory, '');
          assert.equal(byId.get(none.id)?.regulatory, null);
        });

        test('the response balance is the balance after all transactions of the request', async () => {
          const p = await playerWithSession(op.app, { balance: 20 });
          const done = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 5), tx('win', 1.25), tx('bet', 3), tx('win', 0.5)]));
          assert.equal(done.status, 200, done.raw);
          assert.equal(done.raw, '{"balance":13.75}');
          assert.equal(await balanceOf(op.app, p.playerId), 13.75);
        });
      });
    });

    // ------------------------------------------------------------------ §7

    describe('§7 /payout', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      test('a payout credits the player and a replay is not applied again', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const body = payoutBody(p.sessionId, 25.5);
        const first = await wallet(op.app, '/payout', body);
        assert.equal(first.status, 200, first.raw);
        assert.equal(first.raw, '{"balance":35.5}');
        const count = (await transfersOf(op.app, p.playerId)).length;
        const replay = await wallet(op.app, '/payout', body);
        assert.equal(replay.status, 200, replay.raw);
        assert.equal(replay.body.balance, 35.5);
        await assertUnchanged(op, p.playerId, 35.5, count);
        const booked = (await transfersOf(op.app, p.playerId)).find((t) => t.id === body.payoutId);
        assert.equal(booked?.kind, 'payout');
        assert.equal(booked?.campaignId, body.campaign.id);
      });

      test('a payoutId seen with another amount or campaign is a DUPLICATE_CONFLICT', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const body = payoutBody(p.sessionId, 5);
        assert.equal((await wallet(op.app, '/payout', body)).status, 200);
        const count = (await transfersOf(op.app, p.playerId)).length;
        for (const changed of [
          { ...body, amount: 6 },
          { ...body, campaign: { id: randomUUID(), type: 'tournament' } },
        ]) {
          const refused = await wallet(op.app, '/payout', changed);
          assert.equal(refused.status, 409, refused.raw);
          assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
          assert.equal(refused.body.balance, 15);
        }
        await assertUnchanged(op, p.playerId, 15, count);
      });

      test("a payoutId seen for another session's player is a DUPLICATE_CONFLICT", async () => {
        const a = await playerWithSession(op.app, { balance: 10 });
        const b = await playerWithSession(op.app, { balance: 10 });
        const body = payoutBody(a.sessionId, 5);
        assert.equal((await wallet(op.app, '/payout', body)).status, 200);
        const count = (await transfersOf(op.app, b.playerId)).length;
        const refused = await wallet(op.app, '/payout', { ...body, sessionId: b.sessionId });
        assert.equal(refused.status, 409, refused.raw);
        assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
        await assertUnchanged(op, b.playerId, 10, count);
      });

      test('another session of the same player may replay a payout', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const second = await sessionFor(op.app, p.playerId, 'slots');
        const body = payoutBody(p.sessionId, 5);
        assert.equal((await wallet(op.app, '/payout', body)).body.balance, 15);
        const replay = await wallet(op.app, '/payout', { ...body, sessionId: second.sessionId });
        assert.equal(replay.status, 200, replay.raw);
        assert.equal(replay.body.balance, 15);
      });

      test('payoutIds and transaction ids share one space', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const bet = tx('bet', 1);
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [bet]))).status, 200);
        const refused = await wallet(op.app, '/payout', payoutBody(p.sessionId, 1, { payoutId: bet.id }));
        assert.equal(refused.status, 409, refused.raw);
        assert.equal(refused.body.code, 'DUPLICATE_CONFLICT');
        assert.equal(await balanceOf(op.app, p.playerId), 9);
      });

      test('amount must be greater than 0', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        for (const amount of [0, -1]) {
          const refused = await wallet(op.app, '/payout', payoutBody(p.sessionId, amount));
          assert.equal(refused.status, 400, refused.raw);
          assert.equal(refused.body.code, 'INVALID_REQUEST');
          assert.match(refused.body.detail as string, /amount/);
        }
        assert.equal(await balanceOf(op.app, p.playerId), 10);
      });

      test('campaign.type must be tournament', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const refused = await wallet(op.app, '/payout', { ...payoutBody(p.sessionId, 1), campaign: { id: randomUUID(), type: 'freeBets' } });
        assert.equal(refused.status, 400, refused.raw);
        assert.match(refused.body.detail as string, /campaign\.type/);
      });

      test('a payout is accepted on an expired session', async () => {
        const own = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(own.app, { balance: 10 });
          own.clock.advance(6 * 60 * MINUTE_MS);
          const paid = await wallet(own.app, '/payout', payoutBody(p.sessionId, 2));
          assert.equal(paid.status, 200, paid.raw);
          assert.equal(paid.body.balance, 12);
        } finally {
          await own.close();
        }
      });

      test('a blocked player still gets payouts and wins, but bets are PLAYER_BLOCKED; unblocking lets bets through', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const blocked = await admin(op.app, 'POST', `/admin/players/${p.playerId}/block`, { reason: 'self-excluded' });
        assert.equal(blocked.status, 200, blocked.raw);
        assert.equal(blocked.body.blocked, true);

        const count = (await transfersOf(op.app, p.playerId)).length;
        const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
        assert.equal(bet.status, 403, bet.raw);
        assert.equal(bet.body.code, 'PLAYER_BLOCKED');
        assert.equal(bet.body.balance, 10);
        await assertUnchanged(op, p.playerId, 10, count);

        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 2)]))).body.balance, 12);
        assert.equal((await wallet(op.app, '/payout', payoutBody(p.sessionId, 3))).body.balance, 15);

        assert.equal((await admin(op.app, 'POST', `/admin/players/${p.playerId}/unblock`)).body.blocked, false);
        const after = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
        assert.equal(after.status, 200, after.raw);
        assert.equal(after.body.balance, 14);
      });

      test('a payout for an unknown session is SESSION_NOT_FOUND', async () => {
        const refused = await wallet(op.app, '/payout', payoutBody(randomUUID(), 1));
        assert.equal(refused.status, 404, refused.raw);
        assert.equal(refused.body.code, 'SESSION_NOT_FOUND');
      });
    });

    // ------------------------------------------------------------------ §4

    describe('§4 money is exact', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      /** A signed call with a body written by hand, so that number tokens reach the wire as typed. */
      async function rawCall(url: string, text: string) {
        const response = await op.app.inject({ method: 'POST', url, payload: text, headers: walletHeaders(text) });
        return { status: response.statusCode, body: response.json() as Record<string, unknown>, raw: response.body };
      }

      function rawTransaction(p: { sessionId: string; playerId: string; game: string }, type: string, amountText: string): string {
        return (
          `{"sessionId":"${p.sessionId}","playerId":"${p.playerId}","game":"${p.game}",` +
          `"transactions":[{"id":"${randomUUID()}","type":"${type}","amount":${amountText}}],` +
          `"round":{"id":"${randomUUID()}","finished":true}}`
        );
      }

      test('0.1 + 0.2 answers 0.3', async () => {
        const p = await playerWithSession(op.app, { balance: 0 });
        const done = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 0.1), tx('win', 0.2)]));
        assert.equal(done.status, 200, done.raw);
        assert.equal(done.raw, '{"balance":0.3}');
        const bet = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.3)]));
        assert.equal(bet.status, 200, bet.raw);
        assert.equal(bet.raw, '{"balance":0}');
      });

      test('JPY has no decimals', async () => {
        const p = await playerWithSession(op.app, { currency: 'JPY', balance: 1000 });
        const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1.5)]));
        assert.equal(refused.status, 400, refused.raw);
        assert.equal(refused.body.code, 'INVALID_REQUEST');
        assert.match(refused.body.detail as string, /transactions\[0\]\.amount.*JPY/);
        assert.equal(refused.body.balance, 1000);
        const ok = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 15)]));
        assert.equal(ok.raw, '{"balance":985}');
      });

      test('KWD has 3 decimals', async () => {
        const p = await playerWithSession(op.app, { currency: 'KWD', balance: 1 });
        const ok = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.001)]));
        assert.equal(ok.raw, '{"balance":0.999}');
        const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.0001)]));
        assert.equal(refused.status, 400, refused.raw);
        assert.equal(await balanceOf(op.app, p.playerId), 0.999);
      });

      test('BTC has 8 decimals', async () => {
        const p = await playerWithSession(op.app, { currency: 'BTC', balance: 1 });
        const ok = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.00000001)]));
        assert.equal(ok.raw, '{"balance":0.99999999}');
        const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 0.000000001)]));
        assert.equal(refused.status, 400, refused.raw);
        const win = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 12345.12345678)]));
        assert.equal(win.raw, '{"balance":12346.12345677}');
      });

      test('more decimals than the currency allows are refused (EUR 0.001)', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const refused = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 0.001)]));
        assert.equal(refused.status, 400, refused.raw);
        assert.match(refused.body.detail as string, /more decimals than EUR allows/);
        // Trailing zeros carry no precision: 1.10 written with three decimals is 1.1.
        const trailing = await rawCall('/transaction', rawTransaction(p, 'win', '1.100'));
        assert.equal(trailing.status, 200, trailing.raw);
        assert.equal(trailing.body.balance, 11.1);
      });

      test('a number of more than 15 significant digits is refused, 15 are booked exactly', async () => {
        const p = await playerWithSession(op.app, { balance: 0 });
        // JSON.parse would round this to 1: refused rather than booked at a value nobody sent.
        const sixteen = await rawCall('/transaction', rawTransaction(p, 'win', '1.000000000000001'));
        assert.equal(sixteen.status, 400, sixteen.raw);
        assert.match(sixteen.body.detail as string, /significant digits/);
        const longPayout = await rawCall('/payout', `{"sessionId":"${p.sessionId}","payoutId":"${randomUUID()}","amount":1.0000000000000001,"campaign":{"id":"${randomUUID()}","type":"tournament"}}`);
        assert.equal(longPayout.status, 400, longPayout.raw);
        assert.match(longPayout.body.detail as string, /^amount: /);
        assert.equal(await balanceOf(op.app, p.playerId), 0);
        // A long number in a member we do not know is ignored, as unknown members are (docs/protocol.md §1).
        const unknownMember = await rawCall('/payout', `{"sessionId":"${p.sessionId}","payoutId":"${randomUUID()}","amount":1,"campaign":{"id":"${randomUUID()}","type":"tournament"},"extra":12345678901234567}`);
        assert.equal(unknownMember.status, 200, unknownMember.raw);
        assert.equal(await balanceOf(op.app, p.playerId), 1);
        const fifteen = await rawCall('/transaction', rawTransaction(p, 'win', '999999999998.99'));
        assert.equal(fifteen.status, 200, fifteen.raw);
        assert.equal(fifteen.raw, '{"balance":999999999999.99}');
      });

      test('more than 10^12 major units is refused; 10^12 is accepted', async () => {
        const p = await playerWithSession(op.app, { balance: 0 });
        const over = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 1_000_000_000_000.01)]));
        assert.equal(over.status, 400, over.raw);
        assert.match(over.body.detail as string, /largest amount/);
        const payoutOver = await wallet(op.app, '/payout', payoutBody(p.sessionId, 2e12));
        assert.equal(payoutOver.status, 400, payoutOver.raw);
        assert.equal(await balanceOf(op.app, p.playerId), 0);
        const max = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 1e12)]));
        assert.equal(max.status, 200, max.raw);
        assert.equal(max.raw, '{"balance":1000000000000}');
      });

      test('balances above 10^12 stay exact to the cent', async () => {
        const p = await playerWithSession(op.app, { balance: 0 });
        await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 1e12), tx('win', 1e12), tx('win', 0.01)]));
        const balance = await admin(op.app, 'GET', `/admin/players/${p.playerId}`);
        assert.match(balance.raw, /"balance":2000000000000\.01[,}]/);
      });
    });
  });
}
