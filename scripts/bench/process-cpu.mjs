// CPU time of the benchmark's servers, from Linux's /proc: a steadier measure than wall-clock time on a shared
// machine, where other work takes turns on the same cores.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: state is 0, the process group 2, utime 11, stime 12 (in ticks). */
const GROUP = 2;
const UTIME = 11;
const STIME = 12;
/** Clock ticks per second (`getconf CLK_TCK`), 100 on Linux. */
const TICKS_PER_SECOND = 100;

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), fields: text.slice(text.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * A function answering the CPU seconds (user + system) the processes named `name` of process group `group` used so
 * far, for `wrangler dev` the workerd process that runs the worker, its Durable Objects, D1 and the queues; undefined
 * where /proc is missing.
 */
export function groupCpu(group, name = 'workerd') {
  if (!existsSync('/proc/self/stat')) return undefined;
  return () => {
    let ticks = 0;
    for (const { fields } of groupProcesses(group, name)) ticks += Number(fields[UTIME]) + Number(fields[STIME]);
    return ticks / TICKS_PER_SECOND;
  };
}

/** The processes named `name` of process group `group`, with their pid and /proc stat fields. */
function* groupProcesses(group, name) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const process = stat(entry);
    if (process?.name === name && Number(process.fields[GROUP]) === group) yield { pid: entry, fields: process.fields };
  }
}

/** A function answering the resident memory in MB of the processes named `name` of process group `group` (VmRSS); undefined where /proc is missing. */
export function groupRssMb(group, name = 'workerd') {
  if (!existsSync('/proc/self/stat')) return undefined;
  return () => {
    let kb = 0;
    for (const { pid } of groupProcesses(group, name)) {
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        // gone meanwhile
      }
    }
    return kb / 1024;
  };
}
