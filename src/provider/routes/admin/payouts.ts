/**
 * The back office's tournament payouts: one written with its /payout
 * request for the outbox (idempotent by payout id), and read one by one
 * or a page at a time, within the staff account's scope.
 */
import type { FastifyInstance } from 'fastify';
import { bodyBytes, readBody, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { amountToMinor, decimalFromNumber, decimalFromString, displayMinor, formatMinor } from '../../../protocol/money.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import type { Catalog } from '../../catalog.js';
import { derivedPayoutId } from '../../payout-id.js';
import { PayoutRequest, PayoutsQuery } from '../../provider-schemas.js';
import type { PayoutRow } from '../../store/provider-store.js';
import { sendJson } from '../send-json.js';
import { READ, type AdminContext } from './admin-context.js';
import { payoutItem } from './items.js';
import { ROUNDS_PAGE_DEFAULT } from './rounds.js';

/** Admin pages of payouts: the rounds' default, at most this many. */
const PAYOUTS_PAGE_MAX = 500;
const payoutBody = compileBody(PayoutRequest, (value) => [['amount', typeof value.amount === 'number' ? value.amount : undefined]]);
const payoutsQuery = compile(PayoutsQuery);

/** POST /payouts. */
export function payoutRoutes(admin: FastifyInstance, context: AdminContext): void {
  const { store, catalog, world, guard, operatorsById, inScope, outOfScope } = context;
  admin.post('/payouts', { config: { action: 'money.move' } }, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, payoutBody);
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
    const written = await store.createPayout(
      {
        payoutId,
        operatorId: input.operatorId,
        playerId: input.playerId,
        currency: input.currency,
        amountMinor,
        campaignId,
        createdAt: world.clock(),
      },
      (kind) => guard.auditEntry(request, kind === 'created' ? 202 : 200),
    );
    if (!written.ok) return sendRefusal(reply, written);
    if (written.kind !== 'conflict') request.audited = true;
    if (written.kind === 'conflict') {
      return sendProblem(reply, 'DUPLICATE_CONFLICT', `payout ${payoutId} exists with other content (${describePayout(catalog, written.payout)})`);
    }
    await store.durable();
    // Sent only once durable: the dispatcher claims nothing a power cut could take back.
    if (written.kind === 'created') context.delivery?.poke();
    const payout = (await store.payout(payoutId))!;
    reply.header('location', `/admin/payouts/${payoutId}`);
    return sendJson(reply, written.kind === 'created' ? 202 : 200, stringify(payoutItem(payout, decimals)));
  });
}

/** GET /payouts/:payoutId and GET /payouts. */
export function payoutReadRoutes(admin: FastifyInstance, { store, catalog, inScope, scopeOf }: AdminContext): void {
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
}

/** What a stored payout holds, for the detail of a conflict with it. */
function describePayout(catalog: Pick<Catalog, 'decimals'>, payout: PayoutRow): string {
  const decimals = catalog.decimals(payout.currency) ?? 0;
  return `operator ${payout.operatorId}, player ${payout.playerId}, ${formatMinor(payout.amountMinor, decimals)} ${payout.currency}, campaign ${payout.campaignId}`;
}
