import type { NodeState } from "../../actors/runtime/index.ts";

/** What a node knows about itself: how many rooms it runs, whether it is stopping, and its URL. */
export class NodeCapacity {
  rooms = 0;
  stopping = false;
  /** The URL players reach this node at, once it listens. */
  url = "";
  constructor(
    private readonly maxRooms: number,
    private readonly nodeId: string,
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
}
