import type { FoyerClient, LobbyView } from "../../gateway/client/index.ts";

/** A lobby as the honest ops imply it: its host and each member's ready flag; null when the pair is in none. */
export type LobbyModel = {
  readonly host: string;
  readonly members: Readonly<Record<string, boolean>>;
} | null;

/** Whether a lobby view is the model (members, their ready flags and the host; not `connected` or seq). */
export function viewMatches(view: LobbyView | null, model: LobbyModel): boolean {
  if (view === null || model === null) return view === model;
  if (view.host !== model.host) return false;
  const players = Object.keys(model.members);
  if (view.members.length !== players.length) return false;
  return view.members.every((m) => model.members[m.player] === m.ready);
}

interface Step {
  readonly run: () => Promise<unknown>;
  readonly after: LobbyModel;
}

/**
 * Two SDK bots (host and guest) looping create / join / ready / leave. Every lobby frame either bot hears
 * about the pair's current lobby must be the state before or after the op in flight (a window of one op
 * either side, since a frame and its result need not come in order); anything else — a member nobody
 * honest added, a ready flag nobody honest set — is a lobby changed by someone else. At the end both
 * bots' lobbies must be what their last acked op implies.
 */
export class HonestPair {
  /** Lobby frames that matched no state the pair's ops allow. */
  changed = 0;
  /** Ops refused or timed out (the pair starts over; not a fuzz finding by itself). */
  failedOps = 0;
  acked = 0;
  private code: string | undefined;
  private readonly pastCodes = new Set<string>();
  private allowed: LobbyModel[] = [null];
  private resetting = false;
  private creating = false;
  private acknowledged: LobbyModel = null;
  /** The first few mismatches, for the report. */
  readonly samples: string[] = [];

  constructor(
    readonly host: FoyerClient,
    readonly guest: FoyerClient,
    readonly hostId: string,
    readonly guestId: string,
    private readonly onCode: (code: string) => void,
  ) {
    for (const bot of [host, guest]) {
      bot.on("lobby", (view) => {
        this.heard(view);
      });
    }
  }

  /** A lobby frame one of the bots received. */
  heard(view: LobbyView): void {
    if (this.resetting) return;
    if (this.creating && view.code !== this.code && !this.pastCodes.has(view.code)) {
      this.entered(view.code); // the new lobby's frame came before the create's result
    }
    if (view.code !== this.code) {
      if (this.pastCodes.has(view.code)) return; // a late frame about the pair's previous lobby
      this.flag(`a frame about lobby ${view.code}, not the pair's ${String(this.code)}`);
      return;
    }
    if (!this.allowed.some((model) => viewMatches(view, model))) {
      this.flag(
        `lobby ${view.code}: ${JSON.stringify(view.members.map((m) => [m.player, m.ready]))} host ${String(view.host)}`,
      );
    }
  }

  /**
   * Runs create / join / ready / leave loops until `stopped()`, ending each loop's op before it checks.
   * It waits `pauseMs` after each op, as a player would: the lobby stays up for the fuzz to aim at, and
   * the pair does not take the node's whole time from the fuzz.
   */
  async run(stopped: () => boolean, pauseMs = 20): Promise<void> {
    const h = this.hostId;
    const g = this.guestId;
    while (!stopped()) {
      const steps: Step[] = [
        {
          run: () => this.create(),
          after: { host: h, members: { [h]: false } },
        },
        {
          run: () => this.guest.join(this.code ?? ""),
          after: { host: h, members: { [h]: false, [g]: false } },
        },
        { run: () => this.guest.ready(true), after: { host: h, members: { [h]: false, [g]: true } } },
        { run: () => this.host.ready(true), after: { host: h, members: { [h]: true, [g]: true } } },
        { run: () => this.guest.ready(false), after: { host: h, members: { [h]: true, [g]: false } } },
        { run: () => this.guest.leave(), after: { host: h, members: { [h]: true } } },
        { run: () => this.host.leave(), after: null },
      ];
      for (const step of steps) {
        this.allowed = [this.acknowledged, step.after];
        try {
          await step.run();
        } catch {
          this.failedOps++;
          await this.reset();
          break;
        }
        this.acked++;
        this.acknowledged = step.after;
        this.allowed = [step.after];
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        // Stop while the pair is in a lobby, so the final check has members to compare.
        if (stopped() && step.after !== null && Object.keys(step.after.members).length === 2) return;
      }
    }
  }

  /** The final check: both bots' lobbies are what the last acked op implies. */
  finalCheck(): void {
    const model = this.acknowledged;
    const hostView = this.host.lobby;
    const guestView = this.guest.lobby;
    const guestIn = model !== null && this.guestId in model.members;
    if (!viewMatches(hostView, model))
      this.flag(`final: host sees ${JSON.stringify(hostView?.members ?? null)}`);
    if (!viewMatches(guestView, guestIn ? model : null))
      this.flag(`final: guest sees ${JSON.stringify(guestView?.members ?? null)}`);
  }

  private async create(): Promise<void> {
    const before = this.code;
    this.creating = true;
    try {
      const { code } = await this.host.create();
      if (this.code !== before && this.code !== code)
        this.flag(`create answered ${code} after a frame of ${String(this.code)}`);
      if (code !== this.code) this.entered(code);
    } finally {
      this.creating = false;
    }
  }

  private entered(code: string): void {
    if (this.code) this.pastCodes.add(this.code);
    this.code = code;
    this.onCode(code);
  }

  /** After a failed op the outcome is unknown: both leave, and the pair starts from no lobby. */
  private async reset(): Promise<void> {
    this.resetting = true;
    await Promise.allSettled([this.guest.leave(), this.host.leave()]);
    if (this.code) this.pastCodes.add(this.code);
    this.code = undefined;
    this.acknowledged = null;
    this.allowed = [null];
    this.resetting = false;
  }

  private flag(what: string): void {
    this.changed++;
    if (this.samples.length < 5) this.samples.push(what);
  }
}
