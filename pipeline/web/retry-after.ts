/**
 * Milliseconds a Retry-After header asks us to wait (RFC 9110 10.2.3: delay-seconds or an
 * HTTP-date, read against `now`); null when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
