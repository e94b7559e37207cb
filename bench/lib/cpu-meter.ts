// CPU time of this process, of the DynamoDB Local JVM the local stack started and of the SES sink's
// process when it runs apart, over a span of a bench run: says which a phase keeps busy (Node's one
// thread, or the store). Linux only for the other processes (read from /proc); elsewhere null.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The pids of the JVM listening on `dynamoPort` (DynamoDB Local is started with `-port <n>`). */
function jvmPids(dynamoPort: number): number[] {
  try {
    const out = execFileSync('pgrep', ['-f', `DynamoDBLocal.*-port ${dynamoPort}( |$)`], { encoding: 'utf8' });
    return out.split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** User + system milliseconds of a process so far (clock ticks of 10 ms), or undefined. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export interface CpuSpan {
  wallMs: number;
  nodeCpuMs: number;
  jvmCpuMs: number | null;
  /** The SES sink's process, when it runs apart (else null: its work is in `nodeCpuMs`). */
  sinkCpuMs: number | null;
}

/** Start measuring; `stop()` answers the CPU each side used since. */
export function cpuMeter(dynamoPort: number, sinkPid?: number): { stop: () => CpuSpan } {
  const pids = jvmPids(dynamoPort);
  const jvm = () => {
    const each = pids.map(processCpuMs);
    return pids.length > 0 && each.every((ms) => ms !== undefined) ? each.reduce((sum: number, ms) => sum + (ms as number), 0) : null;
  };
  const sink = () => (sinkPid === undefined ? undefined : processCpuMs(sinkPid));
  const sinkStart = sink();
  const jvmStart = jvm();
  const nodeStart = process.cpuUsage();
  const wallStart = performance.now();
  return {
    stop: () => {
      const node = process.cpuUsage(nodeStart);
      const jvmEnd = jvm();
      const sinkEnd = sink();
      return {
        wallMs: performance.now() - wallStart,
        nodeCpuMs: (node.user + node.system) / 1000,
        jvmCpuMs: jvmStart === null || jvmEnd === null ? null : jvmEnd - jvmStart,
        sinkCpuMs: sinkStart === undefined || sinkEnd === undefined ? null : sinkEnd - sinkStart,
      };
    },
  };
}

/** CPU milliseconds per unit of work on each side, and each side's busy share of the wall time. */
export function perUnit(
  span: CpuSpan,
  units: number,
): { node_cpu_ms: number; jvm_cpu_ms: number | null; sink_cpu_ms: number | null; node_busy: number; jvm_busy: number | null; sink_busy: number | null } {
  const r = (value: number) => Math.round(value * 1000) / 1000;
  return {
    node_cpu_ms: r(span.nodeCpuMs / units),
    jvm_cpu_ms: span.jvmCpuMs === null ? null : r(span.jvmCpuMs / units),
    sink_cpu_ms: span.sinkCpuMs === null ? null : r(span.sinkCpuMs / units),
    node_busy: r(span.nodeCpuMs / span.wallMs),
    jvm_busy: span.jvmCpuMs === null ? null : r(span.jvmCpuMs / span.wallMs),
    sink_busy: span.sinkCpuMs === null ? null : r(span.sinkCpuMs / span.wallMs),
  };
}
