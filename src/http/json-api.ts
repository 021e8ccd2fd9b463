/**
 * What every Wagerlink HTTP server shares: JSON bodies kept as raw bytes
 * until their signature is checked (PROTOCOL.md §2), and one mapping of every
 * failure to a problem+json answer (PROTOCOL.md §3), so no stack trace and no
 * framework error shape ever reaches a caller.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { ERRORS, problemJson, UnavailableError, type ErrorCode, type Refusal } from '../protocol/errors.js';
import type { BodyReader } from '../protocol/validate.js';

export const JSON_TYPE = 'application/json';
export const PROBLEM_TYPE = 'application/problem+json';

declare module 'fastify' {
  interface FastifyReply {
    /** The problem code answered, for metrics. */
    problemCode?: string;
  }
}

export interface JsonApiOptions {
  /** Request bodies over this are refused with 413. */
  bodyBytesMax: number;
  logger?: FastifyBaseLogger | boolean | undefined;
}

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, balance?: string): FastifyReply {
  reply.problemCode = code;
  return reply.code(ERRORS[code].status).header('content-type', PROBLEM_TYPE).send(problemJson(code, detail, balance));
}

export function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return sendProblem(reply, refusal.code, refusal.detail, refusal.balance);
}

export function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', JSON_TYPE).send(body);
}

/** The raw bytes of a JSON body, or undefined after answering 415 (no JSON body came). */
export function bodyBytes(request: FastifyRequest, reply: FastifyReply): Buffer | undefined {
  if (Buffer.isBuffer(request.body)) return request.body;
  sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${JSON_TYPE} with a body`);
  return undefined;
}

/**
 * Reads a body: UTF-8, JSON, I-JSON, schema, exact money. Answers the
 * refusal and returns undefined when it fails. The reader gets the bytes, not
 * a decoded text: bytes that are not UTF-8 are refused there, never decoded
 * with U+FFFD in their place. The checked value stays wrapped until here,
 * so a body's own members (even `ok` or `code`) never steer what happens.
 */
export function readBody<T extends TSchema>(reply: FastifyReply, bytes: Buffer, body: BodyReader<T>): Static<T> | undefined {
  const checked = body.read(bytes);
  if (!checked.ok) {
    sendRefusal(reply, checked);
    return undefined;
  }
  return checked.value;
}

type Bindings = Record<string, unknown>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger, made on its first line. Fastify gives every request a
 * child logger bound to its id, and pino serializes those bindings as it
 * makes one: a few µs per request, on every request, for the rare one that
 * logs. This one only keeps what the child needs; a request that logs gets
 * the same child, request id and all, when it first does.
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: object,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  private log(level: Level, args: unknown[]): void {
    (this.logger[level] as (...line: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(...args: unknown[]): void {
    this.log('silent', args);
  }
}

/** A Fastify app with raw JSON bodies and problem+json answers for every failure. */
export function createJsonApi(options: JsonApiOptions): FastifyInstance {
  const { bodyBytesMax } = options;
  const app = Fastify({
    bodyLimit: bodyBytesMax,
    // Fastify takes a ready logger (pino) only as `loggerInstance`; `logger` takes true/false or options.
    ...(typeof options.logger === 'object' ? { loggerInstance: options.logger } : { logger: options.logger ?? false }),
    // One log line per request would cost more than the request itself; metrics count them.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, childOptions) => new LazyChildLogger(logger, bindings, childOptions) as unknown as FastifyBaseLogger,
    return503OnClosing: true,
  });

  // Bodies stay bytes until the signature over them is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'buffer', bodyLimit: bodyBytesMax }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error instanceof UnavailableError) return sendProblem(reply, 'SERVICE_UNAVAILABLE', error.message);
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, 'PAYLOAD_TOO_LARGE', `body is over the limit of ${bodyBytesMax} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${JSON_TYPE}`);
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(reply, 'INVALID_REQUEST', 'Content-Length does not match the body');
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, 'INVALID_REQUEST', error.message);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(reply, 'INTERNAL_ERROR', 'an unexpected error occurred; nothing was applied');
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, 'NOT_FOUND', `no route for ${request.method} ${request.url}`));
  return app;
}
