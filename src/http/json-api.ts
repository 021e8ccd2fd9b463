/**
 * What every Wagerlink HTTP server shares: JSON bodies kept as raw bytes
 * until their signature is checked (docs/protocol.md §2), one mapping of every
 * failure to a problem+json answer (docs/protocol.md §3), so no stack trace and no
 * framework error shape ever reaches a caller, and the time-outs of
 * docs/protocol.md §9.
 *
 * Failures come from three layers, and each is mapped here:
 * - Node's HTTP parser and its time-outs (malformed framing, oversized
 *   headers, a request that does not arrive in time) never reach Fastify:
 *   `clientErrorHandler` writes the answer on the raw socket and closes it.
 * - The router (bad percent-encoding, an over-long path parameter) answers
 *   through `frameworkErrors`.
 * - Everything after routing goes through the error and not-found handlers,
 *   and one `onRequest` hook answers a missing Host header (or, when the
 *   server is told its own, a Host or Origin not its own) and requests that
 *   arrive while the server drains.
 */
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import { MIMEType } from 'node:util';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { ERRORS, problemJson, UnavailableError, type ErrorCode, type Refusal } from '../protocol/errors.js';
import type { BodyReader } from '../protocol/validate.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';
import { hostProblem } from './host-guard.js';

const JSON_TYPE = 'application/json';
const PROBLEM_TYPE = 'application/problem+json';

declare module 'fastify' {
  interface FastifyReply {
    /** The problem code answered, for metrics. */
    problemCode?: string;
  }
}

/**
 * Node checks its request time-outs on a timer, not per socket, so one fires
 * up to an interval late. A tenth of the time-out keeps that within 10 %;
 * more often than once a second would only cost CPU (each check walks the
 * open requests).
 */
const TIMEOUT_CHECK_INTERVAL_MS_MAX = 1_000;

/**
 * After answering a client error the server ends its side and goes on
 * reading for this long (ms) before it drops the socket. Closing at once,
 * with the client's bytes still unread, would send a TCP reset that can make
 * the client discard our answer before it reads it; waiting longer would let
 * a misbehaving client hold the socket.
 */
const CLIENT_ERROR_LINGER_MS = 2_000;

/** docs/protocol.md §9: identifiers that travel in a path (playerId, game slug) have at most this many UTF-16 units. */
const PATH_IDENTIFIER_UNITS_MAX = 128;
/**
 * A UTF-16 unit of the Basic Multilingual Plane is up to 3 bytes of UTF-8,
 * each percent-encoded as 3 characters (`€` is `%E2%82%AC`); a surrogate
 * pair is 4 bytes, 12 characters for 2 units.
 */
const ENCODED_CHARS_PER_UNIT_MAX = 9;

/**
 * The longest path parameter the router matches (characters); a longer one
 * is answered 414 URI_TOO_LONG before any handler runs. find-my-way's
 * default of 100 made valid 101-128 character player ids unreachable.
 * find-my-way 9 measures the decoded value, but this bound admits every
 * valid identifier even as sent, fully percent-encoded; handlers check the
 * decoded value against its schema.
 */
export const ROUTE_PARAM_LENGTH_MAX = PATH_IDENTIFIER_UNITS_MAX * ENCODED_CHARS_PER_UNIT_MAX;

export interface JsonApiOptions {
  /** Request bodies over this are refused with 413. */
  bodyBytesMax: number;
  /** A request's headers and body must arrive within this (ms); default REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number | undefined;
  logger?: FastifyBaseLogger | boolean | undefined;
  /**
   * A 503 for storage that is unavailable (an UnavailableError) says
   * `Retry-After` this many seconds, so that a caller waits a moment rather
   * than resends at once into an outage; unset, it says none. Both servers
   * set it (STORAGE_RETRY_AFTER_S, limits.ts).
   */
  storageRetryAfterS?: number | undefined;
  /**
   * The authorities (host:port) this server answers for; a request naming
   * another Host, or changing state from another Origin, is refused 403
   * HOST_NOT_ALLOWED before anything else (host-guard.ts). Unset, any Host
   * is answered: a server behind a proxy or a public name is reached by names
   * it cannot know.
   */
  allowedHosts?: readonly string[] | undefined;
}

