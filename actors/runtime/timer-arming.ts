import type { ActorCell, ArmedTimer, Envelope } from "./actor-cell.ts";
import type { Scheduler } from "./ports.ts";
import type { Effect } from "./types.ts";

/** Arms the timers of live actors on the scheduler; a timer that fires is delivered as a message. */
export class TimerArming {
  constructor(
    private readonly scheduler: Scheduler,
    private readonly deliver: (key: string, envelope: Envelope) => void,
  ) {}

  /** Arms (or re-arms) a timer; when it fires, the actor gets `{ type: "timer", name }` tagged with it. */
  arm(cell: ActorCell, name: string, kind: "game" | "grace", at: number): void {
    cell.timers.get(name)?.cancel();
    const timer: ArmedTimer = {
      kind,
      at,
      cancel: this.scheduler.at(at, () => {
        if (cell.timers.get(name) === timer)
          this.deliver(cell.key, { message: { type: "timer", name }, timer });
      }),
    };
    cell.setTimer(name, timer);
  }

  /** Arms and cancels timers as the written effects say. */
  applyTimers(cell: ActorCell, changes: readonly Effect[]): void {
    for (const change of changes) {
      if (change.type === "timer") this.arm(cell, change.name, change.kind, change.at);
      else if (change.type === "cancelTimer") {
        cell.timers.get(change.name)?.cancel();
        cell.deleteTimer(change.name);
      }
    }
  }
}
