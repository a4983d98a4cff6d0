export { signPlayerToken, type PlayerClaims, type TokenKey } from "./player-token.ts";
export {
  PlayerTokenVerifier,
  verifyPlayerToken,
  type PlayerTokenPolicy,
  type TokenCheck,
} from "./player-token-verifier.ts";
export { playerTokenVerifierOf, type PlayerTokenSettings } from "./player-token-verifier-of.ts";
export { RemoteKeySet, type RemoteKeySetOptions } from "./remote-key-set.ts";
export {
  isTemporaryRefusal,
  refusalOf,
  KeysUnavailableError,
  UnknownKeyError,
  type TokenRefusal,
} from "./token-refusal.ts";
export { signResumeToken, verifyResumeToken } from "./resume-token.ts";
