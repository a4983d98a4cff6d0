import { z } from "zod";

/** The keys of activity directories and their lobbies, in one place so every kind builds them alike. */

/** The key of an activity's directory: `activity/<id>`. */
export function activityDirectoryKey(activity: string): string {
  return `activity/${activity}`;
}

/** The key of an activity's `n`-th lobby: `activityLobby/<id>/<n>`; `n` comes from the directory's counter. */
export function activityLobbyKey(activity: string, n: number): string {
  return `activityLobby/${activity}/${n}`;
}

/** An activity lobby's key, as the gateway and the lobbies hand it to a directory. */
export const activityLobbyKeySchema = z
  .string()
  .regex(/^activityLobby\/[A-Za-z0-9_.-]{1,64}\/[1-9][0-9]{0,15}$/);

/** The activity id in a directory key (`activity/<id>`), or undefined for another key. */
export function activityOfDirectoryKey(key: string): string | undefined {
  const match = /^activity\/([A-Za-z0-9_.-]{1,64})$/.exec(key);
  return match?.[1];
}
