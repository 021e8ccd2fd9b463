/**
 * Proves, on every backend, that a request's body is stored once: a real
 * dice round's body and a reels call's, once enqueued, are their outbox
 * item's alone (the round's and the call's own column NULL), and every
 * reader of the contract still answers them (a round read, the listing, the
 * round a final answer finishes, a reels round's calls). And that a
 * database written by the version before (schema 6, where a round kept its
 * body beside its item's) is brought there by migration 7: each copy the
 * item also holds byte for byte is cleared, a copy that differs and a
 * waiting call's are kept, and every body still reads as it did.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import postgres from 'postgres';
import { CLAIM_LIMITS, type Answer } from '../../../src/dispatch/outbox.js';
import { commitment } from '../../../src/game/fairness.js';
import { migrate as migratePostgres } from '../../../src/platform/postgres/migrate.js';
import { migrate as migrateSqlite } from '../../../src/platform/sqlite/migrate.js';
import { openDatabase } from '../../../src/platform/sqlite/open-database.js';
import { POSTGRES_PROVIDER_MIGRATIONS } from '../../../src/provider/store/postgres/migrations.js';
import { PostgresProviderStore } from '../../../src/provider/store/postgres/provider-store.js';
import { BODY_ONCE_MIGRATION, type GameSessionRow, type NewReelsRound, type ProviderStore } from '../../../src/provider/store/provider-store.js';
import { PROVIDER_MIGRATIONS, SqliteProviderStore } from '../../../src/provider/store/sqlite/provider-store.js';
import { tempDir } from '../../helpers.js';
import { freshSchema } from '../../stores/postgres-fixtures.js';
import { PROVIDER_STORE_BACKENDS, PROVIDER_TEST_POOL, type OpenedProviderStore } from './backends.js';
import { begun, realRound, realSession, SEED, sealedNext, TEST_KEYRING } from './store-fixtures.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const OK = (balance: string): Answer => ({ status: 200, detail: 'HTTP 200', balance });
/** The schema version before bodies were kept once. */
const BEFORE = 6;

/** A body no other value holds: its occurrences in the database are its copies. */
const body = (name: string) => JSON.stringify({ body: name, id: randomUUID() });

/** How many times `text`'s bytes occur in the bodies a database holds: rounds', calls' and outbox items'. */
async function copiesOf(committed: (sql: string) => Promise<Record<string, unknown>[]>, text: string): Promise<number> {
  const bytes = Buffer.from(text, 'utf8');
  const values = [
    ...(await committed('SELECT request_body AS v FROM rounds')),
    ...(await committed('SELECT request_body AS v FROM round_calls')),
    ...(await committed('SELECT body AS v FROM dispatch_items')),
  ].map((row) => row.v);
  let copies = 0;
  for (const value of values) {
    if (value === null) continue;
    const held = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value as Uint8Array);
    for (let at = held.indexOf(bytes); at >= 0; at = held.indexOf(bytes, at + 1)) copies += 1;
  }
  return copies;
}

/** A real reels round of three calls (a bet, the base spin's win, the feature's after 10 free spins), each body named. */
function reelsRound(session: GameSessionRow, nonce: number, bodies: string[]): NewReelsRound {
  const dice = realRound(session, nonce, NOW);
  return {
    ...dice,
    game: 'reels',
    winMinor: 250n,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    serverSeed: null,
    sealedSeed: TEST_KEYRING.seal(SEED, { round: dice.roundId }),
    requestBody: null,
    plan: {
      rtpBp: 9_600,
      jackpotBp: 100,
      baseWinMinor: 50n,
      featureWinMinor: 200n,
      jackpotContributionMinor: 1n,
      jackpotHit: false,
      jackpotSeedMinor: 5_000n,
      freeSpins: 10,
    },
    callBodies: () => bodies,
  };
}

