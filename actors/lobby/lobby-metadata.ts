import { z } from "zod";

/** The metadata a public lobby shows in browse lists (its create message and its state carry it). */

/** A value a game may put in public-lobby metadata. */
export const metadataValueSchema = z.union([z.string().max(256), z.number(), z.boolean()]);

/** What a public lobby shows in browse lists: mode and map, plus whatever small facts the game adds. */
export const metadataSchema = z
  .object({ mode: z.string().max(64).optional(), map: z.string().max(256).optional() })
  .catchall(metadataValueSchema)
  .refine((value) => Object.keys(value).length <= 32, "at most 32 metadata fields")
  .refine(
    (value) => Object.keys(value).every((name) => name.length <= 32),
    "metadata field names are at most 32 characters",
  );

/** Public-lobby metadata. */
export type LobbyMetadata = z.output<typeof metadataSchema>;
