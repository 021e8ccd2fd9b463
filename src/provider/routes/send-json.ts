/** How every answer of the provider's routes is sent: JSON, never cached. */
import type { FastifyReply } from 'fastify';
import { sendJson as sendJsonAnswer } from '../../http/json-api.js';

/** Answers of the provider's APIs are never cached. */
export function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return sendJsonAnswer(reply.header('cache-control', 'no-store'), status, body);
}
