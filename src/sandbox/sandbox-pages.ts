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
  '/sandbox-assets/favicon.svg': { file: 'web/favicon.svg', type: 'image/svg+xml' },
};

/** The pages load scripts and styles of their own origin only; the game's iframe comes from the provider. */
function pagePolicy(providerOrigin: string): string {
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src ${providerOrigin}; base-uri 'none'; form-action 'none'`;
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
    const rest = (request.params as { '*': string })['*'];
    // Only the provider's back office: a dot segment would climb out of /admin once the URL is normalised.
    if (/(^|\/)\.{1,2}(\/|$)/.test(rest) || rest.includes('%')) return sendProblem(reply, 'NOT_FOUND', 'only the provider\'s /admin/* is passed through');
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type'] as const) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let answer: Response;
    try {
      answer = await fetch(`${options.providerOrigin}/admin/${rest}${query}`, {
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
    return reply.send(body);
  };
  app.get('/backoffice/provider/admin/*', passThrough);
  app.post('/backoffice/provider/admin/*', passThrough);
}