for (const backend of PROVIDER_STORE_BACKENDS) {
  describe(`a request's body stored once: ${backend.name}`, { skip: backend.unavailable }, () => {
    let opened: OpenedProviderStore;
    let store: ProviderStore;
    beforeEach(async () => {
      opened = await backend.open();
      store = opened.store;
    });
    afterEach(async () => opened.cleanup());

    const copies = async (text: string) => {
      await store.durable();
      return copiesOf((sql) => opened.committed(sql), text);
    };
    /** Claims what is due and answers every item claimed 200. */
    const answerDue = async (at: number) => {
      await store.durable();
      for (const item of await store.outbox.claim(at, 'node', CLAIM_LIMITS)) assert.ok(await store.outbox.sent(item.id, 'node', OK('99'), at));
    };

    test("a real round's body is its item's alone, and every reader of the round answers it", async () => {
      const session = await realSession(store, { operatorId: 'op', now: NOW });
      const text = body('dice');
      const round = begun(await store.beginRealRound(realRound(session, 0, NOW, text), sealedNext(SEED)));
      assert.equal(round.requestBody, text, 'the write answers the round with its body');
      assert.equal(await copies(text), 1);
      assert.deepEqual(await opened.committed(`SELECT request_body FROM rounds WHERE id = ${round.pk}`), [{ request_body: null }]);
      assert.equal((await store.round(round.pk)).requestBody, text);
      assert.equal((await store.listRounds(10)).find((one) => one.pk === round.pk)?.requestBody, text);
      assert.equal((await store.pendingRounds(session.pk))[0]?.requestBody, text);

      const finished: (string | null)[] = [];
      const stop = store.onRoundFinished((one) => finished.push(one.requestBody));
      try {
        await answerDue(NOW + 1);
      } finally {
        stop();
      }
      assert.deepEqual(finished, [text], 'the round its final answer finishes carries its body');
      assert.equal((await store.sessionRound(session.pk, round.roundId))?.requestBody, text);
      assert.equal(await copies(text), 1);
    });

    test("a reels call's body is kept on the call while it waits, and on its item alone once enqueued", async () => {
      const session = await realSession(store, { operatorId: 'op', now: NOW });
      const texts = [body('bet'), body('base win'), body('feature win')];
      const round = begun(await store.beginReelsRound(reelsRound(session, 0, texts), sealedNext(SEED)));
      const callBodies = async () => (await store.roundCalls(round.pk)).map((call) => [call.status, call.body]);
      const heldByCalls = async () => {
        await store.durable();
        return (await opened.committed(`SELECT call_index, request_body FROM round_calls WHERE round_pk = ${round.pk} ORDER BY call_index`)).map(
          (row) => row.request_body,
        );
      };

      assert.deepEqual(await callBodies(), [
        ['pending', texts[0]],
        ['waiting', texts[1]],
        ['waiting', texts[2]],
      ]);
      assert.deepEqual(await heldByCalls(), [null, texts[1], texts[2]]);
      await answerDue(NOW + 1);
      assert.deepEqual(await heldByCalls(), [null, null, texts[2]], "the base spin's call enqueued by the bet's answer");
      assert.ok((await store.playFreeSpins(round.pk, 0, 10, NOW + 2, SEED)).ok);
      await answerDue(NOW + 3);
      assert.deepEqual(await heldByCalls(), [null, null, null], "the feature's call enqueued once the spins are played and the base spin answered");
      await answerDue(NOW + 4);
      assert.deepEqual(
        await callBodies(),
        texts.map((text) => ['accepted', text]),
      );
      for (const text of texts) assert.equal(await copies(text), 1, `${JSON.parse(text).body}: one copy`);
      assert.equal((await store.round(round.pk)).status, 'settled');
    });
  });

  describe(`the upgrade to bodies stored once (migration 7): ${backend.name}`, { skip: backend.unavailable }, () => {
    const texts = {
      sent: body('sent'),
      pending: body('pending'),
      differs: body('differs'),
      item: body('its item'),
      bet: body('bet'),
      base: body('base'),
      feature: body('feature'),
    };
    let database: { store: ProviderStore; committed: (sql: string) => Promise<Record<string, unknown>[]>; cleanup: () => Promise<void> };
    beforeEach(async () => {
      database = await versionSixDatabase(backend.name, versionSixRows(backend.name, texts));
    });
    afterEach(async () => database.cleanup());

    test('each copy the item holds byte for byte is cleared, a copy that differs and a waiting call keep theirs, and every body reads as before', async () => {
      const { store, committed } = database;
      assert.deepEqual(await committed(`SELECT version FROM schema_migrations WHERE name = '${BODY_ONCE_MIGRATION}'`), [{ version: 7n }]);
      assert.deepEqual(
        (await committed('SELECT request_body FROM rounds ORDER BY id')).map((row) => row.request_body),
        [null, null, texts.differs, null, null],
        'the sent and the pending round lose their copy; the round whose item differs keeps its own; fun and reels rounds held none',
      );
      assert.deepEqual(
        (await committed('SELECT request_body FROM round_calls ORDER BY call_index')).map((row) => row.request_body),
        [null, null, texts.feature],
        'the enqueued calls lose their copy; the waiting one keeps its only one',
      );

      const rounds = await store.listRounds(10);
      assert.deepEqual(
        rounds.map((round) => round.requestBody).reverse(),
        [texts.sent, texts.pending, texts.differs, null, null],
        'each dice round reads its body; a round whose own copy differs from its item reads its own',
      );
      assert.deepEqual(
        (await store.roundCalls(5)).map((call) => call.body),
        [texts.bet, texts.base, texts.feature],
      );
      for (const text of Object.values(texts)) assert.equal(await copiesOf(committed, text), 1, `${JSON.parse(text).body}: one copy`);

      // The round an earlier version left pending is finished from its item as any other, its body read through it.
      const finished: (string | null)[] = [];
      const stop = store.onRoundFinished((round) => finished.push(round.requestBody));
      try {
        for (const item of await store.outbox.claim(NOW + 1, 'node', CLAIM_LIMITS)) await store.outbox.sent(item.id, 'node', OK('99'), NOW + 1);
      } finally {
        stop();
      }
      assert.ok(finished.includes(texts.pending));
      assert.equal((await store.round(2)).status, 'settled');
    });
  });
}

