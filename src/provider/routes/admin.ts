/**
 * The provider's back office, as one Fastify plugin registered under
 * /admin: free-bet campaigns, tournament payouts, the outbox's items
 * (retried or resolved by hand), the rounds, and the staff and audit log.
 * Every route declares its action (src/access/roles.ts); the staff guard
 * (src/http/staff-guard.ts) is installed in this plugin's own context, so
 * its hooks judge these routes and no other. Reads are filtered to the
 * staff account's operators; an operator outside them is refused or not
 * found, so that nothing leaks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '../../access/staff.js';
import { AuditQuery, CreateStaffRequest } from '../../access/staff-schemas.js';
import { checkStaffName, newStaffToken, tokenExpiresAt } from '../../access/staff-token.js';
import { LIST_MAX, type OutboxItem } from '../../dispatch/outbox.js';
import { bodyBytes, readBody, sendProblem, sendRefusal } from '../../http/json-api.js';
import { installStaffGuard, type StaffGuard } from '../../http/staff-guard.js';
import { raw, stringify } from '../../protocol/json.js';
import { amountToMinor, decimalFromNumber, decimalFromString, displayMinor, formatMinor, toMinor } from '../../protocol/money.js';
import { PageQuery } from '../../protocol/schemas.js';
import { compile, compileBody } from '../../protocol/validate.js';
import { noLadderDetail, offLadderDetail, type Catalog } from '../catalog.js';
import type { ProviderWorld, RoundDelivery } from '../game-service.js';
import { addressSet, callerAddress } from '../ip-whitelist.js';
import { derivedPayoutId } from '../payout-id.js';
import type { GameSettings, OperatorSettings, ProviderConfig } from '../provider-config.js';
import { CampaignRequest, OutboxQuery, OutboxResolveRequest, PayoutRequest, PayoutsQuery } from '../provider-schemas.js';
import type { CampaignRow, PayoutRow, ProviderStore } from '../store/provider-store.js';
import { outboxItemView, payoutItem, roundItem, stateDetail } from './admin-items.js';
import { sendJson } from './send-json.js';

export interface AdminRoutesOptions {
  config: ProviderConfig & { adminToken: string };
  store: ProviderStore;
  catalog: Catalog<GameSettings>;
  /** The clock of campaigns and payouts, and the randomness of staff tokens. */
  world: ProviderWorld;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: (guard: StaffGuard) => void;
  /** The outbox's dispatcher, woken once a payout or a retried item is durable (round-delivery.ts). */
  delivery?: RoundDelivery;
}

/** Admin listing pages hold at most this many rounds. */
const ROUNDS_PAGE_MAX = 500;
const ROUNDS_PAGE_DEFAULT = 50;
/** Admin pages of payouts and outbox items: the rounds' default; at most the outbox's own listing cap. */
const PAYOUTS_PAGE_MAX = 500;
const OUTBOX_PAGE_MAX = LIST_MAX;

const bodies = {
  campaign: compileBody(CampaignRequest, (value) => [['betAmount', typeof value.betAmount === 'number' ? value.betAmount : undefined]]),
  payout: compileBody(PayoutRequest, (value) => [['amount', typeof value.amount === 'number' ? value.amount : undefined]]),
  resolve: compileBody(OutboxResolveRequest),
  createStaff: compileBody(CreateStaffRequest),
};
/** Read routes' options: every role may read (within its scope). */
const READ = { config: { action: 'read' } } as const;
const auditQuery = compile(AuditQuery);
const pageQuery = compile(PageQuery);
const payoutsQuery = compile(PayoutsQuery);
const outboxQuery = compile(OutboxQuery);

/** An outbox item's id in a path: a positive integer. */
const ITEM_ID_PATTERN = /^[1-9][0-9]{0,14}$/;

