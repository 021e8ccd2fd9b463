/**
 * The back office's outbox: its items listed, within the staff account's
 * scope, and one retried now or resolved by hand (a reference of how it
 * was settled), each with its audit row in the same database transaction.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LIST_MAX, type OutboxItem } from '../../../dispatch/outbox.js';
import { bodyBytes, readBody, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import { OutboxQuery, OutboxResolveRequest } from '../../provider-schemas.js';
import { sendJson } from '../send-json.js';
import { READ, type AdminContext } from './admin-context.js';
import { outboxItemView, stateDetail } from './items.js';
import { ROUNDS_PAGE_DEFAULT } from './rounds.js';

/** Admin pages of outbox items: the rounds' default; at most the outbox's own listing cap. */
const OUTBOX_PAGE_MAX = LIST_MAX;
/** An outbox item's id in a path: a positive integer. */
const ITEM_ID_PATTERN = /^[1-9][0-9]{0,14}$/;
const resolveBody = compileBody(OutboxResolveRequest);
const outboxQuery = compile(OutboxQuery);

/** GET /outbox, POST /outbox/:id/retry and POST /outbox/:id/resolve. */
export function outboxRoutes(admin: FastifyInstance, context: AdminContext): void {
  const { store, world, guard, inScope, outOfScope, scopeOf } = context;
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

  admin.post('/outbox/:id/retry', { config: { action: 'outbox.retry' } }, async (request, reply) => {
    const item = await itemOf(context, request, reply, (request.params as { id: string }).id);
    if (!item) return reply;
    const now = world.clock();
    // The retry and its audit row commit together; a refusal's row is the guard's.
    if (!(await store.outbox.retryNow(item.id, now, guard.auditEntry(request, 200)))) {
      return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'retry', now));
    }
    request.audited = true;
    await store.durable();
    context.delivery?.poke();
    return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
  });

  admin.post('/outbox/:id/resolve', { config: { action: 'outbox.resolve' } }, async (request, reply) => {
    const item = await itemOf(context, request, reply, (request.params as { id: string }).id);
    if (!item) return reply;
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, resolveBody);
    if (!input) return reply;
    const now = world.clock();
    // The resolve (and the round or payout it settles) and its audit row commit together; a refusal's row is the guard's.
    if (!(await store.outbox.resolve(item.id, input.reference.trim(), now, guard.auditEntry(request, 200)))) {
      return sendProblem(reply, 'STATE_CONFLICT', stateDetail((await store.outbox.item(item.id))!, 'resolve', now));
    }
    request.audited = true;
    await store.durable();
    // A key's later items wait for this one: they may go now.
    context.delivery?.poke();
    return sendJson(reply, 200, stringify(outboxItemView((await store.outbox.item(item.id))!, now, false)));
  });
}

/** The item of a path's id, or a problem sent. */
async function itemOf({ store, inScope }: AdminContext, request: FastifyRequest, reply: FastifyReply, id: string): Promise<OutboxItem | undefined> {
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
}
