/**
 * The ceiling of this stack: a Fastify server that checks the HMAC of the
 * raw JSON body and answers {balance}, with no storage. The wallet's
 * throughput is reported as a ratio to this one, measured in the same run.
 */
import Fastify from 'fastify';
import { LogController } from 'fastify';
import { signingSecrets, verifySignature, SIGNATURE_HEADER } from '../src/protocol/signing.js';

// Kept as bytes, as the wallet keeps its secrets.
const secrets = signingSecrets([process.env.WAGERLINK_SECRET ?? 'bench-secret']);
const port = Number(process.env.WAGERLINK_PORT ?? 8090);
const app = Fastify({ logger: false, logController: new LogController({ disableRequestLogging: true }), bodyLimit: 256 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.post('/transaction', async (request, reply) => {
  const body = request.body as Buffer;
  if (!verifySignature(secrets, request.headers[SIGNATURE_HEADER], body)) {
    return reply.code(401).header('content-type', 'application/problem+json').send('{"code":"INVALID_SIGNATURE"}');
  }
  const parsed = JSON.parse(body.toString('utf8')) as { transactions?: unknown[] };
  if (!Array.isArray(parsed.transactions)) return reply.code(400).send('{"code":"INVALID_REQUEST"}');
  return reply.code(200).header('content-type', 'application/json').send('{"balance":100}');
});
const address = await app.listen({ host: '127.0.0.1', port });
console.log(`ceiling ready on ${address}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
