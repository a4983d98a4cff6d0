import type { Random } from "../../actors/runtime/index.ts";
import { ChaosBot, type BotContext } from "./chaos-bot.ts";

/**
 * What the bots of one node's drain team share: the lobby its host keeps on that node, and when the host
 * last heard `serverDraining` (the node began to drain).
 */
export interface DrainTeam {
  code: string | null;
  drainHeardAt: number;
}

/** How long after the host heard the drain its joiners may still start their joins. */
const joinWithinMs = 600;
/** How long a joiner stays in the team's lobby (changing it) before it leaves for the next drain. */
const stayMs = 30_000;
/** How long the team's host keeps changing its lobby after a drain began. */
const changeForMs = 30_000;
/** How long an anchor's room runs before it finishes it (and starts another). */
const roomForMs = 25_000;

/**
 * A bot of a node's drain team: it goes back to its node when it finds itself elsewhere (a drain or a
 * failover moved it), by dropping its socket until a reconnect lands there.
 */
abstract class TeamBot extends ChaosBot {
  protected readonly home: string;

  constructor(id: string, ctx: BotContext, random: Random, node: number) {
    super(id, ctx, random, node);
    this.home = `n${node + 1}`;
  }

  /** True when the bot is on another node than its own (and out of a lobby, so free to go back). */
  protected async homeward(): Promise<boolean> {
    if (this.node === null || this.node === this.home || this.client.lobby) return false;
    // At most one try every 2 s: a home node that is down (killed, restarting) is not hammered.
    if (Date.now() - this.triedHomeAt < 2_000) return true;
    this.triedHomeAt = Date.now();
    await this.reconnect();
    return true;
  }

  private triedHomeAt = 0;
}

/**
 * The bots that join lobbies while their node drains. Each node has a team, connected to that node
 * first: an anchor whose room runs (a lobby pinned by its room keeps a drain open, as in a rolling
 * deploy, so a member left behind on the draining node would go deaf there rather than be reconnected
 * by the node's exit), a host whose lobby lives on the node, and joiners that join the host's lobby the
 * moment the host hears `serverDraining` — spread over the first `joinWithinMs`, so some joins reach the
 * lobby while it is frozen to move. The host and joiners then keep changing the lobby, so the hearing
 * audit can tell whether every member still hears it from its new owner. Their requests are journaled
 * like every bot's and audited the same way.
 */
export function drainTeam(ctx: BotContext, node: number, random: (i: number) => Random): ChaosBot[] {
  // The nodes are n1, n2, … in the order of the fleet's URLs (ChaosFleet).
  const team: DrainTeam = { code: null, drainHeardAt: 0 };
  const name = `drain-n${node + 1}`;
  return [
    new DrainAnchorBot(`${name}-anchor`, ctx, random(0), node),
    new DrainHostBot(`${name}-host`, ctx, random(1), node, team),
    ...[2, 3, 4].map((i) => new DrainJoinerBot(`${name}-joiner-${i - 1}`, ctx, random(i), node, team)),
  ];
}

/** Keeps a room running on its node (an `ffa` room of its own lobby), finished and started again every 25 s. */
class DrainAnchorBot extends TeamBot {
  private playingSince = 0;

  protected override async step(): Promise<void> {
    const lobby = this.client.lobby;
    if (!lobby) {
      if (!(await this.homeward())) await this.create(false);
      return;
    }
    if (!lobby.playing) {
      // A lobby the drain (or a failover) moved away pins nothing here: back home first.
      if (this.node !== this.home) {
        await this.send("leave", lobby.code, null, () => this.client.leave());
        return;
      }
      const started = await this.send("start", lobby.code, "ffa", () => this.client.start("ffa"));
      if (started === "acked") this.playingSince = Date.now();
      return;
    }
    if (this.playingSince === 0) this.playingSince = Date.now(); // a room found running after a restore
    if (Date.now() - this.playingSince < roomForMs) return;
    const finished = await this.send("finish", lobby.code, null, () => this.client.finish());
    if (finished === "acked") this.playingSince = 0;
  }
}

/** Keeps a lobby on its node and, once the node drains, changes it (its ready flag) for a while. */
class DrainHostBot extends TeamBot {
  constructor(
    id: string,
    ctx: BotContext,
    random: Random,
    node: number,
    private readonly team: DrainTeam,
  ) {
    super(id, ctx, random, node);
    this.client.on("serverDraining", () => {
      team.code = this.client.lobby?.code ?? null;
      team.drainHeardAt = Date.now();
    });
  }

  protected override async step(): Promise<void> {
    const lobby = this.client.lobby;
    if (!lobby) {
      if (!(await this.homeward())) this.team.code = await this.create(false);
      return;
    }
    this.team.code = lobby.code;
    if (Date.now() - this.team.drainHeardAt > changeForMs) {
      // The drain is over and moved the lobby away: a new one at home, for the next drain there.
      if (this.node !== this.home) await this.send("leave", lobby.code, null, () => this.client.leave());
      return;
    }
    const ready = !(lobby.members.find((m) => m.player === this.id)?.ready ?? false);
    await this.send("ready", lobby.code, ready, () => this.client.ready(ready));
  }
}

/** Joins the host's lobby right after the node began to drain, changes it, and leaves 30 s later. */
class DrainJoinerBot extends TeamBot {
  private handled = 0;
  private joinedAt = 0;

  constructor(
    id: string,
    ctx: BotContext,
    random: Random,
    node: number,
    private readonly team: DrainTeam,
  ) {
    super(id, ctx, random, node);
  }

  /** Polls often: a join must start within `joinWithinMs` of the drain to race the lobby's move. */
  override async play(done: () => boolean): Promise<void> {
    while (!done()) {
      await this.step();
      await new Promise((resolve) => setTimeout(resolve, 20 + this.random.int(60)));
    }
  }

  protected override async step(): Promise<void> {
    const lobby = this.client.lobby;
    if (lobby) {
      if (Date.now() - this.joinedAt > stayMs) {
        await this.send("leave", lobby.code, null, () => this.client.leave());
      } else if (this.random.int(100) < 4) {
        const ready = !(lobby.members.find((m) => m.player === this.id)?.ready ?? false);
        await this.send("ready", lobby.code, ready, () => this.client.ready(ready));
      }
      return;
    }
    const { code, drainHeardAt } = this.team;
    if (code === null || drainHeardAt <= this.handled) {
      if (Date.now() - this.joinedAt > stayMs) await this.homeward();
      return;
    }
    this.handled = drainHeardAt;
    const wait = drainHeardAt + this.random.int(joinWithinMs) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.joinedAt = Date.now();
    await this.send("join", code, null, () => this.client.join(code));
  }
}
