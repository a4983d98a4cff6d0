import type { Bus } from "../bus.ts";
import { type HandlerErrorSink, throwLater } from "../handler-error.ts";
import { type BusRoute, type BusRouter, MemoryBus } from "./memory-bus.ts";
import { subjectMatches } from "../subject.ts";

/** Options of one connection to a MemoryBusServer. */
export interface MemoryBusConnectOptions {
  /** Receives exceptions thrown by subscription handlers (default: rethrown outside the delivery loop). */
  readonly onHandlerError?: HandlerErrorSink;
}

/**
 * The in-process bus of embedded mode: the medium that several MemoryBus connections share, as several
 * nats connections share one cluster. Routes by NATS subject rules, one member per queue group.
 */
export class MemoryBusServer implements BusRouter {
  private readonly routes = new Set<BusRoute>();
  /** Next member to serve, per queue group: round robin keeps runs repeatable where NATS picks at random. */
  private readonly turns = new Map<string, number>();
  private connections = 0;

  /** Opens a connection. */
  connect(options: MemoryBusConnectOptions = {}): Bus {
    this.connections += 1;
    return new MemoryBus(this, String(this.connections), options.onHandlerError ?? throwLater);
  }

  /** Adds a route; returns the function that removes it. */
  attach(route: BusRoute): () => void {
    this.routes.add(route);
    return () => this.routes.delete(route);
  }

  /** Hands a message to every matching plain route and to one member of each matching queue group. */
  route(subject: string, data: Uint8Array, reply: string | undefined): number {
    let taken = 0;
    // As in nats-server, members of one queue name form one group across every filter that matches.
    const groups = new Map<string, BusRoute[]>();
    for (const route of this.routes) {
      if (!subjectMatches(route.filter, subject)) continue;
      if (route.queue === undefined) {
        route.deliver(subject, data, reply);
        taken += 1;
      } else {
        const members = groups.get(route.queue) ?? [];
        members.push(route);
        groups.set(route.queue, members);
      }
    }
    for (const [queue, members] of groups) {
      const turn = this.turns.get(queue) ?? 0;
      this.turns.set(queue, turn + 1);
      members[turn % members.length]?.deliver(subject, data, reply);
      taken += 1;
    }
    return taken;
  }
}
