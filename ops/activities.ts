import { readFileSync } from "node:fs";
import {
  activitySettingsFileSchema,
  type ActivitySettingsFile,
  type ActivitySettingsFileInput,
} from "../actors/activity/index.ts";

/**
 * The activities a node offers (docs/activity.md): read from the JSON file of the `activitiesFile`
 * setting and validated with `activitySettingsFileSchema`, or this small example set without one.
 */

/** The built-in example set, used when no `--activities-file` is given (docs/activity.md lists it). */
export const exampleActivities: ActivitySettingsFileInput = {
  activities: [
    {
      id: "race",
      map: "1203",
      minTeams: 2,
      maxTeams: 4,
      minTeamSize: 1,
      maxTeamSize: 1,
      waitTime: 60,
      startDelay: 10,
    },
    {
      id: "survival",
      map: "2001",
      minTeams: 1,
      maxTeams: 1,
      minTeamSize: 2,
      maxTeamSize: 8,
      waitTime: 90,
      startDelay: 15,
    },
    {
      id: "time-trial",
      map: "1203",
      minTeams: 1,
      maxTeams: 4,
      minTeamSize: 1,
      maxTeamSize: 1,
      waitTime: 30,
      startDelay: 5,
      soloPlay: true,
    },
  ],
};

/** Why an activities file was refused: unreadable, not JSON, or the first zod issue with its path. */
export type ActivitiesResult = { ok: true; activities: ActivitySettingsFile } | { ok: false; why: string };

/** Reads and validates an activities file; the example set when `path` is undefined. Never throws. */
export function readActivities(path: string | undefined): ActivitiesResult {
  let raw: unknown = exampleActivities;
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      return { ok: false, why: `cannot read the file: ${(error as Error).message}` };
    }
    try {
      raw = JSON.parse(text) as unknown;
    } catch (error) {
      return { ok: false, why: `not JSON: ${(error as Error).message}` };
    }
  }
  const parsed = activitySettingsFileSchema.safeParse(raw);
  if (parsed.success) return { ok: true, activities: parsed.data };
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, why: `${at}${issue?.message ?? "invalid"}` };
}
