import {
  activitySettingsFileSchema,
  type ActivitySettingsFile,
  type ActivitySettingsFileInput,
} from "../actors/activity/index.ts";
import { readJsonFile } from "./json-file.ts";

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
  const read = readJsonFile(path, activitySettingsFileSchema, exampleActivities);
  return read.ok ? { ok: true, activities: read.value } : read;
}
