import { z } from "zod";

/** How activity lobbies behave on this node; every field has a default. */

const seconds = z.number().int().min(0).max(3600);

/** Validates activity lobby options and fills in every field left out with its default. */
export const activityLobbyOptionsSchema = z.strictObject({
  /** A player whose session dropped keeps its place this long; 0 is the seed's behaviour (it leaves at once). */
  graceSeconds: seconds.default(10),
  /**
   * After a failover or migration, players not yet back on the new owner keep their place this long: the
   * system caused the drop, so it costs nobody a place, even with `graceSeconds` 0.
   */
  restoreGraceSeconds: z.number().int().min(1).max(3600).default(30),
  /** After the start the lobby waits this long for its players to load into the room, then closes. */
  transferSeconds: z.number().int().min(1).max(3600).default(60),
  roomCodeLength: z.number().int().min(4).max(16).default(6),
  roomCodeAlphabet: z.string().min(2).max(64).default("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
});

/** Activity lobby options with every field present. */
export type ActivityLobbyOptions = z.output<typeof activityLobbyOptionsSchema>;

/** Activity lobby options as a caller may write them (defaults left out). */
export type ActivityLobbyOptionsInput = z.input<typeof activityLobbyOptionsSchema>;

/** The defaults. */
export const defaultActivityLobbyOptions: ActivityLobbyOptions = activityLobbyOptionsSchema.parse({});