/**
 * Every JSON answer, a problem or not, is about one caller's state (a
 * balance, a player list, an outbox): no cache, shared or the browser's,
 * may keep it (`Cache-Control: no-store`).
 */
const NO_STORE = 'no-store';

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, balance?: string): FastifyReply {
  reply.problemCode = code;
  return reply
    .code(ERRORS[code].status)
    .header('content-type', PROBLEM_TYPE)
    .header('cache-control', NO_STORE)
    .send(problemJson(code, detail, balance));
}

export function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return sendProblem(reply, refusal.code, refusal.detail, refusal.balance);
}

export function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', JSON_TYPE).header('cache-control', NO_STORE).send(body);
}

/**
 * The charset a Content-Type of JSON declares, lower case, or undefined when
 * it declares none. Bodies are UTF-8 (docs/protocol.md §1): a body declared
 * in another charset would be read as bytes it does not mean. The header
 * most callers send, bare `application/json`, is not parsed at all.
 */
function declaredCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType === JSON_TYPE) return undefined;
  try {
    return new MIMEType(contentType).params.get('charset')?.toLowerCase();
  } catch {
    // Fastify matched the media type already; a header MIMEType cannot read declares no charset it could honour.
    return 'unreadable';
  }
}

/** The raw bytes of a JSON body, or undefined after answering 415 (no JSON body came, or not in UTF-8). */
export function bodyBytes(request: FastifyRequest, reply: FastifyReply): Buffer | undefined {
  // An empty body under the JSON type is no body (docs/protocol.md §1.1), refused before its signature is judged.
  if (!Buffer.isBuffer(request.body) || request.body.length === 0) {
    sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${JSON_TYPE} with a body`);
    return undefined;
  }
  const charset = declaredCharset(request.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8') {
    sendProblem(reply, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type: the body must be UTF-8 (charset=utf-8 or none), not ${charset}`);
    return undefined;
  }
  return request.body;
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

/** What Node's parser and time-outs report on a socket (Fastify's `ConnectionError`, loosened: not every error has a reason). */
interface ClientError extends Error {
  code?: string;
  /** llhttp's description of a parse error, e.g. "Invalid character in chunk size". */
  reason?: string;
}

/** What a client error answers; undefined for socket failures (a reset), where nobody is left to answer. */
function clientProblem(error: ClientError, requestTimeoutMs: number): { code: ErrorCode; detail: string } | undefined {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'REQUEST_TIMEOUT', detail: `the request's headers and body did not arrive within ${requestTimeoutMs} ms` };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'HEADERS_TOO_LARGE', detail: `the request line and headers are over ${maxHeaderSize} bytes` };
  }
  if (error.code === 'HPE_INVALID_EOF_STATE') {
    return { code: 'INVALID_REQUEST', detail: 'the connection was half-closed before the request was complete' };
  }
  if (error.code?.startsWith('HPE_')) {
    return { code: 'INVALID_REQUEST', detail: `malformed HTTP/1.1 request: ${error.reason ?? error.code}` };
  }
  return undefined;
}

