/**
 * The wallet's versioned schema migrations, applied in order at start by
 * the shared runner (platform/sqlite/migrate.ts). A version, once
 * released, never changes: a new change is a new version.
 *
 * Each store numbers its own migrations: a number names a change to this
 * store's schema, not to PostgreSQL's. Both begin with the ledger as
 * version 1; after that they part, because their cost models differ. Here:
 * 1 ledger, 2 per-player chains, 3 id indexes, 4 refused transactions,
 * 5 transfers by time, 6 launch-key digests, 7 staff, 8 integrations,
 * 9 session integrations.
 * PostgreSQL (postgres/migrations.ts): 1 ledger, 2 wallet versions,
 * 3 refused transactions, 4 transfers by time, 5 launch-key digests,
 * 6 staff, 7 integrations, 8 session integrations.
 *
 * Layout choices for the hot path: every table has an integer primary key,
 * so inserts append. Version 1 kept each random UUID in a unique index (as
 * 16 bytes); version 3 takes the transfer and round ids out of the tables'
 * indexes into tables that are filled in sorted batches (id-index.ts), so a
 * bet writes no page at a random place.
 *
 * Each page a commit dirties is written to the WAL and synced, so the pages
 * a bet touches are what a bet costs. Version 2 therefore replaces the
 * by-player indexes (each bet dirtied a page of each, at a random place)
 * with per-player chains: a transfer or round row points to the player's
 * previous one, and the player's wallet account row, which a bet rewrites
 * anyway for its balance, points to the latest. A player's history is read
 * by walking the chain from there.
 */
import type Database from 'better-sqlite3';
import { launchKeyDigest } from '../../ledger/rules.js';
import { migrate as applyMigrations, type Migration } from '../../platform/sqlite/migrate.js';
import { STAFF_SCHEMA_SQLITE } from '../../staff/staff-schema.js';
import { INTEGRATIONS_SCHEMA_SQLITE } from '../integration-schema.js';

/**
 * The SQL function version 6 hashes the stored keys with: SQLite has no
 * SHA-256 of its own, and the digest must be the one the ledger looks keys
 * up by (launchKeyDigest), byte for byte.
 */
const LAUNCH_KEY_DIGEST_FUNCTION = 'wagerlink_launch_key_digest';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
CREATE TABLE accounts (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('player', 'game', 'campaign', 'tournament', 'cash')),
  ref         TEXT NOT NULL,
  currency    TEXT NOT NULL,
  -- Kept in step for player wallets only; other accounts are derived from transfers.
  balance     INTEGER CHECK (balance IS NULL OR balance >= 0),
  created_at  INTEGER NOT NULL,
  UNIQUE (kind, ref, currency)
);

CREATE TABLE players (
  id             INTEGER PRIMARY KEY,
  player_id      TEXT NOT NULL UNIQUE,
  account_id     INTEGER NOT NULL UNIQUE REFERENCES accounts (id),
  currency       TEXT NOT NULL,
  country        TEXT,
  blocked        INTEGER NOT NULL DEFAULT 0,
  blocked_reason TEXT,
  created_at     INTEGER NOT NULL
);

CREATE TABLE sessions (
  id             INTEGER PRIMARY KEY,
  uuid           BLOB NOT NULL UNIQUE,
  player_pk      INTEGER NOT NULL REFERENCES players (id),
  game           TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  last_active_at INTEGER NOT NULL
);

CREATE TABLE launch_keys (
  id          INTEGER PRIMARY KEY,
  key         TEXT NOT NULL UNIQUE,
  player_pk   INTEGER NOT NULL REFERENCES players (id),
  game        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  session_pk  INTEGER REFERENCES sessions (id)
);

