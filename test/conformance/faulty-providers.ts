/**
 * Providers that break the interface on purpose, for the kit to catch: a
 * proxy in front of our provider breaks one rule the way a real provider
 * might, and passes everything else through as it came.
 * - `signature-unchecked`: every request reaches the provider signed with
 *   the operator's secret, whatever it carried: as if the signature were
 *   never checked;
 * - `rounded-amounts`: the ladders of /game-bets are written with two
 *   decimals, as a provider that formats money as a float with toFixed(2);
 * - `plain-errors`: every refusal is a 400 with a JSON body of its own
 *   (`{"error": ...}`), not problem+json with the registered code;
 * - `relative-url`: the launch URL is answered without its origin;
 * - `currency-ignored`: a launch's `currency` is never looked at (the proxy
 *   takes it out and signs the rest), as a provider that learns a player's
 *   currency only when the page opens.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { sign } from '../../src/protocol/signing.js';
import { SECRET } from '../helpers.js';

export type ProviderFault = 'signature-unchecked' | 'rounded-amounts' | 'plain-errors' | 'relative-url' | 'currency-ignored';

export interface Listening {
  origin: string;
  close: () => Promise<void>;
}

/** The headers a call carries through the proxy. */
const FORWARDED = ['content-type', 'x-server-authorization', 'x-forwarded-for', 'accept'];

async function bodyOf(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A launch's body without its `currency`, signed again; any other body (one
 * without it, one that is not JSON) passes as it came, signature and all,
 * so that only the currency's cases meet the fault.
 */
function withoutCurrency(bytes: Buffer, headers: Record<string, string>): Buffer {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes;
  }
  if (typeof body !== 'object' || body === null || !('currency' in body)) return bytes;
  const { currency: _ignored, ...rest } = body as Record<string, unknown>;
  const changed = Buffer.from(JSON.stringify(rest));
  headers['x-server-authorization'] = sign(SECRET, changed);
  return changed;
}

export async function faultyProvider(upstream: string, fault: ProviderFault): Promise<Listening> {
  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      let bytes = await bodyOf(incoming);
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = incoming.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      if (fault === 'currency-ignored' && incoming.method === 'POST' && incoming.url === '/generate-launch-url') bytes = withoutCurrency(bytes, headers);
      if (fault === 'signature-unchecked' && incoming.method === 'POST') headers['x-server-authorization'] = sign(SECRET, bytes);
      const answer = await request(`${upstream}${incoming.url}`, {
        method: incoming.method as 'GET' | 'POST',
        headers,
        ...(incoming.method === 'POST' ? { body: bytes } : {}),
      });
      let text = await answer.body.text();
      let status = answer.statusCode;
      let contentType = String(answer.headers['content-type'] ?? '');
      if (fault === 'rounded-amounts' && status === 200 && incoming.url === '/game-bets') {
        text = text.replace(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g, (number) => Number(number).toFixed(2));
      }
      if (fault === 'plain-errors' && status !== 200) {
        text = JSON.stringify({ error: (JSON.parse(text) as { detail?: string }).detail ?? 'error' });
        status = 400;
        contentType = 'application/json';
      }
      if (fault === 'relative-url' && status === 200 && incoming.url === '/generate-launch-url') {
        const url = new URL((JSON.parse(text) as { url: string }).url);
        text = JSON.stringify({ url: `${url.pathname}${url.hash}` });
      }
      outgoing.writeHead(status, { 'content-type': contentType });
      outgoing.end(text);
    })().catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
