/**
 * The back office's use-cases of integrations, shared by the admin API
 * (routes/admin/integrations.ts) and the CLI (`wagerlink operator
 * integrations ...`): add, rotate, pause, resume, switch off, set and
 * remove. Each checks its input with the pure rules of
 * access/integrations.ts, makes any new secret or token from the world's
 * randomness, seals and hashes them, and hands the store only what it may
 * keep; a new secret or token is answered once, to the caller that made
 * it, and never again.
 *
 * A change is made from the revision read just before it: a concurrent
 * change in between refuses it STATE_CONFLICT (store.ts), rather than one
 * of them being lost.
 */
import { randomBytes } from 'node:crypto';
import type { AuditEntry } from '../access/staff.js';
import {
  checkIntegrationId,
  checkIntegrationName,
  checkProviderUrl,
  checkRanges,
  INTEGRATION_TOKENS_MAX,
  integrationExists,
  integrationNotFound,
  integrationView,
  newIntegrationSecret,
  newIntegrationToken,
  openSecret,
  sealSecret,
  type IntegrationChanges,
  type IntegrationState,
  type IntegrationView,
  type StoredIntegration,
} from '../access/integrations.js';
import type { Keyring } from '../access/keyring.js';
import { ENV_INTEGRATION_ID } from '../protocol/integration-id.js';
import { refuse, type Refusal } from '../protocol/errors.js';
import type { WalletStore } from '../stores/operations.js';

/** What a change answers: the integration as listed, and what was made for it, shown this once. */
export interface IntegrationMade {
  ok: true;
  integration: IntegrationView;
  /** A new current secret (add). */
  secret?: string;
  /** A new next secret (a rotation begun). */
  secretNext?: string;
  /** A new access token (add, a rotation begun). */
  token?: string;
}

export interface NewIntegration {
  id: string;
  name: string;
  ranges?: string[] | undefined;
  providerUrl?: string | null | undefined;
}

export interface IntegrationSettings {
  name?: string | undefined;
  ranges?: string[] | undefined;
  providerUrl?: string | null | undefined;
}

/** A rotation's step: begin makes a next secret and/or a new token; finish makes the next secret current and drops older tokens. */
export type RotationStep = { step: 'begin'; secret: boolean; token: boolean } | { step: 'finish' };

function invalid(detail: string): Refusal {
  return refuse('INVALID_REQUEST', detail);
}

function firstProblem(...problems: (string | undefined)[]): Refusal | undefined {
  const problem = problems.find((p) => p !== undefined);
  return problem === undefined ? undefined : invalid(problem);
}

function environmentIsFixed(): Refusal {
  return invalid(
    `${ENV_INTEGRATION_ID} is the integration of WAGERLINK_SECRET, WAGERLINK_SECRET_NEXT and WAGERLINK_ACCESS_TOKENS: it is changed there, and the server restarted`,
  );
}

export class IntegrationAdmin {
  constructor(
    private readonly store: WalletStore,
    private readonly keyring: Keyring | undefined,
    private readonly clock: () => number,
    private readonly random: (bytes: number) => Buffer = randomBytes,
    /** Called after each change made: the node that made it reads the integrations again at once. */
    private readonly changed: () => Promise<void> = async () => {},
  ) {}

  async add(input: NewIntegration, audit?: AuditEntry): Promise<IntegrationMade | Refusal> {
    if (input.id === ENV_INTEGRATION_ID) return integrationExists(ENV_INTEGRATION_ID);
    const ranges = input.ranges ?? [];
    const providerUrl = input.providerUrl ?? null;
    const problem = firstProblem(
      checkIntegrationId(input.id),
      checkIntegrationName(input.name),
      checkRanges(ranges),
      providerUrl === null ? undefined : checkProviderUrl(providerUrl),
    );
    if (problem) return problem;
    const ring = this.keyring;
    if (ring === undefined) return noKeys();
    const secret = newIntegrationSecret(this.random);
    const { token, tokenHash } = newIntegrationToken(this.random);
    const outcome = await this.store.addIntegration({
      integration: {
        id: input.id,
        name: input.name,
        state: 'active',
        secretSealed: sealSecret(ring, input.id, 'current', secret),
        secretNextSealed: null,
        tokenHashes: [tokenHash],
        ranges,
        providerUrl,
      },
      now: this.clock(),
      audit,
    });
    if (!outcome.ok) return outcome;
    await this.changed();
    return { ok: true, integration: integrationView(outcome.integration), secret, token };
  }

