/**
 * The SQLite ledger's hot operations, /transaction and /payout: read a
 * snapshot, plan it with src/ledger/rules.ts, write the plan. A bet's
 * snapshot comes from the writer's memory where it can (wallet-memory.ts),
 * and its ids are looked up in the id indexes (id-index.ts), which mostly
 * answer from memory too. Synchronous, inside the batch writer's database
 * transaction and the call's savepoint, so nothing interleaves between the
 * read and the write.
 */
import assert from 'node:assert/strict';
import { ENV_INTEGRATION_ID } from '../../protocol/integration-id.js';
import type { TransferKind } from '../../ledger/accounts.js';
import { planPayout, planTransaction, withoutRemember, type SeenTransfer, type SessionState } from '../../ledger/rules.js';
import { balanceOutcome, bookedOf } from '../../ledger/views.js';
import type { ErrorCode, Refusal } from '../../protocol/errors.js';
import type { BalanceOutcome, Booked, PayoutCommand, TransactionCommand } from '../store.js';
import { bytesToUuid, uuidToBytes } from '../uuid-bytes.js';
import { playerOf, PLAYER_COLUMNS, type LedgerRows } from './ledger-rows.js';
import type { RoundRow, SessionAt } from './wallet-memory.js';

const SESSION_WITH_PLAYER = `SELECT s.id, s.game, s.last_active_at, s.integration_id, ${PLAYER_COLUMNS}
  FROM sessions s JOIN players p ON p.id = s.player_pk JOIN accounts a ON a.id = p.account_id WHERE s.uuid = ?`;
function sessionOf(v: unknown[]): SessionAt {
  return {
    session: { session_pk: v[0] as bigint, game: v[1] as string, last_active_at: v[2] as bigint, integration_id: v[3] as string },
    player: playerOf(v, 4),
  };
}

const REFUSED = `SELECT kind, player_id, round_uuid, amount, jp_amount, code, detail FROM refused_transactions WHERE uuid = ?`;
function refusedOf(v: unknown[]): SeenTransfer {
  return {
    kind: v[0] as TransferKind,
    playerId: v[1] as string,
    roundId: bytesToUuid(v[2] as Buffer),
    campaignId: null,
    amount: v[3] as bigint,
    jpAmount: v[4] as bigint,
    refused: { code: v[5] as ErrorCode, detail: v[6] as string },
  };
}

const ROUND = `SELECT r.id, p.player_id, r.game, r.finished, r.integration_id FROM rounds r JOIN players p ON p.id = r.player_pk WHERE r.id = ?`;
function roundOf(v: unknown[]): RoundRow {
  return { id: v[0] as bigint, player_id: v[1] as string, game: v[2] as string, finished: v[3] === 1n, integration_id: v[4] as string };
}

export class LedgerTransfers {
  private readonly statements;

