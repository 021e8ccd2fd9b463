/**
 * Tournament payouts on PostgreSQL: a payout written with its /payout
 * request's outbox item, idempotent by payout id under an advisory lock on
 * it, in the session it is paid into; read and listed with the item's
 * attempts; finished by the item's final outcome (`finishPayout`, the
 * outbox's hook).
 */
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import type { AuditEntry } from '../../../access/staff.js';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { PostgresOutbox } from '../../../dispatch/postgres/outbox.js';
import { PAYOUT_REQUEST, payoutRequest } from '../../../rounds/bodies.js';
import { payoutOutcomeOf } from '../../../rounds/outcomes.js';
import { samePayout } from '../../../rounds/sameness.js';
import { insertAudit } from '../../../staff/postgres-staff.js';
import type { NewPayout, PayoutRow, PayoutStatus, PayoutWrite, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { inScope, int, payoutOf, sessionOf, type Querier } from './rows.js';

/** Payouts as read, followed by the caller's WHERE: with their outbox item's attempts. */
function payoutsSelect(db: Querier) {
  return db`SELECT p.*, d.attempts AS item_attempts FROM payouts p JOIN dispatch_items d ON d.id = p.dispatch_item_id`;
}

async function payoutIn(db: Querier, payoutId: string): Promise<PayoutRow | undefined> {
  const [row] = await db<Row[]>`${payoutsSelect(db)} WHERE p.payout_id = ${payoutId}`;
  return row && payoutOf(row);
}

export class Payouts {
  constructor(private readonly database: ProviderDatabase) {}

  createPayout(asked: NewPayout, audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<PayoutWrite> {
    return this.database.transaction(async (dbTx): Promise<PayoutWrite> => {
      // Creates of one payout id, on any node, one at a time: the later reads the earlier's committed row after the lock.
      await dbTx`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('payout:' || ${asked.payoutId}::text))`;
      const found = await payoutIn(dbTx, asked.payoutId);
      if (found) {
        const same = samePayout(found, asked);
        if (same && audit) await insertAudit(dbTx, audit('exists'));
        return { ok: true, kind: same ? 'exists' : 'conflict', payout: found };
      }
      const [sessionRow] = await dbTx<Row[]>`
        SELECT * FROM game_sessions
        WHERE mode = 'real' AND operator_id = ${asked.operatorId} AND player_id = ${asked.playerId} AND operator_session_id IS NOT NULL
        ORDER BY last_active_at DESC, id DESC LIMIT 1`;
      const request = payoutRequest(asked, sessionRow && sessionOf(sessionRow), this.database.currencies);
      if (!request.ok) return request;
      const item = await PostgresOutbox.enqueue(
        dbTx,
        { operatorId: asked.operatorId, orderingKey: asked.payoutId, ...PAYOUT_REQUEST, body: request.body },
        asked.createdAt,
      );
      await dbTx`
        INSERT INTO payouts (payout_id, operator_id, player_id, currency, amount, campaign_id, operator_session_id, dispatch_item_id, status, created_at)
        VALUES (${asked.payoutId}, ${asked.operatorId}, ${asked.playerId}, ${asked.currency}, ${asked.amountMinor.toString()}, ${asked.campaignId},
          ${request.operatorSessionId}, ${item.id}, 'pending', ${asked.createdAt})`;
      const payout = await payoutIn(dbTx, asked.payoutId);
      assert.ok(payout, 'the payout exists after its insert');
      // On the payout's transaction: the payout and its audit row commit together.
      if (audit) await insertAudit(dbTx, audit('created'));
      return { ok: true, kind: 'created', payout };
    });
  }

  async payout(payoutId: string): Promise<PayoutRow | undefined> {
    return this.database.read(payoutIn(this.database.sql, payoutId));
  }

  async listPayouts(
    limit: number,
    options: { status?: PayoutStatus; before?: number; operators?: readonly string[] | null } = {},
  ): Promise<{ payouts: PayoutRow[]; cursors: number[] }> {
    const { sql } = this.database;
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const scope = inScope(sql, 'p', options.operators ?? null);
    const rows = await this.database.read(
      options.status === undefined
        ? sql<Row[]>`${payoutsSelect(sql)} WHERE p.id < ${before} AND ${scope} ORDER BY p.id DESC LIMIT ${limit}`
        : sql<Row[]>`${payoutsSelect(sql)} WHERE p.status = ${options.status} AND p.id < ${before} AND ${scope} ORDER BY p.id DESC LIMIT ${limit}`,
    );
    return { payouts: rows.map(payoutOf), cursors: rows.map((row) => int(row.id)) };
  }

  /**
   * The outbox's hook for a payout's request: its outcome pays or refuses
   * it, in the outcome's database transaction. Only this hook finishes a
   * payout, and that transaction holds its item's row: no one else writes
   * it meanwhile.
   */
  async finishPayout(dbTx: postgres.TransactionSql, event: FinalEvent): Promise<void> {
    const { item } = event;
    const [found] = await dbTx<Row[]>`SELECT id, currency, status FROM payouts WHERE dispatch_item_id = ${item.id}`;
    if (found === undefined || found.status !== 'pending') return;
    const at = item.finishedAt ?? item.createdAt;
    const outcome = payoutOutcomeOf(event, found.currency as string, this.database.currencies);
    const [code, detail] = outcome.status === 'paid' ? [null, null] : [outcome.code, outcome.detail];
    await dbTx`UPDATE payouts SET status = ${outcome.status}, balance_after = ${outcome.balanceAfterMinor?.toString() ?? null},
      refusal_code = ${code}, refusal_detail = ${detail}, settled_at = ${at} WHERE id = ${found.id as string} AND status = 'pending'`;
  }
}
