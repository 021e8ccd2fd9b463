/**
 * What `verify` reads of the provider's records, written once for both
 * backends as reels-migration.ts writes its tables once: the queries, and
 * their rows read into the facts src/rounds/books.ts judges. Each backend's
 * verify-rounds.ts only opens one snapshot and runs the queries this asks
 * for (`readBooks`, a generator: it yields a query, is given its rows).
 *
 * Nothing is loaded whole: rounds, outbox items, payouts and players' uses
 * of campaigns are read in pages of VERIFY_PAGE_ROWS by their key, each
 * page handed to the judge and dropped, and the jackpot pools' sums are
 * added up by the database (one row per pool: per operator, game and
 * currency of the config). The rules stay in the judge; the SQL only joins
 * and counts.
 */
import type { CallState, ItemFacts, ItemState, RoundBooks } from '../../rounds/books.js';
import type { Row } from './provider-store.js';

/**
 * Rows per page: a page of items holds their bodies (a reels feature's call
 * is up to 100 transactions, a few KiB), so a page stays within a few MiB,
 * and a page is one short query, however large the store.
 */
const VERIFY_PAGE_ROWS = 500;

/** How a backend's SQL differs here: a body's bytes as text, and the n-th parameter. */
export interface VerifyDialect {
  text(column: string): string;
  param(n: number): string;
}

/** A query to run on the snapshot, with its parameters in order. */
export interface VerifyQuery {
  sql: string;
  params: unknown[];
}

const int = (value: unknown): number => {
  const number = Number(value as number | bigint | string);
  if (!Number.isSafeInteger(number)) throw new Error(`verify read ${String(value)} where an integer was expected`);
  return number;
};
const intOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : int(value));
// SQLite gives bigints, PostgreSQL int8 and numeric sums as text: both exact.
const money = (value: unknown): bigint => BigInt(value as bigint | string | number);
const moneyOrNull = (value: unknown): bigint | null => (value === null || value === undefined ? null : money(value));
const flag = (value: unknown): boolean => value === true || value === 1 || value === 1n;
const flagOrNull = (value: unknown): boolean | null => (value === null || value === undefined ? null : flag(value));
const text = (value: unknown): string => value as string;
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : (value as string));

/** The columns of a round a request is built from, under `alias`, prefixed `prefix_`. */
function causeColumns(alias: string, prefix: string): string {
  return ['round_id', 'operator_id', 'player_id', 'game', 'currency', 'bet', 'win', 'bet_tx_id', 'win_tx_id', 'campaign_id', 'campaign_finished']
    .concat(['request_body', 'base_win', 'feature_win', 'jackpot_contribution', 'jackpot_win', 'free_spins'])
    .map((column) => `${alias}.${column} AS ${prefix}_${column}`)
    .join(', ');
}

