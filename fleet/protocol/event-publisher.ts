import type { EventPublisher, StudioEvent } from "../../actors/runtime/index.ts";
import type { Bus } from "../bus.ts";

/**
 * The studio's events on the bus (docs/server-api.md "Events"): `foyer.events.<name>`, one JSON message
 * per event. NATS core publish: at most once, to whoever is subscribed at the time.
 */

/** The subject prefix every event is published under; subscribe to `foyer.events.>` for all of them. */
export const eventSubjectPrefix = "foyer.events";

/** The subject of an event name (`lobby.created` → `foyer.events.lobby.created`). */
export function eventSubject(name: string): string {
  return `${eventSubjectPrefix}.${name}`;
}

/** An event as its JSON message carries it. */
export interface EventPayload {
  readonly type: string;
  readonly key: string;
  readonly node: string;
  readonly epoch: number;
  readonly seq: number;
  readonly index: number;
  readonly at: number;
  readonly [field: string]: unknown;
}

/** The JSON body of an event published by `node`: the actor's data, then the runtime's stamp. */
export function eventPayload(event: StudioEvent, node: string): EventPayload {
  return {
    ...event.data,
    type: event.name,
    key: event.key,
    node,
    epoch: event.epoch,
    seq: event.seq,
    index: event.index,
    at: event.at,
  };
}

/** Publishes events of node `node` on `bus`; a bus that refuses (closed) loses the event and says so. */
export function busEventPublisher(
  bus: Bus,
  node: string,
  failed: (event: StudioEvent, error: unknown) => void = () => undefined,
): EventPublisher {
  const encoder = new TextEncoder();
  return {
    publish(event) {
      try {
        bus.publish(eventSubject(event.name), encoder.encode(JSON.stringify(eventPayload(event, node))));
      } catch (error) {
        failed(event, error);
      }
    },
  };
}
