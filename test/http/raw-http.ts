/**
 * HTTP/1.1 over a bare TCP socket, for tests of the framing layer: bytes go
 * out exactly as written (app.inject() and undici would refuse to send, or
 * repair, most of what these tests send), and every answer that comes back
 * is parsed, however many there are.
 */
import { connect } from 'node:net';
import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../../src/protocol/errors.js';

/** What came back on one connection. */
export interface Exchange {
  /** Every byte received, in order. */
  bytes: Buffer;
  /** The answers parsed from `bytes`, in order. */
  answers: RawAnswer[];
  /** Bytes after the last complete answer (none, for a well-behaved server). */
  leftover: Buffer;
  /** Whether the server closed the connection before `waitMs` ran out. */
  closed: boolean;
  /** From the last byte written to the close, or to the end of the wait (ms). */
  elapsedMs: number;
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Parses HTTP/1.1 answers, each with a Content-Length (the servers under test
 * always send one); stops at the first incomplete one and returns the rest.
 */
export function parseAnswers(bytes: Buffer): { answers: RawAnswer[]; leftover: Buffer } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine);
    assert.ok(status, `not an HTTP status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length']);
    assert.ok(Number.isSafeInteger(length), `an answer without a Content-Length: ${statusLine}`);
    const bodyStart = headEnd + 4;
    if (bytes.length < bodyStart + length) break;
    answers.push({ status: Number(status[1]), headers, body: bytes.subarray(bodyStart, bodyStart + length).toString('utf8') });
    at = bodyStart + length;
  }
  return { answers, leftover: bytes.subarray(at) };
}

/**
 * Connects, writes each piece in turn (a pause of `gapMs` between pieces
 * lets the server read them apart), then reads until the server closes the
 * connection or `waitMs` has passed since the last write. The client never
 * half-closes: Node's server would stop answering.
 */
export async function exchange(port: number, pieces: (string | Buffer)[], options: { waitMs: number; gapMs?: number }): Promise<Exchange> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset after the server's answer is the server closing: what was read stands.
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  for (const [index, piece] of pieces.entries()) {
    if (index > 0 && options.gapMs) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
    if (socket.destroyed) break;
    socket.write(piece);
  }
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    closed.then(() => 'closed' as const),
    new Promise<'waited'>((resolve) => {
      timer = setTimeout(() => resolve('waited'), options.waitMs);
    }),
  ]);
  clearTimeout(timer);
  const elapsedMs = Date.now() - started;
  socket.destroy();
  const bytes = Buffer.concat(chunks);
  return { bytes, ...parseAnswers(bytes), closed: outcome === 'closed', elapsedMs };
}

/** Asserts a problem+json answer with `code`, its registered status and an RFC 9457 body. */
export function assertProblemAnswer(answer: RawAnswer | undefined, code: ErrorCode): void {
  assert.ok(answer, `no answer where ${code} was expected`);
  // The media type; Fastify adds `; charset=utf-8` to the answers it sends.
  assert.equal(answer.headers['content-type']?.split(';')[0], 'application/problem+json', answer.body);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.equal(body.code, code, answer.body);
  assert.equal(answer.status, ERRORS[code].status, answer.body);
  assert.equal(body.status, answer.status);
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
}

/** A GET request's bytes. */
export function getRequest(path: string, headers: Record<string, string> = {}): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}
