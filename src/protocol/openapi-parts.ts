/**
 * The pieces both servers' OpenAPI 3.1 documents are built from
 * (src/operator/operator-openapi.ts, src/provider/provider-openapi.ts): the
 * TypeBox schemas that validate requests, as plain JSON Schema, and the
 * problem answers of a list of registry codes grouped by HTTP status. Pure.
 */
import type { TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from './errors.js';
import { ProblemResponse } from './schemas.js';

/** JSON Schema without TypeBox's symbol keys. */
export function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

/** The problem+json answers of `codes`, one entry per status, naming its codes. */
export function problems(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      { description: list.join(', '), content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  );
}

export function ok(status: string, description: string, schema: TSchema) {
  return { [status]: { description, content: { 'application/json': { schema: plain(schema) } } } };
}

export function body(schema: TSchema) {
  return { required: true, content: { 'application/json': { schema: plain(schema) } } };
}

/** A JSON answer described in words where no schema validates it (a back-office view). */
export function okDescribed(status: string, description: string) {
  return { [status]: { description, content: { 'application/json': { schema: { type: 'object' } } } } };
}

export const PROBLEM_COMPONENT = { Problem: plain(ProblemResponse) };

/** `/`: a page for a person who opens the server's address in a browser. */
export const HOME_PATH = {
  get: {
    summary: 'A page for people: what this server is, with links to its document, health and metrics.',
    responses: { '200': { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
};

export const METRICS_PATH = {
  get: {
    summary: "Prometheus metrics, to a bearer of the metrics token (a scraper's, which reads nothing else) or the admin token.",
    security: [{ metricsToken: [] }, { adminToken: [] }],
    responses: { '200': { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...problems(['INVALID_TOKEN']) },
  },
};
