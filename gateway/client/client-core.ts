import type { ActivityEventView, LobbyView, RoomView } from "../protocol/server-frames.ts";
import { BlobDownload } from "./blob-download.ts";
import type { ClientPartDeps } from "./client-events.ts";
import { ClientConnection, type PushFrame } from "./client-connection.ts";
import type { FoyerClientOptions } from "./client-types.ts";
import { EpochFilter } from "./epoch-filter.ts";
import { RoomFollower } from "./room-follower.ts";

/**
 * The SDK's picture of the player: its lobby, activity lobby and relay room, kept from the pushes of
 * the node (frames from an older owner, an older epoch, are dropped), and the room's turns and document.
 * Connection handling, calls and resume are in `ClientConnection`; `FoyerClient` adds the typed requests.
 */
export class ClientCore extends ClientConnection {
  /** The latest state of the player's lobby, or null. */
  lobby: LobbyView | null = null;
  /**
   * The key of the activity lobby the player is in (`activityLobby/<id>/<n>`), or null: set by the
   * player's own PLAYER_ADDED, cleared by its own PLAYER_REMOVED or a `leaveActivity`.
   */
  activityLobby: string | null = null;
  /**
   * The latest `room` frame of the player's relay room (its final one, `ended: true`, stays until the
   * next room), or null; `leaveRoom` clears it.
   */
  room: RoomView | null = null;
  private readonly epochs = new EpochFilter();
  private readonly parts: ClientPartDeps = {
    call: (body, timeoutMs) => this.call(body, timeoutMs),
    emit: (event, payload) => {
      this.emit(event, payload);
    },
  };
  /** The room document, fetched once per id. */
  private readonly blobs = new BlobDownload(this.parts);
  /** The room's turns, and its rejoin after a reconnect. */
  private readonly rooms: RoomFollower;

  constructor(options: FoyerClientOptions) {
    super(options);
    this.rooms = new RoomFollower(this.parts, options.maxFrameBytes ?? 65_536);
  }

  protected helloLobby(): string | undefined {
    return this.lobby?.key.startsWith("lobby/") === true ? this.lobby.code : undefined;
  }

  protected onWelcomed(): void {
    this.rooms.rejoin(this.room);
  }

  protected onPush(frame: PushFrame): void {
    switch (frame.type) {
      case "lobby":
        if (this.epochs.admit(frame)) this.onLobby(frame);
        return;
      case "kicked":
        if (this.epochs.admit(frame)) this.emit("kicked", frame);
        return;
      case "lobbyChat":
        // Stamped like the lobby's frames: a line an older owner sends after a move is dropped here.
        if (this.epochs.admit(frame)) this.emit("lobbyChat", frame);
        return;
      case "room":
        if (this.epochs.admit(frame)) {
          this.room = frame;
          this.rooms.onRoom(frame);
          if (frame.phase === "playing" && frame.blob) this.blobs.fetch(frame.blob);
        }
        return;
      case "turn":
      case "turnsGone":
      case "turnsWanted":
      case "resumed":
      case "paused":
      case "checksum":
      case "desync":
      case "chat":
        if (this.epochs.admit(frame)) this.rooms.onFrame(frame);
        return;
      case "activity":
        if (this.epochs.admit(frame)) this.onActivity(frame);
        return;
      case "activityTransfer":
        if (this.epochs.admit(frame)) this.emit("activityTransfer", frame);
        return;
      case "matchedLobby":
      case "matchFound":
      case "matchCancelled":
      case "matchReady":
      case "matchmakingFailed":
      case "lobbyStarted":
      case "lobbyRemoved":
      case "lobbyDisbanded":
        if (this.epochs.admit(frame)) this.emit("matchmaking", frame);
        return;
      case "matchRunning":
        // The gateway's own answer to a reconnect, not an actor's push: it carries no stamp.
        this.emit("matchmaking", frame);
        return;
      case "serverDraining":
        this.emit("serverDraining", undefined);
        return;
      case "noLobby":
        this.onNoLobby();
        return;
      case "blobData":
        this.blobs.onData(frame);
        return;
    }
  }

  /** Away past its grace: the lobby this client still shows let it go meanwhile. */
  private onNoLobby(): void {
    if (this.lobby === null) return;
    const code = this.lobby.code;
    this.lobby = null;
    this.emit("left", { code });
  }

  private onActivity(frame: ActivityEventView): void {
    if (frame.event === "PLAYER_ADDED" && frame.player === this.player) this.activityLobby = frame.key;
    else if (
      frame.event === "PLAYER_REMOVED" &&
      frame.player === this.player &&
      this.activityLobby === frame.key
    )
      this.activityLobby = null;
    this.emit("activity", frame);
  }

  private onLobby(frame: LobbyView): void {
    const inIt = frame.members.some((m) => m.player === this.player);
    if (!inIt) {
      if (this.lobby?.key === frame.key) {
        this.lobby = null;
        this.emit("left", { code: frame.code });
      }
      return;
    }
    this.lobby = frame;
    this.emit("lobby", frame);
  }
}
