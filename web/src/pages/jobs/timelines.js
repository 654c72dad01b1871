// A job's seconds (the report's series): bandwidth (bytes read and written), data operations
// and metadata operations per second, a line per layer that appears in any second.
import { timeChart } from '../../chart.js';
import { h } from '../../dom.js';
import { formatBytes, formatCount } from '../../format.js';
import { layerNames } from './layers.js';

function layersIn(series) {
  return Object.keys(layerNames).filter((layer) => series.some((s) => s.layers[layer]));
}

function chart(testid, title, format, xs, lines) {
  const c = timeChart({ testid, label: title, height: 220, format });
  c.update(xs, lines);
  return h('div', { class: 'timeline' }, h('h3', {}, title), c.el);
}

export function timelineCharts(series) {
  const xs = series.map((s) => s.second);
  const layers = layersIn(series);
  const line = (layer, key, what) => ({ label: `${layerNames[layer]} ${what}`, values: series.map((s) => s.layers[layer]?.[key] ?? 0) });
  return h('div', { class: 'timelines' },
    chart('chart-bandwidth', 'Bandwidth (bytes per second)', formatBytes, xs,
      layers.flatMap((l) => [line(l, 'read_bytes', 'read'), line(l, 'write_bytes', 'write')])),
    chart('chart-iops', 'Data operations per second', formatCount, xs, layers.map((l) => line(l, 'data_ops', 'data ops'))),
    chart('chart-meta', 'Metadata operations per second', formatCount, xs, layers.map((l) => line(l, 'meta_ops', 'metadata ops'))));
}
