/**
 * Tournament payouts on SQLite: a payout written with its /payout request's
 * outbox item, idempotent by payout id, in the session it is paid into;
 * read and listed with the item's attempts; finished by the item's final
 * outcome (`finishPayout`, the outbox's hook).
 */
import type { AuditEntry } from '../../../access/staff.js';
import type { FinalEvent } from '../../../dispatch/outbox.js';
import { PAYOUT_REQUEST, payoutRequest } from '../../../rounds/bodies.js';
import { payoutOutcomeOf } from '../../../rounds/outcomes.js';
import { samePayout } from '../../../rounds/sameness.js';
import type { NewPayout, PayoutRow, PayoutStatus, PayoutWrite, Row } from '../provider-store.js';
import type { ProviderDatabase } from './provider-database.js';
import { IN_SCOPE, num, payoutOf, scopeOf, sessionOf } from './rows.js';

export class Payouts {
  private readonly statements;

  constructor(private readonly database: ProviderDatabase) {
    const { db } = database;
    // A payout as read, with its outbox item's attempts.
    const payoutsWhere = (where: string) =>
      db.prepare(`SELECT p.*, d.attempts AS item_attempts FROM payouts p JOIN dispatch_items d ON d.id = p.dispatch_item_id ${where}`);
    this.statements = {
      latestRealSession: db.prepare(`SELECT * FROM game_sessions
        WHERE mode = 'real' AND operator_id = ? AND player_id = ? AND operator_session_id IS NOT NULL
        ORDER BY last_active_at DESC, id DESC LIMIT 1`),
      insertPayout: db.prepare(`INSERT INTO payouts
        (payout_id, operator_id, player_id, currency, amount, campaign_id, operator_session_id, dispatch_item_id, status, created_at)
        VALUES (@payoutId, @operatorId, @playerId, @currency, @amountMinor, @campaignId, @operatorSessionId, @dispatchItemId, 'pending', @createdAt)`),
      payoutById: payoutsWhere('WHERE p.payout_id = ?'),
      payoutOfItem: payoutsWhere('WHERE p.dispatch_item_id = ?'),
      listPayouts: payoutsWhere(`WHERE p.id < ? AND ${IN_SCOPE('p')} ORDER BY p.id DESC LIMIT ?`),
      listPayoutsByStatus: payoutsWhere(`WHERE p.status = ? AND p.id < ? AND ${IN_SCOPE('p')} ORDER BY p.id DESC LIMIT ?`),
      finishPayout: db.prepare(
        "UPDATE payouts SET status = ?, balance_after = ?, refusal_code = ?, refusal_detail = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
      ),
    };
  }

  async createPayout(asked: NewPayout, audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<PayoutWrite> {
    // Every read and the write in one synchronous call: nothing else writes in between.
    const found = this.payoutNow(asked.payoutId);
    if (found) {
      const same = samePayout(found, asked);
      if (same && audit) {
        this.database.write();
        this.database.staff.appendAudit(audit('exists'));
      }
      return { ok: true, kind: same ? 'exists' : 'conflict', payout: found };
    }
    const sessionRow = this.statements.latestRealSession.get(asked.operatorId, asked.playerId) as Row | undefined;
    const request = payoutRequest(asked, sessionRow && sessionOf(sessionRow), this.database.currencies);
    if (!request.ok) return request;
    this.database.savepoint(() => {
      const itemId = this.database.enqueue(
        { operatorId: asked.operatorId, orderingKey: asked.payoutId, ...PAYOUT_REQUEST, body: request.body },
        asked.createdAt,
      );
      this.statements.insertPayout.run({ ...asked, operatorSessionId: request.operatorSessionId, dispatchItemId: itemId });
      // In the payout's savepoint: the payout and its audit row commit together.
      if (audit) this.database.staff.appendAudit(audit('created'));
    });
    return { ok: true, kind: 'created', payout: this.payoutNow(asked.payoutId)! };
  }

  async payout(payoutId: string): Promise<PayoutRow | undefined> {
    return this.payoutNow(payoutId);
  }

  async listPayouts(
    limit: number,
    options: { status?: PayoutStatus; before?: number; operators?: readonly string[] | null } = {},
  ): Promise<{ payouts: PayoutRow[]; cursors: number[] }> {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const scope = scopeOf(options.operators ?? null);
    const rows = (
      options.status === undefined
        ? this.statements.listPayouts.all(before, scope, scope, limit)
        : this.statements.listPayoutsByStatus.all(options.status, before, scope, scope, limit)
    ) as Row[];
    return { payouts: rows.map(payoutOf), cursors: rows.map((row) => num(row.id)) };
  }

  /** The outbox's hook for a payout's request: its outcome pays or refuses it, in the outcome's database transaction. */
  finishPayout(event: FinalEvent): void {
    const { item } = event;
    const found = this.statements.payoutOfItem.get(item.id) as Row | undefined;
    if (found === undefined) return;
    const payout = payoutOf(found);
    if (payout.status !== 'pending') return;
    const at = item.finishedAt ?? item.createdAt;
    const finished = payoutOutcomeOf(event, payout.currency, this.database.currencies);
    if (finished.status === 'paid') this.statements.finishPayout.run('paid', finished.balanceAfterMinor, null, null, at, found.id);
    else this.statements.finishPayout.run('refused', finished.balanceAfterMinor, finished.code, finished.detail, at, found.id);
  }

  private payoutNow(payoutId: string): PayoutRow | undefined {
    const row = this.statements.payoutById.get(payoutId) as Row | undefined;
    return row && payoutOf(row);
  }
}
