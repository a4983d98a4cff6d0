/**
 * The matching rules of conformance scenarios (docs/conformance.md), with no I/O so a runner in another
 * language can copy them line by line.
 *
 * - An object pattern matches an object holding at least its keys (extra keys are allowed), each value
 *   matching; `"$absent"` as a value requires the key to be missing.
 * - An array pattern matches an array of the same length, element by element, in order.
 * - `"$any"`, `"$string"`, `"$number"`, `"$integer"`, `"$boolean"` match any present value of that kind.
 * - Any other `"$name"` is a variable: bound, it must equal its value; unbound, it binds to what is there.
 * - `"$$text"` is the literal string `"$text"`. Everything else must be equal.
 */

/** Placeholders that are not variables. */
export const PLACEHOLDERS = new Set(["$any", "$string", "$number", "$integer", "$boolean", "$absent"]);

/** The variable a string names (`"$code"` → `"code"`), or undefined for a literal or a placeholder. */
export function variableOf(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.startsWith("$") || value.startsWith("$$")) return undefined;
  if (PLACEHOLDERS.has(value)) return undefined;
  return value.slice(1);
}

export type Vars = ReadonlyMap<string, unknown>;

/** The outcome of a match: the variables it bound, or where and why it failed. */
export type MatchResult =
  { ok: true; bound: Map<string, unknown> } | { ok: false; path: string; reason: string };

/** Matches a received value against a pattern, given the variables bound so far. Binds nothing on failure. */
export function match(pattern: unknown, actual: unknown, vars: Vars): MatchResult {
  const bound = new Map<string, unknown>();
  const failure = walk(pattern, actual, "", vars, bound);
  return failure ? { ok: false, ...failure } : { ok: true, bound };
}

function walk(
  pattern: unknown,
  actual: unknown,
  path: string,
  vars: Vars,
  bound: Map<string, unknown>,
): { path: string; reason: string } | undefined {
  const at = path === "" ? "frame" : path;
  const fail = (reason: string) => ({ path: at, reason });
  if (typeof pattern === "string" && pattern.startsWith("$")) {
    if (pattern.startsWith("$$")) {
      return actual === pattern.slice(1)
        ? undefined
        : fail(`expected ${show(pattern.slice(1))}, got ${show(actual)}`);
    }
    if (actual === undefined) return fail(`expected ${pattern}, but the field is missing`);
    switch (pattern) {
      case "$any":
        return undefined;
      case "$string":
        return typeof actual === "string" ? undefined : fail(`expected a string, got ${show(actual)}`);
      case "$number":
        return typeof actual === "number" ? undefined : fail(`expected a number, got ${show(actual)}`);
      case "$integer":
        return Number.isInteger(actual) ? undefined : fail(`expected an integer, got ${show(actual)}`);
      case "$boolean":
        return typeof actual === "boolean" ? undefined : fail(`expected a boolean, got ${show(actual)}`);
      case "$absent":
        return fail(`expected no field, got ${show(actual)}`);
    }
    const name = pattern.slice(1);
    const known = vars.has(name) ? vars.get(name) : bound.get(name);
    if (vars.has(name) || bound.has(name)) {
      return deepEqual(known, actual)
        ? undefined
        : fail(`expected $${name} = ${show(known)}, got ${show(actual)}`);
    }
    bound.set(name, actual);
    return undefined;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return fail(`expected an array, got ${show(actual)}`);
    if (actual.length !== pattern.length) {
      return fail(`expected ${pattern.length} elements, got ${actual.length}: ${show(actual)}`);
    }
    for (let i = 0; i < pattern.length; i++) {
      const failure = walk(pattern[i], actual[i], `${path}[${i}]`, vars, bound);
      if (failure) return failure;
    }
    return undefined;
  }
  if (isObject(pattern)) {
    if (!isObject(actual)) return fail(`expected an object, got ${show(actual)}`);
    for (const [key, value] of Object.entries(pattern)) {
      const child = path === "" ? key : `${path}.${key}`;
      if (value === "$absent") {
        if (key in actual) return { path: child, reason: `expected no field, got ${show(actual[key])}` };
        continue;
      }
      const failure = walk(value, actual[key], child, vars, bound);
      if (failure) return failure;
    }
    return undefined;
  }
  return deepEqual(pattern, actual) ? undefined : fail(`expected ${show(pattern)}, got ${show(actual)}`);
}

/** A frame to send: every `"$name"` replaced by its variable's value (`"$$x"` by `"$x"`). Throws on an unbound one. */
export function substitute(template: unknown, vars: Vars): unknown {
  if (typeof template === "string" && template.startsWith("$")) {
    if (template.startsWith("$$")) return template.slice(1);
    const name = variableOf(template);
    if (name === undefined)
      throw new Error(`${template} is a placeholder for expectations, not a value to send`);
    if (!vars.has(name)) throw new Error(`variable $${name} is not bound yet`);
    return vars.get(name);
  }
  if (Array.isArray(template)) return template.map((v) => substitute(v, vars));
  if (isObject(template)) {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return template;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A value for a failure message, cut to a readable length. */
export function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = (JSON.stringify(value) as string | undefined) ?? "(unprintable)";
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
