/**
 * The operator's back office, as one Fastify plugin registered under
 * /admin: players, launch keys, adjustments, blocks, rounds and transfers,
 * GGR, the books' verify, and the staff and audit log. Every route declares
 * its action (src/access/roles.ts); the staff guard (src/http/staff-guard.ts)
 * and the check of every :playerId are hooks of this plugin's own context,
 * so they judge these routes and no other, and a new route here cannot
 * forget them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { decimalText, type StaffLimits } from '../../access/limits.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '../../access/staff.js';
import { AuditQuery, CreateStaffRequest } from '../../access/staff-schemas.js';
import { checkStaffName } from '../../access/staff-token.js';
import { bodyBytes, readBody, sendJson, sendProblem, sendRefusal } from '../../http/json-api.js';
import { installStaffGuard, type StaffGuard } from '../../http/staff-guard.js';
import { stringify } from '../../protocol/json.js';
import { decimalFromNumber } from '../../protocol/money.js';
import { isCountryCode } from '../../protocol/regions.js';
import { AdjustmentRequest, BlockRequest, CreateLaunchKeyRequest, CreatePlayerRequest, GgrQuery, PageQuery, PlayersQuery, StoredPlayerId } from '../../protocol/schemas.js';
import { compile, compileBody, type BodyReader } from '../../protocol/validate.js';
import { DAY_MS, GGR_DAYS_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, type PlayerView } from '../../stores/store.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorService } from '../operator-service.js';
import { adjustmentBody, ggrBody, launchKeyBody, playerBody, playersBody, roundsBody, transfersBody } from '../operator-views.js';

export interface AdminRoutesOptions {
  service: OperatorService;
  metrics: OperatorMetrics;
  /** See OperatorAppOptions.adminToken. */
  adminToken: string;
  staffLimits: StaffLimits;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: ((guard: StaffGuard) => void) | undefined;
}

/** Page cursors are row keys, which are signed 64-bit integers in every store. */
const CURSOR_MAX = 2n ** 63n - 1n;

const bodies = {
  createPlayer: compileBody(CreatePlayerRequest, (value) => [['balance', value.balance]]),
  launchKey: compileBody(CreateLaunchKeyRequest),
  adjustment: compileBody(AdjustmentRequest, (value) => [['amount', value.amount]]),
  block: compileBody(BlockRequest),
  createStaff: compileBody(CreateStaffRequest),
};
/** Read routes' options: every role may read. */
const READ = { config: { action: 'read' } } as const;
const auditQuery = compile(AuditQuery);

