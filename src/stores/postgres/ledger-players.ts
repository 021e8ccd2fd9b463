/**
 * The PostgreSQL ledger's operations on players and their sessions:
 * /authenticate, and the back office's players, launch keys, blocks and
 * adjustments. Each is one database transaction of its own, in a few round
 * trips: it reads under the player's wallet row lock, plans with
 * src/ledger/rules.ts and writes the plan. A call that changes what a node
 * remembers of a player (wallet-memory.ts) moves the wallet row's version,
 * so that every node reads the player again.
 */
import assert from 'node:assert/strict';
import { integrationNotFound } from '../../access/integrations.js';
import { ENV_INTEGRATION_ID } from '../../protocol/integration-id.js';
import { legsOf } from '../../ledger/accounts.js';
import { canonicalUuid } from '../../protocol/checked-requests.js';
import { launchKeyDigest, launchKeyExpiresAt, planAdjustment, planAuthenticate, planOpeningBalance, type SessionState } from '../../ledger/rules.js';
import { balanceOutcome, bookedOf, playerExists, playerNotFound, sessionOutcome } from '../../ledger/views.js';
import type { Refusal } from '../../protocol/errors.js';
import type {
  AdjustCommand,
  AuthenticateCommand,
  BalanceOutcome,
  BlockCommand,
  Booked,
  CreatePlayerCommand,
  LaunchKeyCommand,
  LaunchKeyView,
  PlayerView,
  SessionOutcome,
} from '../store.js';
import { audited } from '../../staff/postgres-staff.js';
import { PLAYER_COLUMNS, seenTransfer, type Int8, type LedgerRows, type SeenRow } from './ledger-rows.js';
import type { PlayerRow } from './wallet-memory.js';

export class LedgerPlayers {
  constructor(private readonly rows: LedgerRows) {}

  async authenticate(command: AuthenticateCommand): Promise<SessionOutcome | Refusal> {
    // Keys are kept as digests (launchKeyDigest): the key is found by its own.
    const keyHash = launchKeyDigest(command.key);
    return this.rows.sql.begin(async (dbTx) => {
      const [owner] = await dbTx<{ account_id: Int8 }[]>`SELECT p.account_id FROM launch_keys k JOIN players p ON p.id = k.player_pk
        WHERE k.key_hash = ${keyHash}`;
      if (owner) await dbTx`SELECT 1 FROM accounts WHERE id = ${owner.account_id} FOR UPDATE`;
      // Read after the lock: a concurrent first use of the same key has committed its session by now.
      const [row] = await dbTx<
        (PlayerRow & {
          key_pk: Int8;
          key_game: string;
          expires_at: Int8;
          session_uuid: string | null;
          session_pk: Int8 | null;
          session_game: string | null;
          session_integration_id: string | null;
          last_active_at: Int8 | null;
          key_integration_id: string | null;
        })[]
      >`SELECT k.id AS key_pk, k.game AS key_game, k.expires_at, k.integration_id AS key_integration_id, s.uuid AS session_uuid, s.id AS session_pk,
          s.game AS session_game, s.last_active_at, s.integration_id AS session_integration_id, ${dbTx.unsafe(PLAYER_COLUMNS)}
        FROM launch_keys k JOIN players p ON p.id = k.player_pk JOIN accounts a ON a.id = p.account_id
        LEFT JOIN sessions s ON s.id = k.session_pk WHERE k.key_hash = ${keyHash}`;
      const player = row && this.rows.playerState(row);
      const existing: SessionState | undefined =
        row && row.session_uuid !== null && row.session_game !== null && row.last_active_at !== null && row.session_integration_id !== null
          ? {
              sessionId: row.session_uuid,
              playerId: row.player_id,
              game: row.session_game,
              lastActiveAt: Number(row.last_active_at),
              integrationId: row.session_integration_id,
            }
          : undefined;
      const integrationId = command.integrationId ?? ENV_INTEGRATION_ID;
      const plan = planAuthenticate(
        command.game,
        row && { playerId: row.player_id, game: row.key_game, expiresAt: Number(row.expires_at), integrationId: row.key_integration_id, session: existing },
        player,
        command.now,
        this.rows.rules,
        integrationId,
        command.betsPaused === true,
      );
      if (!plan.ok) return plan;
      assert.ok(row && player);
      let sessionId: string;
      if (plan.kind === 'existing') {
        // A reload counts as activity; the condition keeps the rule (never back in time) against a concurrent touch.
        assert.ok(row.session_pk !== null);
        if (plan.touch) await dbTx`UPDATE sessions SET last_active_at = ${command.now} WHERE id = ${row.session_pk} AND last_active_at < ${command.now}`;
        // The session's activity is part of what a node remembers of the player (wallet-memory.ts).
        await dbTx`UPDATE accounts SET version = version + 1 WHERE id = ${row.account_id}`;
        this.rows.memory.forget(row.player_pk);
        sessionId = plan.session.sessionId;
      } else {
        sessionId = canonicalUuid(command.newSessionId);
        const [session] = await dbTx<{ id: Int8 }[]>`INSERT INTO sessions (uuid, player_pk, game, created_at, last_active_at, integration_id)
          VALUES (${sessionId}, ${row.player_pk}, ${command.game}, ${command.now}, ${command.now}, ${integrationId}) RETURNING id`;
        const bound = await dbTx`UPDATE launch_keys SET session_pk = ${session!.id} WHERE id = ${row.key_pk} AND session_pk IS NULL`;
        assert.equal(bound.count, 1, 'a launch key opens one session');
      }
      return sessionOutcome(sessionId, player, row.country);
    });
  }

