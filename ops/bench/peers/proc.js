// CPU time of a process from /proc/<pid>/stat (Linux): utime + stime, fields 14 and 15, in clock ticks.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond = 0;

export function cpuSeconds(pid) {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

// The same, user and system CPU seconds apart: a system call's share of the CPU (a socket write's, say)
// is at most the system time, whatever a profile's wall-clock samples charge to it.
export function cpuSplit(pid) {
  if (ticksPerSecond === 0)
    ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
}

// The share of one core a process used over `seconds` of wall time while nothing was asked of it, with
// the system part of its CPU seconds apart (an idle server's pings are mostly the kernel's sends).
export async function idleCpu(pid, seconds) {
  const cpu0 = cpuSplit(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const wallS = (performance.now() - t0) / 1000;
  const cpu1 = cpuSplit(pid);
  const systemS = cpu1.system - cpu0.system;
  const cpuS = cpu1.user - cpu0.user + systemS;
  return {
    seconds: Number(wallS.toFixed(1)),
    cpuSeconds: Number(cpuS.toFixed(2)),
    systemCpuSeconds: Number(systemS.toFixed(2)),
    percentOfCore: Number(((cpuS / wallS) * 100).toFixed(2)),
  };
}