type Texts = Record<'sent' | 'pending' | 'differs' | 'item' | 'bet' | 'base' | 'feature', string>;

/**
 * What the version before wrote, as SQL: a real session; a dice round sent
 * and one pending, each body on the round and its item; one whose item
 * holds other bytes than the round; a fun round; a real reels round whose
 * bet and base spin were enqueued (each body on the call and its item) and
 * whose feature's call waits. Numbered from 1 in that order.
 */
function versionSixRows(backend: string, texts: Texts): string[] {
  const bytes = (text: string) => (backend === 'sqlite' ? `X'${Buffer.from(text).toString('hex')}'` : `decode('${Buffer.from(text).toString('hex')}', 'hex')`);
  const item = (key: string, sequence: number, kind: string, text: string, status: string) =>
    `INSERT INTO dispatch_items (operator_id, ordering_key, sequence, kind, path, body, after_refusal, status, next_attempt_at, created_at)
     VALUES ('op', '${key}', ${sequence}, '${kind}', '/transaction', ${bytes(text)}, 'skip-rest', '${status}', ${NOW}, ${NOW})`;
  const round = (key: string, mode: string, kind: string, text: string | null, status: string, itemId: number | null) =>
    `INSERT INTO rounds (round_id, session_pk, mode, operator_id, player_id, game, currency, bet, win, chance_pct, threshold, roll, server_seed,
       server_seed_hash, client_seed, nonce, request_body, status, attempts, created_at, dispatch_item_id, kind
       ${kind === 'reels' ? ', reels_rtp_bp, reels_jackpot_bp, base_win, feature_win, jackpot_contribution, jackpot_seed, free_spins, free_spins_played, calls, calls_done' : ''})
     VALUES ('${key}', 1, '${mode}', 'op', 'p-1', '${kind}', 'EUR', 100, 0, 50, 5000, 7000, '${SEED}', '${commitment(SEED)}', 'c', 0,
       ${text === null ? 'NULL' : `'${text}'`}, '${status}', 0, ${NOW}, ${itemId ?? 'NULL'}, '${kind}'
       ${kind === 'reels' ? ', 9600, 100, 50, 200, 1, 5000, 10, 10, 3, 1' : ''})`;
  const call = (index: number, text: string, status: string, itemId: number | null) =>
    `INSERT INTO round_calls (round_pk, call_index, request_body, status, dispatch_item_id) VALUES (5, ${index}, '${text}', '${status}', ${itemId ?? 'NULL'})`;
  return [
    `INSERT INTO game_sessions (session_id, launch_id, mode, operator_id, game, player_id, operator_session_id, currency, language, balance,
       server_seed_sealed, server_seed_hash, nonce, created_at, last_active_at)
     VALUES ('${randomUUID()}', '${randomUUID()}', 'real', 'op', 'dice', 'p-1', '${randomUUID()}', 'EUR', 'en', 10000, 'sealed', 'hash', 5, ${NOW}, ${NOW})`,
    item('r-sent', 1, 'bet', texts.sent, 'sent'),
    item('r-pending', 1, 'bet', texts.pending, 'pending'),
    item('r-differs', 1, 'bet', texts.item, 'sent'),
    item('r-reels', 1, 'bet', texts.bet, 'sent'),
    item('r-reels', 2, 'win', texts.base, 'pending'),
    round('r-sent', 'real', 'dice', texts.sent, 'settled', 1),
    round('r-pending', 'real', 'dice', texts.pending, 'pending', 2),
    round('r-differs', 'real', 'dice', texts.differs, 'settled', 3),
    round('r-fun', 'fun', 'dice', null, 'settled', null),
    round('r-reels', 'real', 'reels', null, 'pending', 4),
    call(1, texts.bet, 'accepted', 4),
    call(2, texts.base, 'pending', 5),
    call(3, texts.feature, 'waiting', null),
  ];
}

