/**
 * The OpenAPI 3.1 document of the operator's endpoints, built from the same
 * TypeBox schemas that validate requests. `wagerlink openapi operator`
 * prints it; openapi/operator.json is the committed copy, and a test fails
 * when the two drift.
 */
import type { TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../protocol/errors.js';
import * as S from '../protocol/schemas.js';

/** JSON Schema without TypeBox's symbol keys. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

function problems(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      { description: list.join(', '), content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  );
}

function ok(status: string, description: string, schema: TSchema) {
  return { [status]: { description, content: { 'application/json': { schema: plain(schema) } } } };
}

function body(schema: TSchema) {
  return { required: true, content: { 'application/json': { schema: plain(schema) } } };
}

const WIRE_AUTH = ['INVALID_REQUEST', 'INVALID_SIGNATURE', 'INVALID_TOKEN', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'] as const;
const ADMIN = ['INVALID_REQUEST', 'INVALID_TOKEN', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'] as const;
const wire = [{ serverSignature: [], accessToken: [] }];
const admin = [{ adminToken: [] }];
const playerParam = [{ name: 'playerId', in: 'path', required: true, schema: plain(S.PlayerId) }];
const pageParams = [
  { name: 'limit', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]{1,4}$' }, description: 'Items per page, 1..500 (default 50).' },
  { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'nextCursor of the previous page.' },
];

export function operatorOpenApi() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wagerlink operator wallet',
      version: '1',
      description:
        'Operator side of the game provider <-> operator wallet interface, Wagerlink profile version 1. Amounts are JSON numbers in major units of the player\'s currency, exact to its decimals.',
    },
    paths: {
      '/transaction': {
        post: {
          summary: 'Apply the bets and wins of one round (idempotent, atomic, in order).',
          security: wire,
          requestBody: body(S.TransactionRequest),
          responses: {
            ...ok('200', 'Balance after every transaction of the request', S.BalanceResponse),
            ...problems([
              ...WIRE_AUTH, 'INSUFFICIENT_FUNDS', 'SESSION_EXPIRED', 'SESSION_MISMATCH', 'PLAYER_BLOCKED', 'SESSION_NOT_FOUND',
              'DUPLICATE_CONFLICT', 'ROUND_CLOSED', 'ROUND_MISMATCH', 'CAMPAIGN_FINISHED',
            ]),
          },
        },
      },
      '/payout': {
        post: {
          summary: 'Credit a tournament prize (idempotent by payoutId).',
          security: wire,
          requestBody: body(S.PayoutRequest),
          responses: {
            ...ok('200', 'Balance after the payout', S.BalanceResponse),
            ...problems([...WIRE_AUTH, 'SESSION_NOT_FOUND', 'DUPLICATE_CONFLICT']),
          },
        },
      },
      '/authenticate': {
        post: {
          summary: 'Exchange a launch key for a game session.',
          security: wire,
          requestBody: body(S.AuthenticateRequest),
          responses: {
            ...ok('200', 'The session', S.AuthenticateResponse),
            ...problems([...WIRE_AUTH, 'INVALID_LAUNCH_KEY', 'SESSION_MISMATCH', 'PLAYER_BLOCKED']),
          },
        },
      },
      '/health': {
        get: { summary: 'Liveness and database reachability.', responses: { ...ok('200', 'Healthy', S.HealthResponse), ...problems(['SERVICE_UNAVAILABLE']) } },
      },
      '/metrics': {
        get: { summary: 'Prometheus metrics.', responses: { '200': { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } } },
      },
      '/admin/players': {
        post: {
          summary: 'Create a player with an opening balance (booked as a deposit).',
          security: admin,
          requestBody: body(S.CreatePlayerRequest),
          responses: { ...ok('201', 'The player', S.PlayerResponse), ...problems([...ADMIN, 'PLAYER_EXISTS', 'UNSUPPORTED_MEDIA_TYPE']) },
        },
      },
      '/admin/players/{playerId}': {
        get: {
          summary: 'A player and its balance.',
          security: admin,
          parameters: playerParam,
          responses: { ...ok('200', 'The player', S.PlayerResponse), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) },
        },
      },
      '/admin/launch-keys': {
        post: {
          summary: 'Issue a launch key for /generate-launch-url and /authenticate.',
          security: admin,
          requestBody: body(S.CreateLaunchKeyRequest),
          responses: { ...ok('201', 'The key', S.LaunchKeyResponse), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) },
        },
      },
      '/admin/players/{playerId}/adjustments': {
        post: {
          summary: 'Deposit or withdraw (idempotent by id).',
          security: admin,
          parameters: playerParam,
          requestBody: body(S.AdjustmentRequest),
          responses: {
            '200': { description: 'Balance after the adjustment', content: { 'application/json': { schema: { type: 'object', properties: { id: plain(S.Uuid), balance: plain(S.BalanceNumber) } } } } },
            ...problems([...ADMIN, 'PLAYER_NOT_FOUND', 'DUPLICATE_CONFLICT', 'INSUFFICIENT_FUNDS']),
          },
        },
      },
      '/admin/players/{playerId}/block': {
        post: { summary: 'Block a player: bets are refused, wins and payouts still land.', security: admin, parameters: playerParam, responses: { ...ok('200', 'The player', S.PlayerResponse), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) } },
      },
      '/admin/players/{playerId}/unblock': {
        post: { summary: 'Unblock a player.', security: admin, parameters: playerParam, responses: { ...ok('200', 'The player', S.PlayerResponse), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) } },
      },
      '/admin/players/{playerId}/rounds': {
        get: { summary: "A player's rounds, newest first.", security: admin, parameters: [...playerParam, ...pageParams], responses: { ...ok('200', 'A page', S.Page(S.RoundItem)), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) } },
      },
      '/admin/players/{playerId}/transactions': {
        get: { summary: "A player's transfers, newest first.", security: admin, parameters: [...playerParam, ...pageParams], responses: { ...ok('200', 'A page', S.Page(S.TransferItem)), ...problems([...ADMIN, 'PLAYER_NOT_FOUND']) } },
      },
      '/admin/verify': {
        get: { summary: 'Prove the books balance.', security: admin, responses: { ...ok('200', 'The report', S.VerifyResponse), ...problems(ADMIN) } },
      },
    },
    components: {
      schemas: { Problem: plain(S.ProblemResponse) },
      securitySchemes: {
        serverSignature: { type: 'apiKey', in: 'header', name: 'X-Server-Authorization', description: 'Lowercase hex of HMAC-SHA256(secret, raw request body).' },
        accessToken: { type: 'http', scheme: 'bearer', description: 'Static server-to-server token issued by the operator.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'Back-office token.' },
      },
    },
  };
}
