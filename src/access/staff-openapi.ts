/**
 * The staff and audit routes of both back offices as OpenAPI paths
 * (operator-openapi.ts and provider-openapi.ts include them), built from
 * the schemas that validate them.
 */
import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../protocol/errors.js';
import { body, ok, problems } from '../protocol/openapi-parts.js';
import { AuditPageResponse, CreateStaffRequest, StaffCreated, StaffItem, StaffRevoked } from './staff-schemas.js';

/** `admin`: the security requirement of the back office; `codes`: the problems every admin route may answer. */
export function staffOpenApiPaths(admin: readonly Record<string, never[]>[], codes: readonly ErrorCode[], side: 'operator' | 'provider') {
  const scoped = side === 'provider' ? ' An account scoped to operators may not (it could make one that sees them all).' : '';
  return {
    '/admin/staff': {
      get: {
        summary: `The staff accounts and their tokens, never the tokens themselves (admin role).${scoped}`,
        security: admin,
        responses: { ...ok('200', 'Every account', Type.Object({ items: Type.Array(StaffItem) })), ...problems(codes) },
      },
      post: {
        summary: `Add a staff account with a role${side === 'provider' ? ' and a scope of operators' : ''} and its first token, shown once (admin role).${scoped}`,
        security: admin,
        requestBody: body(CreateStaffRequest),
        responses: {
          ...ok('201', 'The account and its token', StaffCreated),
          ...problems([...codes, 'STAFF_EXISTS', ...(side === 'provider' ? (['WALLET_NOT_FOUND'] as const) : [])]),
        },
      },
    },
    '/admin/staff/{nameOrTokenId}/revoke': {
      post: {
        summary: `Revoke an account and every token of it, or one token by its id: refused at once on every node (admin role).${scoped}`,
        security: admin,
        parameters: [{ name: 'nameOrTokenId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { ...ok('200', 'What was revoked', StaffRevoked), ...problems([...codes, 'STAFF_NOT_FOUND']) },
      },
    },
    '/admin/audit': {
      get: {
        summary: `The audit log of every state-changing back-office call, refused ones included, newest first (admin role${side === 'provider' ? "; a scoped admin reads its operators' rows" : ''}).`,
        security: admin,
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'string', pattern: '^[0-9]{1,4}$' },
            description: 'Rows per page, 1..500 (default 50).',
          },
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'nextCursor of the previous page.' },
        ],
        responses: { ...ok('200', 'A page', AuditPageResponse), ...problems(codes) },
      },
    },
  };
}

/** The back-office token's description, the same on both servers. */
export const STAFF_TOKEN_DESCRIPTION =
  'A staff token (wls_…), whose role decides what it may do (403 FORBIDDEN otherwise; on the provider, within its operators), or the configured admin token, a built-in admin account.';
