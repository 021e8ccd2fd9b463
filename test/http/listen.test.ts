/**
 * Proves that a server that cannot bind says why in words: a port in use is
 * a ListenError naming the port, the host and the setting that moves the
 * server (both servers listen through listenOn), not Node's EADDRINUSE.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { ListenError, listenOn } from '../../src/http/listen.js';

test('a port in use is a ListenError naming the port and the setting to change', async () => {
  const first = Fastify();
  const second = Fastify();
  try {
    await first.listen({ host: '127.0.0.1', port: 0 });
    const { port } = first.server.address() as { port: number };
    await assert.rejects(listenOn(second, { host: '127.0.0.1', port }, '--port or the config\'s "port"'), (error: Error) => {
      assert.ok(error instanceof ListenError);
      assert.equal(error.message, `port ${port} on 127.0.0.1 is already in use: stop what holds it, or choose another port with --port or the config's "port"`);
      return true;
    });
  } finally {
    await second.close();
    await first.close();
  }
});
