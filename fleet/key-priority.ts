/**
 * Which keys a failover takes first when members wait for several: those with members connected
 * (lobbies, rooms, queues) before a player's own record. A member waits on its lobby to be served; its
 * record is asked only once, when it comes back.
 */
export function movePriority(key: string): number {
  return key.startsWith("player/") ? 1 : 0;
}
