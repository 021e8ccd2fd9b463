/**
 * The back office's staff accounts (listed, made with a token, revoked) and
 * its audit log. The operator's staff have no scope: every account sees the
 * whole casino, as its role allows.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '../../../access/staff.js';
import { AuditQuery, CreateStaffRequest } from '../../../access/staff-schemas.js';
import { checkStaffName } from '../../../access/staff-token.js';
import { sendJson, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import { adminInput, type AdminContext } from './admin-context.js';

const createStaffBody = compileBody(CreateStaffRequest);
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

/** GET /staff, POST /staff, POST /staff/:nameOrTokenId/revoke and GET /audit. */
export function staffRoutes(admin: FastifyInstance, { service, guard }: AdminContext): void {
  admin.get('/staff', { config: { action: 'staff.manage' } }, async (_request, reply) => {
    return sendJson(reply, 200, stringify({ items: await service.listStaff() }));
  });

  admin.post('/staff', { config: { action: 'staff.manage' } }, async (request, reply) => {
    const input = adminInput(request, reply, createStaffBody);
    if (!input) return reply;
    request.auditFacts = { target: `staff=${input.name}` };
    const refused = checkStaffName(input.name);
    if (refused) return sendProblem(reply, 'INVALID_REQUEST', refused);
    if (input.operators !== undefined) return sendProblem(reply, 'INVALID_REQUEST', "operators: the operator's staff have no scope (a provider's do)");
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
