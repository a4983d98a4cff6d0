/** The runtime's own messages, which every kind accepts; re-exported where the lobby's users found them. */
export { restoredSchema, timerFiredSchema } from "../runtime/index.ts";
