/**
 * The store's casino-wide reads, on every backend: the list of all players
 * pages through every player once, in code-point order of their ids, with
 * its filters narrowing together; and the GGR report sums each game's bets
 * and wins per day and currency exactly as a plain model of the booked
 * rounds does. Each backend starts from an empty store, so the lists hold
 * only what the test made.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WalletStore } from '../../src/stores/operations.js';
import type { PlayersRequest, PlayerView } from '../../src/stores/store.js';
import { BACKENDS } from './backends.js';
import { NOW } from './store-fixtures.js';
import { checkedTransaction } from '../../src/protocol/checked-requests.js';

const DAY = 86_400_000;

interface Made {
  playerId: string;
  currency: string;
  blocked: boolean;
}

/** Code-point order, written apart from the stores' and the ledger's. */
function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Every player a filter lists, page after page of `limit`, checking that no page is longer and that only the last has no cursor. */
async function everyPlayer(store: WalletStore, filter: Omit<PlayersRequest, 'limit' | 'after'>, limit: number): Promise<PlayerView[]> {
  const all: PlayerView[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.listPlayers({ ...filter, limit, after });
    assert.ok(page.items.length <= limit);
    all.push(...page.items);
    if (page.next === null) return all;
    assert.equal(page.items.length, limit, 'a page with a next one is full');
    assert.equal(page.next, page.items.at(-1)!.playerId);
    after = page.next;
  }
  assert.fail('no last page');
}

