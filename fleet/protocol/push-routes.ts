/** The subject a node's gateway is sent relayed frames on for players it holds (a request: FLEET-wide). */
export function nodePushSubject(node: string): string {
  return `foyer.node.${node}.push`;
}

/** The subject a node hears, from the gateways that delivered its broadcast frames, which players they hold. */
export function nodeHeardSubject(node: string): string {
  return `foyer.node.${node}.heard`;
}

/** How many players a node remembers the gateway of, at most: past it the oldest are forgotten. */
export const pushRoutesLimit = 100_000;

/**
 * Which gateway each player a relayed frame went to was last heard on, as the gateways answered. A player
 * known here is sent to its gateway alone; one not known (a key that just moved or was taken over here,
 * a gateway that answered it no longer holds the player, a gateway gone) is broadcast to, as before,
 * and learned from the gateway's answer. Bounded: the oldest learned players are forgotten first.
 */
export class PushRoutes {
  private readonly gatewayOf = new Map<string, string>();

  constructor(private readonly limit = pushRoutesLimit) {}

  /** `node`'s gateway holds `players` (it delivered a broadcast frame to them). */
  learn(node: string, players: readonly string[]): void {
    for (const player of players) {
      this.gatewayOf.delete(player);
      this.gatewayOf.set(player, node);
    }
    for (const oldest of this.gatewayOf.keys()) {
      if (this.gatewayOf.size <= this.limit) break;
      this.gatewayOf.delete(oldest);
    }
  }

  /** `players` are no longer where they were learned (a gateway missed them, or did not answer). */
  forget(players: readonly string[]): void {
    for (const player of players) this.gatewayOf.delete(player);
  }

  /** The players by the gateway they are known on, and those known nowhere. */
  split(players: readonly string[]): { byNode: Map<string, string[]>; unknown: string[] } {
    const byNode = new Map<string, string[]>();
    const unknown: string[] = [];
    for (const player of players) {
      const node = this.gatewayOf.get(player);
      if (node === undefined) {
        unknown.push(player);
        continue;
      }
      const list = byNode.get(node);
      if (list === undefined) byNode.set(node, [player]);
      else list.push(player);
    }
    return { byNode, unknown };
  }

  get size(): number {
    return this.gatewayOf.size;
  }
}