/** A page of the audit log from a query, or a problem sent. */
function auditPageOf(request: FastifyRequest, reply: FastifyReply): { limit: number; before?: number } | undefined {
  const checked = auditQuery.check({ ...(request.query as object) });
  if (!checked.ok) {
    sendRefusal(reply, checked);
    return undefined;
  }
  const limit = checked.value.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(checked.value.limit);
  if (limit < 1 || limit > AUDIT_PAGE_MAX) {
    sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${AUDIT_PAGE_MAX}`);
    return undefined;
  }
  return checked.value.cursor === undefined ? { limit } : { limit, before: Number(checked.value.cursor) };
}
const pageQuery = compile(PageQuery);
const playersQuery = compile(PlayersQuery);
const ggrQuery = compile(GgrQuery);
/** A GGR report without `from` covers this many days up to `to` (today by default), both included. */
const GGR_DAYS_DEFAULT = 30;

/** Epoch ms of a day's midnight (UTC), or undefined when the text is no calendar day (2026-02-30). */
function dayStart(day: string): number | undefined {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? undefined : ms;
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/**
 * Route parameters of the back office: a player it holds, by the id it was
 * stored under, which may be older than the rule new ids obey (docs/protocol.md
 * §5.4), so that such a player can still be read, adjusted and blocked.
 */
const playerParams = compile(Type.Object({ playerId: StoredPlayerId }));

function playerJson(player: PlayerView): string {
  return stringify(playerBody(player));
}

/** The back office's routes, every one behind the staff guard. */
export async function adminRoutes(admin: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  const { service, metrics, staffLimits, onGuard } = options;
  // Who calls and whether their role holds the route's action; the audit row of each state-changing call.
  const guard = installStaffGuard(admin, {
    adminToken: options.adminToken,
    findToken: async (tokenHash) => (await service.store.findStaffToken(tokenHash)) ?? undefined,
    appendAudit: (entry) => service.store.appendAudit(entry),
    clock: () => service.now(),
    limits: staffLimits,
  });
  onGuard?.(guard);

  // Every :playerId of the back office obeys StoredPlayerId, what ids always had to be: a
  // control character (U+0000 cannot even reach PostgreSQL) or an over-long id is the caller's
  // mistake, 400, never a storage failure. A hook, so that a new route cannot forget it.
  admin.addHook('onRequest', async (request, reply) => {
    const params = request.params as { playerId?: unknown };
    if (params.playerId === undefined) return;
    const checked = playerParams.check(params);
    if (!checked.ok) return sendRefusal(reply, checked);
  });

  function adminInput<T extends TSchema>(request: FastifyRequest, reply: FastifyReply, body: BodyReader<T>): Static<T> | undefined {
    const bytes = bodyBytes(request, reply);
    return bytes && readBody(reply, bytes, body);
  }

  function pageOf(request: FastifyRequest, reply: FastifyReply): { limit: number; before?: bigint } | undefined {
    const checked = pageQuery.check({ ...(request.query as object) });
    if (!checked.ok) {
      sendRefusal(reply, checked);
      return undefined;
    }
    const limit = checked.value.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > PAGE_LIMIT_MAX) {
      sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAGE_LIMIT_MAX}`);
      return undefined;
    }
    if (checked.value.cursor === undefined) return { limit };
    const before = BigInt(checked.value.cursor);
    // A cursor is a row key: a larger one is the caller's mistake, not a storage failure.
    if (before > CURSOR_MAX) {
      sendProblem(reply, 'INVALID_REQUEST', 'cursor: must be a nextCursor from a previous page');
      return undefined;
    }
    return { limit, before };
  }

  admin.post('/players', { config: { action: 'players.manage' } }, async (request, reply) => {
    const input = adminInput(request, reply, bodies.createPlayer);
    if (!input) return reply;
    const opening = decimalFromNumber(input.balance);
    request.auditFacts = { target: `player=${input.playerId}`, amount: opening && decimalText(opening), currency: input.currency };
    // An opening balance is money: it takes money.move and the role's limit.
    if (opening && opening.units > 0n && !guard.moneyAllowed(request, reply, input.currency, opening)) return reply;
    if (input.country !== undefined && !isCountryCode(input.country)) {
      return sendProblem(reply, 'INVALID_REQUEST', `country: ${input.country} is not an assigned ISO 3166-1 alpha-2 code`);
    }
    const outcome = await service.createPlayer(input, guard.auditEntry(request, 201));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 201, playerJson(outcome));
  });

  admin.get('/players', READ, async (request, reply) => {
    const checked = playersQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const query = checked.value;
    const limit = query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
    if (limit < 1 || limit > PAGE_LIMIT_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAGE_LIMIT_MAX}`);
    const page = await service.listPlayers({
      limit,
      after: query.cursor,
      currency: query.currency,
      blocked: query.blocked === undefined ? undefined : query.blocked === 'true',
      prefix: query.prefix,
    });
    return sendJson(reply, 200, stringify(playersBody(page)));
  });

  admin.get('/ggr', READ, async (request, reply) => {
    const checked = ggrQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const today = Math.floor(service.now() / DAY_MS) * DAY_MS;
    const to = checked.value.to === undefined ? today : dayStart(checked.value.to);
    if (to === undefined) return sendProblem(reply, 'INVALID_REQUEST', `to: ${checked.value.to} is not a day of the calendar`);
    const from = checked.value.from === undefined ? to - (GGR_DAYS_DEFAULT - 1) * DAY_MS : dayStart(checked.value.from);
    if (from === undefined) return sendProblem(reply, 'INVALID_REQUEST', `from: ${checked.value.from} is not a day of the calendar`);
    if (from > to) return sendProblem(reply, 'INVALID_REQUEST', `from: ${dayText(from)} is after to: ${dayText(to)}`);
    if ((to - from) / DAY_MS + 1 > GGR_DAYS_MAX) {
      return sendProblem(reply, 'INVALID_REQUEST', `from..to: at most ${GGR_DAYS_MAX} days, got ${(to - from) / DAY_MS + 1}`);
    }
    const report = await service.ggr(from, to);
    return sendJson(reply, 200, stringify(ggrBody(report, dayText(from), dayText(to))));
  });

  admin.get('/players/:playerId', READ, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const outcome = await service.getPlayer(playerId);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, playerJson(outcome));
  });

  admin.post('/launch-keys', { config: { action: 'launch-keys.create' } }, async (request, reply) => {
    const input = adminInput(request, reply, bodies.launchKey);
    if (!input) return reply;
    // The key itself is a credential: the audit names the player and game, never the key.
    request.auditFacts = { target: `player=${input.playerId} game=${input.game}` };
    const outcome = await service.createLaunchKey(input.playerId, input.game, guard.auditEntry(request, 201));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 201, stringify(launchKeyBody(outcome)));
  });

  admin.post('/players/:playerId/adjustments', { config: { action: 'money.move' } }, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const input = adminInput(request, reply, bodies.adjustment);
    if (!input) return reply;
    const amount = decimalFromNumber(input.amount);
    request.auditFacts = { target: `player=${playerId} ${input.type}=${input.id}`, amount: amount && decimalText(amount) };
    // The limit is per currency, and an adjustment names none: the player's, which never changes, is read first.
    const player = await service.getPlayer(playerId);
    if (!player.ok) return sendRefusal(reply, player);
    request.auditFacts.currency = player.currency;
    if (amount && !guard.moneyAllowed(request, reply, player.currency, amount)) return reply;
    const outcome = await service.adjust(playerId, input, guard.auditEntry(request, 200));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    metrics.observeBooked(outcome.currency, outcome.booked);
    return sendJson(reply, 200, stringify(adjustmentBody(input.id, outcome.balance)));
  });

  for (const [path, blocked] of [['block', true], ['unblock', false]] as const) {
    admin.post(`/players/:playerId/${path}`, { config: { action: 'players.manage' } }, async (request, reply) => {
      const { playerId } = request.params as { playerId: string };
      request.auditFacts = { target: `player=${playerId}` };
      // The body is optional here: a reason, when given.
      let reason: string | undefined;
      if (request.body !== undefined) {
        const input = adminInput(request, reply, bodies.block);
        if (!input) return reply;
        reason = input.reason;
      }
      const outcome = await service.setBlocked(playerId, blocked, reason, guard.auditEntry(request, 200));
      if (!outcome.ok) return sendRefusal(reply, outcome);
      request.audited = true;
      return sendJson(reply, 200, playerJson(outcome));
    });
  }

  admin.get('/players/:playerId/rounds', READ, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const page = pageOf(request, reply);
    if (!page) return reply;
    const outcome = await service.listRounds(playerId, page.limit, page.before);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, stringify(roundsBody(outcome)));
  });

  admin.get('/players/:playerId/transactions', READ, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const page = pageOf(request, reply);
    if (!page) return reply;
    const outcome = await service.listTransfers(playerId, page.limit, page.before);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, stringify(transfersBody(outcome)));
  });

  admin.get('/verify', READ, async (_request, reply) => {
    const report = await service.verify();
    return sendJson(reply, 200, JSON.stringify(report));
  });

  // ------------------------------------------------- staff and audit

  admin.get('/staff', { config: { action: 'staff.manage' } }, async (_request, reply) => {
    return sendJson(reply, 200, stringify({ items: await service.listStaff() }));
  });

  admin.post('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
    const input = adminInput(request, reply, bodies.createStaff);
    if (!input) return reply;
    request.auditFacts = { target: `staff=${input.name}` };
    const refused = checkStaffName(input.name);
    if (refused) return sendProblem(reply, 'INVALID_REQUEST', refused);
    if (input.operators !== undefined) return sendProblem(reply, 'INVALID_REQUEST', 'operators: the operator\'s staff have no scope (a provider\'s do)');
    const outcome = await service.addStaff(input.name, input.role, input.expiresDays, guard.auditEntry(request, 201));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 201, stringify({ ...outcome.staff, token: outcome.token }));
  });

  admin.post('/staff/:nameOrTokenId/revoke', { config: { action: 'staff.manage' } }, async (request, reply) => {
    const { nameOrTokenId } = request.params as { nameOrTokenId: string };
    request.auditFacts = { target: `staff=${nameOrTokenId}` };
    const outcome = await service.revokeStaff(nameOrTokenId, guard.auditEntry(request, 200));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 200, stringify({ name: outcome.name, revokedTokenIds: outcome.tokenIds }));
  });

  admin.get('/audit', { config: { action: 'audit.read' } }, async (request, reply) => {
    const page = auditPageOf(request, reply);
    if (!page) return reply;
    return sendJson(reply, 200, stringify(await service.listAudit(page.limit, page.before)));
  });
}
