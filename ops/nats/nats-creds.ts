import { nkeyPublicKey } from "./nkey.ts";

/**
 * The blocks between dashed lines, as nats.js's `credsAuthenticator` finds them: it takes the first as
 * the user JWT and the second as the seed, whatever their BEGIN lines say, so they are checked the same way.
 */
const blockPattern = /\s*(?:(?:[-]{3,}[^\n]*[-]{3,}\n)(.+)(?:\n\s*[-]{3,}[^\n]*[-]{3,}\n))/gi;

/** What a readable `.creds` file names: the user (`U…`) and the account (`A…`) that signed its JWT. */
export interface NatsCredsUser {
  readonly user: string;
  readonly account: string;
}

/** The claims of a user JWT this check reads (v2 keeps the type under `nats`, v1 at the top). */
interface UserClaims {
  readonly sub?: unknown;
  readonly iss?: unknown;
  readonly exp?: unknown;
  readonly type?: unknown;
  readonly nats?: { readonly type?: unknown; readonly issuer_account?: unknown };
}

/**
 * Checks a `.creds` file's text (LF line ends) before it is used: a user JWT that decodes, is a user's,
 * has not expired at `nowMs`, and was issued to the key of the seed that follows it. Returns the user, or
 * the reason it will not log in (the server would only say "authorization violation", later). Signatures
 * and revocations are the server's to check: only it knows the accounts.
 */
export function checkCreds(text: string, nowMs: number): NatsCredsUser | string {
  const pattern = new RegExp(blockPattern.source, blockPattern.flags);
  const jwt = pattern.exec(text)?.[1]?.trim();
  const seed = pattern.exec(text)?.[1]?.trim();
  if (jwt === undefined || seed === undefined) {
    return "expected a .creds file: a user JWT, then its NKey seed, each between BEGIN and END lines";
  }
  const claims = claimsOf(jwt);
  if (claims === undefined) return "the first block is not a JWT";
  if ((claims.nats?.type ?? claims.type) !== "user") return "the JWT is not a NATS user JWT";
  if (typeof claims.exp === "number" && claims.exp * 1000 <= nowMs) {
    return `the user JWT expired at ${new Date(claims.exp * 1000).toISOString()}`;
  }
  if (!/^SU[A-Z2-7]{56}$/.test(seed)) return "the second block is not an NKey user seed (SU…)";
  let key: string;
  try {
    key = nkeyPublicKey(seed);
  } catch {
    return "the NKey user seed is damaged (its checksum does not match)";
  }
  if (key !== claims.sub)
    return `the seed is the key of ${key}, but the JWT was issued to ${String(claims.sub)}`;
  const account = claims.nats?.issuer_account ?? claims.iss;
  return { user: key, account: typeof account === "string" ? account : "" };
}

/** The claims of a JWT (its middle part), or undefined when it is not one. */
function claimsOf(jwt: string): UserClaims | undefined {
  const parts = jwt.split(".");
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    return typeof claims === "object" && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}