function queries(dialect: VerifyDialect) {
  const { param } = dialect;
  // Each by the round's calls (round_pk), never by the index of dispatch_item_id: `+` keeps both planners off it. Its NULLs
  // are every call still waiting (an operator that does not answer leaves thousands), and SQLite, or PostgreSQL before
  // its statistics, would read them all for each round: a verify of 100,000 rounds with 50,000 waiting took 20 minutes.
  const calls = (where: string) => `(SELECT COUNT(*) FROM round_calls c WHERE c.round_pk = r.id${where})`;
  return {
    rounds: `SELECT COUNT(*) AS n FROM rounds`,
    realRounds: `SELECT r.id, r.round_id, r.kind, r.status, r.request_body IS NOT NULL AS own_body, r.dispatch_item_id, d.status AS item_status,
        r.calls, r.calls_done, ${calls('')} AS call_rows, ${calls(" AND c.status IN ('accepted', 'refused')")} AS final_calls,
        (SELECT c.status FROM round_calls c WHERE c.round_pk = r.id AND c.call_index = 1) AS first_call,
        ${calls(' AND c.request_body IS NULL AND +c.dispatch_item_id IS NULL')} AS bodiless
      FROM rounds r LEFT JOIN dispatch_items d ON d.id = r.dispatch_item_id
      WHERE r.mode = 'real' AND r.id > ${param(1)} ORDER BY r.id LIMIT ${param(2)}`,
    // A reels round names its bet's item too: its calls are what refer to their items.
    items: `SELECT d.id, d.operator_id, d.ordering_key, d.kind, d.path, d.status, ${dialect.text('d.body')} AS body,
        (SELECT COUNT(*) FROM rounds x WHERE x.dispatch_item_id = d.id AND x.kind = 'dice')
          + (SELECT COUNT(*) FROM round_calls x WHERE x.dispatch_item_id = d.id)
          + (SELECT COUNT(*) FROM payouts x WHERE x.dispatch_item_id = d.id) AS referrers,
        ${causeColumns('r', 'r')}, c.call_index AS c_index, c.status AS c_status, ${causeColumns('cr', 'cr')},
        p.payout_id AS p_payout_id, p.operator_id AS p_operator_id, p.player_id AS p_player_id, p.currency AS p_currency, p.amount AS p_amount,
        p.campaign_id AS p_campaign_id, p.operator_session_id AS p_operator_session_id, p.status AS p_status
      FROM dispatch_items d
        LEFT JOIN rounds r ON r.dispatch_item_id = d.id AND r.kind = 'dice'
        LEFT JOIN round_calls c ON c.dispatch_item_id = d.id
        LEFT JOIN rounds cr ON cr.id = c.round_pk
        LEFT JOIN payouts p ON p.dispatch_item_id = d.id
      WHERE d.id > ${param(1)} ORDER BY d.id LIMIT ${param(2)}`,
    payouts: `SELECT p.id, p.payout_id, p.amount, (SELECT COUNT(*) FROM payouts q WHERE q.payout_id = p.payout_id) AS same_id, d.id AS item_id
      FROM payouts p LEFT JOIN dispatch_items d ON d.id = p.dispatch_item_id
      WHERE p.id > ${param(1)} ORDER BY p.id LIMIT ${param(2)}`,
    // The pool a real reels round moves was made at the seed of the first; each later round adds its contribution, and a
    // hit takes the pool and leaves its own seed: what it took is its jackpot win less that seed. A refused round gave both back.
    // Materialised: the rounds are summed once, for the pools of both halves (SQLite would run the sums again per pool).
    pools: `WITH g AS MATERIALIZED (
        SELECT operator_id, game, currency, COUNT(*) AS rounds, MIN(id) AS first_pk,
          SUM(CASE WHEN status <> 'refused' THEN jackpot_contribution ELSE 0 END) AS contributions,
          SUM(CASE WHEN status <> 'refused' AND jackpot_win IS NOT NULL THEN jackpot_win - jackpot_seed ELSE 0 END) AS hits
        FROM rounds WHERE kind = 'reels' AND mode = 'real' GROUP BY operator_id, game, currency)
      SELECT g.operator_id, g.game, g.currency, p.amount, g.rounds, f.jackpot_seed AS seed, g.contributions, g.hits
      FROM g JOIN rounds f ON f.id = g.first_pk
        LEFT JOIN jackpot_pools p ON p.operator_id = g.operator_id AND p.game = g.game AND p.currency = g.currency
      UNION ALL
      SELECT p.operator_id, p.game, p.currency, p.amount, 0, NULL, 0, 0 FROM jackpot_pools p
      WHERE NOT EXISTS (SELECT 1 FROM g WHERE g.operator_id = p.operator_id AND g.game = p.game AND g.currency = p.currency)`,
    // Read by the campaign index (rounds_by_campaign) from the last key on: a page is the next groups, not the whole table again.
    campaignUses: `SELECT u.campaign_id, u.operator_id, u.player_id, u.used, c.rounds
      FROM (SELECT campaign_id, operator_id, player_id, COUNT(*) AS used FROM rounds
            WHERE campaign_id IS NOT NULL AND status <> 'refused' AND (campaign_id, operator_id, player_id) > (${param(1)}, ${param(2)}, ${param(3)})
            GROUP BY campaign_id, operator_id, player_id ORDER BY campaign_id, operator_id, player_id LIMIT ${param(4)}) u
        LEFT JOIN campaigns c ON c.campaign_id = u.campaign_id
      ORDER BY u.campaign_id, u.operator_id, u.player_id`,
  };
}

/**
 * Reads everything `verify` judges, query by query, into `books`: the
 * caller runs each query yielded on its one snapshot and passes the rows
 * back. The keys start below every stored one (ids from 1, text keys
 * above the empty string).
 */
