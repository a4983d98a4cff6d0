import { pino, type Logger } from "pino";

/** The one root logger of a process, made at the entry point and passed down. JSON lines on stdout. */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...base }, timestamp: pino.stdTimeFunctions.isoTime });
}
