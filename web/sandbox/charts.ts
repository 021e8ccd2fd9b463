/**
 * Two small SVG charts, drawn without a library: a line (a balance over
 * time) and grouped bars (an amount per label). Values are plotted as
 * numbers, which only places pixels; every figure a person reads is the
 * server's exact text, in the tables and the charts' titles.
 */
const SVG = 'http://www.w3.org/2000/svg';
/**
 * The drawing's width in CSS pixels when its box is not laid out (hidden). A chart is drawn as wide as the
 * box it goes in, so that one unit of its viewBox is one pixel and its text keeps the page's size: a fixed
 * 640-unit drawing shrunk into a phone's 300-pixel box had 5-pixel labels.
 */
const WIDTH_DEFAULT = 640;
/** Narrower than this, the labels at both ends would meet: the drawing shrinks instead. */
const WIDTH_MIN = 280;
const HEIGHT = 220;
/** A bar's widest, in CSS pixels. */
const BAR_WIDTH_MAX = 96;
const PAD = 36;

/** The width to draw a chart at for a box of `boxWidth` CSS pixels (0 when it is not laid out). */
function drawingWidth(boxWidth: number): number {
  return boxWidth > 0 ? Math.max(WIDTH_MIN, Math.floor(boxWidth)) : WIDTH_DEFAULT;
}

function svg(label: string, width: number): SVGSVGElement {
  const root = document.createElementNS(SVG, 'svg');
  root.setAttribute('viewBox', `0 0 ${width} ${HEIGHT}`);
  root.setAttribute('class', 'chart');
  root.setAttribute('role', 'img');
  root.setAttribute('aria-label', label);
  return root;
}

function node(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** A line through the points in order; the axis labels are the lowest and highest value as given. */
export function lineChart(label: string, points: readonly { x: string; y: number; text: string }[], boxWidth: number): SVGSVGElement {
  const width = drawingWidth(boxWidth);
  const root = svg(label, width);
  if (points.length === 0) {
    root.append(node('text', { x: PAD, y: HEIGHT / 2 }, 'Nothing to draw yet'));
    return root;
  }
  const ys = points.map((p) => p.y);
  const low = Math.min(...ys);
  const high = Math.max(...ys);
  const span = high - low || 1;
  const x = (i: number) => PAD + (points.length === 1 ? 0 : (i * (width - 2 * PAD)) / (points.length - 1));
  const y = (v: number) => HEIGHT - PAD - ((v - low) * (HEIGHT - 2 * PAD)) / span;
  root.append(node('polyline', { class: 'line', points: points.map((p, i) => `${x(i)},${y(p.y)}`).join(' ') }));
  const lowest = points[ys.indexOf(low)]!;
  const highest = points[ys.indexOf(high)]!;
  root.append(node('text', { x: 2, y: y(high) + 4 }, highest.text), node('text', { x: 2, y: y(low) + 4 }, lowest.text));
  root.append(
    node('text', { x: PAD, y: HEIGHT - 8 }, points[0]!.x),
    node('text', { x: width - PAD, y: HEIGHT - 8, 'text-anchor': 'end' }, points[points.length - 1]!.x),
  );
  return root;
}

/** One bar per item, from a zero line; negative values go below it. */
export function barChart(label: string, bars: readonly { label: string; value: number; text: string }[], boxWidth: number): SVGSVGElement {
  const width = drawingWidth(boxWidth);
  const root = svg(label, width);
  if (bars.length === 0) {
    root.append(node('text', { x: PAD, y: HEIGHT / 2 }, 'Nothing to draw yet'));
    return root;
  }
  const high = Math.max(0, ...bars.map((b) => b.value));
  const low = Math.min(0, ...bars.map((b) => b.value));
  const span = high - low || 1;
  const zero = PAD + (high * (HEIGHT - 3 * PAD)) / span;
  const slot = (width - 2 * PAD) / bars.length;
  bars.forEach((bar, i) => {
    const length = (Math.abs(bar.value) * (HEIGHT - 3 * PAD)) / span;
    const top = bar.value >= 0 ? zero - length : zero;
    // A few bars across a wide box would each be a wall: a bar is at most BAR_WIDTH_MAX wide, centred in its slot.
    const barWidth = Math.min(slot * 0.7, BAR_WIDTH_MAX);
    const rect = node('rect', { class: 'bar', x: PAD + i * slot + (slot - barWidth) / 2, y: top, width: barWidth, height: Math.max(1, length) });
    rect.append(node('title', {}, `${bar.label}: ${bar.text}`));
    root.append(rect);
    root.append(node('text', { x: PAD + i * slot + slot / 2, y: HEIGHT - 8, 'text-anchor': 'middle' }, bar.label));
    root.append(node('text', { x: PAD + i * slot + slot / 2, y: top - 4, 'text-anchor': 'middle' }, bar.text));
  });
  root.append(node('line', { x1: PAD, x2: width - PAD, y1: zero, y2: zero, stroke: 'currentColor', 'stroke-opacity': 0.3 }));
  return root;
}
