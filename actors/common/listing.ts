import { z } from "zod";
import { codeSchema } from "./fields.ts";

/** The messages between the listed actors (public lobbies, rooms) and the directory of public lobbies. */

/** What a public lobby tells the directory whenever a browse-list field changes. */
export const lobbyListingSchema = z.strictObject({
  type: z.literal("listing"),
  code: codeSchema,
  mode: z.string().max(64).nullable(),
  map: z.string().max(256).nullable(),
  freeSeats: z.number().int().min(0),
  members: z.number().int().min(0),
  playing: z.boolean(),
  /** The lobby's public data (keys with visibility `public`). */
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  locked: z.boolean().default(false),
  hasPassword: z.boolean().default(false),
  maxMembers: z.number().int().min(1).default(8),
  /** ctx.now when the lobby was created. */
  createdAt: z.number().default(0),
});

/** A lobby's line in the browse list. */
export type LobbyListing = z.output<typeof lobbyListingSchema>;

/** What a public lobby tells the directory when it closes. */
export const lobbyUnlistSchema = z.strictObject({ type: z.literal("unlist"), code: codeSchema });

/**
 * From the directory to a listed lobby or room it has not heard from for a while (or after its own
 * restore): the actor answers with its current listing, or its unlist. An actor that is gone never
 * answers, and the directory drops its line (docs/design.md, "The browse list").
 */
export const listingCheckSchema = z.strictObject({ type: z.literal("listingCheck") });
