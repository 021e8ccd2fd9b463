/**
 * The ceiling of an integration on this stack: a Fastify server that takes a
 * /transaction body and sends it on to the operator through the provider's
 * own sender (the dispatcher's `httpSend`: signed with the operator's
 * secret, its answer read and checked), then answers with what the operator
 * answered (a 200 as the balance the sender read from it, which is all the
 * sender hands on). No storage, no game, no outbox: only the second HTTP hop that
 * every round of a real integration adds to a wallet's bet. The end-to-end
 * rows are read beside it (docs/performance.md, "End to end"): no provider
 * on this stack plays rounds on the same host faster than it forwards them.
 */
import Fastify from 'fastify';
import { LogController } from 'fastify';
import { httpSend } from '../src/dispatch/dispatcher.js';
import type { OutboxItem } from '../src/dispatch/outbox.js';

const port = Number(process.env.WAGERLINK_PORT ?? 8091);
const operatorUrl = process.env.WAGERLINK_OPERATOR_URL ?? 'http://127.0.0.1:8080';
const secret = process.env.WAGERLINK_SECRET ?? 'bench-secret';
const accessToken = process.env.WAGERLINK_ACCESS_TOKEN ?? 'bench-access-token';

const sender = httpSend({ endpoint: () => ({ url: operatorUrl, secret, accessToken }) });
const app = Fastify({ logger: false, logController: new LogController({ disableRequestLogging: true }), bodyLimit: 256 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
let sent = 0;
app.post('/transaction', async (request, reply) => {
  // An item as the outbox would hand it to the sender: only its operator, path and bytes are read.
  const item = { id: ++sent, operatorId: 'bench-operator', path: '/transaction', body: request.body as Buffer } as OutboxItem;
  const attempt = await sender.send(item);
  if (attempt.kind !== 'answered') return reply.code(502).header('content-type', 'application/problem+json').send('{"code":"SERVICE_UNAVAILABLE"}');
  if (attempt.status === 200)
    return reply
      .code(200)
      .header('content-type', 'application/json')
      .send(attempt.balance === undefined ? '{}' : `{"balance":${attempt.balance}}`);
  return reply
    .code(attempt.status)
    .header('content-type', 'application/problem+json')
    .send(JSON.stringify({ code: attempt.code, detail: attempt.detail }));
});
const address = await app.listen({ host: '127.0.0.1', port });
console.log(`forwarder ready on ${address}`);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => sender.close())
      .then(() => process.exit(0)),
);
