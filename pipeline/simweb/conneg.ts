/** Content negotiation as publishers do it: honour Accept, ignore it, or refuse with 406. */
import type { RdfFormat } from '../core/index.ts';
import { FORMATS, formatInfo } from './formats.ts';
import type { ConnegPolicy } from './web-shape.ts';

interface AcceptItem {
  readonly type: string;
  readonly q: number;
}

/** Parses an Accept header into media ranges with their q-values (missing header: `*\/*`). */
export function parseAccept(header: string | undefined): AcceptItem[] {
  if (!header?.trim()) return [{ type: '*/*', q: 1 }];
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    return { type, q: Number.isFinite(value) ? value : 0 };
  });
}

function quality(items: readonly AcceptItem[], mediaType: string): number {
  const [major] = mediaType.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const it of items) {
    const specificity = it.type === mediaType ? 2 : it.type === `${major}/*` ? 1 : it.type === '*/*' ? 0 : -1;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      best = it.q;
    }
  }
  return Math.max(0, best);
}

/** The syntax to answer in, or null for 406 Not Acceptable. */
export function negotiate(
  policy: ConnegPolicy,
  native: RdfFormat,
  accept: string | undefined,
): RdfFormat | null {
  const items = parseAccept(accept);
  if (policy === 'ignore') return native;
  const nativeQ = quality(items, formatInfo(native).mediaType);
  if (policy === 'strict') return nativeQ > 0 ? native : null;
  let best = native;
  let bestQ = nativeQ;
  for (const f of FORMATS) {
    const q = quality(items, f.mediaType);
    if (q > bestQ) {
      best = f.format;
      bestQ = q;
    }
  }
  return bestQ > 0 ? best : native;
}
