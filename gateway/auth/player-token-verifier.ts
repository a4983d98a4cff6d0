import { createHmac, timingSafeEqual } from "node:crypto";
import {
  base64url,
  jwtVerify,
  UnsecuredJWT,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from "jose";
import { z } from "zod";
import type { PlayerClaims, TokenKey } from "./player-token.ts";
import { refusalOf, UnknownKeyError, type TokenRefusal } from "./token-refusal.ts";

/** What a token check says: the player's claims, or why the token was refused. Never thrown. */
export type TokenCheck = { ok: true; claims: PlayerClaims } | { ok: false; why: TokenRefusal };

/** How player tokens are checked: which keys, which issuer and audience, which claims name the player. */
export interface PlayerTokenPolicy {
  /** HS256 keys by `kid` (`--token-keys`): a studio backend's own tokens. */
  readonly keys: readonly TokenKey[];
  /** A provider's public keys (a JWKS URL or file): RS256, ES256 and EdDSA tokens. */
  readonly keySet?: JWTVerifyGetKey;
  /** Accepted `iss` values; empty or absent: not checked. */
  readonly issuer?: readonly string[];
  /** Accepted `aud` values (one is enough); empty or absent: not checked. */
  readonly audience?: readonly string[];
  /** The claim holding the player id (default `sub`). */
  readonly playerClaim?: string;
  /** The claim holding the display name (default `name`). */
  readonly nameClaim?: string;
  /** Seconds a token may be past `exp` or before `nbf` and still pass, for clocks that drift. */
  readonly clockSkewS?: number;
}

/** The algorithms of a provider's keys. `none` and HMAC are never taken from a key set. */
const publicKeyAlgorithms = ["RS256", "ES256", "EdDSA", "Ed25519"];

/** How an HS256 secret is imported for WebCrypto, which jose checks every signature with. */
const hmacSha256 = { name: "HMAC", hash: "SHA-256" } as const;

const playerIdSchema = z.string().min(1).max(128);
const nameSchema = z.string().min(1).max(32);
const expSchema = z.number().int();

/**
 * Checks player tokens with jose: HS256 against the node's own keys, public-key algorithms against the
 * provider's key set, each only with its own kind of key, so an HS256 token "signed" with a public key's
 * bytes finds no key. The claims are read from the names the provider uses; `exp` is required.
 *
 * Each HS256 secret is imported as a WebCrypto `CryptoKey` once, on its first use: given the secret's
 * bytes (or a `KeyObject`, which it exports back to bytes), jose imports it again for every token, which
 * doubles the cost of a check that every cold join pays.
 *
 * A plain HS256 token of the node's own keys (a header of `alg`, `kid` and at most `typ`) is first
 * checked without WebCrypto, whose every call is a job on libuv's thread pool: its HMAC with
 * `node:crypto`, then its claims by jose's own claims check (`UnsecuredJWT.decode` of the same payload,
 * with the same options as `jwtVerify`). Only a token that passes both is taken this way; every other
 * token, and every refusal, goes through `jwtVerify`, so what is refused, and why, does not change.
 */
export class PlayerTokenVerifier {
  private readonly secrets: ReadonlyMap<string, Uint8Array<ArrayBuffer>>;
  /** The imported secrets by `kid`: the import under way, then its key. */
  private readonly hmacKeys = new Map<string, CryptoKey | Promise<CryptoKey>>();
  private readonly options: JWTVerifyOptions;

  constructor(private readonly policy: PlayerTokenPolicy) {
    const encoder = new TextEncoder();
    this.secrets = new Map(policy.keys.map((k) => [k.id, encoder.encode(k.secret)]));
    this.options = {
      algorithms: [
        ...(policy.keys.length > 0 ? ["HS256"] : []),
        ...(policy.keySet ? publicKeyAlgorithms : []),
      ],
      requiredClaims: ["exp"],
      clockTolerance: policy.clockSkewS ?? 0,
      ...(policy.issuer?.length ? { issuer: [...policy.issuer] } : {}),
      ...(policy.audience?.length ? { audience: [...policy.audience] } : {}),
    };
  }

  /** Checks a token at `nowMs`. Never throws. */
  async verify(token: string, nowMs: number): Promise<TokenCheck> {
    const options = { ...this.options, currentDate: new Date(nowMs) };
    let payload = this.plainHs256(token, options);
    if (payload === undefined) {
      try {
        ({ payload } = await jwtVerify(token, this.getKey, options));
      } catch (error) {
        return { ok: false, why: refusalOf(error) };
      }
    }
    const sub = playerIdSchema.safeParse(payload[this.policy.playerClaim ?? "sub"]);
    const name = nameSchema.safeParse(payload[this.policy.nameClaim ?? "name"]);
    const exp = expSchema.safeParse(payload.exp);
    if (!sub.success || !name.success || !exp.success) return { ok: false, why: "malformed" };
    return { ok: true, claims: { sub: sub.data, name: name.data, exp: exp.data } };
  }

  /**
   * The claims of a plain HS256 token of the node's own keys whose signature and claims pass, checked
   * synchronously; undefined for any other token (then `jwtVerify` decides, and says why it refuses).
   */
  private plainHs256(token: string, options: JWTVerifyOptions): JWTPayload | undefined {
    if (this.secrets.size === 0) return undefined;
    const first = token.indexOf(".");
    const second = token.indexOf(".", first + 1);
    if (first <= 0 || second <= first || token.includes(".", second + 1)) return undefined;
    try {
      const header: unknown = JSON.parse(utf8.decode(base64url.decode(token.slice(0, first))));
      const kid = plainHs256Kid(header);
      const secret = kid === undefined ? undefined : this.secrets.get(kid);
      if (secret === undefined) return undefined;
      const expected = createHmac("sha256", secret).update(token.slice(0, second)).digest("base64url");
      const given = token.slice(second + 1);
      if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected)))
        return undefined;
      return UnsecuredJWT.decode(`${unsecuredHeader}.${token.slice(first + 1, second)}.`, options).payload;
    } catch {
      return undefined;
    }
  }

  /** An HS256 token's key is one of the node's secrets; any other's comes from the key set. */
  private readonly getKey: JWTVerifyGetKey = (header, token) => {
    if (header.alg !== "HS256") {
      if (!this.policy.keySet) throw new UnknownKeyError();
      return this.policy.keySet(header, token);
    }
    const kid = header.kid;
    const secret = kid === undefined ? undefined : this.secrets.get(kid);
    if (kid === undefined || !secret) throw new UnknownKeyError();
    return this.hmacKeys.get(kid) ?? this.importSecret(kid, secret);
  };

  /** Imports a secret once; the tokens that arrive meanwhile wait for the same import. */
  private importSecret(kid: string, secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
    const importing = crypto.subtle.importKey("raw", secret, hmacSha256, false, ["verify"]);
    this.hmacKeys.set(kid, importing);
    // A failed import refuses the tokens waiting on it (as jose's own import would) and is tried again.
    importing.then(
      (key) => this.hmacKeys.set(kid, key),
      () => this.hmacKeys.delete(kid),
    );
    return importing;
  }
}