CREATE TABLE rounds (
  id          INTEGER PRIMARY KEY,
  uuid        BLOB NOT NULL UNIQUE,
  player_pk   INTEGER NOT NULL REFERENCES players (id),
  game        TEXT NOT NULL,
  finished    INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX rounds_by_player ON rounds (player_pk, id);

CREATE TABLE transfers (
  id                INTEGER PRIMARY KEY,
  uuid              BLOB NOT NULL UNIQUE,
  kind              TEXT NOT NULL CHECK (kind IN ('bet', 'win', 'payout', 'deposit', 'withdrawal')),
  player_pk         INTEGER NOT NULL REFERENCES players (id),
  debit_account_id  INTEGER NOT NULL REFERENCES accounts (id),
  credit_account_id INTEGER NOT NULL REFERENCES accounts (id),
  amount            INTEGER NOT NULL CHECK (amount >= 0),
  jp_amount         INTEGER NOT NULL DEFAULT 0 CHECK (jp_amount >= 0 AND jp_amount <= amount),
  free_bet          INTEGER NOT NULL DEFAULT 0,
  round_pk          INTEGER REFERENCES rounds (id),
  campaign_uuid     BLOB,
  regulatory        TEXT,
  note              TEXT,
  created_at        INTEGER NOT NULL,
  CHECK (debit_account_id <> credit_account_id)
);
CREATE INDEX transfers_by_player ON transfers (player_pk, id);

CREATE TABLE campaign_closures (
  campaign_uuid BLOB NOT NULL,
  player_pk     INTEGER NOT NULL REFERENCES players (id),
  closed_at     INTEGER NOT NULL,
  PRIMARY KEY (campaign_uuid, player_pk)
) WITHOUT ROWID;
`,
  },
  {
    version: 2,
    name: 'player-chains',
    sql: `
ALTER TABLE accounts ADD COLUMN last_transfer_id INTEGER;
ALTER TABLE accounts ADD COLUMN last_round_id INTEGER;
ALTER TABLE transfers ADD COLUMN prev_player_transfer_id INTEGER;
ALTER TABLE rounds ADD COLUMN prev_player_round_id INTEGER;

-- Link what is already stored, while the by-player indexes still exist to do it.
UPDATE transfers SET prev_player_transfer_id =
  (SELECT MAX(t.id) FROM transfers t WHERE t.player_pk = transfers.player_pk AND t.id < transfers.id);
UPDATE rounds SET prev_player_round_id =
  (SELECT MAX(r.id) FROM rounds r WHERE r.player_pk = rounds.player_pk AND r.id < rounds.id);
UPDATE accounts SET
  last_transfer_id = (SELECT MAX(t.id) FROM transfers t JOIN players p ON p.id = t.player_pk WHERE p.account_id = accounts.id),
  last_round_id = (SELECT MAX(r.id) FROM rounds r JOIN players p ON p.id = r.player_pk WHERE p.account_id = accounts.id)
WHERE kind = 'player';

DROP INDEX transfers_by_player;
DROP INDEX rounds_by_player;
`,
  },
  {
    version: 3,
    name: 'id-indexes',
    // SQLite cannot drop a column's UNIQUE constraint: both tables are rebuilt without it
    // (foreign keys are off, and the other tables' references name the tables, not their
    // storage). From here on the ids are indexed by id-index.ts, in sorted batches.
    sql: `
CREATE TABLE rounds_v3 (
  id                   INTEGER PRIMARY KEY,
  uuid                 BLOB NOT NULL,
  player_pk            INTEGER NOT NULL REFERENCES players (id),
  game                 TEXT NOT NULL,
  finished             INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  finished_at          INTEGER,
  prev_player_round_id INTEGER
);
INSERT INTO rounds_v3 (id, uuid, player_pk, game, finished, created_at, finished_at, prev_player_round_id)
  SELECT id, uuid, player_pk, game, finished, created_at, finished_at, prev_player_round_id FROM rounds ORDER BY id;
DROP TABLE rounds;
ALTER TABLE rounds_v3 RENAME TO rounds;

CREATE TABLE transfers_v3 (
  id                      INTEGER PRIMARY KEY,
  uuid                    BLOB NOT NULL,
  kind                    TEXT NOT NULL CHECK (kind IN ('bet', 'win', 'payout', 'deposit', 'withdrawal')),
  player_pk               INTEGER NOT NULL REFERENCES players (id),
  debit_account_id        INTEGER NOT NULL REFERENCES accounts (id),
  credit_account_id       INTEGER NOT NULL REFERENCES accounts (id),
  amount                  INTEGER NOT NULL CHECK (amount >= 0),
  jp_amount               INTEGER NOT NULL DEFAULT 0 CHECK (jp_amount >= 0 AND jp_amount <= amount),
  free_bet                INTEGER NOT NULL DEFAULT 0,
  round_pk                INTEGER REFERENCES rounds (id),
  campaign_uuid           BLOB,
  regulatory              TEXT,
  note                    TEXT,
  created_at              INTEGER NOT NULL,
  prev_player_transfer_id INTEGER,
  CHECK (debit_account_id <> credit_account_id)
);
INSERT INTO transfers_v3 (id, uuid, kind, player_pk, debit_account_id, credit_account_id, amount, jp_amount, free_bet,
    round_pk, campaign_uuid, regulatory, note, created_at, prev_player_transfer_id)
  SELECT id, uuid, kind, player_pk, debit_account_id, credit_account_id, amount, jp_amount, free_bet,
    round_pk, campaign_uuid, regulatory, note, created_at, prev_player_transfer_id FROM transfers ORDER BY id;
DROP TABLE transfers;
ALTER TABLE transfers_v3 RENAME TO transfers;

-- Every id stored so far, in UUID order; each bucket's mark is the newest row.
CREATE TABLE round_ids (uuid BLOB PRIMARY KEY, row_id INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO round_ids (uuid, row_id) SELECT uuid, id FROM rounds ORDER BY uuid;
CREATE TABLE transfer_ids (uuid BLOB PRIMARY KEY, row_id INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO transfer_ids (uuid, row_id) SELECT uuid, id FROM transfers ORDER BY uuid;
CREATE TABLE id_marks (
  tbl         TEXT NOT NULL,
  bucket      INTEGER NOT NULL,
  merged_upto INTEGER NOT NULL,
  PRIMARY KEY (tbl, bucket)
) WITHOUT ROWID;
WITH RECURSIVE buckets (bucket) AS (SELECT 0 UNION ALL SELECT bucket + 1 FROM buckets WHERE bucket < 255)
INSERT INTO id_marks (tbl, bucket, merged_upto)
  SELECT 'rounds', bucket, COALESCE((SELECT MAX(id) FROM rounds), 0) FROM buckets
  UNION ALL
  SELECT 'transfers', bucket, COALESCE((SELECT MAX(id) FROM transfers), 0) FROM buckets;
`,
  },
  {
    version: 4,
    name: 'refused-transactions',
    // docs/protocol.md §6.4: the transaction ids of a request the wallet rules refused, with what the
    // request said of each (compared on a repeat) and the refusal it was answered. Refusals are rare
    // and looked up by id only, so a plain unique key does here what id-index.ts does for bookings.
    sql: `
CREATE TABLE refused_transactions (
  uuid        BLOB PRIMARY KEY,
  player_pk   INTEGER NOT NULL REFERENCES players (id),
  kind        TEXT NOT NULL CHECK (kind IN ('bet', 'win')),
  player_id   TEXT NOT NULL,
  round_uuid  BLOB NOT NULL,
  amount      INTEGER NOT NULL CHECK (amount >= 0),
  jp_amount   INTEGER NOT NULL CHECK (jp_amount >= 0 AND jp_amount <= amount),
  code        TEXT NOT NULL,
  detail      TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 5,
    name: 'transfers-by-time',
    // The back office's GGR report (GET /admin/ggr) reads the bets and wins of a span of days; without
    // this index each report read every transfer ever booked. created_at follows the clock, so a new row's
    // entry lands on the index's last page, which the rows of one commit share: no write at a random place.
    sql: `
CREATE INDEX transfers_by_time ON transfers (created_at);
`,
  },
  {
    version: 6,
    name: 'launch-key-digests',
    // A launch key is a bearer credential: the table keeps its SHA-256 digest (launchKeyDigest), never the key.
    // The table is rebuilt rather than altered, so that no row keeps the key in a dropped column; secure_delete
    // zeroes the pages the old table and its index free, so that the keys are not left in the file's free pages
    // either. Nothing refers to a launch key's row id, and the ids are kept all the same.
    sql: `
PRAGMA secure_delete = ON;
CREATE TABLE launch_keys_v6 (
  id          INTEGER PRIMARY KEY,
  key_hash    BLOB NOT NULL UNIQUE,
  player_pk   INTEGER NOT NULL REFERENCES players (id),
  game        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  session_pk  INTEGER REFERENCES sessions (id)
);
INSERT INTO launch_keys_v6 (id, key_hash, player_pk, game, created_at, expires_at, session_pk)
  SELECT id, ${LAUNCH_KEY_DIGEST_FUNCTION}(key), player_pk, game, created_at, expires_at, session_pk FROM launch_keys ORDER BY id;
DROP TABLE launch_keys;
ALTER TABLE launch_keys_v6 RENAME TO launch_keys;
PRAGMA secure_delete = OFF;
`,
  },
  {
    version: 7,
    name: 'staff',
    // Named staff accounts of the back office, their tokens kept only as SHA-256 hashes (access/staff-token.ts),
    // and the audit log of every state-changing back-office call. The log is append-only, and the database says
    // so: its triggers refuse every UPDATE and DELETE, whoever asks.
    sql: STAFF_SCHEMA_SQLITE,
  },
  {
    version: 8,
    name: 'integrations',
    // The studios that call the wallet, each with its own sealed secrets and hashed tokens, and the version every
    // node polls to follow their changes (integration-schema.ts).
    sql: INTEGRATIONS_SCHEMA_SQLITE,
  },
  {
    version: 9,
    name: 'session-integrations',
    // A session belongs to the integration that opened it (docs/protocol.md §2.6): another's token may not bet
    // on it. Sessions opened before belong to the environment's integration, the only one there was. A
    // constant default: SQLite adds the column without rewriting the table.
    sql: `
ALTER TABLE sessions ADD COLUMN integration_id TEXT NOT NULL DEFAULT 'default';
`,
  },
  {
    version: 10,
    name: 'studio-rounds',
    // A round, and a campaign's closure for a player, belong to the integration whose call made them
    // (docs/protocol.md §2.6): another studio's call may not add to the round, and the same campaign id at two
    // studios is two campaigns. Rows made before belong to the environment's integration. The rounds' column
    // has a constant default, added without rewriting the table; the closures' key changes, so that small
    // table is rebuilt.
    sql: `
ALTER TABLE rounds ADD COLUMN integration_id TEXT NOT NULL DEFAULT 'default';
CREATE TABLE campaign_closures_v10 (
  campaign_uuid  BLOB NOT NULL,
  player_pk      INTEGER NOT NULL REFERENCES players (id),
  integration_id TEXT NOT NULL,
  closed_at      INTEGER NOT NULL,
  PRIMARY KEY (campaign_uuid, player_pk, integration_id)
) WITHOUT ROWID;
INSERT INTO campaign_closures_v10 (campaign_uuid, player_pk, integration_id, closed_at)
  SELECT campaign_uuid, player_pk, 'default', closed_at FROM campaign_closures;
DROP TABLE campaign_closures;
ALTER TABLE campaign_closures_v10 RENAME TO campaign_closures;
`,
  },
  {
    version: 11,
    name: 'launch-key-integrations',
    // A launch key may name the integration whose game it launches (docs/protocol.md §2.6): only that one's
    // /authenticate opens it. Null: any, as for every key made before.
    sql: `
ALTER TABLE launch_keys ADD COLUMN integration_id TEXT;
`,
  },
];

/** Applies the wallet's migrations not yet applied (platform/sqlite/migrate.ts). Returns the versions applied. */
export function migrate(db: Database.Database): number[] {
  db.function(LAUNCH_KEY_DIGEST_FUNCTION, { deterministic: true }, (key: unknown) => launchKeyDigest(String(key)));
  return applyMigrations(db, MIGRATIONS);
}