for (const backend of BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`store listings: ${backend.name}`, { skip: backend.unavailable }, () => {
    let store: WalletStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await backend.open());
    });
    after(async () => cleanup());

    // eslint-disable-next-line max-lines-per-function -- a test: one scenario told in order, which splitting would scatter
    test('the players list pages through every player once, in code-point order, filters narrowing together', async () => {
      // Ids whose order differs by collation: capitals, accents, a prefix of another, a digit, a CJK id.
      const ids = ['bob', 'Bob', 'bobby', 'bö', 'bz', 'alice', 'al', 'Zed', '9lives', 'ärger', '太郎', 'a_b', 'a%b', 'carol'];
      const made: Made[] = [];
      for (const [i, playerId] of ids.entries()) {
        const currency = ['EUR', 'USD', 'JPY'][i % 3]!;
        const created = await store.createPlayer({ playerId, currency, balance: i, depositId: randomUUID(), now: NOW });
        assert.ok(created.ok, JSON.stringify(created));
        const blocked = i % 4 === 1;
        if (blocked) assert.ok((await store.setBlocked({ playerId, blocked: true, reason: 'test', now: NOW })).ok);
        made.push({ playerId, currency, blocked });
      }

      const expect = (keep: (m: Made) => boolean) =>
        made
          .filter(keep)
          .map((m) => m.playerId)
          .sort(byCodePoints);
      for (const limit of [1, 3, 500]) {
        const all = await everyPlayer(store, {}, limit);
        assert.deepEqual(
          all.map((p) => p.playerId),
          expect(() => true),
          `limit ${limit}`,
        );
      }
      // Each item is the player as getPlayer shows it.
      for (const item of await everyPlayer(store, {}, 5)) assert.deepEqual(item, await store.getPlayer(item.playerId));

      assert.deepEqual(
        (await everyPlayer(store, { currency: 'USD' }, 2)).map((p) => p.playerId),
        expect((m) => m.currency === 'USD'),
      );
      assert.deepEqual(
        (await everyPlayer(store, { blocked: true }, 2)).map((p) => p.playerId),
        expect((m) => m.blocked),
      );
      assert.deepEqual(
        (await everyPlayer(store, { blocked: false }, 2)).map((p) => p.playerId),
        expect((m) => !m.blocked),
      );
      assert.deepEqual(
        (await everyPlayer(store, { prefix: 'bo' }, 1)).map((p) => p.playerId),
        ['bob', 'bobby'],
      );
      assert.deepEqual(
        (await everyPlayer(store, { prefix: 'b' }, 2)).map((p) => p.playerId),
        expect((m) => m.playerId.startsWith('b')),
      );
      // LIKE's wildcards are plain text here.
      assert.deepEqual(
        (await everyPlayer(store, { prefix: 'a_' }, 2)).map((p) => p.playerId),
        ['a_b'],
      );
      assert.deepEqual(
        (await everyPlayer(store, { prefix: 'a%' }, 2)).map((p) => p.playerId),
        ['a%b'],
      );
      assert.deepEqual(
        (await everyPlayer(store, { prefix: '太' }, 2)).map((p) => p.playerId),
        ['太郎'],
      );
      assert.deepEqual(
        (await everyPlayer(store, { prefix: 'b', currency: 'EUR', blocked: false }, 1)).map((p) => p.playerId),
        expect((m) => m.playerId.startsWith('b') && m.currency === 'EUR' && !m.blocked),
      );
      assert.deepEqual(await store.listPlayers({ limit: 10, prefix: 'nobody' }), { ok: true, items: [], next: null });
      assert.deepEqual(await store.listPlayers({ limit: 10, currency: 'GBP' }), { ok: true, items: [], next: null });

      // A cursor need not name a player: the page starts after it.
      const afterBa = await store.listPlayers({ limit: 2, after: 'ba' });
      assert.deepEqual(
        afterBa.items.map((p) => p.playerId),
        expect((m) => byCodePoints(m.playerId, 'ba') > 0).slice(0, 2),
      );
      const pastAll = await store.listPlayers({ limit: 2, after: '\u{10FFFF}' });
      assert.deepEqual(pastAll, { ok: true, items: [], next: null });
    });

    test('the GGR report sums bets and wins per game, day and currency, as a model of the rounds does', async () => {
      // Three players in two currencies, rounds of two games over three days; every amount in cents.
      const players = [
        { playerId: 'g-eur-1', currency: 'EUR' },
        { playerId: 'g-eur-2', currency: 'EUR' },
        { playerId: 'g-usd-1', currency: 'USD' },
      ];
      for (const p of players) assert.ok((await store.createPlayer({ ...p, balance: 10_000, depositId: randomUUID(), now: NOW })).ok);
      const model = new Map<string, { bets: number; wins: number; rounds: number }>();
      let seed = 7;
      const next = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let day = 0; day < 3; day++) {
        for (let r = 0; r < 8; r++) {
          const p = players[next(players.length)]!;
          const game = ['dice', 'reels'][next(2)]!;
          const now = NOW + day * DAY + r * 60_000 + 1;
          const key = await store.createLaunchKey({ playerId: p.playerId, game, key: randomUUID(), now });
          assert.ok(key.ok);
          const auth = await store.authenticate({ key: key.key, game, now, newSessionId: randomUUID() });
          assert.ok(auth.ok);
          const bet = 1 + next(300);
          const win = next(3) === 0 ? next(900) : 0;
          const transactions = [{ id: randomUUID(), type: 'bet' as const, amount: bet / 100 }];
          if (win > 0) transactions.push({ id: randomUUID(), type: 'win' as const, amount: win / 100 } as never);
          const outcome = await store.transact({
            request: checkedTransaction({ sessionId: auth.sessionId, playerId: p.playerId, game, transactions, round: { id: randomUUID(), finished: true } }),
            now,
          });
          assert.ok(outcome.ok, JSON.stringify(outcome));
          const at = `${new Date(NOW + day * DAY).toISOString().slice(0, 10)} ${game} ${p.currency}`;
          const sums = model.get(at) ?? { bets: 0, wins: 0, rounds: 0 };
          model.set(at, { bets: sums.bets + bet, wins: sums.wins + win, rounds: sums.rounds + 1 });
        }
      }
      // A deposit is no bet: it never shows.
      assert.ok((await store.adjust({ playerId: 'g-eur-1', id: randomUUID(), type: 'deposit', amount: 5, now: NOW + DAY })).ok);

      const report = await store.ggr({ from: NOW, to: NOW + 3 * DAY });
      const cents = (text: string) => Math.round(Number(text) * 100);
      const got = new Map(report.rows.map((row) => [`${row.day} ${row.game} ${row.currency}`, row]));
      assert.deepEqual([...got.keys()], [...model.keys()].sort(), 'ordered by day, game, currency');
      for (const [at, sums] of model) {
        const row = got.get(at)!;
        assert.deepEqual(
          { bets: cents(row.bets), wins: cents(row.wins), ggr: cents(row.ggr), freeBets: cents(row.freeBets), rounds: row.rounds },
          { bets: sums.bets, wins: sums.wins, ggr: sums.bets - sums.wins, freeBets: 0, rounds: sums.rounds },
          at,
        );
      }
      // The span is [from, to): the middle day alone.
      const middle = await store.ggr({ from: NOW + DAY, to: NOW + 2 * DAY });
      assert.deepEqual(
        middle.rows,
        report.rows.filter((row) => row.day === new Date(NOW + DAY).toISOString().slice(0, 10)),
      );
      assert.deepEqual(await store.ggr({ from: NOW + 10 * DAY, to: NOW + 11 * DAY }), { ok: true, rows: [] });
    });
  });
}
