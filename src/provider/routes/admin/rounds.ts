/** The back office's list of rounds, newest first, within the staff account's scope. */
import type { FastifyInstance } from 'fastify';
import { sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { PageQuery } from '../../../protocol/schemas.js';
import { compile } from '../../../protocol/validate.js';
import { sendJson } from '../send-json.js';
import { READ, type AdminContext } from './admin-context.js';
import { roundItem } from './items.js';

/** Admin listing pages hold at most this many rounds. */
const ROUNDS_PAGE_MAX = 500;
/** A page's rounds when the query names no limit; the payouts' and the outbox's pages take it too. */
export const ROUNDS_PAGE_DEFAULT = 50;
const pageQuery = compile(PageQuery);

/** GET /rounds. */
export function roundRoutes(admin: FastifyInstance, { store, catalog, scopeOf }: AdminContext): void {
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
}
