/**
 * The back office's books: a player's adjustment (money, held to the
 * role's limit), a player's rounds and transfers a page at a time, and the
 * verify of the whole ledger.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decimalText } from '../../../access/limits.js';
import { sendJson, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { decimalFromNumber } from '../../../protocol/money.js';
import { AdjustmentRequest, PageQuery } from '../../../protocol/schemas.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../../stores/store.js';
import { adjustmentBody, roundsBody, transfersBody } from '../../operator-views.js';
import { adminInput, READ, type AdminContext } from './admin-context.js';

/** Page cursors are row keys, which are signed 64-bit integers in every store. */
const CURSOR_MAX = 2n ** 63n - 1n;
const adjustmentReader = compileBody(AdjustmentRequest, (value) => [['amount', value.amount]]);
const pageQuery = compile(PageQuery);

/** A page of a player's rounds or transfers from a query, or a problem sent. */
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

/** POST /players/:playerId/adjustments, GET /players/:playerId/rounds and /transactions, GET /verify. */
export function bookRoutes(admin: FastifyInstance, { service, metrics, guard }: AdminContext): void {
  admin.post('/players/:playerId/adjustments', { config: { action: 'money.move' } }, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const input = adminInput(request, reply, adjustmentReader);
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
}
