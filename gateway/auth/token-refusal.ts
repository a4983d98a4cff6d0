import { errors } from "jose";

/**
 * Why a player token was refused: the reason the hello's error frame names (`token refused: <reason>`), so
 * a studio can tell a clock problem from a key problem from a misconfigured audience.
 */
export type TokenRefusal =
  | "malformed"
  | "unknown key"
  | "bad signature"
  | "expired"
  | "not yet valid"
  | "wrong issuer"
  | "wrong audience"
  | "algorithm not accepted"
  | "keys unavailable";

/**
 * Whether a refusal says "not now" rather than "not this token": the node could not fetch its provider's
 * keys, so the same token may pass once a fetch works. The hello answers it UNAVAILABLE, which the SDK
 * retries, instead of the final UNAUTHORIZED.
 */
export function isTemporaryRefusal(why: TokenRefusal): boolean {
  return why === "keys unavailable";
}

/** Thrown by a key lookup for a `kid` the node does not know (HS256 keys, a JWKS file). */
export class UnknownKeyError extends Error {
  constructor() {
    super("no key with this kid");
    this.name = "UnknownKeyError";
  }
}

/** Thrown by a remote key set that has no keys to check with: its provider could not be reached yet. */
export class KeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super("the JSON Web Key Set could not be fetched", { cause });
    this.name = "KeysUnavailableError";
  }
}

const claimRefusals: Readonly<Record<string, TokenRefusal>> = {
  nbf: "not yet valid",
  iat: "not yet valid",
  iss: "wrong issuer",
  aud: "wrong audience",
};

/** The reason for an error thrown while checking a token; anything unforeseen is "malformed". */
export function refusalOf(error: unknown): TokenRefusal {
  if (error instanceof UnknownKeyError || error instanceof errors.JWKSNoMatchingKey) return "unknown key";
  if (error instanceof KeysUnavailableError) return "keys unavailable";
  if (error instanceof errors.JWTExpired) return "expired";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "bad signature";
  if (error instanceof errors.JOSEAlgNotAllowed) return "algorithm not accepted";
  // A missing `iss` or `aud` is as wrong as a wrong one; a missing `exp` is a malformed token.
  if (error instanceof errors.JWTClaimValidationFailed) return claimRefusals[error.claim] ?? "malformed";
  return "malformed";
}
