/**
 * NATS subject rules, shared by the in-process bus and checked before any I/O so both buses refuse the
 * same subjects. Tokens are separated by `.`; in a filter, `*` matches one token and `>` one or more
 * trailing tokens. A bad subject is a bug in the caller: it throws TypeError.
 */

// Whitespace splits a NATS protocol line, so no token may hold any.
const tokenPattern = /^[^\s.]+$/;

/** Throws TypeError unless `subject` is a literal subject to publish to (no empty token, no wildcard). */
export function assertSubject(subject: string): void {
  for (const token of subject.split(".")) {
    if (!tokenPattern.test(token) || token === "*" || token === ">") {
      throw new TypeError(
        `invalid subject ${JSON.stringify(subject)}: non-empty tokens, no spaces, no wildcards`,
      );
    }
  }
}

/** Throws TypeError unless `filter` is a subject to subscribe to (`*` tokens anywhere, `>` only last). */
export function assertSubjectFilter(filter: string): void {
  const tokens = filter.split(".");
  tokens.forEach((token, index) => {
    if (!tokenPattern.test(token) || (token === ">" && index !== tokens.length - 1)) {
      throw new TypeError(
        `invalid subject filter ${JSON.stringify(filter)}: non-empty tokens, no spaces, > only as the last token`,
      );
    }
  });
}

/** Throws TypeError unless `queue` is a queue group name (non-empty, no whitespace). */
export function assertQueueName(queue: string): void {
  if (!/^\S+$/.test(queue)) throw new TypeError(`invalid queue group ${JSON.stringify(queue)}`);
}

/** True when the literal `subject` matches `filter`. Both must be valid. */
export function subjectMatches(filter: string, subject: string): boolean {
  const want = filter.split(".");
  const have = subject.split(".");
  for (let i = 0; i < want.length; i += 1) {
    const token = want[i];
    if (token === ">") return have.length > i;
    if (i >= have.length || (token !== "*" && token !== have[i])) return false;
  }
  return want.length === have.length;
}
