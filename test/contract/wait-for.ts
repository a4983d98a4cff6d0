/** Waits until `condition()` holds, polling, or throws after `timeoutMs`: a deadline, never a fixed sleep. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The bytes of a short text, for readable test values. */
export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The text of some bytes. */
export function text(data: Uint8Array): string {
  return new TextDecoder().decode(data);
}
