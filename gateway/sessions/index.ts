/** The sessions of a node: a player's connection identity, the registry of them, and their held disconnects. */
export { Session, type KeyIndex, type SessionSocket } from "./session.ts";
export { SessionRegistry } from "./session-registry.ts";
export { freshSessionId } from "./session-id.ts";
export { SessionsByKey } from "./sessions-by-key.ts";
export { disconnected, enteredOrNot, heldOnClose, inKeyHere } from "./held-disconnects.ts";
