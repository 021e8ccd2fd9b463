/**
 * The admin API of integrations (/admin/integrations) as schemas: one
 * definition gives the validator of each body, its type and its OpenAPI
 * paths (integrationOpenApiPaths). What an answer shows is
 * access/integrations.ts's IntegrationView: never a secret, a sealed secret
 * or a token's hash; a new secret or token is answered once, by the call
 * that made it.
 */
import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../protocol/errors.js';
import { body, ok, problems } from '../protocol/openapi-parts.js';
import { INTEGRATION_ID_TEXT } from '../protocol/schemas.js';
import { INTEGRATION_NAME_LENGTH_MAX, INTEGRATION_RANGES_MAX, INTEGRATION_STATES, PROVIDER_URL_LENGTH_MAX } from './integrations.js';

const Ranges = Type.Array(Type.String({ maxLength: 64 }), { maxItems: INTEGRATION_RANGES_MAX, description: 'IPv4/IPv6 addresses or CIDR ranges; empty: any' });
const ProviderUrl = Type.Union([Type.String({ maxLength: PROVIDER_URL_LENGTH_MAX }), Type.Null()], {
  description: "The studio's provider endpoint (/generate-launch-url, /game-bets); null: none",
});

const Name = Type.String({ minLength: 1, maxLength: INTEGRATION_NAME_LENGTH_MAX });

export const CreateIntegrationRequest = Type.Object(
  { id: Type.String({ pattern: INTEGRATION_ID_TEXT }), name: Name, ranges: Type.Optional(Ranges), providerUrl: Type.Optional(ProviderUrl) },
  { additionalProperties: false },
);

export const UpdateIntegrationRequest = Type.Object(
  { name: Type.Optional(Name), ranges: Type.Optional(Ranges), providerUrl: Type.Optional(ProviderUrl) },
  { additionalProperties: false },
);

export const IntegrationStateRequest = Type.Object(
  { state: Type.Union(INTEGRATION_STATES.map((state) => Type.Literal(state))) },
  { additionalProperties: false },
);

export const RotateIntegrationRequest = Type.Object(
  {
    step: Type.Union([Type.Literal('begin'), Type.Literal('finish')], {
      description: 'begin: a next secret and/or a new token, shown once; finish: the next secret becomes current, older tokens are dropped',
    }),
    secret: Type.Optional(Type.Boolean({ description: 'begin: make a next secret (default true)' })),
    token: Type.Optional(Type.Boolean({ description: 'begin: make a new token (default true)' })),
  },
  { additionalProperties: false },
);

const IntegrationItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.Union(INTEGRATION_STATES.map((state) => Type.Literal(state))),
  source: Type.Union([Type.Literal('environment'), Type.Literal('stored')]),
  tokens: Type.Integer(),
  rotating: Type.Boolean(),
  ranges: Type.Array(Type.String()),
  providerUrl: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Union([Type.Integer(), Type.Null()]),
  updatedAt: Type.Union([Type.Integer(), Type.Null()]),
  revision: Type.Union([Type.Integer(), Type.Null()]),
});

const IntegrationMade = Type.Intersect([
  IntegrationItem,
  Type.Object({ secret: Type.Optional(Type.String()), secretNext: Type.Optional(Type.String()), token: Type.Optional(Type.String()) }),
]);

const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: INTEGRATION_ID_TEXT } }];

/** `admin`: the back office's security requirement; `codes`: the problems every admin route may answer. */
export function integrationOpenApiPaths(admin: readonly Record<string, never[]>[], codes: readonly ErrorCode[]) {
  const changed = problems([...codes, 'INTEGRATION_NOT_FOUND', 'STATE_CONFLICT']);
  return {
    '/admin/integrations': {
      get: {
        summary: "The integrations, the environment's `default` first, never a secret or a token (admin role).",
        security: admin,
        responses: { ...ok('200', 'Every integration', Type.Object({ items: Type.Array(IntegrationItem) })), ...problems(codes) },
      },
      post: {
        summary: 'Add an integration; its secret and first token are answered once (admin role; needs WAGERLINK_INTEGRATION_KEYS).',
        security: admin,
        requestBody: body(CreateIntegrationRequest),
        responses: { ...ok('201', 'The integration, its secret and token', IntegrationMade), ...problems([...codes, 'INTEGRATION_EXISTS', 'STATE_CONFLICT']) },
      },
    },
    '/admin/integrations/{id}': {
      patch: {
        summary: "Change an integration's name, caller ranges or provider endpoint (admin role).",
        security: admin,
        parameters: idParameter,
        requestBody: body(UpdateIntegrationRequest),
        responses: { ...ok('200', 'The integration', IntegrationItem), ...changed },
      },
      delete: {
        summary: 'Remove an integration: its tokens are refused on every node within the poll (admin role).',
        security: admin,
        parameters: idParameter,
        responses: { ...ok('200', 'What was removed', Type.Object({ removed: Type.String() })), ...problems([...codes, 'INTEGRATION_NOT_FOUND']) },
      },
    },
    '/admin/integrations/{id}/state': {
      post: {
        summary: 'Make an integration active, pause its bets (wins and payouts still booked), or switch it off (admin role).',
        security: admin,
        parameters: idParameter,
        requestBody: body(IntegrationStateRequest),
        responses: { ...ok('200', 'The integration', IntegrationItem), ...changed },
      },
    },
    '/admin/integrations/{id}/rotate': {
      post: {
        summary: 'Begin a rotation (a next secret and/or a new token, answered once) or finish it (admin role).',
        security: admin,
        parameters: idParameter,
        requestBody: body(RotateIntegrationRequest),
        responses: { ...ok('200', 'The integration, and what the rotation made', IntegrationMade), ...changed },
      },
    },
  };
}
