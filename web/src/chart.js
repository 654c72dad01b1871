// uPlot charts that follow their container's width. Each chart's element carries what it
// plots (data-labels, data-values or data-series, as JSON) for readers that cannot see it.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from './dom.js';

const axisFont = '11px "DejaVu Sans", sans-serif';
const palette = ['#2f6fb0', '#d9822b', '#3c9a5f', '#c0392b', '#8e5fb3', '#7f6a4f', '#d15ba6', '#6c7a89', '#b5a82c', '#2aa5b5'];

export function color(i) {
  return palette[i % palette.length];
}

function followWidth(el, plot) {
  const observer = new ResizeObserver(() => {
    const width = Math.floor(el.clientWidth);
    if (width > 0 && width !== plot.width) plot.setSize({ width, height: plot.height });
  });
  observer.observe(el);
  return observer;
}

function initialWidth(el) {
  return Math.max(el.clientWidth, 300);
}

// Bars over category labels (sizes ranges, users, ages).
export function barChart({ labels, values, label, format = String, testid, height = 220 }) {
  const el = h('div', { class: 'chart', testid, role: 'img', 'aria-label': label, dataset: { labels: JSON.stringify(labels), values: JSON.stringify(values) } });
  const xs = labels.map((_, i) => i);
  // Many labels are slanted so that they fit side by side in a half-width panel.
  const slanted = labels.length > 8;
  const options = {
    width: 300,
    height,
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: [-0.5, Math.max(labels.length, 1) - 0.5] },
      y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      { splits: () => xs, values: (u, splits) => splits.map((i) => labels[i] ?? ''), grid: { show: false }, font: axisFont,
        ...(slanted ? { rotate: -40, size: 60 } : { size: 40 }) },
      { values: (u, splits) => splits.map(format), size: 80, font: axisFont },
    ],
    series: [{}, { label, fill: `${color(0)}cc`, stroke: color(0), width: 1, paths: uPlot.paths.bars({ size: [0.7, 80] }), points: { show: false } }],
  };
  const plot = new uPlot(options, [xs, values], el);
  followWidth(el, plot);
  return el;
}

// Steps of the time axis, in seconds: never less than one.
const secondSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400, 7 * 86400, 30 * 86400];

// Lines over time (seconds since the epoch); update() replaces the data, and the chart when the
// set of series changed.
export function timeChart({ testid, label, height = 260, format = String }) {
  const el = h('div', { class: 'chart', testid, role: 'img', 'aria-label': label });
  let plot = null;
  let names = '';
  let observer = null;
  const update = (xs, series) => {
    el.dataset.series = JSON.stringify({ x: xs, series: series.map((s) => ({ label: s.label, values: s.values })) });
    const data = [xs, ...series.map((s) => s.values)];
    const key = series.map((s) => s.label).join('\n');
    if (plot && key === names) {
      plot.setData(data);
      return;
    }
    names = key;
    if (observer) observer.disconnect();
    if (plot) plot.destroy();
    plot = new uPlot({
      width: initialWidth(el),
      height,
      // Whole seconds: one second alone is shown with a second either side.
      scales: { x: { range: (u, min, max) => (u.data[0].length === 1 ? [u.data[0][0] - 1, u.data[0][0] + 1] : [min, max]) }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [{ font: axisFont, incrs: secondSteps }, { values: (u, splits) => splits.map(format), size: 80, font: axisFont }],
      // A series of one second has no line to draw: its points show instead.
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: color(i), width: 2, points: { show: (u) => u.data[0].length < 2 } }))],
    }, data, el);
    observer = followWidth(el, plot);
  };
  return { el, update };
}
