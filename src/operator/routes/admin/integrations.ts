/**
 * The back office's integrations (docs/operator.md, Integrations): listed,
 * added, rotated, paused, resumed, switched off, changed and removed, each
 * by the admin role only, through the use-cases the CLI shares
 * (integration-admin.ts). A change reloads this node's registry at once;
 * every other node follows within its poll.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CreateIntegrationRequest, IntegrationStateRequest, RotateIntegrationRequest, UpdateIntegrationRequest } from '../../../access/integration-schemas.js';
import { sendJson, sendRefusal } from '../../../http/json-api.js';
import type { Refusal } from '../../../protocol/errors.js';
import { stringify } from '../../../protocol/json.js';
import { compileBody } from '../../../protocol/validate.js';
import { IntegrationAdmin, type IntegrationMade } from '../../integration-admin.js';
import type { IntegrationRegistry } from '../../integration-registry.js';
import { adminInput, type AdminContext } from './admin-context.js';

const bodies = {
  create: compileBody(CreateIntegrationRequest),
  update: compileBody(UpdateIntegrationRequest),
  state: compileBody(IntegrationStateRequest),
  rotate: compileBody(RotateIntegrationRequest),
};

const ACTION = { config: { action: 'integrations.manage' } } as const;

/** GET and POST /integrations, PATCH and DELETE /integrations/:id, POST /integrations/:id/state and /rotate. */
export function integrationRoutes(admin: FastifyInstance, context: AdminContext & { integrations: IntegrationRegistry }): void {
  const { service, guard, integrations } = context;
  const admins = new IntegrationAdmin(
    service.store,
    integrations.keyring,
    () => service.now(),
    undefined,
    () => integrations.reload(),
  );

  function answer(reply: FastifyReply, status: number, outcome: IntegrationMade | Refusal, audited: () => void): FastifyReply {
    if (!outcome.ok) return sendRefusal(reply, outcome);
    audited();
    const { ok: _ok, integration, ...made } = outcome;
    return sendJson(reply, status, stringify({ ...integration, ...made }));
  }

  admin.get('/integrations', ACTION, async (_request, reply) => {
    // Read again first, so that a change made by the CLI or another node shows without waiting for the poll.
    await integrations.refresh();
    return sendJson(reply, 200, stringify({ items: integrations.views() }));
  });

  admin.post('/integrations', ACTION, async (request, reply) => {
    const input = adminInput(request, reply, bodies.create);
    if (!input) return reply;
    request.auditFacts = { target: `integration=${input.id}` };
    const outcome = await admins.add(input, guard.auditEntry(request, 201));
    return answer(reply, 201, outcome, () => (request.audited = true));
  });

  admin.patch('/integrations/:id', ACTION, async (request, reply) => {
    const { id } = request.params as { id: string };
    request.auditFacts = { target: `integration=${id}` };
    const input = adminInput(request, reply, bodies.update);
    if (!input) return reply;
    return answer(reply, 200, await admins.set(id, input, guard.auditEntry(request, 200)), () => (request.audited = true));
  });

  admin.post('/integrations/:id/state', ACTION, async (request, reply) => {
    const { id } = request.params as { id: string };
    request.auditFacts = { target: `integration=${id}` };
    const input = adminInput(request, reply, bodies.state);
    if (!input) return reply;
    return answer(reply, 200, await admins.setState(id, input.state, guard.auditEntry(request, 200)), () => (request.audited = true));
  });

  admin.post('/integrations/:id/rotate', ACTION, async (request, reply) => {
    const { id } = request.params as { id: string };
    request.auditFacts = { target: `integration=${id}` };
    const input = adminInput(request, reply, bodies.rotate);
    if (!input) return reply;
    const step = input.step === 'finish' ? { step: 'finish' as const } : { step: 'begin' as const, secret: input.secret ?? true, token: input.token ?? true };
    return answer(reply, 200, await admins.rotate(id, step, guard.auditEntry(request, 200)), () => (request.audited = true));
  });

  admin.delete('/integrations/:id', ACTION, async (request, reply) => {
    const { id } = request.params as { id: string };
    request.auditFacts = { target: `integration=${id}` };
    const outcome = await admins.remove(id, guard.auditEntry(request, 200));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 200, stringify({ removed: outcome.id }));
  });
}
