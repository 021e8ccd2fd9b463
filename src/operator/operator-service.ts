/**
 * The operator's use-cases: what the HTTP API and the CLI both do. It adds
 * the world (clock, ids, random launch keys) to each command and hands it to
 * the store; it holds no rules of its own.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Refusal } from '../protocol/errors.js';
import type { CheckedPayout, CheckedTransaction } from '../protocol/checked-requests.js';
import type { AdjustmentRequest, CreatePlayerRequest } from '../protocol/schemas.js';
import {
  DAY_MS,
  PAGE_LIMIT_DEFAULT,
  type AuthenticateCommand,
  type LaunchKeyCommand,
  type PayoutCommand,
  type PlayersRequest,
  type TransactionCommand,
} from '../stores/store.js';
import type { WalletStore } from '../stores/operations.js';
import type { Role } from '../access/roles.js';
import type { AuditEntry } from '../access/staff.js';
import { ENV_INTEGRATION_ID } from '../protocol/integration-id.js';
import { newStaffToken, STAFF_TOKEN_DAYS_DEFAULT, tokenExpiresAt } from '../access/staff-token.js';

export interface World {
  /** Epoch ms. */
  clock: () => number;
  newId: () => string;
  /** An unguessable launch key. */
  newLaunchKey: () => string;
  /** Random bytes for staff tokens; default node:crypto's. */
  randomBytes?: (bytes: number) => Buffer;
}

/** 32 random bytes: a launch key cannot be guessed within its life. */
const LAUNCH_KEY_BYTES = 32;

export const REAL_WORLD: World = {
  clock: () => Date.now(),
  newId: () => randomUUID(),
  newLaunchKey: () => randomBytes(LAUNCH_KEY_BYTES).toString('base64url'),
};

export class OperatorService {
  constructor(
    readonly store: WalletStore,
    private readonly world: World = REAL_WORLD,
  ) {}

  /**
   * A /transaction as the edge checked it (checked-requests.ts), booked at the world's now, for the calling
   * integration (whose sessions; whether its bets are paused). Each member is left out when its absence says
   * the same (the environment's integration, not paused): the common call carries nothing more.
   */
  transact(request: CheckedTransaction, integrationId = ENV_INTEGRATION_ID, betsPaused = false) {
    const command: TransactionCommand = { request, now: this.world.clock() };
    if (integrationId !== ENV_INTEGRATION_ID) command.integrationId = integrationId;
    if (betsPaused) command.betsPaused = true;
    return this.store.transact(command);
  }

  /** For the calling integration, whose sessions and tournaments: a paused one's payouts are booked, as wins are. */
  payout(request: CheckedPayout, integrationId = ENV_INTEGRATION_ID) {
    const command: PayoutCommand = { request, now: this.world.clock() };
    if (integrationId !== ENV_INTEGRATION_ID) command.integrationId = integrationId;
    return this.store.payout(command);
  }

  /** For the calling integration: the session is opened for it, and a paused one opens none (rules.ts). */
  authenticate(key: string, game: string, integrationId = ENV_INTEGRATION_ID, betsPaused = false) {
    const command: AuthenticateCommand = { key, game, now: this.world.clock(), newSessionId: this.world.newId() };
    if (integrationId !== ENV_INTEGRATION_ID) command.integrationId = integrationId;
    if (betsPaused) command.betsPaused = true;
    return this.store.authenticate(command);
  }

  createPlayer(input: CreatePlayerRequest, audit?: AuditEntry) {
    return this.store.createPlayer({ ...input, depositId: this.world.newId(), now: this.world.clock(), audit });
  }

  getPlayer(playerId: string) {
    return this.store.getPlayer(playerId);
  }

  /** A launch key for `integration`'s game when named: only its /authenticate opens it. */
  createLaunchKey(playerId: string, game: string, audit?: AuditEntry, integration?: string) {
    const command: LaunchKeyCommand = { playerId, game, key: this.world.newLaunchKey(), now: this.world.clock(), audit };
    if (integration !== undefined) command.integration = integration;
    return this.store.createLaunchKey(command);
  }

  adjust(playerId: string, input: AdjustmentRequest, audit?: AuditEntry) {
    return this.store.adjust({ ...input, playerId, now: this.world.clock(), audit });
  }

  setBlocked(playerId: string, blocked: boolean, reason?: string, audit?: AuditEntry) {
    return this.store.setBlocked({ playerId, blocked, reason, now: this.world.clock(), audit });
  }

  /**
   * A staff account with its first token, which the answer carries once:
   * only its hash is stored (access/staff-token.ts).
   */
  async addStaff(name: string, role: Role, days: number = STAFF_TOKEN_DAYS_DEFAULT, audit?: AuditEntry) {
    const made = newStaffToken(this.world.randomBytes ?? randomBytes);
    const now = this.world.clock();
    const outcome = await this.store.addStaff({
      name,
      role,
      operators: null,
      tokenId: made.tokenId,
      tokenHash: made.tokenHash,
      expiresAt: tokenExpiresAt(now, days),
      now,
      audit: audit && { ...audit, target: `staff=${name} token=${made.tokenId}` },
    });
    return outcome.ok ? { ...outcome, token: made.token } : outcome;
  }

  revokeStaff(nameOrTokenId: string, audit?: AuditEntry) {
    return this.store.revokeStaff({ nameOrTokenId, now: this.world.clock(), audit });
  }

  listStaff() {
    return this.store.listStaff();
  }

  listAudit(limit: number, before?: number) {
    return this.store.listAudit({ limit, before });
  }

  listRounds(playerId: string, limit = PAGE_LIMIT_DEFAULT, before?: bigint) {
    return this.store.listRounds({ playerId, limit, before });
  }

  listTransfers(playerId: string, limit = PAGE_LIMIT_DEFAULT, before?: bigint) {
    return this.store.listTransfers({ playerId, limit, before });
  }

  /** The world's clock (epoch ms): the default span of a GGR report ends today. */
  now() {
    return this.world.clock();
  }

  listPlayers(page: PlayersRequest) {
    return this.store.listPlayers(page);
  }

  /** GGR of the days from `from` to `to`, both included (epoch ms of their midnights, UTC), of one studio's games when named. */
  ggr(from: number, to: number, integration?: string) {
    return this.store.ggr(integration === undefined ? { from, to: to + DAY_MS } : { from, to: to + DAY_MS, integration });
  }

  verify() {
    return this.store.verify();
  }
}

export function isRefusal(value: { ok: boolean }): value is Refusal {
  return !value.ok;
}
