/**
 * The actor keys of the kinds every other kind addresses (lobbies, rooms, player entries, the public
 * directory), in one place so every kind builds them alike. Activity and matchmaking keys live with
 * their kinds (activity-keys.ts, matchmaking-keys.ts).
 */

/** The actor key of the lobby with this code. */
export function lobbyKey(code: string): string {
  return `lobby/${code}`;
}

/** The actor key of the room with this code. */
export function roomKey(code: string): string {
  return `room/${code}`;
}

/** The actor key of a player's registry entry. */
export function playerKey(player: string): string {
  return `player/${player}`;
}

/** The key of the one directory of public lobbies. */
export const directoryKey = "directory/lobbies";

/** The part of an actor key after its kind, e.g. `ABC123` for `lobby/ABC123`. */
export function keyName(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? key : key.slice(slash + 1);
}