  constructor(private readonly rows: LedgerRows) {
    const prepare = (sql: string) => rows.db.prepare(sql);
    this.statements = {
      sessionWithPlayer: prepare(SESSION_WITH_PLAYER).raw(true),
      refused: prepare(REFUSED).raw(true),
      insertRefused: prepare(`INSERT INTO refused_transactions (uuid, player_pk, kind, player_id, round_uuid, amount, jp_amount, code,
        detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      round: prepare(ROUND).raw(true),
      campaignClosed: prepare('SELECT 1 FROM campaign_closures WHERE campaign_uuid = ? AND player_pk = ? AND integration_id = ?').pluck(true),
      closeCampaign: prepare('INSERT OR IGNORE INTO campaign_closures (campaign_uuid, player_pk, integration_id, closed_at) VALUES (?, ?, ?, ?)'),
      insertRound: prepare(`INSERT INTO rounds (uuid, player_pk, game, finished, created_at, finished_at, prev_player_round_id, integration_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      closeRound: prepare('UPDATE rounds SET finished = 1, finished_at = ? WHERE id = ? AND finished = 0'),
    };
  }

  /**
   * A bet or win: the session and its player come from memory where kept,
   * the round too while it is open, and the transaction ids from the id
   * indexes (which hold recent ids in memory); only what they name is read.
   */
  transact(command: TransactionCommand): BalanceOutcome | Refusal {
    const { request } = command;
    const at = this.sessionAt(request.sessionId);
    const roundKey = request.round.id;
    const roundBytes = uuidToBytes(roundKey);
    const seen = new Map<string, SeenTransfer>();
    let round: RoundRow | undefined;
    if (at) {
      for (const tx of request.transactions) {
        const found = this.rows.seen(tx.id) ?? this.refused(tx.id);
        if (found) seen.set(tx.id, found);
      }
      round = this.rows.memory.openRound(roundKey) ?? this.roundRow(roundKey, roundBytes);
    }
    return this.bookTransaction(command, at, seen, round, roundKey, roundBytes);
  }

  // eslint-disable-next-line max-lines-per-function -- one /transaction booked with no await between its reads and writes
  private bookTransaction(
    command: TransactionCommand,
    at: SessionAt | undefined,
    seen: ReadonlyMap<string, SeenTransfer>,
    round: RoundRow | undefined,
    roundKey: string,
    roundBytes: Buffer,
  ): BalanceOutcome | Refusal {
    const { request, now } = command;
    const integrationId = command.integrationId ?? ENV_INTEGRATION_ID;
    const row = at?.player;
    const player = row && this.rows.playerState(row);
    const campaignId = request.campaign?.id;
    const campaignFinished =
      row !== undefined && campaignId !== undefined && this.statements.campaignClosed.get(uuidToBytes(campaignId), row.player_pk, integrationId) !== undefined;

    const plan = planTransaction(
      request,
      {
        session: at && sessionState(at, request.sessionId),
        player,
        seen,
        round: round && { playerId: round.player_id, game: round.game, finished: round.finished, integrationId: round.integration_id },
        campaignFinished,
        now,
        betsPaused: command.betsPaused === true,
        integrationId,
      },
      this.rows.rules,
    );
    if (!plan.ok) {
      // A final refusal is kept, in this call's savepoint, so that its ids are answered it again (§6.4).
      assert.ok(plan.remember.length === 0 || row);
      for (const refused of plan.remember) {
        this.statements.insertRefused.run(
          uuidToBytes(refused.id),
          row!.player_pk,
          refused.kind,
          refused.playerId,
          uuidToBytes(refused.roundId),
          refused.amount,
          refused.jpAmount,
          refused.code,
          refused.detail,
          now,
        );
      }
      return withoutRemember(plan);
    }
    assert.ok(at && row && player);
    const booked: Booked[] = [];
    if (plan.transfers.length > 0) {
      let roundPk: bigint;
      let lastRoundId = row.last_round_id;
      if (plan.createRound) {
        const finished = plan.closeRound ? 1 : 0;
        roundPk = BigInt(
          this.statements.insertRound.run(
            roundBytes,
            row.player_pk,
            request.game,
            finished,
            now,
            plan.closeRound ? now : null,
            row.last_round_id,
            integrationId,
          ).lastInsertRowid,
        );
        this.rows.roundIds.added(roundKey, roundPk);
        lastRoundId = roundPk;
      } else {
        assert.ok(round);
        roundPk = round.id;
        if (plan.closeRound) this.statements.closeRound.run(now, roundPk);
      }
      const campaignBytes = campaignId === undefined ? null : uuidToBytes(campaignId);
      let lastTransferId = row.last_transfer_id;
      for (const transfer of plan.transfers) {
        lastTransferId = this.rows.insertTransfer(row, lastTransferId, transfer.id, transfer.kind, transfer.legs, transfer.amount, now, {
          jpAmount: transfer.jpAmount,
          freeBet: transfer.freeBet,
          roundPk,
          campaign: campaignBytes,
          regulatory: request.regulatory ?? null,
        });
        booked.push(bookedOf(transfer.kind, transfer.amount, player));
      }
      assert.ok(lastTransferId !== null);
      this.rows.moveWallet(row, plan.balanceAfter - plan.balanceBefore, plan.balanceAfter, lastTransferId, lastRoundId);
      if (plan.closeCampaign) this.statements.closeCampaign.run(uuidToBytes(plan.closeCampaign), row.player_pk, integrationId, now);
      if (plan.touchSession) {
        this.rows.touchSession(at.session.session_pk, now);
        this.rows.memory.touched(at.session, now);
      }
      if (plan.closeRound) this.rows.memory.forgetRound(roundKey);
      else
        this.rows.memory.keepOpenRound(roundKey, { id: roundPk, player_id: row.player_id, game: request.game, finished: false, integration_id: integrationId });
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  payout(command: PayoutCommand): BalanceOutcome | Refusal {
    const { request, now } = command;
    const at = this.sessionAt(request.sessionId);
    const player = at && this.rows.playerState(at.player);
    const plan = planPayout(request, {
      session: at && sessionState(at, request.sessionId),
      player,
      seen: at && this.rows.seen(request.payoutId),
      integrationId: command.integrationId ?? ENV_INTEGRATION_ID,
    });
    if (!plan.ok) return plan;
    assert.ok(at && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      this.rows.bookAlone(at.player, request.payoutId, 'payout', plan.legs, plan.amount, plan.amount, plan.balanceAfter, now, {
        campaign: uuidToBytes(request.campaign.id),
      });
      booked.push(bookedOf('payout', plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  /** The session and its player, from memory when kept there (wallet-memory.ts); `key`: canonical. */
  private sessionAt(key: string): SessionAt | undefined {
    const kept = this.rows.memory.session(key);
    if (kept) return kept;
    const values = this.statements.sessionWithPlayer.get(uuidToBytes(key)) as unknown[] | undefined;
    return values && this.rows.memory.keepSession(key, sessionOf(values));
  }

  private roundRow(roundKey: string, roundBytes: Buffer): RoundRow | undefined {
    const id = this.rows.roundIds.find(roundKey, roundBytes);
    return id === undefined ? undefined : roundOf(this.statements.round.get(id) as unknown[]);
  }

  /** The refused transaction kept under this id (canonical), if any (§6.4). */
  private refused(key: string): SeenTransfer | undefined {
    const values = this.statements.refused.get(uuidToBytes(key)) as unknown[] | undefined;
    return values && refusedOf(values);
  }
}

function sessionState(at: SessionAt, sessionId: string): SessionState {
  return {
    sessionId,
    playerId: at.player.player_id,
    game: at.session.game,
    lastActiveAt: Number(at.session.last_active_at),
    integrationId: at.session.integration_id,
  };
}