  async setState(id: string, state: IntegrationState, audit?: AuditEntry): Promise<IntegrationMade | Refusal> {
    return this.change(id, audit, () => ({ changes: { state } }));
  }

  async set(id: string, settings: IntegrationSettings, audit?: AuditEntry): Promise<IntegrationMade | Refusal> {
    const problem = firstProblem(
      settings.name === undefined ? undefined : checkIntegrationName(settings.name),
      settings.ranges === undefined ? undefined : checkRanges(settings.ranges),
      settings.providerUrl === undefined || settings.providerUrl === null ? undefined : checkProviderUrl(settings.providerUrl),
    );
    if (problem) return problem;
    return this.change(id, audit, () => ({ changes: { name: settings.name, ranges: settings.ranges, providerUrl: settings.providerUrl } }));
  }

  async rotate(id: string, rotation: RotationStep, audit?: AuditEntry): Promise<IntegrationMade | Refusal> {
    const ring = this.keyring;
    if (ring === undefined) return noKeys();
    return this.change(id, audit, (stored) => (rotation.step === 'begin' ? this.begin(ring, stored, rotation) : finish(ring, stored)));
  }

  async remove(id: string, audit?: AuditEntry): Promise<{ ok: true; id: string } | Refusal> {
    if (id === ENV_INTEGRATION_ID) return environmentIsFixed();
    const outcome = await this.store.removeIntegration({ id, now: this.clock(), audit });
    if (outcome.ok) await this.changed();
    return outcome;
  }

  private begin(ring: Keyring, stored: StoredIntegration, rotation: { secret: boolean; token: boolean }): Made | Refusal {
    if (!rotation.secret && !rotation.token) return invalid('a rotation begins with a new secret, a new token, or both');
    if (rotation.token && stored.tokenHashes.length >= INTEGRATION_TOKENS_MAX) {
      return refuse('STATE_CONFLICT', `integration ${stored.id} holds ${INTEGRATION_TOKENS_MAX} tokens, its most: finish the rotation first`);
    }
    const changes: IntegrationChanges = {};
    const shown: Omit<IntegrationMade, 'ok' | 'integration'> = {};
    if (rotation.secret) {
      const next = newIntegrationSecret(this.random);
      changes.secretNextSealed = sealSecret(ring, stored.id, 'next', next);
      shown.secretNext = next;
    }
    if (rotation.token) {
      const { token, tokenHash } = newIntegrationToken(this.random);
      changes.tokenHashes = [...stored.tokenHashes, tokenHash];
      shown.token = token;
    }
    return { changes, shown };
  }

  private async change(id: string, audit: AuditEntry | undefined, plan: (stored: StoredIntegration) => Made | Refusal): Promise<IntegrationMade | Refusal> {
    if (id === ENV_INTEGRATION_ID) return environmentIsFixed();
    const stored = (await this.store.listIntegrations()).integrations.find((integration) => integration.id === id);
    if (!stored) return integrationNotFound(id);
    const made = plan(stored);
    if ('ok' in made) return made;
    const outcome = await this.store.updateIntegration({ id, revision: stored.revision, changes: made.changes, now: this.clock(), audit });
    if (!outcome.ok) return outcome;
    await this.changed();
    return { ok: true, integration: integrationView(outcome.integration), ...made.shown };
  }
}

/** A change planned from a stored integration, and what it made to show once. */
interface Made {
  changes: IntegrationChanges;
  shown?: Omit<IntegrationMade, 'ok' | 'integration'>;
}

/** The next secret becomes the current one (sealed again for its new slot), and only the newest token is kept. */
function finish(ring: Keyring, stored: StoredIntegration): Made | Refusal {
  if (stored.secretNextSealed === null && stored.tokenHashes.length <= 1) {
    return refuse('STATE_CONFLICT', `integration ${stored.id} has no rotation to finish`);
  }
  const changes: IntegrationChanges = { tokenHashes: stored.tokenHashes.slice(-1) };
  if (stored.secretNextSealed !== null) {
    changes.secretSealed = sealSecret(ring, stored.id, 'current', openSecret(ring, stored.id, 'next', stored.secretNextSealed));
    changes.secretNextSealed = null;
  }
  return { changes };
}

function noKeys(): Refusal {
  return refuse('STATE_CONFLICT', 'WAGERLINK_INTEGRATION_KEYS is not set: no secret can be sealed, so no integration can be added or rotated');
}
