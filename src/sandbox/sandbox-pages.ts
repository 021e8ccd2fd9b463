/**
 * The sandbox's pages, served by its operator: the lobby (/lobby/, the
 * player's side) and the back office (/backoffice/, the casino staff's side).
 * They are static files that talk to the servers over HTTP only: the HTML
 * and CSS from web/sandbox/, the scripts compiled from web/sandbox/*.ts into
 * dist/web/sandbox/ (the package's prepare, at npm ci).
 *
 * The back office also needs the provider's back office (payouts, the
 * outbox), on another origin. Rather than open the provider to scripts of
 * other origins (CORS), the sandbox passes /backoffice/provider/admin/* to the
 * provider's /admin/* unchanged: the page sends the provider's admin token
 * itself, and the pass-through holds none (docs/sandbox.md#who-may-call-what).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../http/json-api.js';

/** The files of the pages, by URL: where each is read from (relative to the package root) and its type. */
const PAGE_FILES: Record<string, { file: string; type: string }> = {
  '/lobby/': { file: 'web/sandbox/lobby.html', type: 'text/html; charset=utf-8' },
  '/backoffice/': { file: 'web/sandbox/backoffice.html', type: 'text/html; charset=utf-8' },
  '/sandbox-assets/sandbox.css': { file: 'web/sandbox/sandbox.css', type: 'text/css; charset=utf-8' },
  '/sandbox-assets/lobby.js': { file: 'dist/web/sandbox/lobby.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/backoffice.js': { file: 'dist/web/sandbox/backoffice.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/api.js': { file: 'dist/web/sandbox/api.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/charts.js': { file: 'dist/web/sandbox/charts.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/lobby-strings.js': { file: 'dist/web/sandbox/lobby-strings.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/money-text.js': { file: 'dist/web/sandbox/money-text.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/outbox-statuses.js': { file: 'dist/web/sandbox/outbox-statuses.js', type: 'text/javascript; charset=utf-8' },
  '/sandbox-assets/favicon.svg': { file: 'web/favicon.svg', type: 'image/svg+xml' },
};

/**
 * The pages load scripts and styles of their own origin only; the game's
 * iframe comes from the provider. No other site may frame them (a page
 * that did could make a person click the back office's buttons unseen).
 */
function pagePolicy(providerOrigin: string): string {
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src ${providerOrigin}; frame-ancestors 'self'; base-uri 'none'; form-action 'none'`;
}

/** The path the pass-through answers under; what follows it is passed to the provider's /admin/. */
const PASS_PREFIX = '/backoffice/provider/admin/';

/**
 * Characters a passed path may not hold, raw or percent-encoded: a backslash
 * (the URL parser reads it as a slash), controls and spaces (it drops tabs
 * and newlines, so `..%09` becomes `..`), and an encoded dot or slash, which
 * the provider's router decodes after the URL was judged. No page of the
 * back office names a resource so.
 */
const PASS_FORBIDDEN = /[\\\x00-\x20\x7f]|%(?:2e|2f|5c|[01][0-9a-f]|7f)|%(?![0-9a-f]{2})/i;

/**
 * The provider's URL a pass-through request is sent to, resolved with the
 * WHATWG URL parser as fetch (undici) and then the provider will read it,
 * or why it is refused. The raw request target is judged, not the router's
 * decoded parameter: the path sent must stay under /admin/ exactly as
 * written, with no dot segment or separator the parser would resolve away.
 */
export function providerAdminUrl(
  requestUrl: string,
  providerOrigin: string,
): { ok: true; url: string } | { ok: false; code: 'INVALID_REQUEST' | 'NOT_FOUND'; detail: string } {
  const queryAt = requestUrl.indexOf('?');
  const path = queryAt === -1 ? requestUrl : requestUrl.slice(0, queryAt);
  const query = queryAt === -1 ? '' : requestUrl.slice(queryAt);
  const outside = { ok: false as const, code: 'NOT_FOUND' as const, detail: "only the provider's /admin/* is passed through" };
  if (!path.startsWith(PASS_PREFIX)) return outside;
  const rest = path.slice(PASS_PREFIX.length);
  if (PASS_FORBIDDEN.test(rest) || /[\x00-\x1f\x7f#]/.test(query)) {
    return { ok: false, code: 'INVALID_REQUEST', detail: 'the path holds a backslash, a control character, or an encoded dot or separator' };
  }
  const wanted = `/admin/${rest}`;
  let url: URL;
  try {
    url = new URL(`${wanted}${query}`, providerOrigin);
  } catch {
    return outside;
  }
  // A dot segment, or anything else the parser rewrites, would send another path than the one judged.
  if (url.origin !== new URL(providerOrigin).origin || url.pathname !== wanted || !url.pathname.startsWith('/admin/')) return outside;
  return { ok: true, url: url.toString() };
}

/** Time a pass-through call to the provider's back office may take (ms): its slowest answer, a CSV import, stays well inside. */
const PROVIDER_PASS_MS_MAX = 30_000;

export class PagesNotBuilt extends Error {
  override name = 'PagesNotBuilt';
}

export function registerSandboxPages(app: FastifyInstance, options: { providerOrigin: string }): void {
  const root = new URL('../../../', import.meta.url);
  const files = new Map<string, { bytes: Buffer; type: string }>();
  for (const [url, { file, type }] of Object.entries(PAGE_FILES)) {
    try {
      files.set(url, { bytes: readFileSync(fileURLToPath(new URL(file, root))), type });
    } catch {
      throw new PagesNotBuilt(`${file} is missing: build the pages with npm run build (npm ci does it)`);
    }
  }
  const policy = pagePolicy(options.providerOrigin);
  for (const [url, { bytes, type }] of files) {
    app.get(url, async (_request, reply) => {
      reply.code(200).header('content-type', type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
      if (type.startsWith('text/html')) reply.header('content-security-policy', policy).header('referrer-policy', 'no-referrer');
      return reply.send(bytes);
    });
  }
  for (const page of ['/lobby', '/backoffice']) app.get(page, async (_request, reply) => reply.redirect(`${page}/`, 308));

  const passThrough = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const target = providerAdminUrl(request.url, options.providerOrigin);
    if (!target.ok) return sendProblem(reply, target.code, target.detail);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type'] as const) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let answer: Response;
    try {
      answer = await fetch(target.url, {
        method: request.method,
        headers,
        ...(Buffer.isBuffer(request.body) && request.body.length > 0 ? { body: request.body } : {}),
        signal: AbortSignal.timeout(PROVIDER_PASS_MS_MAX),
      });
    } catch (error) {
      return sendProblem(reply, 'SERVICE_UNAVAILABLE', `the provider did not answer: ${(error as Error).message}`);
    }
    const body = Buffer.from(await answer.arrayBuffer());
    reply.code(answer.status);
    const type = answer.headers.get('content-type');
    if (type !== null) reply.header('content-type', type);
    // The provider's admin answers (payouts, the outbox) are no more for a cache on the operator's origin than on its own.
    return reply.header('cache-control', 'no-store').send(body);
  };
  app.get('/backoffice/provider/admin/*', passThrough);
  app.post('/backoffice/provider/admin/*', passThrough);
}
