/**
 * The shape the ports' errors share (BusError, KvError): one class per port, whose `code` is stable —
 * matched by code, never by message — with an `is…()` guard per code.
 */
export abstract class CodedError<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The guard of one code: true for an error that `isClass` accepts and that carries `code`. */
export function codeGuard<E extends CodedError<string>>(
  isClass: (error: unknown) => error is E,
  code: E["code"],
): (error: unknown) => error is E {
  return (error): error is E => isClass(error) && error.code === code;
}

/** The stable codes of one port: the values of its codes table. */
export type CodeOf<Codes extends Record<string, string>> = Codes[keyof Codes];

/** The guard of one port's error class: true for any instance of it. */
export function classGuard<E extends CodedError<string>>(
  errorClass: abstract new (...args: never[]) => E,
): (error: unknown) => error is E {
  return (error): error is E => error instanceof errorClass;
}