export function* readBooks(dialect: VerifyDialect, books: RoundBooks): Generator<VerifyQuery, void, Row[]> {
  const sql = queries(dialect);
  books.countRounds(int((yield { sql: sql.rounds, params: [] })[0]!.n));
  for (const [query, feed] of [
    [sql.realRounds, (row: Row) => books.round(realRoundOf(row))],
    [sql.items, (row: Row) => books.item(itemOf(row))],
    [sql.payouts, (row: Row) => books.payout(payoutOf(row))],
  ] as const) {
    for (let after = 0; ;) {
      const rows = yield { sql: query, params: [after, VERIFY_PAGE_ROWS] };
      rows.forEach(feed);
      if (rows.length < VERIFY_PAGE_ROWS) break;
      after = int(rows.at(-1)!.id);
    }
  }
  for (const row of yield { sql: sql.pools, params: [] }) books.pool(poolOf(row));
  for (let after = ['', '', '']; ;) {
    const rows = yield { sql: sql.campaignUses, params: [...after, VERIFY_PAGE_ROWS] };
    for (const row of rows) {
      books.campaignUse({
        campaignId: text(row.campaign_id),
        operatorId: text(row.operator_id),
        playerId: text(row.player_id),
        used: int(row.used),
        rounds: intOrNull(row.rounds),
      });
    }
    if (rows.length < VERIFY_PAGE_ROWS) break;
    const last = rows.at(-1)!;
    after = [text(last.campaign_id), text(last.operator_id), text(last.player_id)];
  }
}

function realRoundOf(row: Row): Parameters<RoundBooks['round']>[0] {
  const reels = row.kind === 'reels';
  return {
    roundId: text(row.round_id),
    kind: reels ? 'reels' : 'dice',
    status: row.status as 'pending' | 'settled' | 'refused',
    ownBody: flag(row.own_body),
    itemId: intOrNull(row.dispatch_item_id),
    itemStatus: textOrNull(row.item_status) as ItemState | null,
    reels: reels
      ? {
          calls: int(row.calls),
          callsDone: int(row.calls_done),
          callRows: int(row.call_rows),
          finalCalls: int(row.final_calls),
          firstCall: textOrNull(row.first_call) as CallState | null,
          bodiless: int(row.bodiless),
        }
      : null,
  };
}

/** A round's columns under `prefix` as the part of a request's cause every request shares. */
function causeOf(row: Row, prefix: string) {
  const at = (column: string) => row[`${prefix}_${column}`];
  return {
    roundId: text(at('round_id')),
    operatorId: text(at('operator_id')),
    playerId: textOrNull(at('player_id')),
    game: text(at('game')),
    currency: text(at('currency')),
    betMinor: money(at('bet')),
    betTxId: textOrNull(at('bet_tx_id')),
    winTxId: textOrNull(at('win_tx_id')),
    campaignId: textOrNull(at('campaign_id')),
    campaignFinished: flagOrNull(at('campaign_finished')),
  };
}

function itemOf(row: Row): ItemFacts {
  const item = {
    itemId: int(row.id),
    operatorId: text(row.operator_id),
    orderingKey: text(row.ordering_key),
    kind: text(row.kind),
    path: text(row.path),
    status: row.status as ItemState,
    body: text(row.body),
    referrers: int(row.referrers),
  };
  if (row.r_round_id !== null && row.r_round_id !== undefined) {
    return { ...item, cause: { dice: { ...causeOf(row, 'r'), winMinor: money(row.r_win), ownBody: textOrNull(row.r_request_body) } } };
  }
  if (row.cr_round_id !== null && row.cr_round_id !== undefined) {
    const call = {
      ...causeOf(row, 'cr'),
      index: int(row.c_index),
      status: row.c_status as CallState,
      baseWinMinor: money(row.cr_base_win),
      featureWinMinor: money(row.cr_feature_win),
      jackpotContributionMinor: money(row.cr_jackpot_contribution),
      jackpotWinMinor: moneyOrNull(row.cr_jackpot_win),
      freeSpins: int(row.cr_free_spins),
    };
    return { ...item, cause: { call } };
  }
  if (row.p_payout_id !== null && row.p_payout_id !== undefined) {
    const payout = {
      payoutId: text(row.p_payout_id),
      operatorId: text(row.p_operator_id),
      playerId: text(row.p_player_id),
      currency: text(row.p_currency),
      amountMinor: money(row.p_amount),
      campaignId: text(row.p_campaign_id),
      operatorSessionId: text(row.p_operator_session_id),
      status: row.p_status as 'pending' | 'paid' | 'refused',
    };
    return { ...item, cause: { payout } };
  }
  return { ...item, cause: null };
}

function payoutOf(row: Row): Parameters<RoundBooks['payout']>[0] {
  return { payoutId: text(row.payout_id), amountMinor: money(row.amount), rows: int(row.same_id), itemFound: row.item_id !== null };
}

function poolOf(row: Row): Parameters<RoundBooks['pool']>[0] {
  return {
    operatorId: text(row.operator_id),
    game: text(row.game),
    currency: text(row.currency),
    amountMinor: moneyOrNull(row.amount),
    rounds: int(row.rounds),
    seedMinor: moneyOrNull(row.seed),
    contributionsMinor: money(row.contributions),
    hitsMinor: money(row.hits),
  };
}