const utf8 = new TextDecoder();

/** The header of the unsecured JWT whose claims jose checks for a plain HS256 token (`plainHs256`). */
const unsecuredHeader = base64url.encode(JSON.stringify({ alg: "none" }));

/** The `kid` of a plain HS256 header: `alg` HS256, a string `kid`, at most a string `typ`, nothing else. */
function plainHs256Kid(header: unknown): string | undefined {
  if (typeof header !== "object" || header === null || Array.isArray(header)) return undefined;
  const { alg, kid, typ, ...rest } = header as Record<string, unknown>;
  if (alg !== "HS256" || typeof kid !== "string" || Object.keys(rest).length > 0) return undefined;
  return typ === undefined || typeof typ === "string" ? kid : undefined;
}

/** The verifiers made for a bare list of keys, so that list's secrets are imported once, not per token. */
const verifiersOfKeys = new WeakMap<readonly TokenKey[], PlayerTokenVerifier>();

function verifierOfKeys(keys: readonly TokenKey[]): PlayerTokenVerifier {
  let verifier = verifiersOfKeys.get(keys);
  if (!verifier) {
    verifier = new PlayerTokenVerifier({ keys });
    verifiersOfKeys.set(keys, verifier);
  }
  return verifier;
}

/**
 * Verifies a token at `nowMs`: against HS256 keys (`sub`, `name` and `exp` claims, no issuer or audience),
 * or with a node's verifier, which may also know a provider's key set. Never throws.
 */
export function verifyPlayerToken(
  token: string,
  keys: readonly TokenKey[] | PlayerTokenVerifier,
  nowMs: number,
): Promise<TokenCheck> {
  const verifier = keys instanceof PlayerTokenVerifier ? keys : verifierOfKeys(keys);
  return verifier.verify(token, nowMs);
}
