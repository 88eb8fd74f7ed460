import { spawnSync } from 'node:child_process';

/** The pid of a process that has exited: what a lock or a temporary left by a killed run is named with. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}
