import type { NewLobbyPlace, NodeState } from "../../actors/runtime/index.ts";

/**
 * What a node knows about itself: how many rooms and private lobbies it runs, whether it is stopping,
 * and its URL.
 */
export class NodeCapacity {
  rooms = 0;
  /** Private lobbies made here and not ended (an embedded node's count; a fleet node counts its claims). */
  lobbies = 0;
  stopping = false;
  /** The URL players reach this node at, once it listens. */
  url = "";
  constructor(
    private readonly maxRooms: number,
    private readonly nodeId: string,
    /** `--max-lobbies`: 0 for no limit. */
    private readonly maxLobbies = 0,
  ) {}

  /**
   * The runtime's view of this node (a single node never drains and always holds its lease). It is its
   * own least-loaded node: a queue's accepted match opens its room here while it has room.
   */
  readonly state: NodeState = {
    canOpenRoom: () => this.rooms < this.maxRooms && !this.stopping,
    draining: () => false,
    mayAct: () => true,
    roomHost: () =>
      this.state.canOpenRoom() && this.url !== "" ? { node: this.nodeId, url: this.url } : undefined,
  };

  /** Where a single node puts a new lobby: here, unless it holds its `--max-lobbies` (then none is made). */
  placeNewLobby(): NewLobbyPlace {
    if (this.maxLobbies === 0 || this.lobbies < this.maxLobbies) return { kind: "here" };
    const message = `this node holds its ${this.maxLobbies} lobbies (--max-lobbies); try again later`;
    return { kind: "full", message };
  }
}
