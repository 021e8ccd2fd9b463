/**
 * What the provider-side conformance tests share: our provider listening
 * on a real socket, its public base URL its own address (so that a launch
 * URL opens), the demo operator holding a next secret (so that the
 * rotation cases run), and the target of a run against it; and the kit's
 * cases run in-process, through app.inject(), as the provider's rule tests
 * run them.
 */
import type { FastifyInstance } from 'fastify';
import type { KitSend } from '../../src/conformance/kit-send.js';
import type { ProviderTarget } from '../../src/conformance/provider-runner.js';
import type { ProviderCase, ProviderEndpoint } from '../../src/conformance/provider/model.js';
import { PROVIDER_CASES } from '../../src/conformance/provider/index.js';
import { NEXT_SECRET, SECRET } from '../helpers.js';
import { freePort } from '../harness/child-process.js';
import { makeProvider, OPERATOR_ID, WALLET_ID, type Provider } from '../provider/provider-helpers.js';

/** The game and currencies of a run: dice has a written EUR ladder and derives the others, in 2, 0 and 8 decimals. */
const TARGET_GAME = 'dice';
const TARGET_CURRENCIES = ['EUR', 'JPY', 'BTC'];

export interface ListeningProvider {
  provider: Provider;
  origin: string;
  close: () => Promise<void>;
}

/** `whitelist`: the demo operator's, when a run must call from outside it (default the helpers' own). */
export async function listeningProvider(options: { whitelist?: string[] } = {}): Promise<ListeningProvider> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const provider = await makeProvider({
    edit: (file) => {
      file.publicBaseUrl = origin;
      file.operators[0]!.secretNext = NEXT_SECRET;
      if (options.whitelist !== undefined) file.operators[0]!.ipWhitelist = options.whitelist;
    },
  });
  try {
    await provider.app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    await provider.close();
    throw error;
  }
  return { provider, origin, close: () => provider.close() };
}

export function providerTarget(origin: string, change: Partial<ProviderTarget> = {}): ProviderTarget {
  return {
    endpoint: origin,
    secret: SECRET,
    nextSecret: NEXT_SECRET,
    operatorId: OPERATOR_ID,
    walletId: WALLET_ID,
    game: TARGET_GAME,
    currencies: TARGET_CURRENCIES,
    ...change,
  };
}

/** The kit's requests handed to the app in-process, from the address the test config whitelists: the same bytes and headers. */
export function injectSend(app: FastifyInstance, remoteAddress = '127.0.0.1'): KitSend {
  return async (request) => {
    const url = new URL(request.url);
    const response = await app.inject({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers: request.headers,
      ...(request.method === 'POST' ? { payload: Buffer.from(request.bytes) } : {}),
      remoteAddress,
    });
    return {
      kind: 'answer',
      status: response.statusCode,
      contentType: String(response.headers['content-type'] ?? ''),
      text: response.body,
      retryAfterMs: undefined,
    };
  };
}

/** The cases only a run from outside the operator's whitelist checks (--outside-whitelist). */
export const OUTSIDE_WHITELIST_CASES = PROVIDER_CASES.filter((each) => each.needs.includes('outside-whitelist')).map((each) => each.id);

/** The kit's cases every call of which is to `endpoint`: the rule tests of that endpoint run them. */
export function casesOf(endpoint: ProviderEndpoint): ProviderCase[] {
  return PROVIDER_CASES.filter((each) => each.steps.every((step) => step.kind === 'open' || step.endpoint === endpoint));
}
