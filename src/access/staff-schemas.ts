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

const StaffName = Type.String({
  pattern: inWords('^[a-z][a-z0-9._-]{0,63}$', '1 to 64 of a-z, 0-9, ".", "_", "-", starting with a letter'),
  description: 'The account\'s name: 1 to 64 of a-z, 0-9, ".", "_", "-", starting with a letter; never reused.',
});

const StaffRole = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  {
    description:
      'read-only: reads; support: plus block/unblock, launch keys, outbox retry; payments: plus money within its limits; admin: everything, staff and audit included.',
  },
);

export const CreateStaffRequest = Type.Object({
  name: StaffName,
  role: StaffRole,
  expiresDays: Type.Optional(Type.Integer({ minimum: 1, maximum: STAFF_TOKEN_DAYS_MAX, description: "The token's life in days (default 90)." })),
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

const Time = Type.Integer({ description: 'Epoch ms.' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const StaffTokenItem = Type.Object({
  tokenId: Type.String({ description: "The token's id (not secret): what revoke and the audit log name." }),
  name: StaffName,
  createdAt: Time,
  expiresAt: Time,
  revokedAt: Type.Union([Time, Type.Null()]),
});

export const StaffItem = Type.Object({
  name: StaffName,
  role: StaffRole,
  operators: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Provider only: the operators it may see and act on; null is all.' }),
  createdAt: Time,
  revokedAt: Type.Union([Time, Type.Null()]),
  tokens: Type.Array(StaffTokenItem),
});

export const StaffCreated = Type.Intersect([
  StaffItem,
  Type.Object({ token: Type.String({ description: 'The bearer token, shown this once: only its SHA-256 is stored.' }) }),
]);

export const StaffRevoked = Type.Object({ name: StaffName, revokedTokenIds: Type.Array(Type.String()) });

const AuditItem = Type.Object({
  id: Type.Integer(),
  at: Time,
  actor: Type.String({ description: 'The staff account, admin-token for the configured admin token, or cli:<system user>.' }),
  tokenId: Nullable(Type.String()),
  method: Type.String({ description: 'The HTTP method, or CLI.' }),
  route: Type.String({ description: 'The route as declared (/admin/players/:playerId/adjustments), or the CLI command.' }),
  target: Nullable(Type.String({ description: 'The ids the call named, such as player=p1 deposit=<uuid>.' })),
  amount: Nullable(Type.String({ description: 'Exact decimal text of the money it moved or tried to.' })),
  currency: Nullable(Type.String()),
  address: Nullable(Type.String({ description: "The caller's address; null for the CLI." })),
  operatorId: Nullable(Type.String()),
  status: Type.Integer({ description: 'The status answered.' }),
  code: Nullable(Type.String({ description: 'The problem code answered, if any.' })),
});

export const AuditPageResponse = Type.Object({ items: Type.Array(AuditItem), nextCursor: Type.Union([Type.Integer(), Type.Null()]) });
