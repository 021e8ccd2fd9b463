/**
 * Rounds of several calls (the reels game): the round row carries the
 * reels part (provider-store.ts ReelsPart), its calls have a table, and the
 * jackpot pools one of their own. The same statements run on PostgreSQL,
 * with its types (postgres/migrations.ts).
 */
export function reelsMigrationSql(types: { int: string; money: string }): string {
  const { int, money } = types;
  return `
ALTER TABLE rounds ADD COLUMN kind text NOT NULL DEFAULT 'dice' CHECK (kind IN ('dice', 'reels'));
-- Reels: the rules it was played with (the seeds on the row recompute every spin), its amounts and its progress.
ALTER TABLE rounds ADD COLUMN reels_rtp_bp ${int};
ALTER TABLE rounds ADD COLUMN reels_jackpot_bp ${int};
ALTER TABLE rounds ADD COLUMN base_win ${money};
ALTER TABLE rounds ADD COLUMN feature_win ${money};
ALTER TABLE rounds ADD COLUMN jackpot_contribution ${money};
ALTER TABLE rounds ADD COLUMN jackpot_win ${money};
ALTER TABLE rounds ADD COLUMN jackpot_seed ${money};
ALTER TABLE rounds ADD COLUMN free_spins ${int};
ALTER TABLE rounds ADD COLUMN free_spins_played ${int};
ALTER TABLE rounds ADD COLUMN calls ${int};
ALTER TABLE rounds ADD COLUMN calls_done ${int};
ALTER TABLE rounds ADD COLUMN completed_at ${money};
-- The completion's sweep: unfinished features, oldest first.
CREATE INDEX rounds_unfinished_features ON rounds (created_at) WHERE kind = 'reels' AND status = 'pending';

-- A reels round's /transaction requests, each body fixed when the round is written; enqueued one after the other.
CREATE TABLE round_calls (
  round_pk          ${money} NOT NULL REFERENCES rounds (id),
  call_index        ${int} NOT NULL CHECK (call_index BETWEEN 1 AND 3),
  request_body      text NOT NULL,
  status            text NOT NULL CHECK (status IN ('waiting', 'pending', 'accepted', 'refused')),
  dispatch_item_id  ${money} UNIQUE REFERENCES dispatch_items (id),
  refusal_code      text,
  refusal_detail    text,
  balance_after     ${money},
  finished_at       ${money},
  PRIMARY KEY (round_pk, call_index)
);

-- One progressive pool per operator, game and currency, in minor units.
CREATE TABLE jackpot_pools (
  operator_id  text NOT NULL,
  game         text NOT NULL,
  currency     text NOT NULL,
  amount       ${money} NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (operator_id, game, currency)
);
`;
}
