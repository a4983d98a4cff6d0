import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { KeysUnavailableError } from "./token-refusal.ts";

/** How a remote key set is fetched and how often it may be fetched again. */
export interface RemoteKeySetOptions {
  /** The provider's JWKS URL (`.../.well-known/jwks.json`). */
  readonly url: URL;
  /**
   * The least time between two fetches, whatever their outcome: a flood of tokens with unknown `kid`s, or
   * a provider that is down, costs the provider at most one request per this many milliseconds.
   */
  readonly cooldownMs: number;
  /** Keys older than this are fetched again before use (a removed key stops working within it). */
  readonly maxAgeMs: number;
  /** A fetch taking longer than this fails (the hello waiting on it is refused, not stalled). */
  readonly timeoutMs: number;
  /** Told of each failed fetch (the node logs it). */
  readonly onFetchFailed?: (error: unknown) => void;
  /** The clock the cooldown and age are counted on (tests move it). */
  readonly now?: () => number;
}

/**
 * A provider's public keys, fetched from its JWKS URL when first needed, kept for `maxAgeMs`, and fetched
 * again when a token names a `kid` it does not hold (the provider rotated its keys), at most once per
 * `cooldownMs`. jose's own remote set retries a failed fetch on every token; this one counts every attempt
 * against the cooldown and keeps the last good keys while the provider cannot be reached.
 */
export class RemoteKeySet {
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private triedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private lastError: unknown;
  private readonly now: () => number;

  constructor(private readonly options: RemoteKeySetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The key a token's header names, for jose's `jwtVerify`. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (this.keys === undefined || this.now() - this.fetchedAt >= this.options.maxAgeMs) await this.refresh();
    if (this.keys === undefined) throw new KeysUnavailableError(this.lastError);
    try {
      return await this.keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A new kid: the provider may have rotated. Fetched again only if the cooldown allows it.
      await this.refresh();
      return this.keys(header, token);
    }
  };

  /** Fetches the keys unless a fetch is under way (then waits for it) or the cooldown forbids one. */
  refresh(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.now() - this.triedAt < this.options.cooldownMs) return Promise.resolve();
    this.triedAt = this.now();
    this.pending = this.load().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async load(): Promise<void> {
    try {
      const response = await fetch(this.options.url, {
        redirect: "manual",
        headers: { accept: "application/json, application/jwk-set+json" },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (response.status !== 200) throw new Error(`the JWKS URL answered HTTP ${response.status}`);
      this.keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
      this.fetchedAt = this.now();
    } catch (error) {
      this.lastError = error;
      this.options.onFetchFailed?.(error);
    }
  }
}
