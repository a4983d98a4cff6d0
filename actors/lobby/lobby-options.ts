import { z } from "zod";
import { dataLimitsSchema } from "./lobby-data-schema.ts";

/** How private lobbies behave on this node; every field has the seed's default. */

const alphabet = z.string().min(2).max(64);
const seconds = z.number().int().min(0).max(3600);

/** Validates lobby options and fills in every field left out with its default. */
export const lobbyOptionsSchema = z.strictObject({
  codeLength: z.number().int().min(4).max(16).default(6),
  // No 0/O or 1/I: codes are read aloud and typed from screenshots.
  codeAlphabet: alphabet.default("ABCDEFGHJKLMNPQRSTUVWXYZ23456789"),
  maxMembers: z.number().int().min(1).max(100).default(8),
  teamSizes: z
    .record(z.string().min(1), z.number().int().min(0).max(50))
    .default({ duel: 1, duo: 2, trio: 3, squad: 4, ffa: 0 }),
  botSeatIdBase: z.number().int().min(0).default(50),
  returnAfterEndSeconds: seconds.default(5),
  reconnectGraceSeconds: seconds.default(30),
  lobbyGraceSeconds: seconds.default(10),
  /**
   * After a failover, the seat kept for a member not back yet (at least the grace it would have had).
   * Longer than the SDK's default liveness (45 s): a node that went silent without closing its sockets
   * (a frozen machine, a cut network) is left by its clients only then, and they must find their seats.
   */
  failoverGraceSeconds: seconds.default(60),
  roomCodeLength: z.number().int().min(4).max(16).default(6),
  roomCodeAlphabet: alphabet.default("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
  /** Limits on a lobby's data (docs/lobbies.md). */
  lobbyData: dataLimitsSchema.default(dataLimitsSchema.parse({})),
  /** Limits on each member's data. */
  memberData: dataLimitsSchema.default(dataLimitsSchema.parse({})),
  /** Players one lobby can ban; past it a ban is refused DATA_LIMIT (the kick alone still works). */
  maxBans: z.number().int().min(0).max(10_000).default(256),
  /** Characters of one lobby chat line (the relay room's bound). */
  chatMaxLength: z.number().int().min(1).max(500).default(500),
  /** A member sends at most `chatBurst` lines within any `chatWindowSeconds`. */
  chatBurst: z.number().int().min(1).max(100).default(5),
  chatWindowSeconds: z.number().int().min(1).max(600).default(5),
});

/** Lobby options with every field present. */
export type LobbyOptions = z.output<typeof lobbyOptionsSchema>;

/** The seed's defaults. */
export const defaultLobbyOptions: LobbyOptions = lobbyOptionsSchema.parse({});

/** The team size of a mode, or undefined when the mode is unknown (start is then INVALID). */
export function teamSizeOf(options: Pick<LobbyOptions, "teamSizes">, mode: string): number | undefined {
  // hasOwn, so a mode named "constructor" is unknown rather than a function.
  return Object.hasOwn(options.teamSizes, mode) ? options.teamSizes[mode] : undefined;
}