  async createPlayer(command: CreatePlayerCommand): Promise<PlayerView | Refusal> {
    const opening = planOpeningBalance(command.currency, command.balance, this.rows.currencies);
    if (typeof opening !== 'bigint') return opening;
    const exists = playerExists(command.playerId);
    try {
      return await this.rows.sql.begin(async (dbTx) => {
        const [found] = await dbTx`SELECT 1 FROM players WHERE player_id = ${command.playerId}`;
        if (found) return exists;
        const [account] = await dbTx<{ id: Int8 }[]>`INSERT INTO accounts (kind, ref, currency, balance, created_at)
          VALUES ('player', ${command.playerId}, ${command.currency}, 0, ${command.now}) RETURNING id`;
        const [player] = await dbTx<{ id: Int8 }[]>`INSERT INTO players (player_id, account_id, currency, country, created_at)
          VALUES (${command.playerId}, ${account!.id}, ${command.currency}, ${command.country ?? null}, ${command.now}) RETURNING id`;
        if (opening > 0n) {
          const legs = legsOf({ kind: 'deposit', playerId: command.playerId, currency: command.currency });
          await this.rows.writeSingle(
            dbTx,
            { player_pk: player!.id, account_id: account!.id, version: '0' },
            canonicalUuid(command.depositId),
            'deposit',
            legs,
            opening,
            0n,
            opening,
            command.now,
            'opening balance',
          );
        }
        const row = await this.rows.playerRow(dbTx, command.playerId);
        assert.ok(row, 'a player reads back in the transaction that created it');
        return audited(dbTx, command.audit, this.rows.view(row));
      });
    } catch (error) {
      // A concurrent creation of the same player won the unique index.
      if ((error as { code?: string }).code === '23505' && /^(players|accounts)$/.test((error as { table_name?: string }).table_name ?? '')) {
        return exists;
      }
      throw error;
    }
  }

  async getPlayer(playerId: string): Promise<PlayerView | Refusal> {
    const row = await this.rows.playerRow(this.rows.sql, playerId);
    return row ? this.rows.view(row) : playerNotFound(playerId);
  }

  async createLaunchKey(command: LaunchKeyCommand): Promise<LaunchKeyView | Refusal> {
    const expiresAt = launchKeyExpiresAt(command.now, this.rows.rules);
    const { integration } = command;
    return this.rows.sql.begin(async (dbTx) => {
      if (integration !== undefined && integration !== ENV_INTEGRATION_ID) {
        const [stored] = await dbTx`SELECT 1 FROM integrations WHERE id = ${integration}`;
        if (!stored) return integrationNotFound(integration);
      }
      // Only the digest is written: the key is answered this once, to the caller that asked for it, and never read back.
      const inserted = await dbTx`INSERT INTO launch_keys (key_hash, player_pk, game, created_at, expires_at, integration_id)
        SELECT ${launchKeyDigest(command.key)}, id, ${command.game}, ${command.now}, ${expiresAt}, ${integration ?? null}
        FROM players WHERE player_id = ${command.playerId}`;
      if (inserted.count === 0) return playerNotFound(command.playerId);
      return audited(dbTx, command.audit, { ok: true as const, key: command.key, expiresAt });
    });
  }

  async adjust(command: AdjustCommand): Promise<BalanceOutcome | Refusal> {
    return this.rows.sql.begin(async (dbTx) => {
      const row = await this.rows.playerRow(dbTx, command.playerId, { lock: true });
      const player = row && this.rows.playerState(row);
      const [seenRow] = row
        ? await dbTx<SeenRow[]>`SELECT t.uuid, t.kind, p.player_id, r.uuid AS round_uuid, t.campaign_uuid, t.amount, t.jp_amount
            FROM transfers t JOIN players p ON p.id = t.player_pk LEFT JOIN rounds r ON r.id = t.round_pk WHERE t.uuid = ${command.id}::uuid`
        : [];
      const plan = planAdjustment(command, player, seenRow && seenTransfer(seenRow));
      if (!plan.ok) return plan;
      assert.ok(row && player);
      const booked: Booked[] = [];
      if (plan.apply) {
        const legs = legsOf({ kind: command.type, playerId: player.playerId, currency: player.currency });
        await this.rows.writeSingle(
          dbTx,
          row,
          canonicalUuid(command.id),
          command.type,
          legs,
          plan.amount,
          player.balance,
          plan.balanceAfter,
          command.now,
          command.reason ?? null,
        );
        booked.push(bookedOf(command.type, plan.amount, player));
      }
      return audited(dbTx, command.audit, balanceOutcome(player, plan.balanceAfter, booked));
    });
  }

  async setBlocked(command: BlockCommand): Promise<PlayerView | Refusal> {
    // The wallet row's version moves with the block: a node that remembers the player must read it again.
    return this.rows.sql.begin(async (dbTx) => {
      const [row] = await dbTx<PlayerRow[]>`WITH p AS (
          UPDATE players SET blocked = ${command.blocked}, blocked_reason = ${command.blocked ? (command.reason ?? null) : null}
          WHERE player_id = ${command.playerId} RETURNING *),
        a AS (UPDATE accounts SET version = version + 1 WHERE id = (SELECT account_id FROM p) RETURNING balance, version)
        SELECT ${this.rows.sql.unsafe(PLAYER_COLUMNS)} FROM p, a`;
      if (!row) return playerNotFound(command.playerId);
      this.rows.memory.forget(row.player_pk);
      return audited(dbTx, command.audit, this.rows.view(row));
    });
  }
}
