import type { ManualScheduler } from "../../../actors/runtime/index.ts";
import { Membership, type KvBucket, type MembershipEvents } from "../../../fleet/index.ts";

/** A node's Membership over `nodes`, on the test's manual clock (both clocks are the scheduler's). */
export function member(
  nodes: KvBucket,
  node: string,
  incarnation: string,
  scheduler: ManualScheduler,
  draining: () => boolean = () => false,
  events?: MembershipEvents,
): Membership {
  return new Membership({
    nodes,
    node,
    incarnation,
    scheduler,
    monotonic: () => scheduler.now(),
    facts: () => ({ url: "", region: "r", load: 0, draining: draining(), version: "t", protocol: 1 }),
    ...(events === undefined ? {} : { events }),
  });
}
