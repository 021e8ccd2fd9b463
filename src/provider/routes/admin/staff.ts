/**
 * The back office's staff accounts (listed, made with a token, revoked) and
 * its audit log. Staff are managed by unscoped admins only: an account
 * scoped to some operators could otherwise make one that sees them all. A
 * scoped admin reads the audit rows of its operators only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from '../../../access/staff.js';
import { AuditQuery, CreateStaffRequest } from '../../../access/staff-schemas.js';
import { checkStaffName, newStaffToken, tokenExpiresAt } from '../../../access/staff-token.js';
import { bodyBytes, readBody, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import { sendJson } from '../send-json.js';
import type { AdminContext } from './admin-context.js';

const createStaffBody = compileBody(CreateStaffRequest);
const auditQuery = compile(AuditQuery);
const STAFF_MANAGE = { config: { action: 'staff.manage' } } as const;

/** GET /staff, POST /staff, POST /staff/:nameOrTokenId/revoke and GET /audit. */
export function staffRoutes(admin: FastifyInstance, { store, world, guard, operatorsById, scopeOf }: AdminContext): void {
  /** True for an unscoped caller; otherwise the 403 is sent. */
  const unscoped = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (scopeOf(request) === null) return true;
    sendProblem(reply, 'FORBIDDEN', `staff.manage: takes an admin of every operator; ${request.staff!.name} is scoped`);
    return false;
  };

  admin.get('/staff', STAFF_MANAGE, async (request, reply) => {
    if (!unscoped(request, reply)) return reply;
    return sendJson(reply, 200, stringify({ items: await store.listStaff() }));
  });

  admin.post('/staff', STAFF_MANAGE, async (request, reply) => {
    if (!unscoped(request, reply)) return reply;
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, createStaffBody);
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

  admin.post('/staff/:nameOrTokenId/revoke', STAFF_MANAGE, async (request, reply) => {
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
}
