/** /proc readings: CPU time and memory of a process tree, the machine's CPU, its description. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../config.mjs";

export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** { ppid, ticks: utime+stime } of one pid; the comm field may contain spaces and parentheses. */
export function readStat(pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After "pid (comm) ": state ppid … ; utime and stime are fields 14 and 15 of the full line.
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Every process's stat now, by pid. */
export function allStats() {
  const stats = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.set(Number(name), readStat(name));
    } catch {
      // process vanished while scanning
    }
  }
  return stats;
}

/** CPU milliseconds consumed so far by process `root` and all its descendants. */
export function treeCpuMs(root) {
  const stats = allStats();
  let ticks = 0;
  for (const pid of processTree(root, stats)) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / CLK_TCK;
}

/** Resident memory (VmRSS, KiB) of process `root` and all its descendants. */
export function treeRssKb(root) {
  let kb = 0;
  for (const pid of processTree(root, allStats())) {
    try {
      kb += Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb;
}

/** Busy and total CPU time of the whole machine so far (all cores, /proc/stat), in ms. */
export function machineCpuMs() {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: ((total - idle) * 1000) / CLK_TCK, total: (total * 1000) / CLK_TCK };
}

/** `root` and its descendants, from one /proc scan. */
export function processTree(root, stats) {
  const tree = new Set([root]);
  // Parents can have higher pids than children after pid wrap-around: iterate to a fixed point.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of stats) {
      if (!tree.has(pid) && tree.has(s.ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return tree;
}

export function machine() {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  let nextVersion = "unknown";
  try {
    nextVersion = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/next/package.json"), "utf8")).version;
  } catch {
    // leave unknown
  }
  return { model, cores: os.availableParallelism?.() ?? os.cpus().length, node: process.version, next: nextVersion, kernel: os.release() };
}

/** CPU time of the whole machine and of this bench's process tree (servers, workers), for the share of other work. */
export function cpuShareSnapshot() {
  return { machine: machineCpuMs(), ours: treeCpuMs(process.pid) };
}

export function cpuShare(before, after) {
  const total = after.machine.total - before.machine.total;
  const busy = after.machine.busy - before.machine.busy;
  const ours = after.ours - before.ours;
  return { ours: ours / total, others: Math.max(0, busy - ours) / total, idle: 1 - busy / total };
}
