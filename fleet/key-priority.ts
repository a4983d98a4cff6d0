/**
 * Which keys go first when many move at once (a drain, a failover): those with members connected
 * (lobbies, rooms, queues) before a player's own record. A member waits on its lobby to be served; its
 * record is asked only once, when it comes back.
 */
export function movePriority(key: string): number {
  return key.startsWith("player/") ? 1 : 0;
}
