/**
 * Versioned schema migrations for PostgreSQL, applied in order at start. A
 * version, once released, never changes: a new change is a new version, with
 * the same number and name as the same change in src/stores/sqlite/migrations.ts
 * (a test keeps the two lists in step).
 *
 * Layout: the same tables as SQLite. Every table has a bigint identity key,
 * each random UUID lives in exactly one unique index (native `uuid`, 16
 * bytes), money is int8 minor units. Player wallets keep their balance in
 * `accounts.balance`; the operator's own accounts are derived by summing
 * transfers, so no request ever updates a shared row.
 *
 * No foreign keys, as in SQLite but for a sharper reason: a foreign-key check
 * takes a KEY SHARE lock on the referenced row, and every bet references its
 * game's account, so all bets of a game would lock one hot row. Every row is
 * written by the functions below, and `verify` checks the references.
 *
 * Version 1 also creates the two functions of the hot path, wl_transact and
 * wl_payout (see postgres-ledger.ts for why the rules run inside the
 * database). They decide with the rules of src/ledger/rules.ts and return the
 * snapshot they decided on; the caller re-plans that snapshot with the pure
 * rules, renders every refusal from them and asserts that both agree.
 */
import type postgres from 'postgres';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
-- Player rows are updated on every bet: room on the page keeps those updates HOT (no index writes).
CREATE TABLE accounts (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('player', 'game', 'campaign', 'tournament', 'cash')),
  ref         text NOT NULL,
  currency    text NOT NULL,
  -- Kept in step for player wallets only; other accounts are derived from transfers.
  balance     bigint CHECK (balance IS NULL OR balance >= 0),
  created_at  bigint NOT NULL,
  UNIQUE (kind, ref, currency)
) WITH (fillfactor = 70);

CREATE TABLE players (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  player_id      text NOT NULL UNIQUE,
  account_id     bigint NOT NULL UNIQUE,
  currency       text NOT NULL,
  country        text,
  blocked        boolean NOT NULL DEFAULT false,
  blocked_reason text,
  created_at     bigint NOT NULL
);

CREATE TABLE sessions (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid           uuid NOT NULL UNIQUE,
  player_pk      bigint NOT NULL,
  game           text NOT NULL,
  created_at     bigint NOT NULL,
  last_active_at bigint NOT NULL
) WITH (fillfactor = 70);

CREATE TABLE launch_keys (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key         text NOT NULL UNIQUE,
  player_pk   bigint NOT NULL,
  game        text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  session_pk  bigint
);

CREATE TABLE rounds (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid        uuid NOT NULL UNIQUE,
  player_pk   bigint NOT NULL,
  game        text NOT NULL,
  finished    boolean NOT NULL DEFAULT false,
  created_at  bigint NOT NULL,
  finished_at bigint
);
CREATE INDEX rounds_by_player ON rounds (player_pk, id);

CREATE TABLE transfers (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid              uuid NOT NULL UNIQUE,
  kind              text NOT NULL CHECK (kind IN ('bet', 'win', 'payout', 'deposit', 'withdrawal')),
  player_pk         bigint NOT NULL,
  debit_account_id  bigint NOT NULL,
  credit_account_id bigint NOT NULL,
  amount            bigint NOT NULL CHECK (amount >= 0),
  jp_amount         bigint NOT NULL DEFAULT 0 CHECK (jp_amount >= 0 AND jp_amount <= amount),
  free_bet          boolean NOT NULL DEFAULT false,
  round_pk          bigint,
  campaign_uuid     uuid,
  regulatory        text,
  note              text,
  created_at        bigint NOT NULL,
  CHECK (debit_account_id <> credit_account_id)
);
CREATE INDEX transfers_by_player ON transfers (player_pk, id);

CREATE TABLE campaign_closures (
  campaign_uuid uuid NOT NULL,
  player_pk     bigint NOT NULL,
  closed_at     bigint NOT NULL,
  PRIMARY KEY (campaign_uuid, player_pk)
);

