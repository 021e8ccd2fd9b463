/**
 * The wallet rules of docs/protocol.md §4 (money), §5 (/authenticate and
 * session expiry), §6 (/transaction) and §7 (/payout) are the conformance
 * kit's operator cases, which run in-process on every backend
 * (test/conformance/operator-kit-in-process.test.ts); docs/conformance.md,
 * "Which rule is checked where", maps each rule to its cases. What stays here
 * is what the kit cannot see from outside, on every backend (SQLite, and
 * PostgreSQL with DATABASE_URL): the exact edges of our default lives, which
 * only our clock can reach; our configuration; and what the ledger records
 * of a request (jpAmount, regulatory data, campaigns, rounds, the order of
 * transfers), read through the back office of §11.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { admin, makeOperator, OPERATOR_BACKENDS, playerWithSession, transactionBody, tx, wallet, type Operator } from '../helpers.js';

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

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`wallet rules the kit cannot see (${backend.name})`, { skip: backend.unavailable }, () => {
    // ------------------------------------------------------------------ §5

    // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
    describe('§5 /authenticate: our default lives to the millisecond, and their configuration', () => {
      // The kit waits past a life it is told (sessions.launch-key-expires); the edge itself needs the operator's clock.
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

      // sessions.reload-same-session reloads at once: a kit told only the two lives cannot place a reload between them.
      test('a reload with the same key answers the same session while it is active, even past the key life', async () => {
        const op = await makeOperator({ backend: backend.name });
        try {
          const p = await playerWithSession(op.app, { balance: 10 });
          op.clock.advance(20 * MINUTE_MS);
          const later = await wallet(op.app, '/authenticate', { key: p.key, game: p.game });
          assert.equal(later.status, 200, later.raw);
          assert.equal(later.body.sessionId, p.sessionId);
          assert.equal(later.body.balance, 10);
        } finally {
          await op.close();
        }
      });

      // sessions.activity-keeps-alive waits fractions of the idle time; the edge itself needs the operator's clock.
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
          op.clock.advance(30 * MINUTE_MS);
          const expired = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 1)]));
          assert.equal(expired.status, 403, expired.raw);
          assert.equal(expired.body.code, 'SESSION_EXPIRED');
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

    // ------------------------------------------------------------------ §6, §7

    // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
    describe('§6 and §7: what the ledger records, read through the back office', () => {
      let op: Operator;
      before(async () => {
        op = await makeOperator({ backend: backend.name });
      });
      after(async () => {
        await op.close();
      });

      // The kit checks the 100 of §9 (limits.*); another limit is our configuration.
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

      test('a refused request opens no round: not a 400 of validation first, not a 402 of its second bet', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const badType = await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 5), { ...tx('bet', 1), type: 'refund' as 'bet' }]));
        assert.equal(badType.status, 400, badType.raw);
        const overdrawn = await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 6), tx('bet', 6)]));
        assert.equal(overdrawn.status, 402, overdrawn.raw);
        assert.equal((await roundsOf(op.app, p.playerId)).length, 0);
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

      test('transfers are booked in array order', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const list = [tx('win', 1), tx('bet', 2), tx('win', 3)];
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, list))).status, 200);
        const newestFirst = (await transfersOf(op.app, p.playerId)).slice(0, 3).map((t) => t.id);
        assert.deepEqual(newestFirst, list.map((t) => t.id).reverse());
      });

      test('a round is recorded open, then finished with its time, by the request that finishes it', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const round = randomUUID();
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('bet', 4)], { id: round, finished: false }))).status, 200);
        assert.equal((await roundsOf(op.app, p.playerId))[0]?.finished, false);
        assert.equal((await wallet(op.app, '/transaction', transactionBody(p, [tx('win', 0)], { id: round, finished: true }))).status, 200);
        const rounds = await roundsOf(op.app, p.playerId);
        assert.equal(rounds.length, 1);
        assert.equal(rounds[0]?.roundId, round);
        assert.equal(rounds[0]?.finished, true);
        assert.notEqual(rounds[0]?.finishedAt, null);
      });

      test('a freeBets bet is recorded as free, against its campaign; a payout as a payout of its campaign', async () => {
        const p = await playerWithSession(op.app, { balance: 10 });
        const campaignId = randomUUID();
        const bet = tx('bet', 50);
        const placed = await wallet(op.app, '/transaction', transactionBody(p, [bet], {}, { campaign: { id: campaignId, type: 'freeBets' } }));
        assert.equal(placed.status, 200, placed.raw);
        const payout = { sessionId: p.sessionId, payoutId: randomUUID(), amount: 5, campaign: { id: randomUUID(), type: 'tournament' } };
        assert.equal((await wallet(op.app, '/payout', payout)).status, 200);
        const byId = new Map((await transfersOf(op.app, p.playerId)).map((t) => [t.id, t]));
        assert.equal(byId.get(bet.id)?.freeBet, true);
        assert.equal(byId.get(bet.id)?.campaignId, campaignId);
        assert.equal(byId.get(payout.payoutId)?.kind, 'payout');
        assert.equal(byId.get(payout.payoutId)?.campaignId, payout.campaign.id);
      });

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
    });
  });
}
