/**
 * The tournament payouts' queries on PostgreSQL: a payout as read, with its
 * outbox item's attempts.
 */
import type { PayoutRow, Row } from '../provider-store.js';
import { payoutOf, type Querier } from './rows.js';

/** A payout as read, with its outbox item's attempts. */
export function payoutsSelect(db: Querier) {
  return db`SELECT p.*, d.attempts AS item_attempts FROM payouts p JOIN dispatch_items d ON d.id = p.dispatch_item_id`;
}

export async function payoutIn(db: Querier, payoutId: string): Promise<PayoutRow | undefined> {
  const [row] = await db<Row[]>`${payoutsSelect(db)} WHERE p.payout_id = ${payoutId}`;
  return row && payoutOf(row);
}
