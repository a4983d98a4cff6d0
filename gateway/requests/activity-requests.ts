import { activityDirectoryKey, activityLobbyKeySchema } from "../../actors/activity/index.ts";
import type { ActorSystem, AskResult, OwnerLocation, RequestId } from "../../actors/runtime/index.ts";
import type { ActivityRequestFrame } from "../protocol/client-frames.ts";
import type { RedirectReason } from "../protocol/server-frames.ts";
import type { Session } from "../sessions/index.ts";
import { throughRule } from "./entry-rule.ts";

/** How the activity requests reach the rest of the gateway. */
export interface ActivityRequestsDeps {
  readonly system: ActorSystem;
  /**
   * In a fleet: where the node that owns a lobby is. The directory is asked over NATS wherever it lives,
   * but a lobby's pushes reach only sockets on its own node, so a player whose lobby lives elsewhere is
   * redirected there (the SDK follows and re-sends the join). Always here without a fleet. Never rejects.
   */
  readonly ownerOf?: (key: string) => Promise<OwnerLocation>;
  /** Called once per `redirect` frame sent. */
  readonly onRedirect?: (reason: RedirectReason) => void;
  /** The configured activity ids: a join of another is NOT_FOUND here (unset: the directory decides). */
  readonly activities?: ReadonlySet<string>;
}

/** How soon the SDK re-sends a join it was redirected for (on the lobby's node). */
const redirectRetryMs = 100;

/**
 * How many lobbies may refuse a join FULL before the gateway gives up for now: each refusal is at a
 * lobby that really is full (docs/activity.md, "The overflow race"), so a few are plenty.
 */
export const maxActivityJoinAttempts = 5;
/** After that many refusals the client tries again soon: the directory's reports will have caught up. */
const crowdedRetryMs = 250;

const notInActivity: AskResult = {
  ok: false,
  code: "NOT_IN_LOBBY",
  message: "you are not in an activity lobby",
};

/**
 * The activity requests of a session (docs/activity.md). A join asks the activity's directory
 * (`activity/<id>`) which lobby to go to, then sends the join there; the player talks to its lobby from
 * then on. Only the directory's key is built here: in the fleet the directory answers over NATS and the
 * lobby may be on another node.
 */
export class ActivityRequests {
  constructor(private readonly deps: ActivityRequestsDeps) {}

  /** Answers `joinActivity`, `activityReady` or `leaveActivity`. Never throws. */
  handle(session: Session, frame: ActivityRequestFrame, request: RequestId): Promise<AskResult> {
    switch (frame.type) {
      case "joinActivity":
        return this.join(session, frame.activity, frame.vehicle, request);
      case "activityReady":
        return this.inActivity(
          session,
          { type: "ready", player: session.player, ready: frame.ready },
          request,
        );
      case "leaveActivity":
        return this.leave(session, request);
    }
  }

  /**
   * Joins an activity. The directory names a lobby (given the player's current one as `previous`, which
   * it leaves when the player moves on); the lobby may refuse FULL when others got there first, and then
   * the directory is asked again with `full: <that lobby>`. A lobby that closed meanwhile (NOT_FOUND) is
   * treated alike. The rule (entry-rule.ts) decides first: a seated player is refused, and the entry
   * leaves the player's private lobby and search.
   */
  private async join(
    session: Session,
    activity: string,
    vehicle: string | undefined,
    request: RequestId,
  ): Promise<AskResult> {
    // An id no configuration names is refused here: the directory's create would only fail (and log it).
    if (this.deps.activities?.has(activity) === false) {
      return { ok: false, code: "NOT_FOUND", message: `no activity ${activity}` };
    }
    const entry = { kind: "activity", activity } as const;
    return throughRule(this.deps.system, session, entry, () =>
      this.joinSome(session, activity, vehicle, request),
    );
  }

