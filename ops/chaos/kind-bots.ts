import type { Random } from "../../actors/runtime/index.ts";
import type { ActivityTransferView, MatchmakingView } from "../../gateway/protocol/server-frames.ts";
import { ChaosBot, type BotContext } from "./chaos-bot.ts";

/** The built-in activity the activity bots count down in: 2–4 players, everyone ready starts it in 10 s. */
const activity = "race";
/** The built-in lobby type of the queue bots: one team of 1–8, a ready member starts it after 1 s. */
const lobbyType = "CursorPartyV2";
/** How long a bot stays in a room (an activity's match, a matched lobby's) before it leaves it. */
const roomForMs = 8_000;
/** How long a queue bot stays in its matched lobby. */
const stayMs = 6_000;

/**
 * A player of activity lobbies (docs/activity.md): it joins the `race` activity's countdown lobby, toggles
 * its ready flag, leaves now and then, and when the countdown sends it to the match's room it takes its
 * seat there, leaves the room a few seconds later and joins the activity again.
 */
export class ActivityBot extends ChaosBot {
  private ready = false;
  private transfer: ActivityTransferView | null = null;
  private inRoomSince = 0;

  constructor(id: string, ctx: BotContext, random: Random) {
    super(id, ctx, random);
    this.client.on("activityTransfer", (t) => {
      this.transfer = t;
    });
  }

  protected override async step(): Promise<void> {
    const roll = this.random.int(100);
    if (this.inRoomSince > 0) {
      if (Date.now() - this.inRoomSince < roomForMs) return;
      this.inRoomSince = 0;
      // The match ends (any seated player may end it), so no room is left running to hold a drain open.
      await this.send("finish", null, null, () => this.client.finish());
      await this.send("leaveRoom", null, null, () => this.client.leaveRoom());
      return;
    }
    const transfer = this.transfer;
    if (transfer) {
      this.transfer = null;
      const entered = await this.send("enterRoom", transfer.room, null, () =>
        this.client.enterActivityRoom(transfer),
      );
      if (entered === "acked") this.inRoomSince = Date.now();
      return;
    }
    const lobby = this.client.activityLobby;
    if (lobby === null) {
      this.ready = false;
      await this.send("joinActivity", null, activity, () => this.client.joinActivity(activity));
    } else if (roll < 55) {
      const ready = !this.ready;
      if (
        (await this.send("activityReady", lobby, ready, () => this.client.activityReady(ready))) === "acked"
      )
        this.ready = ready;
    } else if (roll < 67) {
      await this.send("leaveActivity", lobby, null, () => this.client.leaveActivity());
    } else if (roll < 75) {
      await this.reconnect();
    }
  }
}

/**
 * A player of the rating matchmaking queue (docs/matchmaking.md): it searches `CursorPartyV2`, which
 * puts it in a matched lobby (with the other queue bots near its rating), stays a few seconds and
 * leaves, and searches again. Now and then it cancels a search or drops its socket. It never readies: a
 * ready member starts the lobby's room, which nobody here would end, and a running room holds a drain
 * open until its deadline.
 */
export class QueueBot extends ChaosBot {
  private matched: string | null = null;
  private matchedAt = 0;
  private searching = false;

  constructor(id: string, ctx: BotContext, random: Random) {
    super(id, ctx, random);
    this.client.on("matchmaking", (m: MatchmakingView) => {
      if (m.type === "matchedLobby") {
        if (this.matched !== m.lobby) this.matchedAt = Date.now();
        this.matched = m.lobby;
      } else if (m.type === "lobbyRemoved" || m.type === "lobbyDisbanded") this.matched = null;
    });
  }

  protected override async step(): Promise<void> {
    const roll = this.random.int(100);
    const lobby = this.matched;
    if (lobby === null) {
      if (this.searching && roll < 3) {
        this.searching = false;
        await this.send("cancelSearch", null, lobbyType, () => this.client.cancelSearch(lobbyType));
      } else if (!this.searching) {
        const rating = 1000 + this.random.int(50);
        const found = await this.send("findLobby", null, lobbyType, () =>
          this.client.findOrCreateLobby(lobbyType, {
            rating,
            maxSteps: 5,
            algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [100] },
            settings: {},
          }),
        );
        this.searching = found === "acked";
      } else if (roll < 30) {
        await this.reconnect();
      }
      return;
    }
    this.searching = false;
    if (Date.now() - this.matchedAt > stayMs) {
      if ((await this.send("leaveMatched", lobby, null, () => this.client.leaveMatched(lobby))) === "acked")
        this.matched = null;
    } else if (roll < 10) {
      await this.reconnect();
    }
  }
}

/** The bots of the other lobby kinds: `count` activity players and `count` queue players. */
export function kindBots(ctx: BotContext, count: number, random: (i: number) => Random): ChaosBot[] {
  return [
    ...Array.from({ length: count }, (_, i) => new ActivityBot(`activity-${i + 1}`, ctx, random(i))),
    ...Array.from({ length: count }, (_, i) => new QueueBot(`queue-${i + 1}`, ctx, random(count + i))),
  ];
}