-- The id of an operator account, created on first use. Never locks an
-- existing row: a concurrent creator is waited for by ON CONFLICT, then read.
CREATE FUNCTION wl_account_id(p_kind text, p_ref text, p_currency text, p_now bigint) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
  v_id bigint;
BEGIN
  SELECT id INTO v_id FROM accounts WHERE kind = p_kind AND ref = p_ref AND currency = p_currency;
  IF FOUND THEN
    RETURN v_id;
  END IF;
  INSERT INTO accounts (kind, ref, currency, balance, created_at) VALUES (p_kind, p_ref, p_currency, NULL, p_now)
    ON CONFLICT (kind, ref, currency) DO NOTHING RETURNING id INTO v_id;
  IF v_id IS NULL THEN
    SELECT id INTO v_id FROM accounts WHERE kind = p_kind AND ref = p_ref AND currency = p_currency;
  END IF;
  RETURN v_id;
END
$fn$;

-- /transaction (PROTOCOL.md §6) in one statement. Lock order: the player's
-- wallet row first, always; every other row it writes belongs to that player
-- or is inserted (and claimed through a unique index), never updated.
--
-- p_currency is the currency the caller converted p_amounts into. When it is
-- NULL or not the player's, nothing is decided or locked: o_outcome is NULL
-- and the snapshot says the currency, so that the caller can convert and call
-- again. Otherwise o_outcome is 'OK' or the code of the refusal, and the
-- o_* columns hold the snapshot the decision was taken on.
--
-- An id claimed by a concurrent request of another player between our read
-- and our insert raises serialization_failure: nothing of this call remains,
-- and the caller retries it (a bounded number of times), then reads that
-- request's row as a seen id.
CREATE FUNCTION wl_transact(
  p_session uuid, p_player_id text, p_game text, p_round uuid, p_round_finished boolean,
  p_campaign uuid, p_free_bets boolean, p_close_campaign boolean, p_regulatory text,
  p_ids uuid[], p_kinds text[], p_amounts bigint[], p_jp_amounts bigint[],
  p_currency text, p_now bigint, p_session_idle_ms bigint, p_touch_interval_ms bigint,
  OUT o_outcome text, OUT o_balance bigint, OUT o_booked integer,
  OUT o_player_id text, OUT o_session_game text, OUT o_last_active_at bigint,
  OUT o_currency text, OUT o_balance_before bigint, OUT o_blocked boolean,
  OUT o_seen jsonb,
  OUT o_round_player_id text, OUT o_round_game text, OUT o_round_finished boolean,
  OUT o_campaign_finished boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_session_pk bigint;
  v_player_pk bigint;
  v_account_id bigint;
  v_seen boolean[] := '{}';
  v_seen_kind text;
  v_seen_player text;
  v_seen_round uuid;
  v_seen_campaign uuid;
  v_seen_amount bigint;
  v_seen_jp_amount bigint;
  v_round_pk bigint;
  v_game_account bigint;
  v_campaign_account bigint;
  v_count integer := cardinality(p_ids);
  v_fresh integer := 0;
  v_has_bet boolean := false;
  v_active boolean;
  v_running bigint;
  v_stored bigint;
  v_free boolean;
  i integer;
BEGIN
  IF p_currency IS NULL THEN
    SELECT s.id, s.player_pk, s.game, s.last_active_at, p.player_id, p.currency, p.blocked, a.id, a.balance
      INTO v_session_pk, v_player_pk, o_session_game, o_last_active_at, o_player_id, o_currency, o_blocked, v_account_id, o_balance_before
      FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id
      WHERE s.uuid = p_session;
  ELSE
    -- The wallet row's lock serialises every write of this player. After a
    -- wait for it, the balance read is the one its holder committed.
    SELECT s.id, s.player_pk, s.game, s.last_active_at, p.player_id, p.currency, p.blocked, a.id, a.balance
      INTO v_session_pk, v_player_pk, o_session_game, o_last_active_at, o_player_id, o_currency, o_blocked, v_account_id, o_balance_before
      FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id
      WHERE s.uuid = p_session
      FOR UPDATE OF a;
  END IF;
  IF NOT FOUND THEN
    o_outcome := 'SESSION_NOT_FOUND';
    RETURN;
  END IF;
  IF p_player_id <> o_player_id OR p_game <> o_session_game THEN
    o_outcome := 'SESSION_MISMATCH';
    RETURN;
  END IF;
  IF p_currency IS DISTINCT FROM o_currency THEN
    RETURN;
  END IF;

  -- The rest of the snapshot, read after the lock, and idempotency (§6.4):
  -- a seen id with other content fails the whole request. The ids seen
  -- before go back as JSON, [index, kind, player, round, campaign, amount,
  -- jpAmount] with int8 as text, up to the first conflict; NULL when none
  -- was seen, as on a fresh bet. One index probe per id: a request holds
  -- one or a few, and a cached plan for one row is the cheapest there is.
  FOR i IN 1 .. v_count LOOP
    SELECT t.kind, tp.player_id, tr.uuid, t.campaign_uuid, t.amount, t.jp_amount
      INTO v_seen_kind, v_seen_player, v_seen_round, v_seen_campaign, v_seen_amount, v_seen_jp_amount
      FROM transfers t JOIN players tp ON tp.id = t.player_pk LEFT JOIN rounds tr ON tr.id = t.round_pk
      WHERE t.uuid = p_ids[i];
    IF NOT FOUND THEN
      v_fresh := v_fresh + 1;
      v_has_bet := v_has_bet OR p_kinds[i] = 'bet';
      CONTINUE;
    END IF;
    v_seen[i] := true;
    o_seen := COALESCE(o_seen, '[]'::jsonb) || jsonb_build_array(jsonb_build_array(
      i, v_seen_kind, v_seen_player, v_seen_round, v_seen_campaign, v_seen_amount::text, v_seen_jp_amount::text));
    IF v_seen_kind <> p_kinds[i] OR v_seen_player <> p_player_id OR v_seen_round IS DISTINCT FROM p_round
       OR v_seen_amount <> p_amounts[i] OR v_seen_jp_amount <> p_jp_amounts[i] THEN
      o_outcome := 'DUPLICATE_CONFLICT';
      RETURN;
    END IF;
  END LOOP;
  IF v_fresh = 0 THEN
    o_outcome := 'OK';
    o_balance := o_balance_before;
    o_booked := 0;
    RETURN;
  END IF;
  SELECT r.id, rp.player_id, r.game, r.finished INTO v_round_pk, o_round_player_id, o_round_game, o_round_finished
    FROM rounds r JOIN players rp ON rp.id = r.player_pk WHERE r.uuid = p_round;
  o_campaign_finished := p_campaign IS NOT NULL
    AND EXISTS (SELECT 1 FROM campaign_closures WHERE campaign_uuid = p_campaign AND player_pk = v_player_pk);

  -- Rounds (§6.5).
  IF o_round_player_id IS NOT NULL AND (o_round_player_id <> p_player_id OR o_round_game <> p_game) THEN
    o_outcome := 'ROUND_MISMATCH';
    RETURN;
  END IF;
  IF o_round_finished THEN
    o_outcome := 'ROUND_CLOSED';
    RETURN;
  END IF;

  v_active := p_now - o_last_active_at < p_session_idle_ms;
  IF v_has_bet THEN
    IF NOT v_active THEN
      o_outcome := 'SESSION_EXPIRED';
      RETURN;
    END IF;
    IF o_blocked THEN
      o_outcome := 'PLAYER_BLOCKED';
      RETURN;
    END IF;
    IF p_free_bets AND o_campaign_finished THEN
      o_outcome := 'CAMPAIGN_FINISHED';
      RETURN;
    END IF;
  END IF;

  -- In order, against the running balance (§6.3).
  v_running := o_balance_before;
  FOR i IN 1 .. v_count LOOP
    CONTINUE WHEN v_seen[i];
    IF p_kinds[i] = 'bet' AND NOT p_free_bets THEN
      IF p_amounts[i] > v_running THEN
        o_outcome := 'INSUFFICIENT_FUNDS';
        RETURN;
      END IF;
      v_running := v_running - p_amounts[i];
    ELSIF p_kinds[i] = 'win' THEN
      IF p_amounts[i] > 9223372036854775807 - v_running THEN
        o_outcome := 'INVALID_REQUEST';
        RETURN;
      END IF;
      v_running := v_running + p_amounts[i];
    END IF;
  END LOOP;

  -- Writes. The round id and each transaction id are claimed through their unique index.
  IF v_round_pk IS NULL THEN
    INSERT INTO rounds (uuid, player_pk, game, finished, created_at, finished_at)
      VALUES (p_round, v_player_pk, p_game, p_round_finished, p_now, CASE WHEN p_round_finished THEN p_now END)
      ON CONFLICT (uuid) DO NOTHING RETURNING id INTO v_round_pk;
    IF v_round_pk IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = 'round ' || p_round || ' was claimed by a concurrent request';
    END IF;
  ELSIF p_round_finished THEN
    UPDATE rounds SET finished = true, finished_at = p_now WHERE id = v_round_pk AND NOT finished;
  END IF;
  v_game_account := wl_account_id('game', p_game, o_currency, p_now);
  FOR i IN 1 .. v_count LOOP
    CONTINUE WHEN v_seen[i];
    v_free := p_kinds[i] = 'bet' AND p_free_bets;
    IF v_free AND v_campaign_account IS NULL THEN
      v_campaign_account := wl_account_id('campaign', COALESCE(p_campaign::text, 'unnamed'), o_currency, p_now);
    END IF;
    INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount, jp_amount, free_bet,
                           round_pk, campaign_uuid, regulatory, created_at)
      VALUES (p_ids[i], p_kinds[i], v_player_pk,
              CASE WHEN p_kinds[i] = 'win' THEN v_game_account WHEN v_free THEN v_campaign_account ELSE v_account_id END,
              CASE WHEN p_kinds[i] = 'win' THEN v_account_id ELSE v_game_account END,
              p_amounts[i], p_jp_amounts[i], v_free, v_round_pk, p_campaign, p_regulatory, p_now)
      ON CONFLICT (uuid) DO NOTHING;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = 'transaction ' || p_ids[i] || ' was claimed by a concurrent request';
    END IF;
  END LOOP;
  IF v_running <> o_balance_before THEN
    UPDATE accounts SET balance = balance + (v_running - o_balance_before) WHERE id = v_account_id RETURNING balance INTO v_stored;
    IF v_stored IS DISTINCT FROM v_running THEN
      RAISE EXCEPTION 'the stored balance % differs from the planned %', v_stored, v_running USING ERRCODE = 'internal_error';
    END IF;
  END IF;
  IF p_close_campaign THEN
    INSERT INTO campaign_closures (campaign_uuid, player_pk, closed_at) VALUES (p_campaign, v_player_pk, p_now)
      ON CONFLICT DO NOTHING;
  END IF;
  -- Activity is recorded at most every p_touch_interval_ms, and never moved back by a node whose clock is behind.
  IF v_active AND p_now - o_last_active_at >= p_touch_interval_ms THEN
    UPDATE sessions SET last_active_at = p_now WHERE id = v_session_pk AND last_active_at < p_now;
  END IF;
  o_outcome := 'OK';
  o_balance := v_running;
  o_booked := v_fresh;
