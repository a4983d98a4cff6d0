import { z } from "zod";
import { activityLobbyOptionsSchema } from "./activity-lobby-options.ts";

/**
 * An activity's matchmaking settings (SPEC §2), read from configuration, never from code. The names are
 * the seed's (`Activities` columns as the world sends them to chat); times are in seconds.
 */

/** An activity id: the last part of `activity/<id>`, so no slash; kept short for keys and frames. */
export const activityIdSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (1–64)");

const count = z.number().int().min(1).max(100);
const seconds = z.number().min(0).max(3600);

/** The settings of one activity, with the overrides the seed's worlds could apply. */
export const activitySettingsSchema = z
  .strictObject({
    id: activityIdSchema,
    /** The instance map the players are sent to (the seed's `instanceMapID`, or its `transferZoneID` override). */
    map: z.string().min(1).max(64).nullable().default(null),
    minTeams: count,
    maxTeams: count,
    minTeamSize: count,
    maxTeamSize: count,
    /** The countdown a new lobby starts with, in seconds. */
    waitTime: seconds,
    /** What the countdown drops to once everyone is ready (with the minimum), in seconds. */
    startDelay: seconds,
    /** The seed's `solo_racing` override: one player is enough (minTeams and minTeamSize read as 1). */
    soloPlay: z.boolean().default(false),
  })
  .refine((s) => s.minTeams <= s.maxTeams, {
    message: "minTeams must not exceed maxTeams",
    path: ["minTeams"],
  })
  .refine((s) => s.minTeamSize <= s.maxTeamSize, {
    message: "minTeamSize must not exceed maxTeamSize",
    path: ["minTeamSize"],
  });

/** One activity's settings, every field present. */
export type ActivitySettings = z.output<typeof activitySettingsSchema>;

/** One activity's settings as a configuration file may write them (defaults left out). */
export type ActivitySettingsInput = z.input<typeof activitySettingsSchema>;

/**
 * The seed's world-wide overrides, applied to every activity of the file: `solo_racing` (one player is
 * enough) and `transferZoneID` (the map for activities that name none).
 */
export const activityOverridesSchema = z.strictObject({
  /** Every activity may start with one player, as if each had `soloPlay`. */
  soloPlay: z.boolean().default(false),
  /** The map of every activity whose own `map` is null; null leaves them without one. */
  map: z.string().min(1).max(64).nullable().default(null),
});

/** The world-wide overrides, every field present. */
export type ActivityOverrides = z.output<typeof activityOverridesSchema>;

/** The configuration file: every activity players may join (each id once), the overrides, the lobby options. */
export const activitySettingsFileSchema = z.strictObject({
  activities: z
    .array(activitySettingsSchema)
    .refine((list) => new Set(list.map((a) => a.id)).size === list.length, {
      message: "activity ids must be unique",
    }),
  overrides: activityOverridesSchema.default({ soloPlay: false, map: null }),
  /** How this node's activity lobbies behave (grace, transfer window, room codes); defaults when left out. */
  lobby: activityLobbyOptionsSchema.default(activityLobbyOptionsSchema.parse({})),
});

/** The activity configuration, validated. */
export type ActivitySettingsFile = z.output<typeof activitySettingsFileSchema>;

/** The activity configuration as a file may write it (defaults left out). */
export type ActivitySettingsFileInput = z.input<typeof activitySettingsFileSchema>;

/** How many players a lobby of the activity holds: `maxTeams` when `maxTeamSize` is 1, else `maxTeamSize`. */
export function capacity(settings: ActivitySettings): number {
  return settings.maxTeamSize === 1 ? settings.maxTeams : settings.maxTeamSize;
}

/**
 * How many players the countdown needs: `minTeams` when `maxTeamSize` is 1, else `minTeamSize`; 1 with
 * `soloPlay` (the seed's override sets both minimums to 1).
 */
export function minimum(settings: ActivitySettings): number {
  if (settings.soloPlay) return 1;
  return settings.maxTeamSize === 1 ? settings.minTeams : settings.minTeamSize;
}

/** An activity's settings with the file's overrides applied: what its lobbies are opened with. */
export function withOverrides(settings: ActivitySettings, overrides: ActivityOverrides): ActivitySettings {
  return {
    ...settings,
    map: settings.map ?? overrides.map,
    soloPlay: settings.soloPlay || overrides.soloPlay,
  };
}

/** The settings of an activity by id, overrides applied, or undefined when the configuration has none. */
export function findActivity(
  file: Pick<ActivitySettingsFile, "activities"> & { readonly overrides?: ActivityOverrides },
  id: string,
): ActivitySettings | undefined {
  const found = file.activities.find((a) => a.id === id);
  if (found === undefined) return undefined;
  return file.overrides === undefined ? found : withOverrides(found, file.overrides);
}
