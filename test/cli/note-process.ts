/**
 * Loaded with --import before the CLI: appends this process image's pid, glibc malloc settings and
 * arguments to the file named by NOTE_PROCESS_FILE, so that a test sees every image a command ran
 * as (one more after an execve).
 */
import { appendFileSync } from 'node:fs';

const file = process.env.NOTE_PROCESS_FILE;
if (file) {
  const note = {
    pid: process.pid,
    arenas: process.env.MALLOC_ARENA_MAX ?? null,
    mmapThreshold: process.env.MALLOC_MMAP_THRESHOLD_ ?? null,
    trimThreshold: process.env.MALLOC_TRIM_THRESHOLD_ ?? null,
    argv: process.argv.slice(2),
  };
  appendFileSync(file, `${JSON.stringify(note)}\n`);
}