END
$fn$;

-- /payout (PROTOCOL.md §7) in one statement, on the same terms as wl_transact.
CREATE FUNCTION wl_payout(
  p_session uuid, p_payout uuid, p_amount bigint, p_campaign uuid, p_currency text, p_now bigint,
  OUT o_outcome text, OUT o_balance bigint, OUT o_booked integer,
  OUT o_player_id text, OUT o_session_game text, OUT o_last_active_at bigint,
  OUT o_currency text, OUT o_balance_before bigint, OUT o_blocked boolean,
  OUT o_seen jsonb)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_player_pk bigint;
  v_account_id bigint;
  v_tournament_account bigint;
  v_stored bigint;
  v_seen_kind text;
  v_seen_player text;
  v_seen_round uuid;
  v_seen_campaign uuid;
  v_seen_amount bigint;
  v_seen_jp_amount bigint;
BEGIN
  IF p_currency IS NULL THEN
    SELECT s.player_pk, s.game, s.last_active_at, p.player_id, p.currency, p.blocked, a.id, a.balance
      INTO v_player_pk, o_session_game, o_last_active_at, o_player_id, o_currency, o_blocked, v_account_id, o_balance_before
      FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id
      WHERE s.uuid = p_session;
  ELSE
    SELECT s.player_pk, s.game, s.last_active_at, p.player_id, p.currency, p.blocked, a.id, a.balance
      INTO v_player_pk, o_session_game, o_last_active_at, o_player_id, o_currency, o_blocked, v_account_id, o_balance_before
      FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id
      WHERE s.uuid = p_session
      FOR UPDATE OF a;
  END IF;
  IF NOT FOUND THEN
    o_outcome := 'SESSION_NOT_FOUND';
    RETURN;
  END IF;
  IF p_currency IS DISTINCT FROM o_currency THEN
    RETURN;
  END IF;

  SELECT t.kind, tp.player_id, tr.uuid, t.campaign_uuid, t.amount, t.jp_amount
    INTO v_seen_kind, v_seen_player, v_seen_round, v_seen_campaign, v_seen_amount, v_seen_jp_amount
    FROM transfers t JOIN players tp ON tp.id = t.player_pk LEFT JOIN rounds tr ON tr.id = t.round_pk
    WHERE t.uuid = p_payout;
  IF FOUND THEN
    o_seen := jsonb_build_array(jsonb_build_array(
      1, v_seen_kind, v_seen_player, v_seen_round, v_seen_campaign, v_seen_amount::text, v_seen_jp_amount::text));
    IF v_seen_kind <> 'payout' OR v_seen_player <> o_player_id OR v_seen_amount <> p_amount
       OR v_seen_campaign IS DISTINCT FROM p_campaign THEN
      o_outcome := 'DUPLICATE_CONFLICT';
      RETURN;
    END IF;
    o_outcome := 'OK';
    o_balance := o_balance_before;
    o_booked := 0;
    RETURN;
  END IF;
  IF p_amount > 9223372036854775807 - o_balance_before THEN
    o_outcome := 'INVALID_REQUEST';
    RETURN;
  END IF;

  v_tournament_account := wl_account_id('tournament', p_campaign::text, o_currency, p_now);
  INSERT INTO transfers (uuid, kind, player_pk, debit_account_id, credit_account_id, amount, campaign_uuid, created_at)
    VALUES (p_payout, 'payout', v_player_pk, v_tournament_account, v_account_id, p_amount, p_campaign, p_now)
    ON CONFLICT (uuid) DO NOTHING;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = 'payout ' || p_payout || ' was claimed by a concurrent request';
  END IF;
  UPDATE accounts SET balance = balance + p_amount WHERE id = v_account_id RETURNING balance INTO v_stored;
  IF v_stored IS DISTINCT FROM o_balance_before + p_amount THEN
    RAISE EXCEPTION 'the stored balance % differs from the planned %', v_stored, o_balance_before + p_amount USING ERRCODE = 'internal_error';
  END IF;
  o_outcome := 'OK';
  o_balance := v_stored;
  o_booked := 1;
