import type { TopLevelSpec } from 'vega-lite';

/**
 * Renders a Vega-Lite spec to SVG in Node (no browser, no canvas), for charts drawn at build time.
 * `responsive` drops the fixed width and height and keeps the viewBox, so the chart scales with
 * the page (phones get a narrower chart).
 */
export async function renderVegaLite(
  spec: TopLevelSpec,
  options: { responsive?: boolean } = {},
): Promise<string> {
  // loaded on first use: every command imports core, and only those that draw should pay Vega's
  // quarter second of loading
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    if (!options.responsive) return svg;
    return svg.replace(
      /^<svg([^>]*?) width="[\d.]+" height="[\d.]+"/,
      '<svg$1 preserveAspectRatio="xMinYMin meet"',
    );
  } finally {
    view.finalize();
  }
}
