/** The back office's GGR report: the gross gaming revenue per UTC day, game and currency, over whole days. */
import type { FastifyInstance } from 'fastify';
import { sendJson, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { GgrQuery } from '../../../protocol/schemas.js';
import { compile } from '../../../protocol/validate.js';
import { DAY_MS, GGR_DAYS_MAX } from '../../../stores/store.js';
import { ggrBody } from '../../operator-views.js';
import { READ, type AdminContext } from './admin-context.js';

const ggrQuery = compile(GgrQuery);
/** A GGR report without `from` covers this many days up to `to` (today by default), both included. */
const GGR_DAYS_DEFAULT = 30;

/** Epoch ms of a day's midnight (UTC), or undefined when the text is no calendar day (2026-02-30). */
function dayStart(day: string): number | undefined {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? undefined : ms;
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** GET /ggr. */
export function ggrRoutes(admin: FastifyInstance, { service }: AdminContext): void {
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
    const report = await service.ggr(from, to, checked.value.integration);
    return sendJson(reply, 200, stringify(ggrBody(report, dayText(from), dayText(to))));
  });
}