/** A complete HTTP/1.1 answer for a raw socket: problem+json, and the connection closes after it. */
function rawProblemAnswer(code: ErrorCode, detail: string): string {
  const body = problemJson(code, detail);
  const { status } = ERRORS[code];
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `content-type: ${PROBLEM_TYPE}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/**
 * The response Node's HTTP server is writing on a socket, if any. Node keeps
 * it as `_httpMessage` (its own clientError handling reads it the same way);
 * `req` is the request it answers.
 */
function responseInFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/**
 * Answers a client error on the raw socket, once per socket (a parser that
 * failed fails again on every later chunk). An answer already under way is
 * never cut or overtaken: pipelined requests that arrived whole before the
 * error are answered first, in order (their handlers may have moved money,
 * and an error written ahead of their answer would read, to the client, as
 * the answer to them), and so is a request answered before its body was
 * read (401 on arrival). Then the problem, and the connection closes.
 */
function answerClientError(socket: Socket, code: ErrorCode, detail: string): void {
  if (socket.destroyed) return;
  const response = responseInFlight(socket);
  if (response && !response.writableFinished && (response.req.complete || response.headersSent)) {
    response.once('close', () => setImmediate(answerClientError, socket, code, detail));
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawProblemAnswer(code, detail));
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/** A Fastify app with raw JSON bodies and problem+json answers for every failure. */
// eslint-disable-next-line max-lines-per-function -- Fastify's hooks and handlers registered in the order a request meets them; split, that order would be spread over files
export function createJsonApi(options: JsonApiOptions): FastifyInstance {
  const { bodyBytesMax } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const allowedHosts = options.allowedHosts === undefined ? undefined : new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  /** Sockets whose client error was answered: later errors of the same socket are echoes. */
  const answered = new WeakSet<Socket>();
  let log: FastifyBaseLogger | undefined;

  const onClientError = (error: ClientError, socket: Socket) => {
    if (answered.has(socket) || socket.destroyed) return;
    answered.add(socket);
    const problem = clientProblem(error, requestTimeoutMs);
    if (!problem) {
      log?.debug({ err: error }, 'client error');
      socket.destroy();
      return;
    }
    // Answered on the socket, before any request exists: its line has no method, path or request id.
    log?.info({ status: ERRORS[problem.code].status, code: problem.code, reason: error.code }, 'refused before routing');
    answerClientError(socket, problem.code, problem.detail);
  };

  const app = Fastify({
    bodyLimit: bodyBytesMax,
    // Fastify takes a ready logger (pino) only as `loggerInstance`; `logger` takes true/false or options.
    ...(typeof options.logger === 'object' ? { loggerInstance: options.logger } : { logger: options.logger ?? false }),
    // Fastify's own request logging writes two lines per request (incoming, completed), neither with the
    // problem's code: the onResponse hook below writes one line instead (logRequests).
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, childOptions) => new LazyChildLogger(logger, bindings, childOptions) as unknown as FastifyBaseLogger,
    // docs/protocol.md §9: headers and body within requestTimeoutMs, counted from a request's first byte (from
    // the connection's opening for its first request), then 408. Node checks on a timer: see its interval.
    requestTimeout: requestTimeoutMs,
    // An idle keep-alive connection holds a descriptor as surely as a stalled request, so it gets the same
    // bound rather than Fastify's 72 s (which suits load balancers that keep 60 s idle connections): no
    // socket lives longer than requestTimeoutMs without a complete request. Node advertises it
    // (`Keep-Alive: timeout=10`), and clients such as undici stop reusing a connection before then. A load
    // balancer in front must close idle connections sooner than this.
    keepAliveTimeout: requestTimeoutMs,
    // No idle time-out while a handler runs: handlers have their own bounds (the stores' statement
    // time-outs, the provider's roundSettleMsMax), and cutting one short would drop an answer that a
    // caller then has to resend.
    connectionTimeout: 0,
    http: {
      headersTimeout: requestTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(1, Math.min(TIMEOUT_CHECK_INTERVAL_MS_MAX, Math.floor(requestTimeoutMs / 10))),
      // Node would answer a missing Host header itself, with a bare 400: the onRequest hook below answers it.
      requireHostHeader: false,
    },
    clientErrorHandler: onClientError,
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      switch (error.code) {
        case 'FST_ERR_BAD_URL':
          return void sendProblem(reply, 'INVALID_REQUEST', 'the path is not valid percent-encoded UTF-8');
        case 'FST_ERR_MAX_PARAM_LENGTH':
          return void sendProblem(reply, 'URI_TOO_LONG', `a path parameter is over ${ROUTE_PARAM_LENGTH_MAX} characters`);
      }
      request.log.error({ err: error }, 'unexpected router error');
      return void sendProblem(reply, 'INTERNAL_ERROR', 'an unexpected error occurred; nothing was applied');
    },
    routerOptions: { maxParamLength: ROUTE_PARAM_LENGTH_MAX },
    // Fastify's own 503 while closing is not problem+json: the onRequest hook below answers it.
    return503OnClosing: false,
  });
  log = app.log;

  // Bodies stay bytes until the signature over them is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'buffer', bodyLimit: bodyBytesMax }, (_request, body, done) => done(null, body));

  /** Set once the app starts closing: requests still arriving (on open keep-alive connections) get 503. */
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  // A callback hook, not an async one: it runs on every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (draining) {
      reply.header('connection', 'close');
      sendProblem(reply, 'SERVICE_UNAVAILABLE', 'the server is shutting down; nothing was applied: resend to another node or after the restart');
      return;
    }
    const raw = request.raw;
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
      reply.header('connection', 'close');
      sendProblem(reply, 'INVALID_REQUEST', 'an HTTP/1.1 request needs a Host header');
      return;
    }
    if (allowedHosts !== undefined) {
      const problem = hostProblem(allowedHosts, request.method, raw.headers.host, raw.headers.origin);
      if (problem !== undefined) {
        sendProblem(reply, 'HOST_NOT_ALLOWED', problem);
        return;
      }
    }
    done();
  });

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error instanceof UnavailableError) {
      if (options.storageRetryAfterS !== undefined) reply.header('retry-after', String(options.storageRetryAfterS));
      return sendProblem(reply, 'SERVICE_UNAVAILABLE', error.message);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // The route's own limit where it has one (the player-facing APIs' PLAYER_BODY_BYTES_MAX), else the server's.
        return sendProblem(reply, 'PAYLOAD_TOO_LARGE', `body is over the limit of ${request.routeOptions.bodyLimit ?? bodyBytesMax} bytes`);
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
  const methods = routeMethods(app);
  app.setNotFoundHandler((request, reply) => {
    const allowed = methods(request.url);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; this path takes ${allowed.join(', ')}`);
    }
    return sendProblem(reply, 'NOT_FOUND', `no route for ${request.method} ${request.url}`);
  });
  if (options.logger) logRequests(app);
  return app;
}

