/**
 * Launch tokens: what a launch URL carries (docs/protocol.md §8).
 *
 * A token is sealed with AES-256-GCM under a key derived from the
 * provider's own launch-token secret (never an operator's secret): it is
 * opaque, because the launch key inside must not be readable from a URL, and
 * signed, because GCM's tag fails on any change. Everything that decides
 * what a token can open is inside it (mode, game, operator, wallet, expiry),
 * so a token is good for one game of one operator only.
 *
 * Format: "v1." + base64url(iv[12] || ciphertext || tag[16]).
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { compile } from '../protocol/validate.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = 'wagerlink launch token v1';
/** A token longer than this is not one of ours: bounds the work on garbage (characters). */
export const TOKEN_LENGTH_MAX = 4_096;
/**
 * Tokens whose claims are kept once opened, the most recently used: a page
 * sends its token with every round, and opening it (AES-GCM and a schema
 * check) was a few per cent of a round's CPU. At most about 16 MiB.
 */
export const OPENED_TOKENS_KEPT_MAX = 4_096;

export const LaunchClaims = Type.Object({
  /** One id per launch: the provider's game session of this launch is keyed by it. */
  launchId: Type.String({ minLength: 1 }),
  mode: Type.Union([Type.Literal('real'), Type.Literal('fun')]),
  game: Type.String({ minLength: 1 }),
  operatorId: Type.String({ minLength: 1 }),
  walletId: Type.Optional(Type.String()),
  /** The operator's launch key, for /authenticate (real mode). */
  key: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  /** Fun mode: the currency the launch named, which its play money is in; without it, the config's play-money currency. */
  currency: Type.Optional(Type.String()),
  language: Type.String(),
  urls: Type.Object({
    lobby: Type.Optional(Type.String()),
    refresh: Type.Optional(Type.String()),
    deposit: Type.Optional(Type.String()),
  }),
  /** Epoch ms. The token opens a new game session until then. */
  expiresAt: Type.Integer(),
});
export type LaunchClaims = Static<typeof LaunchClaims>;
const claimsCheck = compile(LaunchClaims);

export interface LaunchTokens {
  seal(claims: LaunchClaims): string;
  /** The claims (frozen: they may be shared), or undefined for anything that is not an intact token of ours. Expiry is the caller's rule. */
  open(token: string): Readonly<LaunchClaims> | undefined;
}

/**
 * `secrets[0]` seals; every secret opens, so the launch-token secret can be
 * rotated while launched games keep playing. `randomBytes` gives the IVs.
 */
export function launchTokens(secrets: readonly string[], randomBytes: (size: number) => Buffer): LaunchTokens {
  if (secrets.length === 0 || secrets.some((secret) => secret.length === 0)) throw new Error('a launch-token secret is required');
  const keys = secrets.map((secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_INFO, 32)));
  const prefix = `${VERSION}.`;
  const opened = new Map<string, Readonly<LaunchClaims>>();
  return {
    seal(claims) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys[0]!, iv);
      cipher.setAAD(Buffer.from(VERSION));
      const body = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
      return prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(token) {
      const kept = opened.get(token);
      if (kept !== undefined) {
        // Most recently used last: the Map's order is the eviction order.
        opened.delete(token);
        opened.set(token, kept);
        return kept;
      }
      const claims = unseal(token);
      // Only intact tokens are kept: garbage costs its bounded work each time and takes no room.
      if (claims === undefined) return undefined;
      if (opened.size >= OPENED_TOKENS_KEPT_MAX) opened.delete(opened.keys().next().value!);
      opened.set(token, claims);
      return claims;
    },
  };

  function unseal(token: string): Readonly<LaunchClaims> | undefined {
    if (token.length > TOKEN_LENGTH_MAX || !token.startsWith(prefix)) return undefined;
    const bytes = Buffer.from(token.slice(prefix.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES + 2) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    for (const key of keys) {
      let text: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(VERSION));
        decipher.setAuthTag(tag);
        text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        continue; // not sealed with this key, or altered
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return undefined;
      }
      const checked = claimsCheck.check(value);
      return checked.ok ? Object.freeze({ ...checked.value, urls: Object.freeze({ ...checked.value.urls }) }) : undefined;
    }
    return undefined;
  }
}
