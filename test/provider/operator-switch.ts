/** A switch in front of a real operator, for the browser tests: a test takes the operator down and brings it back. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An operator that can be taken down: every request is passed on to the
 * real operator byte for byte (its signature still holds), or, while down,
 * answered 503 SERVICE_UNAVAILABLE as an operator in an outage would.
 */
export async function operatorSwitch(target: string): Promise<{ origin: string; down: boolean; close: () => Promise<void> }> {
  const control = { down: false };
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test's operator: a failure in it fails the test that calls it by its time-out
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (control.down) {
      response.writeHead(503, { 'content-type': 'application/problem+json' });
      response.end(
        JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'down for the test' }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
    }
    const body = Buffer.concat(chunks);
    const answer = await fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body.length > 0 ? { body } : {}) });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(control, {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  });
}
