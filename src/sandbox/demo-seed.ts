/**
 * The sandbox's demo players, made through the operator's own back-office
 * API (the same route a casino's staff would use), so that seeding obeys the
 * same checks as any player. Idempotent: a player that exists already
 * (409 PLAYER_EXISTS) is left as it is, with whatever it has won or lost.
 */
import type { FastifyInstance } from 'fastify';
import { DEMO_PLAYERS } from './sandbox-config.js';

/** Makes the demo players that do not exist yet; returns how many it made. */
/** `host`: one of the authorities the app answers for (its allowedHosts), as a browser would name it. */
export async function seedDemoPlayers(app: FastifyInstance, adminToken: string, host: string): Promise<number> {
  let made = 0;
  for (const player of DEMO_PLAYERS) {
    // The balance goes as its decimal text, unchanged: a JSON number, never through a double.
    const payload = `{"playerId":${JSON.stringify(player.playerId)},"currency":"${player.currency}","balance":${player.balance},"country":"${player.country}"}`;
    const answer = await app.inject({
      method: 'POST',
      url: '/admin/players',
      headers: { host, authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      payload,
    });
    if (answer.statusCode === 201) made++;
    else if (answer.statusCode !== 409) throw new Error(`seeding ${player.playerId} failed: ${answer.statusCode} ${answer.body}`);
  }
  return made;
}
