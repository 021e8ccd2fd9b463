/**
 * The provider store's SQLite schema: its own migration versions, numbered
 * apart from the wallet's and run by the shared runner
 * (src/platform/sqlite/migrate.ts); the outbox's table is one of them, so
 * that a round or a payout and its request commit in one transaction.
 */
import { STAFF_SCHEMA_SQLITE } from '../../../staff/staff-schema.js';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { OUTBOX_MIGRATION } from '../../../dispatch/sqlite/outbox.js';
import { recordApplied, type Migration } from '../../../platform/sqlite/migrate.js';
import { reelsMigrationSql } from '../reels-migration.js';
import { BODY_ONCE_MIGRATION, SEALED_SEEDS_MIGRATION } from '../provider-store.js';

const REELS_MIGRATION_SQL = reelsMigrationSql({ int: 'INTEGER', money: 'INTEGER' });

/** The provider's own versions, numbered apart from the wallet's. */
export const PROVIDER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'round-log',
    sql: `
CREATE TABLE game_sessions (
  id                  INTEGER PRIMARY KEY,
  session_id          TEXT NOT NULL UNIQUE,
  -- One game session per launch: reopening a launch URL finds this row.
  launch_id           TEXT NOT NULL UNIQUE,
  mode                TEXT NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id         TEXT NOT NULL,
  wallet_id           TEXT,
  game                TEXT NOT NULL,
  player_id           TEXT,
  operator_session_id TEXT,
  currency            TEXT NOT NULL,
  country             TEXT,
  language            TEXT NOT NULL,
  -- Minor units: the fun balance held here, or the last balance the operator answered.
  balance             INTEGER NOT NULL CHECK (balance >= 0),
  -- The committed seed of the next round (hex) and the rounds played so far.
  server_seed         TEXT NOT NULL,
  nonce               INTEGER NOT NULL CHECK (nonce >= 0),
  created_at          INTEGER NOT NULL,
  last_active_at      INTEGER NOT NULL
);

CREATE TABLE rounds (
  id                INTEGER PRIMARY KEY,
  round_id          TEXT NOT NULL UNIQUE,
  session_pk        INTEGER NOT NULL REFERENCES game_sessions (id),
  mode              TEXT NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id       TEXT NOT NULL,
  player_id         TEXT,
  game              TEXT NOT NULL,
  currency          TEXT NOT NULL,
  bet               INTEGER NOT NULL CHECK (bet > 0),
  win               INTEGER NOT NULL CHECK (win >= 0),
  bet_tx_id         TEXT UNIQUE,
  win_tx_id         TEXT UNIQUE,
  campaign_id       TEXT,
  campaign_finished INTEGER,
  chance_pct        INTEGER NOT NULL,
  threshold         INTEGER NOT NULL,
  roll              INTEGER NOT NULL,
  server_seed       TEXT NOT NULL,
  server_seed_hash  TEXT NOT NULL,
  client_seed       TEXT NOT NULL,
  nonce             INTEGER NOT NULL,
  -- Real rounds: the exact /transaction body, resent byte for byte.
  request_body      TEXT,
  status            TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'refused')),
  refusal_code      TEXT,
  refusal_detail    TEXT,
  balance_after     INTEGER,
  attempts          INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  settled_at        INTEGER
);
CREATE INDEX rounds_by_session ON rounds (session_pk, id);
CREATE INDEX rounds_pending ON rounds (session_pk) WHERE status = 'pending';
CREATE INDEX rounds_by_campaign ON rounds (campaign_id, operator_id, player_id) WHERE campaign_id IS NOT NULL;

CREATE TABLE campaigns (
  id           INTEGER PRIMARY KEY,
  campaign_id  TEXT NOT NULL UNIQUE,
  operator_id  TEXT NOT NULL,
  game         TEXT NOT NULL,
  currency     TEXT NOT NULL,
  bet          INTEGER NOT NULL CHECK (bet > 0),
  rounds       INTEGER NOT NULL CHECK (rounds > 0),
  expires_at   INTEGER,
  created_at   INTEGER NOT NULL
);

CREATE TABLE campaign_players (
  campaign_pk  INTEGER NOT NULL REFERENCES campaigns (id),
  player_id    TEXT NOT NULL,
  PRIMARY KEY (campaign_pk, player_id)
) WITHOUT ROWID;
CREATE INDEX campaign_players_by_player ON campaign_players (player_id);
`,
  },
  {
    version: 2,
    name: OUTBOX_MIGRATION.name,
    sql: `${OUTBOX_MIGRATION.sql}
-- A real round's request in the outbox: its final outcome settles or refuses the round.
ALTER TABLE rounds ADD COLUMN dispatch_item_id INTEGER REFERENCES dispatch_items (id);
CREATE UNIQUE INDEX rounds_by_dispatch_item ON rounds (dispatch_item_id) WHERE dispatch_item_id IS NOT NULL;

-- Rounds an earlier version left pending are delivered as new ones are: due now, each its own key.
INSERT INTO dispatch_items (operator_id, ordering_key, sequence, kind, path, body, after_refusal, status, next_attempt_at, created_at)
  SELECT operator_id, round_id, 1, 'bet', '/transaction', CAST(request_body AS BLOB), 'skip-rest', 'pending', created_at, created_at
  FROM rounds WHERE mode = 'real' AND status = 'pending' AND request_body IS NOT NULL ORDER BY id;
UPDATE rounds SET dispatch_item_id = (
    SELECT d.id FROM dispatch_items d WHERE d.operator_id = rounds.operator_id AND d.ordering_key = rounds.round_id AND d.sequence = 1)
  WHERE mode = 'real' AND status = 'pending' AND request_body IS NOT NULL;
`,
  },
  {
    version: 3,
    name: 'payouts',
    sql: `
-- A tournament prize: written with its /payout request in the outbox, in one transaction; the request's final outcome finishes it.
CREATE TABLE payouts (
  id                  INTEGER PRIMARY KEY,
  payout_id           TEXT NOT NULL UNIQUE,
  operator_id         TEXT NOT NULL,
  player_id           TEXT NOT NULL,
  currency            TEXT NOT NULL,
  -- Minor units of the currency.
  amount              INTEGER NOT NULL CHECK (amount > 0),
  campaign_id         TEXT NOT NULL,
  -- The operator's session of the player the request names (docs/protocol.md §7).
  operator_session_id TEXT NOT NULL,
  dispatch_item_id    INTEGER NOT NULL UNIQUE REFERENCES dispatch_items (id),
  status              TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'refused')),
  balance_after       INTEGER,
  refusal_code        TEXT,
  refusal_detail      TEXT,
  created_at          INTEGER NOT NULL,
  settled_at          INTEGER
);
CREATE INDEX payouts_by_status ON payouts (status, id);
-- A payout names the player's latest real session at the operator.
CREATE INDEX game_sessions_by_player ON game_sessions (operator_id, player_id, last_active_at) WHERE mode = 'real';
`,
  },
  {
    version: 4,
    name: 'reels-rounds',
    sql: REELS_MIGRATION_SQL,
  },
  {
    version: 5,
    name: SEALED_SEEDS_MIGRATION,
    sql: `
-- A session's next seed is kept sealed under a key outside the database, with its commitment (seed-keyring.ts).
-- The plain seeds go: every copy of the database made before held them, so their commitments end here;
-- the store gives each session a fresh sealed seed right after (sealPlainSeeds).
ALTER TABLE game_sessions DROP COLUMN server_seed;
ALTER TABLE game_sessions ADD COLUMN server_seed_sealed TEXT;
ALTER TABLE game_sessions ADD COLUMN server_seed_hash TEXT;

-- A round's seed is null until revealed; meanwhile it is sealed for the round. SQLite cannot drop NOT NULL: the column is made again.
ALTER TABLE rounds ADD COLUMN revealed_seed TEXT;
UPDATE rounds SET revealed_seed = server_seed;
ALTER TABLE rounds DROP COLUMN server_seed;
ALTER TABLE rounds RENAME COLUMN revealed_seed TO server_seed;
ALTER TABLE rounds ADD COLUMN server_seed_sealed TEXT;

-- What the sealing at start looks for, found without reading every row (both stay empty once it has run).
CREATE INDEX game_sessions_unsealed ON game_sessions (id) WHERE server_seed_sealed IS NULL;
CREATE INDEX rounds_unsealed ON rounds (id) WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins;
`,
  },
  {
    version: 6,
    name: 'staff',
    // Named staff accounts of the back office with their scopes, their tokens as SHA-256 hashes only, and the
    // append-only audit log (src/staff/staff-schema.ts).
    sql: STAFF_SCHEMA_SQLITE,
  },
  {
    version: 7,
    name: BODY_ONCE_MIGRATION,
    sql: `
-- A request's body is kept once, in its outbox item (dispatch_items.body): a real round's and an enqueued reels call's own copy goes
-- where it is the item's byte for byte; the readers join the item.
UPDATE rounds SET request_body = NULL
  WHERE kind = 'dice' AND request_body IS NOT NULL
    AND EXISTS (SELECT 1 FROM dispatch_items d WHERE d.id = rounds.dispatch_item_id AND d.body = CAST(rounds.request_body AS BLOB));

-- A call's body may be NULL once the call is enqueued. SQLite cannot drop NOT NULL: the table is made again (nothing refers to it).
CREATE TABLE round_calls_once (
  round_pk          INTEGER NOT NULL REFERENCES rounds (id),
  call_index        INTEGER NOT NULL CHECK (call_index BETWEEN 1 AND 3),
  -- Waiting: the exact body, fixed when the round was written. Enqueued: NULL, the item holds it.
  request_body      TEXT,
  status            TEXT NOT NULL CHECK (status IN ('waiting', 'pending', 'accepted', 'refused')),
  dispatch_item_id  INTEGER UNIQUE REFERENCES dispatch_items (id),
  refusal_code      TEXT,
  refusal_detail    TEXT,
  balance_after     INTEGER,
  finished_at       INTEGER,
  PRIMARY KEY (round_pk, call_index),
  CHECK (request_body IS NOT NULL OR dispatch_item_id IS NOT NULL)
);
INSERT INTO round_calls_once
  SELECT c.round_pk, c.call_index, CASE WHEN d.body = CAST(c.request_body AS BLOB) THEN NULL ELSE c.request_body END, c.status, c.dispatch_item_id,
    c.refusal_code, c.refusal_detail, c.balance_after, c.finished_at
  FROM round_calls c LEFT JOIN dispatch_items d ON d.id = c.dispatch_item_id;
DROP TABLE round_calls;
ALTER TABLE round_calls_once RENAME TO round_calls;
`,
  },
];

/**
 * Before it used the shared runner, this store counted its migrations in
 * PRAGMA user_version. A file written then has those versions recorded as
 * applied, under the write lock, and user_version set back to 0, so that
 * schema_migrations is the one record. Once done, it costs one read per
 * open.
 */
export function adoptUserVersion(db: Database.Database): void {
  const counted = () => Number(db.pragma('user_version', { simple: true }) as bigint);
  if (counted() === 0) return;
  db.transaction(() => {
    const versions = counted();
    assert.ok(versions <= PROVIDER_MIGRATIONS.length, `the database's user_version ${versions} is a version this code knows`);
    // When they were applied is not known.
    recordApplied(db, PROVIDER_MIGRATIONS.slice(0, versions), 0);
    db.pragma('user_version = 0');
  }).immediate();
}