/** A database at schema 6 holding `statements`, opened by this version's store (which migrates it), with a view of what is committed. */
async function versionSixDatabase(
  backend: string,
  statements: string[],
): Promise<{ store: ProviderStore; committed: (sql: string) => Promise<Record<string, unknown>[]>; cleanup: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const temp = tempDir('wagerlink-body-once-');
    const path = join(temp.dir, 'provider.db');
    const db = openDatabase(path);
    migrateSqlite(db, PROVIDER_MIGRATIONS.slice(0, BEFORE));
    for (const statement of statements) db.exec(statement);
    db.close();
    const store = SqliteProviderStore.open(path);
    const reader = openDatabase(path);
    return {
      store,
      committed: async (sql) => reader.prepare(sql).all() as Record<string, unknown>[],
      cleanup: async () => {
        reader.close();
        await store.close();
        temp.cleanup();
      },
    };
  }
  const schema = await freshSchema('body_once');
  const sql = postgres(schema.url(), { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } });
  try {
    await migratePostgres(sql, POSTGRES_PROVIDER_MIGRATIONS.slice(0, BEFORE));
    for (const statement of statements) await sql.unsafe(statement);
    const store = await PostgresProviderStore.open({ url: schema.url(), settings: PROVIDER_TEST_POOL });
    return {
      store,
      committed: async (query) =>
        (await sql.unsafe(query)).map((row) =>
          Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'number' ? BigInt(value) : value])),
        ),
      cleanup: async () => {
        try {
          await store.close();
          await sql.end({ timeout: 5 });
        } finally {
          await schema.drop();
        }
      },
    };
  } catch (error) {
    await sql.end({ timeout: 5 });
    await schema.drop();
    throw error;
  }
}
