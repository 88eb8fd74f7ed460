/**
 * What keeps a page from being read, measured in the page as Chromium laid it out (run with
 * `page.evaluate(layoutProblems)`): one line per problem, empty when the page reads well. Kept
 * self-contained: it runs in the browser.
 *
 * - a word broken inside a table cell: a run of letters and digits (the text between spaces and
 *   the `/ # . ? & = - _ :` boundaries an IRI may break at) laid out on two lines;
 * - a table wider than its box that is not in a visibly scrollable container: an ancestor that
 *   scrolls sideways and shows it (a scrollbar that takes room, or the scroll shadows of `.scroll`);
 * - text under 11 px (CSS pixels; chart text, which scales with its drawing, is portal.test.ts's);
 * - content cut at the edge: the page itself wider than the viewport, an element drawn past the
 *   viewport's left or right edge outside a scrolling container, or one whose overflow is hidden
 *   while its content is wider than its box.
 */
export function layoutProblems(): string[] {
  const problems: string[] = [];
  const width = document.documentElement.clientWidth;
  const describe = (e: Element) => {
    const text = (e.textContent ?? '').replace(/\s+/g, ' ').trim();
    return `<${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.classList.length > 0 ? `.${[...e.classList].join('.')}` : ''}> "${text.slice(0, 60)}"`;
  };
  const visible = (e: Element) => e.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  const scrollsSideways = (e: Element) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  /** A scroll container a reader can tell scrolls: a scrollbar that takes room, or shadows at its edges. */
  const showsScrolling = (e: HTMLElement) => {
    const style = getComputedStyle(e);
    const scrollbar =
      e.offsetHeight -
      e.clientHeight -
      Number.parseFloat(style.borderTopWidth) -
      Number.parseFloat(style.borderBottomWidth);
    const shadows =
      style.backgroundImage.includes('gradient') && style.backgroundAttachment.includes('local');
    return scrollbar > 0 || shadows;
  };

  if (document.documentElement.scrollWidth > width + 1)
    problems.push(`the page is ${document.documentElement.scrollWidth - width}px wider than the viewport`);

  for (const e of document.querySelectorAll<HTMLElement>('body *')) {
    if (!visible(e) || e.closest('svg, head, script, style')) continue;
    const style = getComputedStyle(e);
    const box = e.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    let inScroller = false;
    for (let a = e.parentElement; a && !inScroller; a = a.parentElement)
      inScroller = scrollsSideways(a) && a.scrollWidth > a.clientWidth + 1;
    if (!inScroller && (box.right > width + 1 || box.left < -1))
      problems.push(
        `cut at the edge (${Math.round(box.left)}..${Math.round(box.right)} of ${width}px): ${describe(e)}`,
      );
    const overflows = e.scrollWidth > e.clientWidth + 1;
    if (overflows && ['hidden', 'clip'].includes(style.overflowX) && e.tagName !== 'DETAILS')
      problems.push(`content hidden past its box (${e.scrollWidth} > ${e.clientWidth}px): ${describe(e)}`);
    if (overflows && scrollsSideways(e) && !showsScrolling(e))
      problems.push(
        `scrolls sideways with no sign of it (${e.scrollWidth} > ${e.clientWidth}px): ${describe(e)}`,
      );
    if (e.tagName === 'TABLE') {
      const container = e.parentElement;
      const scrolls = container && scrollsSideways(container) && showsScrolling(container);
      if (box.width > (container?.clientWidth ?? width) + 1 && !scrolls)
        problems.push(
          `table wider than its box (${Math.round(box.width)}px) and not in a visibly scrollable container: ${describe(e)}`,
        );
    }
  }

  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    const parent = node.parentElement;
    if (!parent || !text.trim() || parent.closest('svg, script, style') || !visible(parent)) continue;
    range.selectNodeContents(node);
    if (range.getClientRects().length === 0) continue;
    const px = Number.parseFloat(getComputedStyle(parent).fontSize);
    if (px < 11 - 0.05) problems.push(`text of ${px.toFixed(1)}px: ${describe(parent)}`);
    if (!parent.closest('td, th')) continue;
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set(
        [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
      );
      if (lines.size > 1)
        problems.push(`"${m[0]}" broken over ${lines.size} lines in a table cell: ${describe(parent)}`);
    }
  }
  return problems;
}
