/**
 * The SQLite ledger's operations on players and their sessions:
 * /authenticate, and the back office's players, launch keys, blocks and
 * adjustments. Each reads its rows, plans with src/ledger/rules.ts and
 * writes the plan, synchronously inside the batch writer's database
 * transaction. A call that changes a player or a session by a path other
 * than a bet forgets the wallet memory's copy of it (wallet-memory.ts).
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
import { bytesToUuid, uuidToBytes } from '../uuid-bytes.js';
import { PLAYER_COLUMNS, type LedgerRows } from './ledger-rows.js';
import type { PlayerRow } from './wallet-memory.js';

export class LedgerPlayers {
  private readonly statements;

  constructor(private readonly rows: LedgerRows) {
    const prepare = (sql: string) => rows.db.prepare(sql);
    this.statements = {
      insertPlayer: prepare('INSERT INTO players (player_id, account_id, currency, country, created_at) VALUES (?, ?, ?, ?, ?)'),
      launchKey: prepare(`SELECT k.id AS key_pk, k.game AS key_game, k.expires_at, k.integration_id AS key_integration_id,
        s.uuid AS session_uuid, s.id AS session_pk,
        s.game AS session_game, s.last_active_at, s.integration_id AS session_integration_id, ${PLAYER_COLUMNS}
        FROM launch_keys k JOIN players p ON p.id = k.player_pk JOIN accounts a ON a.id = p.account_id
        LEFT JOIN sessions s ON s.id = k.session_pk WHERE k.key_hash = ?`),
      insertLaunchKey: prepare('INSERT INTO launch_keys (key_hash, player_pk, game, created_at, expires_at, integration_id) VALUES (?, ?, ?, ?, ?, ?)'),
      integrationStored: prepare('SELECT 1 FROM integrations WHERE id = ?').pluck(true),
      insertSession: prepare('INSERT INTO sessions (uuid, player_pk, game, created_at, last_active_at, integration_id) VALUES (?, ?, ?, ?, ?, ?)'),
      bindKey: prepare('UPDATE launch_keys SET session_pk = ? WHERE id = ? AND session_pk IS NULL'),
      setBlocked: prepare('UPDATE players SET blocked = ?, blocked_reason = ? WHERE player_id = ? RETURNING id').pluck(true),
    };
  }

  authenticate(command: AuthenticateCommand): SessionOutcome | Refusal {
    // Keys are kept as digests (launchKeyDigest): the key is found by its own.
    const row = this.statements.launchKey.get(launchKeyDigest(command.key)) as
      | (PlayerRow & {
          key_pk: bigint;
          key_game: string;
          expires_at: bigint;
          key_integration_id: string | null;
          session_uuid: Buffer | null;
          session_pk: bigint | null;
          session_game: string | null;
          last_active_at: bigint | null;
          session_integration_id: string | null;
        })
      | undefined;
    const player = row && this.rows.playerState(row);
    const existing: SessionState | undefined =
      row && row.session_uuid && row.session_game !== null && row.last_active_at !== null && row.session_integration_id !== null
        ? {
            sessionId: bytesToUuid(row.session_uuid),
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
      // A reload counts as activity.
      assert.ok(row.session_pk !== null);
      if (plan.touch) this.rows.touchSession(row.session_pk, command.now);
      sessionId = plan.session.sessionId;
      this.rows.memory.forgetSession(sessionId);
    } else {
      sessionId = canonicalUuid(command.newSessionId);
      const sessionPk = this.statements.insertSession.run(
        uuidToBytes(sessionId),
        row.player_pk,
        command.game,
        command.now,
        command.now,
        integrationId,
      ).lastInsertRowid;
      const bound = this.statements.bindKey.run(sessionPk, row.key_pk);
      assert.equal(bound.changes, 1, 'a launch key opens one session');
    }
    return sessionOutcome(sessionId, player, row.country);
  }

  createPlayer(command: CreatePlayerCommand): PlayerView | Refusal {
    const opening = planOpeningBalance(command.currency, command.balance, this.rows.currencies);
    if (typeof opening !== 'bigint') return opening;
    if (this.rows.playerRow(command.playerId)) return playerExists(command.playerId);
    const accountId = this.rows.insertAccount('player', command.playerId, command.currency, 0, command.now);
    this.statements.insertPlayer.run(command.playerId, accountId, command.currency, command.country ?? null, command.now);
    const row = this.rows.playerRow(command.playerId)!;
    if (opening > 0n) {
      const depositId = canonicalUuid(command.depositId);
      // Not a refusal: the id is the server's own, and a taken one is a fault (answered 500, nothing applied).
      if (this.rows.transferIds.find(depositId, uuidToBytes(depositId)) !== undefined) throw new Error(`deposit id ${depositId} is taken`);
      const legs = legsOf({ kind: 'deposit', playerId: command.playerId, currency: command.currency });
      this.rows.bookAlone(row, depositId, 'deposit', legs, opening, opening, opening, command.now, { note: 'opening balance' });
    }
    return this.rows.view(this.rows.playerRow(command.playerId)!);
  }

  getPlayer(playerId: string): PlayerView | Refusal {
    const row = this.rows.playerRow(playerId);
    return row ? this.rows.view(row) : playerNotFound(playerId);
  }

  createLaunchKey(command: LaunchKeyCommand): LaunchKeyView | Refusal {
    const row = this.rows.playerRow(command.playerId);
    if (!row) return playerNotFound(command.playerId);
    const { integration } = command;
    if (integration !== undefined && integration !== ENV_INTEGRATION_ID && this.statements.integrationStored.get(integration) === undefined) {
      return integrationNotFound(integration);
    }
    const expiresAt = launchKeyExpiresAt(command.now, this.rows.rules);
    // Only the digest is written: the key is answered this once, to the caller that asked for it, and never read back.
    this.statements.insertLaunchKey.run(launchKeyDigest(command.key), row.player_pk, command.game, command.now, expiresAt, integration ?? null);
    return { ok: true, key: command.key, expiresAt };
  }

  adjust(command: AdjustCommand): BalanceOutcome | Refusal {
    const row = this.rows.playerRow(command.playerId);
    const player = row && this.rows.playerState(row);
    const plan = planAdjustment(command, player, row && this.rows.seen(canonicalUuid(command.id)));
    if (!plan.ok) return plan;
    assert.ok(row && player);
    const booked: Booked[] = [];
    if (plan.apply) {
      const legs = legsOf({ kind: command.type, playerId: player.playerId, currency: player.currency });
      const delta = command.type === 'deposit' ? plan.amount : -plan.amount;
      this.rows.bookAlone(row, canonicalUuid(command.id), command.type, legs, plan.amount, delta, plan.balanceAfter, command.now, {
        note: command.reason ?? null,
      });
      this.rows.memory.forgetPlayer(row.player_pk);
      booked.push(bookedOf(command.type, plan.amount, player));
    }
    return balanceOutcome(player, plan.balanceAfter, booked);
  }

  setBlocked(command: BlockCommand): PlayerView | Refusal {
    const playerPk = this.statements.setBlocked.get(command.blocked ? 1 : 0, command.blocked ? (command.reason ?? null) : null, command.playerId) as
      bigint | undefined;
    if (playerPk === undefined) return playerNotFound(command.playerId);
    this.rows.memory.forgetPlayer(playerPk);
    return this.getPlayer(command.playerId);
  }
}