/**
 * The methods the app's routes take for a path, for the 405 of a known path
 * asked with another method (RFC 9110 §15.5.6: with an `Allow` header). The
 * router answers only "no route": the routes are kept here as they are
 * added, each as a pattern of its path (`:param` one segment, `*` the rest).
 * Only a request no route takes looks them up.
 */
function routeMethods(app: FastifyInstance): (url: string) => string[] {
  const routes: { path: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split('/')
      .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    routes.push({ path: new RegExp(`^${source}/?$`), methods: [route.method].flat() });
  });
  return (url) => {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const methods = new Set(routes.filter((route) => route.path.test(path)).flatMap((route) => route.methods));
    return [...methods].sort();
  };
}

/**
 * One line per request answered, refusals included, at `info`: method,
 * path (without its query, which may carry cursors and ids nobody needs in
 * a log), status, the problem's code when there was one, time in ms and the
 * request id. One pino call on the app's logger, not the request's: a
 * request's child logger would be made (its bindings serialized) only to
 * write this line (LazyChildLogger). Bodies and headers are never logged:
 * they carry tokens and signatures (docs/operator.md).
 */
function logRequests(app: FastifyInstance): void {
  const log = app.log;
  // A callback hook, not an async one: it runs on every request.
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.url;
    const query = url.indexOf('?');
    log.info(
      {
        reqId: request.id,
        method: request.method,
        path: query === -1 ? url : url.slice(0, query),
        status: reply.statusCode,
        code: reply.problemCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });
}
