/** Timing of membership (FLEET-PROTOCOL, "Heartbeats and node death"). */
export interface MembershipTiming {
  /** How often a node writes its heartbeat. Default 1,000 ms. */
  readonly heartbeatMs: number;
  /** Silence after which a peer is declared dead. Default 3,000 ms. */
  readonly failureTimeoutMs: number;
  /** A node acts only while its last good heartbeat is younger than failureTimeout − margin. Default 1,000 ms. */
  readonly leaseMarginMs: number;
  /**
   * Silence after which a peer is suspected (its keys answer UNAVAILABLE). Default half the failure
   * timeout, at least two heartbeats: a heartbeat read late on a busy observer does not suspect a peer.
   */
  readonly suspectAfterMs?: number;
}

/** The timing a node runs with unless told otherwise. */
export const defaultMembershipTiming: MembershipTiming = {
  heartbeatMs: 1_000,
  failureTimeoutMs: 3_000,
  leaseMarginMs: 1_000,
};

/** `timing` over the defaults, with the suspicion threshold worked out when it is not given. */
export function resolveMembershipTiming(timing?: Partial<MembershipTiming>): Required<MembershipTiming> {
  const merged = { ...defaultMembershipTiming, ...timing };
  const suspectAfterMs = Math.max(2 * merged.heartbeatMs, merged.failureTimeoutMs / 2);
  return { ...merged, suspectAfterMs: merged.suspectAfterMs ?? suspectAfterMs };
}