END
$fn$;

-- Group commit: the /transaction and /payout calls that a node queued while
-- its connections were busy, in one statement, one database transaction and
-- one WAL flush. p_calls is a JSON array of calls, each
--   {"k":"t", "session", "player", "game", "round", "roundFinished", "campaign", "freeBets",
--    "closeCampaign", "regulatory", "ids", "kinds", "amounts", "jpAmounts", "currency", "now"}
-- or {"k":"p", "session", "payout", "amount", "campaign", "currency", "now"},
-- int8 as text. One row per call, in order, with wl_transact's columns.
--
-- Lock order: first the wallet rows of every call that may write, in
-- ascending id, all at once; then the calls in order, each re-locking a row
-- it already holds. Two batches (of this node or another) therefore never
-- wait on each other in a cycle. Calls of one player keep their order and see
-- each other's writes, as if sent one after another.
CREATE FUNCTION wl_batch(p_calls jsonb, p_session_idle_ms bigint, p_touch_interval_ms bigint)
RETURNS TABLE (
  o_index integer, o_outcome text, o_balance bigint, o_booked integer,
  o_player_id text, o_session_game text, o_last_active_at bigint,
  o_currency text, o_balance_before bigint, o_blocked boolean, o_seen jsonb,
  o_round_player_id text, o_round_game text, o_round_finished boolean, o_campaign_finished boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  c jsonb;
  r record;
BEGIN
  PERFORM 1 FROM accounts a
    WHERE a.id IN (SELECT p.account_id FROM jsonb_array_elements(p_calls) AS call(c)
                   JOIN sessions s ON s.uuid = (call.c->>'session')::uuid JOIN players p ON p.id = s.player_pk
                   WHERE call.c->>'currency' IS NOT NULL)
    ORDER BY a.id
    FOR UPDATE OF a;
  o_index := 0;
  FOR c IN SELECT value FROM jsonb_array_elements(p_calls) LOOP
    o_index := o_index + 1;
    IF c->>'k' = 't' THEN
      SELECT * INTO r FROM wl_transact(
        (c->>'session')::uuid, c->>'player', c->>'game', (c->>'round')::uuid, (c->>'roundFinished')::boolean,
        (c->>'campaign')::uuid, (c->>'freeBets')::boolean, (c->>'closeCampaign')::boolean, c->>'regulatory',
        ARRAY(SELECT jsonb_array_elements_text(c->'ids'))::uuid[], ARRAY(SELECT jsonb_array_elements_text(c->'kinds')),
        ARRAY(SELECT jsonb_array_elements_text(c->'amounts'))::bigint[],
        ARRAY(SELECT jsonb_array_elements_text(c->'jpAmounts'))::bigint[],
        c->>'currency', (c->>'now')::bigint, p_session_idle_ms, p_touch_interval_ms);
      o_round_player_id := r.o_round_player_id;
      o_round_game := r.o_round_game;
      o_round_finished := r.o_round_finished;
      o_campaign_finished := r.o_campaign_finished;
    ELSE
      SELECT * INTO r FROM wl_payout(
        (c->>'session')::uuid, (c->>'payout')::uuid, (c->>'amount')::bigint, (c->>'campaign')::uuid,
        c->>'currency', (c->>'now')::bigint);
      o_round_player_id := NULL;
      o_round_game := NULL;
      o_round_finished := NULL;
      o_campaign_finished := NULL;
    END IF;
    o_outcome := r.o_outcome;
    o_balance := r.o_balance;
    o_booked := r.o_booked;
    o_player_id := r.o_player_id;
    o_session_game := r.o_session_game;
    o_last_active_at := r.o_last_active_at;
    o_currency := r.o_currency;
    o_balance_before := r.o_balance_before;
    o_blocked := r.o_blocked;
    o_seen := r.o_seen;
    RETURN NEXT;
  END LOOP;
END
$fn$;
`,
  },
];

/** Any key works as long as every node uses the same one; the schema is the second key. */
const MIGRATION_LOCK_KEY = 0x776c6d67; // 'wlmg'

/**
 * Applies the migrations not yet applied, all in one database transaction,
 * under an advisory lock: nodes that start together wait for the first one
 * and then find nothing left to do. DDL is transactional in PostgreSQL, so a
 * failed migration leaves nothing behind. Returns the versions applied.
 */
export async function migrate(sql: postgres.Sql): Promise<number[]> {
  return sql.begin(async (dbTx) => {
    // A migration may rewrite a large table: it is not held to the request time-out.
    await dbTx`SET LOCAL statement_timeout = 0`;
    await dbTx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}, hashtext(current_schema()))`;
    await dbTx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
    const rows = await dbTx<{ version: number }[]>`SELECT version FROM schema_migrations`;
    const applied = new Set(rows.map((row) => row.version));
    const done: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await dbTx.unsafe(migration.sql);
      await dbTx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${migration.version}, ${migration.name}, ${Date.now()})`;
      done.push(migration.version);
    }
    return done;
  });
}
