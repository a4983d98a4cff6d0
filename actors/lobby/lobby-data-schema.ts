import { z } from "zod";

/**
 * The shapes of lobby data and member data: small typed attributes a game puts on a lobby (mode, map,
 * region…) and on each member (character, colour, loadout). Limits are the node's (`lobbyData` in the
 * lobby options); the schemas here only bound what any node could accept, so a frame stays small.
 */

/** A data key: letters, digits and `_ - . :`, so a key reads the same in a query, a URL and a log. */
export const dataKeySchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_.:-]+$/, "a data key is letters, digits and _ - . :")
  // Set as a plain property it would replace an object's prototype.
  .refine((key) => key !== "__proto__", "__proto__ is not a data key");

/** A data value: a string, a finite number or a boolean. */
export const dataValueSchema = z.union([z.string().max(65_536), z.number(), z.boolean()]);

/** A data value. */
export type DataValue = z.output<typeof dataValueSchema>;

/** Who sees a lobby data key: `public` (members and the browse list) or `member` (members only). */
export const dataVisibilitySchema = z.enum(["public", "member"]);

/** A lobby data key's visibility. */
export type DataVisibility = z.output<typeof dataVisibilitySchema>;

/** One key of lobby data as the lobby keeps it. */
export const dataEntrySchema = z.strictObject({ value: dataValueSchema, visibility: dataVisibilitySchema });

/** One key of lobby data. */
export type DataEntry = z.output<typeof dataEntrySchema>;

/** At most this many keys in one request (set and delete together); far above any node's key limit. */
const maxKeysPerRequest = 256;

/** Lobby data as the lobby keeps it: key → value and visibility. */
export const lobbyDataSchema = z.record(dataKeySchema, dataEntrySchema);

/** A lobby's data. */
export type LobbyData = z.output<typeof lobbyDataSchema>;

/** A member's data: key → value (every member sees every member's data). */
export const memberDataSchema = z.record(dataKeySchema, dataValueSchema);

/** A member's data. */
export type MemberData = z.output<typeof memberDataSchema>;

/** What one lobby data update sets: key → value, with a visibility (a new key is `public` without one). */
export const lobbyDataSetSchema = z
  .record(
    dataKeySchema,
    z.strictObject({ value: dataValueSchema, visibility: dataVisibilitySchema.optional() }),
  )
  .refine((set) => Object.keys(set).length <= maxKeysPerRequest, `at most ${maxKeysPerRequest} keys`);

/** The keys one update deletes. */
export const dataDeleteSchema = z.array(dataKeySchema).max(maxKeysPerRequest);

/** What one member data update sets: key → value. */
export const memberDataSetSchema = memberDataSchema.refine(
  (set) => Object.keys(set).length <= maxKeysPerRequest,
  `at most ${maxKeysPerRequest} keys`,
);

/** The limits a node puts on one lobby's data, and on each member's (lobby options `lobbyData`). */
export const dataLimitsSchema = z.strictObject({
  /** Keys per lobby (or per member). */
  maxKeys: z.number().int().min(1).max(256).default(32),
  /** Characters per key. */
  maxKeyLength: z.number().int().min(1).max(256).default(64),
  /** Bytes of one value: a string's UTF-8 length; a number counts 8, a boolean 1. */
  maxValueBytes: z.number().int().min(1).max(65_536).default(1024),
  /** Bytes of all keys and values together. */
  maxTotalBytes: z.number().int().min(1).max(1_048_576).default(8192),
});

/** Data limits with every field present. */
export type DataLimits = z.output<typeof dataLimitsSchema>;
