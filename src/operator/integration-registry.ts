/**
 * Which integration is calling (docs/protocol.md §2.6): every node's
 * in-memory map from an access token's SHA-256 to its integration, with the
 * integration's state, its secrets opened as bytes and its caller ranges.
 * Built from the environment's `default` integration (WAGERLINK_SECRET,
 * WAGERLINK_ACCESS_TOKENS; never stored) and the stored ones, whose secrets
 * open under WAGERLINK_INTEGRATION_KEYS.
 *
 * Followed, not asked: a wallet call reads the map and nothing else, so an
 * integration costs a call no database round trip. A node reads the
 * integrations again when their stored version moves: the node that made a
 * change at once (`reload`), every other node within INTEGRATIONS_POLL_MS
 * (`follow`, which `serve` and the sandbox start; building an app starts
 * nothing).
 *
 * The map is swapped whole: a call sees the integrations of one version,
 * never half of a reload.
 */
import type { FastifyBaseLogger } from 'fastify';
import { addressSet, type AddressSet } from '../access/address-ranges.js';
import {
  integrationTokenHash,
  integrationView,
  openSecret,
  type IntegrationState,
  type IntegrationView,
  type StoredIntegration,
} from '../access/integrations.js';
import type { Keyring } from '../access/keyring.js';
import { ENV_INTEGRATION_ID } from '../protocol/integration-id.js';
import { signingSecrets } from '../protocol/signing.js';
import type { WalletStore } from '../stores/operations.js';
import type { IntegrationsListing } from '../stores/store.js';

/**
 * How often a node reads the stored version (ms): a pause or a removal made
 * on another node holds here within 2 s, for one primary-key read per node
 * per interval.
 */
const INTEGRATIONS_POLL_MS = 2_000;

/** An integration as a wallet call needs it. */
export interface CallingIntegration {
  id: string;
  state: IntegrationState;
  /** HMAC secrets as bytes: the current one, and the next during a rotation. */
  secrets: readonly Uint8Array[];
  /** The caller ranges, or undefined when any address may call. */
  ranges: AddressSet | undefined;
}

/** The single integration of WAGERLINK_SECRET(_NEXT) and WAGERLINK_ACCESS_TOKENS. */
export interface EnvironmentIntegration {
  secrets: readonly string[];
  accessTokens: readonly string[];
}

/** Stored integrations exist, and no WAGERLINK_INTEGRATION_KEYS to open their secrets. */
class IntegrationKeysMissingError extends Error {
  override name = 'IntegrationKeysMissingError';
}

export interface IntegrationRegistryOptions {
  store: WalletStore;
  environment?: EnvironmentIntegration | undefined;
  /** WAGERLINK_INTEGRATION_KEYS, read: without it, stored integrations cannot be opened nor added. */
  keyring?: Keyring | undefined;
}

export class IntegrationRegistry {
  readonly #store: WalletStore;
  readonly #environment: EnvironmentIntegration | undefined;
  readonly keyring: Keyring | undefined;
  readonly #environmentEntries: [string, CallingIntegration][];
  #byTokenHash: ReadonlyMap<string, CallingIntegration>;
  #stored: readonly StoredIntegration[] = [];
  #version = -1;
  readonly #reloaded: (() => void)[] = [];

  constructor(options: IntegrationRegistryOptions) {
    this.#store = options.store;
    this.#environment = options.environment;
    this.keyring = options.keyring;
    const environment = options.environment;
    this.#environmentEntries = [];
    if (environment !== undefined) {
      const calling: CallingIntegration = { id: ENV_INTEGRATION_ID, state: 'active', secrets: signingSecrets(environment.secrets), ranges: undefined };
      for (const token of environment.accessTokens) this.#environmentEntries.push([integrationTokenHash(token), calling]);
    }
    this.#byTokenHash = new Map(this.#environmentEntries);
  }

  /** The integration a bearer token belongs to, or undefined: one hash and one map lookup. */
  lookup(token: string | undefined): CallingIntegration | undefined {
    return token === undefined ? undefined : this.#byTokenHash.get(integrationTokenHash(token));
  }

  /** The version of the stored integrations the map was built from; -1 before the first load. */
  get version(): number {
    return this.#version;
  }

  /** The stored integrations as last read (sealed secrets and token hashes, as stored). */
  get stored(): readonly StoredIntegration[] {
    return this.#stored;
  }

  /** What a listing shows: the environment's integration, then the stored ones. */
  views(): IntegrationView[] {
    const environment = this.#environment;
    const own: IntegrationView[] =
      environment === undefined
        ? []
        : [
            {
              id: ENV_INTEGRATION_ID,
              name: 'WAGERLINK_SECRET and WAGERLINK_ACCESS_TOKENS',
              state: 'active',
              source: 'environment',
              tokens: environment.accessTokens.length,
              rotating: environment.secrets.length > 1,
              ranges: [],
              providerUrl: null,
              createdAt: null,
              updatedAt: null,
              revision: null,
            },
          ];
    return [...own, ...this.#stored.map(integrationView)];
  }

  /**
   * Reads every stored integration and swaps the map. Throws
   * IntegrationKeysMissingError when some are stored and no keyring opens
   * them, and the keyring's error when one names a key it lacks: a node
   * that cannot check an integration's signatures does not serve it
   * quietly.
   */
  async reload(): Promise<void> {
    this.apply(await this.#store.listIntegrations());
  }

  /** Reads the version, and everything when it moved. True when it did. */
  async refresh(): Promise<boolean> {
    if ((await this.#store.integrationsVersion()) === this.#version) return false;
    await this.reload();
    return true;
  }

  /** Called after each reload that swapped the map: what a test waits on, rather than on time. */
  onReload(listener: () => void): void {
    this.#reloaded.push(listener);
  }

  /** Polls the version every `intervalMs` until stopped; a failed poll is logged and tried again at the next. */
  follow(logger: Pick<FastifyBaseLogger, 'warn'>, intervalMs: number = INTEGRATIONS_POLL_MS): { stop(): void } {
    let running = false;
    const timer = setInterval(() => {
      // One poll at a time: a slow database does not stack them up.
      if (running) return;
      running = true;
      this.refresh()
        .catch((error: unknown) => logger.warn({ err: error }, 'could not read the integrations; the last ones read still apply'))
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  private apply(listing: IntegrationsListing): void {
    // Two reads may cross (a poll and a change's reload): the later version wins.
    if (listing.version < this.#version) return;
    if (listing.integrations.length > 0 && this.keyring === undefined) {
      throw new IntegrationKeysMissingError(
        `${listing.integrations.length} integrations are stored, and WAGERLINK_INTEGRATION_KEYS is not set: ` +
          'set it to the keys their secrets were sealed under',
      );
    }
    const entries: [string, CallingIntegration][] = [...this.#environmentEntries];
    for (const stored of listing.integrations) {
      const calling = this.calling(stored);
      for (const hash of stored.tokenHashes) entries.push([hash, calling]);
    }
    this.#byTokenHash = new Map(entries);
    this.#stored = listing.integrations;
    this.#version = listing.version;
    for (const listener of this.#reloaded) listener();
  }

  private calling(stored: StoredIntegration): CallingIntegration {
    const ring = this.keyring!;
    const secrets = [openSecret(ring, stored.id, 'current', stored.secretSealed)];
    if (stored.secretNextSealed !== null) secrets.push(openSecret(ring, stored.id, 'next', stored.secretNextSealed));
    return {
      id: stored.id,
      state: stored.state,
      secrets: signingSecrets(secrets),
      ranges: stored.ranges.length === 0 ? undefined : addressSet(stored.ranges),
    };
  }
}
