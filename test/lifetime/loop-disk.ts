import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The snapshots root's own file system: an ext4 image (sparse, in the benchmark's folder) mounted
 * through a loop device, so that a disk-full episode fills that file system alone, with a real
 * file system's ENOSPC, and the host's disk and other people's work are untouched. Needs root
 * (mount); the benchmark fails, rather than skips, where it cannot mount.
 */
export interface LoopDisk {
  readonly mountPoint: string;
  /** Takes all but `leaveBytes` of the free space with one preallocated file (another tenant's). */
  fill(leaveBytes: number): void;
  /** Removes that file. */
  free(): void;
  freeBytes(): number;
  unmount(): void;
}

const FILLER = 'other-tenant.fill';

/** Creates (or reuses) `image` of `bytes` and mounts it at `mountPoint`. */
export function mountLoopDisk(image: string, mountPoint: string, bytes: number): LoopDisk {
  mkdirSync(mountPoint, { recursive: true });
  if (!existsSync(image)) {
    execFileSync('truncate', ['-s', String(bytes), image]);
    // no blocks reserved for root: the benchmark runs as root, and a disk full for everyone but
    // root is not full for the crawler
    execFileSync('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
  }
  execFileSync('mount', ['-o', 'loop,discard', image, mountPoint], { stdio: 'pipe' });
  const filler = join(mountPoint, FILLER);
  const freeBytes = () => {
    const s = statfsSync(mountPoint);
    return s.bavail * s.bsize;
  };
  return {
    mountPoint,
    freeBytes,
    fill(leaveBytes) {
      const take = freeBytes() - leaveBytes;
      if (take > 0) execFileSync('fallocate', ['-l', String(take), filler]);
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      rmSync(filler, { force: true });
      execFileSync('umount', [mountPoint]);
    },
  };
}