  /** The directory's choice of lobby, joined; another choice when that one filled up meanwhile. */
  private async joinSome(
    session: Session,
    activity: string,
    vehicle: string | undefined,
    request: RequestId,
  ): Promise<AskResult> {
    const player = { id: session.player, name: session.name };
    const chosen = vehicle === undefined ? {} : { vehicle };
    let full: string | undefined;
    for (let attempt = 0; attempt < maxActivityJoinAttempts; attempt++) {
      const previous = session.activity ?? (await this.registeredActivity(session));
      const asked = await this.deps.system.ask(activityDirectoryKey(activity), {
        type: "join",
        player,
        ...chosen,
        ...(previous === null ? {} : { previous }),
        ...(full === undefined ? {} : { full }),
      });
      if (!asked.ok) {
        if (asked.code !== "NOT_FOUND") return asked;
        return { ok: false, code: "NOT_FOUND", message: `no activity ${activity}` };
      }
      const lobby = (asked.value as { lobby: string }).lobby;
      const away = await this.elsewhere(session, lobby);
      if (away !== undefined) return away;
      const joined = await this.deps.system.ask(lobby, { type: "join", player, ...chosen }, { request });
      if (joined.ok) {
        session.activity = lobby;
        return joined;
      }
      if (joined.code !== "FULL" && joined.code !== "NOT_FOUND") return joined;
      full = lobby;
    }
    return {
      ok: false,
      code: "UNAVAILABLE",
      message: `the lobbies of ${activity} are filling up; try again`,
      retryAfterMs: crowdedRetryMs,
    };
  }

  /**
   * The activity lobby the player registry holds for the player (a session on another gateway, or a
   * fresh login, joined it): the directory then treats it as the player's current lobby. The registry
   * is asked over NATS; an answer that does not come is no lobby.
   */
  private async registeredActivity(session: Session): Promise<string | null> {
    const found = await this.deps.system.ask(`player/${session.player}`, { type: "get" });
    if (!found.ok) return null;
    const lobby = (found.value as { lobby: unknown }).lobby;
    return activityLobbyKeySchema.safeParse(lobby).success ? (lobby as string) : null;
  }

  /**
   * A lobby owned by another node: the player's socket is sent there (`redirect`, reason `activity`)
   * and the join is answered retryable MOVED, which the SDK re-sends on the owner. A lobby whose owner
   * went silent is UNAVAILABLE until a survivor took it over. Undefined when the lobby is here.
   */
  private async elsewhere(session: Session, lobby: string): Promise<AskResult | undefined> {
    const owner =
      this.deps.ownerOf === undefined ? { kind: "here" as const } : await this.deps.ownerOf(lobby);
    if (owner.kind === "here") return undefined;
    if (owner.kind === "waiting") {
      const message = `${lobby} is being taken over by another node`;
      return { ok: false, code: "UNAVAILABLE", message, retryAfterMs: owner.retryAfterMs };
    }
    session.send({ type: "redirect", url: owner.url, reason: "activity" });
    this.deps.onRedirect?.("activity");
    const message = `${lobby} lives on another node`;
    return { ok: false, code: "MOVED", message, retryAfterMs: redirectRetryMs };
  }

  /** Leaves the activity lobby; a success when in none, or when the lobby is gone. */
  private async leave(session: Session, request: RequestId): Promise<AskResult> {
    const leaving = session.activity;
    if (leaving === null) return { ok: true };
    const result = await this.deps.system.ask(
      leaving,
      { type: "leave", player: session.player },
      { request },
    );
    if (!result.ok && result.code !== "NOT_FOUND") return result;
    // Unless a join of another activity completed meanwhile.
    if (session.activity === leaving) session.activity = null;
    return { ok: true };
  }

  private async inActivity(
    session: Session,
    message: { type: string; player: string } & Record<string, unknown>,
    request: RequestId,
  ): Promise<AskResult> {
    const key = session.activity;
    if (key === null) return notInActivity;
    const result = await this.deps.system.ask(key, message, { request });
    if (!result.ok && result.code === "NOT_FOUND") {
      if (session.activity === key) session.activity = null;
      return notInActivity;
    }
    return result;
  }
}
