import { z } from "zod";

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

/** The configuration file: every activity players may join, each id once. */
export const activitySettingsFileSchema = z.strictObject({
  activities: z
    .array(activitySettingsSchema)
    .refine((list) => new Set(list.map((a) => a.id)).size === list.length, {
      message: "activity ids must be unique",
    }),
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

/** The settings of an activity by id, or undefined when the configuration has none. */
export function findActivity(file: ActivitySettingsFile, id: string): ActivitySettings | undefined {
  return file.activities.find((a) => a.id === id);
}