/** The back office's routes, every one behind the staff guard. */
export async function adminRoutes(admin: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  const { config, store, catalog, world } = options;
  const operatorsById: ReadonlyMap<string, OperatorSettings> = new Map(config.operators.map((settings) => [settings.operatorId, settings]));
  /** Every operator's trusted proxies: the back office's caller is judged as the IP whitelists judge one. */
  const trustedProxies = addressSet(config.operators.flatMap((settings) => settings.trustedProxies));

  // Who calls and whether their role holds the route's action; the audit row of each state-changing call.
  const guard = installStaffGuard(admin, {
    adminToken: config.adminToken,
    findToken: (tokenHash) => store.findStaffToken(tokenHash),
    appendAudit: async (entry) => {
      await store.appendAudit(entry);
      await store.durable();
    },
    clock: world.clock,
    // The address the IP whitelists judge: through trusted proxies, as configured for any operator.
    address: (request) => (callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxies) ?? request.ip).toString(),
    limits: config.staffLimits,
  });
  options.onGuard?.(guard);
  /** The operators the caller may see and act on; null is all. */
  const scopeOf = (request: FastifyRequest) => request.staff!.operators;
  const inScope = (request: FastifyRequest, operatorId: string) => {
    const scope = scopeOf(request);
    return scope === null || scope.includes(operatorId);
  };
  /** An operator the caller named outside their scope: 403, whether or not it is configured, so that nothing leaks. */
  const outOfScope = (request: FastifyRequest, reply: FastifyReply, operatorId: string) =>
    sendProblem(reply, 'FORBIDDEN', `operator ${operatorId} is outside ${request.staff!.name}'s scope`);

  admin.post('/campaigns', { config: { action: 'campaigns.manage' } }, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, bodies.campaign);
    if (!input) return reply;
    request.auditFacts = { target: `campaign=${input.id}`, operatorId: input.operatorId, currency: input.currency };
    if (!inScope(request, input.operatorId)) return outOfScope(request, reply, input.operatorId);
    const operator = operatorsById.get(input.operatorId);
    if (!operator) return sendProblem(reply, 'WALLET_NOT_FOUND', `operator ${input.operatorId} is not configured`);
    if (!catalog.game(input.game)) return sendProblem(reply, 'GAME_NOT_FOUND', `unknown game ${input.game}`);
    // A free round is a bet the player could have made: on the game's ladder in a currency the
    // operator offers. Another amount would be played (the dice quote any bet of one minor unit
    // or more), but as a bet the game does not offer: above its largest, or none of the amounts
    // /game-bets told the operator.
    const ladder = catalog.offeredLadder(input.game, input.currency, operator);
    if (!ladder) return sendProblem(reply, 'UNSUPPORTED_CURRENCY', noLadderDetail(input.game, input.currency, input.operatorId));
    const decimals = catalog.decimals(input.currency)!;
    const decimal = typeof input.betAmount === 'string' ? decimalFromString(input.betAmount) : decimalFromNumber(input.betAmount);
    const betMinor = decimal === undefined ? undefined : toMinor(decimal, decimals);
    if (betMinor === undefined || betMinor === 0n) {
      return sendProblem(reply, 'INVALID_REQUEST', `betAmount: must be greater than 0 with at most ${decimals} decimals`);
    }
    if (!ladder.includes(betMinor)) {
      return sendProblem(reply, 'INVALID_REQUEST', `betAmount: ${offLadderDetail(String(input.betAmount), input.game, input.currency, ladder, decimals)}`);
    }
    const campaignId = input.id.toLowerCase();
    const written = await store.putCampaign(
      {
        campaignId,
        operatorId: input.operatorId,
        game: input.game,
        currency: input.currency,
        betMinor,
        rounds: input.rounds,
        expiresAt: input.expiresAt === undefined ? null : Date.parse(input.expiresAt),
        createdAt: world.clock(),
      },
      [...new Set(input.players)],
      (kind) => guard.auditEntry(request, kind === 'created' ? 201 : 200),
    );
    if (written === 'conflict') return sendProblem(reply, 'DUPLICATE_CONFLICT', `campaign ${input.id} exists with other content`);
    request.audited = true;
    await store.durable();
    return sendJson(reply, written === 'created' ? 201 : 200, await campaignBody((await store.campaign(campaignId))!));
  });

  admin.get('/campaigns/:id', READ, async (request, reply) => {
    const { id } = request.params as { id: string };
    const campaign = await store.campaign(id.toLowerCase());
    // Another operator's campaign is not found: its existence is not the caller's to know.
    if (!campaign || !inScope(request, campaign.operatorId)) return sendProblem(reply, 'NOT_FOUND', `no campaign ${id}`);
    return sendJson(reply, 200, await campaignBody(campaign));
  });

  admin.post('/payouts', { config: { action: 'money.move' } }, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, bodies.payout);
    if (!input) return reply;
    request.auditFacts = { target: `player=${input.playerId} campaign=${input.campaignId}`, operatorId: input.operatorId, currency: input.currency };
    if (!inScope(request, input.operatorId)) return outOfScope(request, reply, input.operatorId);
    if (!operatorsById.has(input.operatorId)) return sendProblem(reply, 'WALLET_NOT_FOUND', `operator ${input.operatorId} is not configured`);
    const decimals = catalog.decimals(input.currency);
    if (decimals === undefined) return sendProblem(reply, 'INVALID_REQUEST', `currency: ${input.currency} is not a currency this provider knows`);
    const decimal = typeof input.amount === 'string' ? decimalFromString(input.amount) : decimalFromNumber(input.amount);
    const amountMinor = decimal === undefined ? 'too-many-decimals' : amountToMinor(decimal, decimals);
    if (amountMinor === 'too-large') return sendProblem(reply, 'INVALID_REQUEST', `amount: is over the largest amount ${input.currency} can book`);
    if (amountMinor === 'too-many-decimals' || amountMinor === 0n) {
      return sendProblem(reply, 'INVALID_REQUEST', `amount: must be greater than 0 with at most ${decimals} decimals for ${input.currency}`);
    }
    request.auditFacts.amount = displayMinor(amountMinor, decimals);
    if (!guard.moneyAllowed(request, reply, input.currency, decimal!)) return reply;
    const campaignId = input.campaignId.toLowerCase();
    const payoutId = input.payoutId?.toLowerCase() ?? derivedPayoutId(input.operatorId, campaignId, input.playerId);
    request.auditFacts.target = `player=${input.playerId} payout=${payoutId}`;
    const written = await store.createPayout({
      payoutId,
      operatorId: input.operatorId,
      playerId: input.playerId,
      currency: input.currency,
      amountMinor,
      campaignId,
      createdAt: world.clock(),
    }, (kind) => guard.auditEntry(request, kind === 'created' ? 202 : 200));
    if (!written.ok) return sendRefusal(reply, written);
    if (written.kind !== 'conflict') request.audited = true;
    if (written.kind === 'conflict') {
      return sendProblem(reply, 'DUPLICATE_CONFLICT', `payout ${payoutId} exists with other content (${describePayout(written.payout)})`);
    }
    await store.durable();
    // Sent only once durable: the dispatcher claims nothing a power cut could take back.
    if (written.kind === 'created') options.delivery?.poke();
    const payout = (await store.payout(payoutId))!;
    reply.header('location', `/admin/payouts/${payoutId}`);
    return sendJson(reply, written.kind === 'created' ? 202 : 200, stringify(payoutItem(payout, decimals)));
  });

  admin.get('/payouts/:payoutId', READ, async (request, reply) => {
    const { payoutId } = request.params as { payoutId: string };
    const payout = await store.payout(payoutId.toLowerCase());
    if (!payout || !inScope(request, payout.operatorId)) return sendProblem(reply, 'NOT_FOUND', `no payout ${payoutId}`);
    return sendJson(reply, 200, stringify(payoutItem(payout, catalog.decimals(payout.currency) ?? 0)));
  });

  admin.get('/payouts', READ, async (request, reply) => {
    const checked = payoutsQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > PAYOUTS_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAYOUTS_PAGE_MAX}`);
    const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
    if (before !== undefined && !Number.isSafeInteger(before)) return sendProblem(reply, 'INVALID_REQUEST', 'cursor: must be a nextCursor');
    const page = await store.listPayouts(limit, {
      ...(checked.value.status === undefined ? {} : { status: checked.value.status }),
      ...(before === undefined ? {} : { before }),
      operators: scopeOf(request),
    });
    const items = page.payouts.map((payout) => payoutItem(payout, catalog.decimals(payout.currency) ?? 0));
    const nextCursor = page.payouts.length === limit ? String(page.cursors[page.cursors.length - 1]) : null;
    return sendJson(reply, 200, stringify({ items, nextCursor }));
  });

  admin.get('/outbox', READ, async (request, reply) => {
    const checked = outboxQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const { status = 'pending', operatorId, after } = checked.value;
    if (operatorId !== undefined && !inScope(request, operatorId)) return outOfScope(request, reply, operatorId);
    const scope = scopeOf(request);
    const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > OUTBOX_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${OUTBOX_PAGE_MAX}`);
    const items = await store.outbox.list({
      status,
      limit,
      ...(operatorId === undefined ? {} : { operatorId }),
      ...(scope === null ? {} : { operatorIds: scope }),
      ...(after === undefined ? {} : { afterId: Number(after) }),
    });
    const now = world.clock();
    const withBody = checked.value.body === '1';
    const nextCursor = items.length === limit ? String(items[items.length - 1]!.id) : null;
    return sendJson(reply, 200, stringify({ items: items.map((item) => outboxItemView(item, now, withBody)), nextCursor }));
  });

  /** The item of a path's id, or a problem sent. */
  const itemOf = async (request: FastifyRequest, reply: FastifyReply, id: string): Promise<OutboxItem | undefined> => {
    request.auditFacts = { target: `outbox=${id}` };
    if (!ITEM_ID_PATTERN.test(id)) {
      sendProblem(reply, 'INVALID_REQUEST', `id: ${id} is not an outbox item id (a positive integer)`);
      return undefined;
    }
    const found = await store.outbox.item(Number(id));
    // Another operator's item is not found: its existence is not the caller's to know.
    const item = found && inScope(request, found.operatorId) ? found : undefined;
    if (!item) sendProblem(reply, 'NOT_FOUND', `no outbox item ${id}`);
    else request.auditFacts.operatorId = item.operatorId;
    return item;
  };

  admin.post('/outbox/:id/retry', { config: { action: 'outbox.retry' } }, async (request, reply) => {
    const item = await itemOf(request, reply, (request.params as { id: string }).id);
    if (!item) return reply;
    const now = world.clock();
    // The retry and its audit row commit together; a refusal's row is the guard's.
    if (!(await store.outbox.retryNow(item.id, now, guard.auditEntry(request, 200)))) {
      return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'retry', now));
    }
    request.audited = true;
    await store.durable();
    options.delivery?.poke();
    return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
  });

  admin.post('/outbox/:id/resolve', { config: { action: 'outbox.resolve' } }, async (request, reply) => {
    const item = await itemOf(request, reply, (request.params as { id: string }).id);
    if (!item) return reply;
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, bodies.resolve);
    if (!input) return reply;
    const now = world.clock();
    // The resolve (and the round or payout it settles) and its audit row commit together; a refusal's row is the guard's.
    if (!(await store.outbox.resolve(item.id, input.reference.trim(), now, guard.auditEntry(request, 200)))) {
      return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'resolve', now));
    }
    request.audited = true;
    await store.durable();
    // A key's later items wait for this one: they may go now.
    options.delivery?.poke();
    return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
  });

  admin.get('/rounds', READ, async (request, reply) => {
    const checked = pageQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const limit = checked.value.limit === undefined ? ROUNDS_PAGE_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > ROUNDS_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${ROUNDS_PAGE_MAX}`);
    const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
    if (before !== undefined && !Number.isSafeInteger(before)) return sendProblem(reply, 'INVALID_REQUEST', 'cursor: must be a nextCursor');
    const rounds = await store.listRounds(limit, before, scopeOf(request));
    const items = await Promise.all(
      rounds.map(async (round) => roundItem(round, catalog.decimals(round.currency) ?? 0, round.kind === 'reels' ? await store.roundCalls(round.pk) : [])),
    );
    const nextCursor = rounds.length === limit ? String(rounds[rounds.length - 1]!.pk) : null;
    return sendJson(reply, 200, stringify({ items, nextCursor }));
  });

  // ----------------------------------------------- staff and audit

  /**
   * Staff are managed by unscoped admins only: an account scoped to
   * some operators could otherwise make one that sees them all.
   */
  const unscoped = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (scopeOf(request) === null) return true;
    sendProblem(reply, 'FORBIDDEN', `staff.manage: takes an admin of every operator; ${request.staff!.name} is scoped`);
    return false;
  };

  admin.get('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
    if (!unscoped(request, reply)) return reply;
    return sendJson(reply, 200, stringify({ items: await store.listStaff() }));
  });

  admin.post('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
    if (!unscoped(request, reply)) return reply;
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, bodies.createStaff);
    if (!input) return reply;
    request.auditFacts = { target: `staff=${input.name}` };
    const refused = checkStaffName(input.name);
    if (refused) return sendProblem(reply, 'INVALID_REQUEST', refused);
    const unknown = (input.operators ?? []).find((operatorId) => !operatorsById.has(operatorId));
    if (unknown !== undefined) return sendProblem(reply, 'WALLET_NOT_FOUND', `operators: ${unknown} is not configured`);
    const made = newStaffToken(world.randomBytes);
    const now = world.clock();
    const outcome = await store.addStaff({
      name: input.name,
      role: input.role,
      operators: input.operators === undefined ? null : [...new Set(input.operators)],
      tokenId: made.tokenId,
      tokenHash: made.tokenHash,
      expiresAt: tokenExpiresAt(now, input.expiresDays),
      now,
      audit: { ...guard.auditEntry(request, 201), target: `staff=${input.name} token=${made.tokenId}` },
    });
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    await store.durable();
    return sendJson(reply, 201, stringify({ ...outcome.staff, token: made.token }));
  });

  admin.post('/staff/:nameOrTokenId/revoke', { config: { action: 'staff.manage' } }, async (request, reply) => {
    if (!unscoped(request, reply)) return reply;
    const { nameOrTokenId } = request.params as { nameOrTokenId: string };
    request.auditFacts = { target: `staff=${nameOrTokenId}` };
    const outcome = await store.revokeStaff({ nameOrTokenId, now: world.clock(), audit: guard.auditEntry(request, 200) });
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    await store.durable();
    return sendJson(reply, 200, stringify({ name: outcome.name, revokedTokenIds: outcome.tokenIds }));
  });

  admin.get('/audit', { config: { action: 'audit.read' } }, async (request, reply) => {
    const checked = auditQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const limit = checked.value.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(checked.value.limit);
    if (limit < 1 || limit > AUDIT_PAGE_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${AUDIT_PAGE_MAX}`);
    const before = checked.value.cursor === undefined ? undefined : Number(checked.value.cursor);
    // A scoped admin reads the rows of its operators only.
    return sendJson(reply, 200, stringify(await store.listAudit({ limit, before }, scopeOf(request))));
  });

  function describePayout(payout: PayoutRow): string {
    const decimals = catalog.decimals(payout.currency) ?? 0;
    return `operator ${payout.operatorId}, player ${payout.playerId}, ${formatMinor(payout.amountMinor, decimals)} ${payout.currency}, campaign ${payout.campaignId}`;
  }

  async function campaignBody(campaign: CampaignRow & { players: string[] }): Promise<string> {
    const decimals = catalog.decimals(campaign.currency) ?? 0;
    return stringify({
      id: campaign.campaignId,
      operatorId: campaign.operatorId,
      game: campaign.game,
      currency: campaign.currency,
      betAmount: raw(formatMinor(campaign.betMinor, decimals)),
      rounds: campaign.rounds,
      expiresAt: campaign.expiresAt === null ? null : new Date(campaign.expiresAt).toISOString(),
      players: await Promise.all(
        campaign.players.map(async (playerId) => ({
          playerId,
          roundsUsed: await store.campaignRoundsUsed(campaign.campaignId, campaign.operatorId, playerId),
        })),
      ),
    });
  }
}
