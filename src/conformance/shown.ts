/**
 * What a report shows of a request the kit sent and of the answer it got,
 * and the bytes of a body as the kit sends them: one definition for both
 * sides, so that their reports read alike.
 */
import { isUtf8 } from 'node:buffer';
import type { Attempt } from '../clients/http-call.js';
import type { Body } from './case-model.js';
import { writeJson } from './json-text.js';
import type { ReceivedAnswer, SentRequest } from './report.js';

/** Bodies and answers are shown in reports up to this many characters; curl holds every byte. */
const BODY_SHOWN_MAX = 4_096;

function cut(text: string): { text: string; cut: boolean } {
  return text.length > BODY_SHOWN_MAX ? { text: `${text.slice(0, BODY_SHOWN_MAX)}…`, cut: true } : { text, cut: false };
}

/** A request as a report shows it: its body as text up to BODY_SHOWN_MAX, and as base64 too when it is not UTF-8. */
export function shownRequest(request: {
  method: SentRequest['method'];
  url: string;
  headers: Readonly<Record<string, string>>;
  bytes: Uint8Array;
}): SentRequest {
  const bytes = Buffer.from(request.bytes);
  const body = cut(bytes.toString('utf8'));
  return {
    method: request.method,
    url: request.url,
    headers: { ...request.headers },
    body: body.text,
    bodyBytes: bytes.length,
    ...(isUtf8(bytes) ? {} : { bodyBase64: bytes.toString('base64') }),
    ...(body.cut ? { bodyCut: true } : {}),
  };
}

export function shownAnswer(attempt: Attempt): ReceivedAnswer {
  if (attempt.kind === 'failed') return { error: attempt.detail };
  return { status: attempt.status, contentType: attempt.contentType, body: cut(attempt.text).text };
}

/** A case's body as the bytes sent: bytes as they are, text as UTF-8, a value as the kit's JSON. */
export function toBytes(body: Body): Uint8Array {
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(Buffer.from(typeof body === 'string' ? body : writeJson(body), 'utf8'));
}
