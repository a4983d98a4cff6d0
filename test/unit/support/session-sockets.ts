import type { StampedFrame } from "../../../actors/runtime/index.ts";
import type { SessionSocket } from "../../../gateway/sessions/index.ts";

/** A session's socket (JSON) that keeps the frames it is sent, and their keys. */
export function recordingSocket(): SessionSocket & {
  frames: { type: string; key?: string }[];
  keys: string[];
} {
  const frames: { type: string; key?: string }[] = [];
  const keys: string[] = [];
  return {
    encoding: "json",
    frames,
    keys,
    send(data) {
      const frame = JSON.parse(String(data)) as { type: string; key?: string };
      frames.push(frame);
      keys.push(frame.key ?? "?");
    },
    close: () => undefined,
  };
}

/** A `lobby` frame of `key` that lists player p, out of any room. */
export function lobbyFrameOf(key: string, epoch = 1): StampedFrame {
  return { type: "lobby", key, epoch, seq: 1, members: [{ player: "p", inRoom: false }], room: null };
}
