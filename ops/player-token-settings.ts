import { z } from "zod";
import { list } from "./setting-schemas.ts";

/**
 * The settings that point the node at a studio's identity provider (docs/operations.md, "Player identity
 * from your provider"): where its public keys are, which issuer and audience its tokens must name, and which
 * claims carry the player. Kept apart from `settings.ts` only for size; `settings` includes them all.
 */

/** Each setting: its schema, env variable, default and help line, as in `settings`. */
export const playerTokenSettings = {
  jwksUrl: {
    schema: z.url({ protocol: /^https?$/ }).optional(),
    env: "FOYER_JWKS_URL",
    def: undefined,
    help: "the identity provider's JWKS URL: RS256/ES256/EdDSA player tokens are checked with its keys",
  },
  jwksFile: {
    schema: z.string().min(1).optional(),
    env: "FOYER_JWKS_FILE",
    def: undefined,
    help: "a JWKS file of the provider's public keys, read at start (instead of --jwks-url)",
  },
  jwksCooldownS: {
    schema: z.coerce.number().int().min(1).max(3600),
    env: "FOYER_JWKS_COOLDOWN_S",
    def: "30",
    help: "least seconds between two fetches of --jwks-url (an unknown kid fetches again, at most this often)",
  },
  tokenIssuer: {
    schema: list,
    env: "FOYER_TOKEN_ISSUER",
    def: "",
    help: "accepted iss of player tokens, comma separated (empty = not checked; required with a JWKS in production)",
  },
  tokenAudience: {
    schema: list,
    env: "FOYER_TOKEN_AUDIENCE",
    def: "",
    help: "accepted aud of player tokens, comma separated (empty = not checked)",
  },
  tokenPlayerClaim: {
    schema: z.string().min(1),
    env: "FOYER_TOKEN_PLAYER_CLAIM",
    def: "sub",
    help: "the player token claim that holds the player id",
  },
  tokenNameClaim: {
    schema: z.string().min(1),
    env: "FOYER_TOKEN_NAME_CLAIM",
    def: "name",
    help: "the player token claim that holds the display name (1-32 characters)",
  },
  tokenClockSkewS: {
    schema: z.coerce.number().int().min(0).max(600),
    env: "FOYER_TOKEN_CLOCK_SKEW_S",
    def: "0",
    help: "seconds a player token may be past exp or before nbf and still be accepted (clock drift)",
  },
} as const;
