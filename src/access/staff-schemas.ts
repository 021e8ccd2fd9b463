/**
 * The staff API's bodies (POST /admin/staff on both servers), as TypeBox
 * schemas: one definition gives the validator, the type and the OpenAPI
 * document's schema.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from './roles.js';
import { STAFF_TOKEN_DAYS_MAX } from './staff-token.js';
import { inWords } from '../protocol/validate.js';
import { LIMIT_PATTERN } from '../protocol/schemas.js';

export const StaffName = Type.String({
  pattern: inWords('^[a-z][a-z0-9._-]{0,63}$', '1 to 64 of a-z, 0-9, ".", "_", "-", starting with a letter'),
  description: 'The account\'s name: 1 to 64 of a-z, 0-9, ".", "_", "-", starting with a letter; never reused.',
});

export const StaffRole = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  { description: 'read-only: reads; support: plus block/unblock, launch keys, outbox retry; payments: plus money within its limits; admin: everything, staff and audit included.' },
);

export const CreateStaffRequest = Type.Object({
  name: StaffName,
  role: StaffRole,
  expiresDays: Type.Optional(Type.Integer({ minimum: 1, maximum: STAFF_TOKEN_DAYS_MAX, description: 'The token\'s life in days (default 90).' })),
  operators: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 1000,
      description: 'Provider only: the operators the account may see and act on; left out, all of them.',
    }),
  ),
});
export type CreateStaffRequest = Static<typeof CreateStaffRequest>;

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: LIMIT_PATTERN })),
  cursor: Type.Optional(Type.String({ pattern: inWords('^[0-9]{1,16}$', 'the nextCursor of a previous page, up to 16 digits') })),
});
