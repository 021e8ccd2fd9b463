/**
 * What tests of a store, called directly, share: the clock of their
 * commands, a player with an open session to bet on, and bets booked
 * over several days.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TransactionRequest } from '../../src/protocol/schemas.js';
import type { WalletStore } from '../../src/stores/operations.js';
import { DAY_MS } from '../../src/stores/store.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

export const NOW = Date.parse('2026-01-01T00:00:00Z');

export interface StoreSession {
  sessionId: string;
  playerId: string;
  game: string;
}

/** Creates the player with `balance`, and opens a session through a launch key. */
export async function openSession(store: WalletStore, playerId: string, balance = 1_000_000, game = 'dice', currency = 'EUR'): Promise<StoreSession> {
  const created = await store.createPlayer({ playerId, currency, balance, country: 'DE', depositId: randomUUID(), now: NOW });
  assert.ok(created.ok, JSON.stringify(created));
  const key = await store.createLaunchKey({ playerId, game, key: randomUUID(), now: NOW });
  assert.ok(key.ok);
  const auth = await store.authenticate({ key: key.key, game, now: NOW, newSessionId: randomUUID() });
  assert.ok(auth.ok, JSON.stringify(auth));
  return { sessionId: auth.sessionId, playerId, game };
}

/** A round of one bet, finished, with new ids unless given. */
export function singleBet(session: StoreSession, amount: number, ids: { tx?: string; round?: string } = {}): TransactionRequest {
  return { ...session, transactions: [{ id: ids.tx ?? randomUUID(), type: 'bet', amount }], round: { id: ids.round ?? randomUUID(), finished: true } };
}

/** Rounds of one bet over `days` days from NOW, 2 + day of them on each (1, 2, 3... EUR), each day in a session of its own. */
async function bookBetsOverDays(store: WalletStore, playerId: string, days: number): Promise<void> {
  assert.ok((await store.createPlayer({ playerId, currency: 'EUR', balance: 1000, depositId: randomUUID(), now: NOW })).ok);
  for (let day = 0; day < days; day++) {
    const now = NOW + day * DAY_MS;
    const key = await store.createLaunchKey({ playerId, game: 'dice', key: randomUUID(), now });
    assert.ok(key.ok);
    const auth = await store.authenticate({ key: key.key, game: 'dice', now, newSessionId: randomUUID() });
    assert.ok(auth.ok, JSON.stringify(auth));
    const session = { sessionId: auth.sessionId, playerId, game: 'dice' };
    for (let i = 1; i <= 2 + day; i++) {
      const outcome = await store.transact({ request: checkedTransaction(singleBet(session, i)), now: now + i });
      assert.ok(outcome.ok, JSON.stringify(outcome));
    }
  }
}

/**
 * A store opened by `open` books three days of bets (bookBetsOverDays) and
 * is closed; answers its GGR report over them, checked day by day, for a
 * migration test to compare with the report after the migration.
 */
export async function ggrOfThreeDays<S extends WalletStore>(open: () => Promise<S>): Promise<Awaited<ReturnType<WalletStore['ggr']>>> {
  const store = await open();
  let report: Awaited<ReturnType<WalletStore['ggr']>>;
  try {
    await bookBetsOverDays(store, 'm-gina', 3);
    report = await store.ggr({ from: NOW, to: NOW + 3 * DAY_MS });
  } finally {
    await store.close();
  }
  assert.deepEqual(
    report.rows.map((row) => [row.day, row.bets, row.rounds]),
    [
      ['2026-01-01', '3', 2],
      ['2026-01-02', '6', 3],
      ['2026-01-03', '10', 4],
    ],
  );
  return report;
}
