/** Thrown by `join` when another live process already runs under this node id. */
export class NodeIdConflictError extends Error {
  constructor(node: string) {
    super(
      `another process is running as node ${node} (its heartbeat is still moving); pick another --node-id`,
    );
    this.name = "NodeIdConflictError";
  }
}
