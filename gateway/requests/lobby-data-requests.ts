import type { AskResult, RequestId } from "../../actors/runtime/index.ts";
import type { LobbyDataRequestFrame } from "../protocol/client-frames.ts";
import type { Session } from "../sessions/index.ts";
import { hashLobbyPassword } from "../lobby-password.ts";

/** Asks the lobby the session is in (LobbyRequests.inLobby): NOT_IN_LOBBY when it is in none. */
export type AskOwnLobby = (
  session: Session,
  message: { type: string; player: string } & Record<string, unknown>,
  request: RequestId,
) => Promise<AskResult>;

/** The code of the lobby a key names (`lobby/ABC123` → `ABC123`). */
function codeOf(key: string): string {
  return key.slice(key.indexOf("/") + 1);
}

/**
 * The private lobby's data, door, moderation and chat requests (docs/lobbies.md): each one an ask of the
 * session's lobby, with the player as the one asking, so the lobby checks who may. A password is hashed
 * here (lobby-password.ts) and only its hash goes on.
 */
export class LobbyDataRequests {
  constructor(private readonly ask: AskOwnLobby) {}

  /** Answers one such request. Never throws. */
  async handle(session: Session, frame: LobbyDataRequestFrame, request: RequestId): Promise<AskResult> {
    const player = session.player;
    switch (frame.type) {
      case "setLobbyData": {
        const { set, delete: deleted, ifVersion } = frame;
        const message = { type: "setData", player, set: set ?? {}, delete: deleted ?? [] };
        return this.ask(session, ifVersion === undefined ? message : { ...message, ifVersion }, request);
      }
      case "setMemberData":
        return this.ask(
          session,
          { type: "setMemberData", player, set: frame.set ?? {}, delete: frame.delete ?? [] },
          request,
        );
      case "setLobbyDoor":
        return this.setDoor(session, frame, request);
      case "kick": {
        const { player: target, ban, reason } = frame;
        const message = { type: "kick", player, target, ...(ban === undefined ? {} : { ban }) };
        return this.ask(session, reason === undefined ? message : { ...message, reason }, request);
      }
      case "lobbyChat":
        return this.ask(session, { type: "chat", player, channel: frame.channel, text: frame.text }, request);
    }
  }

  private async setDoor(
    session: Session,
    frame: Extract<LobbyDataRequestFrame, { type: "setLobbyDoor" }>,
    request: RequestId,
  ): Promise<AskResult> {
    const { maxMembers, locked, password } = frame;
    const key = session.lobby ?? session.lastLobby;
    const message: { type: string; player: string } & Record<string, unknown> = {
      type: "setDoor",
      player: session.player,
      ...(maxMembers === undefined ? {} : { maxMembers }),
      ...(locked === undefined ? {} : { locked }),
    };
    if (password === null) message.passwordHash = null;
    else if (password !== undefined && key)
      message.passwordHash = await hashLobbyPassword(codeOf(key), password);
    return this.ask(session, message, request);
  }
}
