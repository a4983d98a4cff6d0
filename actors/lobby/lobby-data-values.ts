import type { DataValue, LobbyData } from "./lobby-data-schema.ts";

/** Reading lobby data: the plain helpers the frames, the listing and the updates share. */

/** A map as a plain record again (fromEntries makes own properties, whatever the key). */
export function recordOf<V>(map: ReadonlyMap<string, V>): Record<string, V> {
  return Object.fromEntries(map);
}

/** The lobby's public keys and their values: what the browse list and the studio's events show. */
export function publicValues(data: LobbyData): Record<string, DataValue> {
  return recordOf(
    new Map(
      Object.entries(data).flatMap(([key, entry]) =>
        entry.visibility === "public" ? [[key, entry.value]] : [],
      ),
    ),
  );
}
