import WebSocket from "ws";
import type { SocketLike } from "../../gateway/client/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import type { HeardFrame, LobbyFacts } from "./chaos-journal.ts";

/**
 * A `ws` socket that notes every frame about a key it receives — before the SDK's epoch filter drops any —
 * so the audit hears old owners too, not only the frames the SDK kept.
 */
export function listeningSocket(
  bot: string,
  heard: (frame: HeardFrame) => void,
): new (url: string) => SocketLike {
  let sockets = 0;
  class Listening extends WebSocket {
    constructor(url: string) {
      super(url);
      const socket = ++sockets;
      this.on("message", (data: Buffer, isBinary: boolean) => {
        const decoded = decodeServerFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
        if (!decoded.ok || !("epoch" in decoded.frame)) return;
        const { key, epoch, seq, ...rest } = decoded.frame;
        const lobby: LobbyFacts | null =
          rest.type === "lobby"
            ? {
                code: rest.code,
                host: rest.host,
                members: rest.members.map((m) => ({
                  player: m.player,
                  ready: m.ready,
                  connected: m.connected,
                })),
              }
            : null;
        heard({ bot, key, epoch, seq, digest: JSON.stringify(rest), at: Date.now(), socket, lobby });
      });
    }
  }
  return Listening as unknown as new (url: string) => SocketLike;
}
