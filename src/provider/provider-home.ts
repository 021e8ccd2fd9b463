/**
 * What the provider's page at `/` says: its games, and where a person or an
 * integrator goes next. A game opens from a launch URL the operator asks
 * for (POST /generate-launch-url), so the games are listed, not linked.
 */
import type { HomeSection } from '../http/home-page.js';
import type { ProviderConfig } from './provider-config.js';

export function providerHomeSections(config: ProviderConfig): HomeSection[] {
  return [
    {
      heading: 'Games',
      text:
        `${config.games.map((game) => `${game.title} (${game.slug})`).join(', ')}. ` +
        'A game opens from the launch URL an operator asks for with POST /generate-launch-url.',
      links: [],
    },
    {
      heading: 'This server',
      text: 'The operators call POST /generate-launch-url and /game-bets, signed (docs/protocol.md). The back office is under /admin, with its bearer token; Prometheus metrics at /metrics, with the metrics or admin token.',
      links: [
        { href: '/openapi.json', text: 'OpenAPI document of every endpoint' },
        { href: '/health', text: 'Health' },
      ],
    },
  ];
}
