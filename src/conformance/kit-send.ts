/**
 * How a request of the kit travels, on both sides: over HTTP by default;
 * a test suite passes a `KitSend` that hands the request to an app
 * in-process, so that the same cases are its rule tests (docs/testing.md:
 * one scenario, two runners).
 */
import type { Attempt } from '../clients/http-call.js';
import type { Headers } from './case-model.js';

/** A request as the kit sends it: the method, the full URL, the headers and the exact body bytes. */
export interface KitRequest {
  method: 'POST' | 'GET';
  url: string;
  headers: Headers;
  bytes: Uint8Array;
}

/** Sends one request and answers what came back. */
export type KitSend = (request: KitRequest) => Promise<Attempt>;
