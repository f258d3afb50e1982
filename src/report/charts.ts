// Charts for the HTML report, rendered on the server to inline SVG with echarts (SSR, SVG
// renderer, no animation): the page needs no script and loads nothing. Only what is used is
// registered, which keeps echarts' load time out of the markdown and JSON paths entirely.
import { BarChart, CustomChart } from 'echarts/charts';
import { GridComponent, LegendComponent, MarkLineComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { RecordLabel } from '../score/labels.js';
import { rowName } from './format.js';
import type { ModelRow } from './model.js';
import type { NavigationDelta } from './navigation.js';
import type { Taxonomy } from './taxonomy.js';

echarts.use([
  BarChart,
  CustomChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  SVGRenderer,
]);

const WIDTH = 880;
const ROW = 26;
const FONT = { fontFamily: 'system-ui, sans-serif', fontSize: 12, color: '#333' };
// Server-side text measurement is an estimate, so legend items get generous gaps.
const LEGEND = { top: 0, textStyle: FONT, itemGap: 28 };

/** Legend rows needed for these names across the chart width (same estimate, with margin). */
function legendRows(names: string[]): number {
  let rows = 1;
  let x = 0;
  for (const n of names) {
    const w = 25 + 8 * n.length + LEGEND.itemGap;
    if (x + w > WIDTH - 40 && x > 0) {
      rows++;
      x = 0;
    }
    x += w;
  }
  return rows;
}
export const MODE_COLORS: Record<string, string> = { hinted: '#4e79a7', navigation: '#f28e2b' };
const LABEL_COLORS: Partial<Record<RecordLabel, string>> = {
  pass: '#59a14f',
  partial_fix_only: '#8cd17d',
  incorrect_fix: '#e15759',
  unusable_edit: '#d4a6c8',
  hallucinated_api: '#b07aa1',
  wrong_abstraction_layer: '#9c755f',
  insufficient_context_read: '#f28e2b',
  zero_signal: '#bab0ac',
  missing_cross_language_change: '#76b7b2',
  context_window_exceeded: '#edc948',
  implementation_error: '#ff9da7',
};
const EXTRA_COLORS = ['#4e79a7', '#d37295', '#a0cbe8', '#ffbe7d', '#86bcb6', '#79706e'];

export function labelColor(label: RecordLabel, i: number): string {
  return LABEL_COLORS[label] ?? EXTRA_COLORS[i % EXTRA_COLORS.length];
}

function render(option: Record<string, unknown>, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height });
  try {
    chart.setOption({ animation: false, textStyle: FONT, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/**
 * Horizontal interval bars for a custom series. Each datum is [low, high, categoryIndex, text]:
 * a line from low to high with end caps, and the text (e.g. "3/5") right of it.
 */
function intervalSeries(data: (number | string)[][]) {
  return {
    type: 'custom',
    name: '95% interval',
    silent: true,
    z: 10,
    data,
    renderItem: (
      _params: unknown,
      api: { value: (i: number) => number | string; coord: (v: number[]) => number[] },
    ) => {
      const y = Number(api.value(2));
      const [x1, cy] = api.coord([Number(api.value(0)), y]);
      const [x2] = api.coord([Number(api.value(1)), y]);
      const cap = 6;
      const stroke = { stroke: '#222', lineWidth: 1.5 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1, y1: cy, x2, y2: cy }, style: stroke },
          { type: 'line', shape: { x1, y1: cy - cap, x2: x1, y2: cy + cap }, style: stroke },
          { type: 'line', shape: { x1: x2, y1: cy - cap, x2, y2: cy + cap }, style: stroke },
          {
            type: 'text',
            x: x2 + 6,
            y: cy,
            style: {
              text: String(api.value(3)),
              verticalAlign: 'middle',
              fill: '#222',
              font: '11px system-ui, sans-serif',
            },
          },
        ],
      };
    },
  };
}

const categoryAxis = (data: string[]) => ({
  type: 'category',
  data,
  inverse: true,
  axisLabel: { ...FONT, width: 260, overflow: 'truncate' },
  axisTick: { show: false },
});

/** Pass rate per model and mode (each task once), with its 95% interval over tasks. */
export function scoreChart(models: ModelRow[], agent: string): string {
  const cats = models.map((m) => `${rowName(m, agent)} · ${m.mode}`);
  const modes = [...new Set(models.map((m) => m.mode))];
  const bars = modes.map((mode) => ({
    type: 'bar',
    name: mode,
    barWidth: 14,
    barGap: '-100%', // one bar per category: the other modes' entries are empty
    itemStyle: { color: MODE_COLORS[mode] ?? '#79706e' },
    data: models.map((m) =>
      m.mode === mode && m.tasks.pass_rate !== null
        ? Math.round(m.tasks.pass_rate * 1000) / 10
        : '-',
    ),
  }));
  const whiskers = intervalSeries(
    models.map((m, i) => [
      m.tasks.ci95.low * 100,
      m.tasks.ci95.high * 100,
      i,
      `${m.tasks.tasks} task${m.tasks.tasks === 1 ? '' : 's'}`,
    ]),
  );
  return render(
    {
      legend: { ...LEGEND, data: modes },
      grid: { left: 270, right: 60, top: 30, bottom: 30 },
      xAxis: { type: 'value', min: 0, max: 100, axisLabel: { ...FONT, formatter: '{value}%' } },
      yAxis: categoryAxis(cats),
      series: [...bars, whiskers],
    },
    70 + cats.length * ROW,
  );
}

/** Share of each failure label among scored trials, one stacked bar per model and mode. */
export function taxonomyChart(t: Taxonomy, agent: string): string {
  const cats = t.groups.map((g) => `${rowName(g, agent)} · ${g.mode}`);
  const series = t.labels.map((l, i) => ({
    type: 'bar',
    name: l.label,
    stack: 'labels',
    barWidth: 16,
    itemStyle: { color: labelColor(l.label, i) },
    data: t.groups.map((g) =>
      g.scored ? Math.round(((g.counts[l.label] ?? 0) / g.scored) * 1000) / 10 : 0,
    ),
  }));
  const rows = legendRows(t.labels.map((l) => l.label));
  return render(
    {
      legend: LEGEND,
      grid: { left: 270, right: 30, top: 18 + rows * 30, bottom: 30 },
      xAxis: { type: 'value', min: 0, max: 100, axisLabel: { ...FONT, formatter: '{value}%' } },
      yAxis: categoryAxis(cats),
      series,
    },
    58 + rows * 30 + cats.length * ROW,
  );
}

/** Hinted minus navigation pass rate per model, with its 95% interval (Newcombe). */
export function navigationChart(deltas: NavigationDelta[], agent: string): string {
  const cats = deltas.map((d) => rowName(d, agent));
  const bar = {
    type: 'bar',
    name: 'hinted − navigation',
    barWidth: 14,
    itemStyle: { color: '#76b7b2' },
    data: deltas.map((d) =>
      d.delta.estimate === null ? '-' : Math.round(d.delta.estimate * 1000) / 10,
    ),
    markLine: {
      silent: true,
      symbol: 'none',
      lineStyle: { color: '#555', type: 'solid' },
      label: { show: false },
      data: [{ xAxis: 0 }],
    },
  };
  const whiskers = intervalSeries(
    deltas.map((d, i) => [
      d.delta.low * 100,
      d.delta.high * 100,
      i,
      d.distinguishable ? 'distinguishable' : 'noise',
    ]),
  );
  return render(
    {
      legend: { ...LEGEND, data: [bar.name] },
      grid: { left: 270, right: 90, top: 30, bottom: 30 },
      xAxis: {
        type: 'value',
        min: -100,
        max: 100,
        axisLabel: { ...FONT, formatter: '{value} pp' },
      },
      yAxis: categoryAxis(cats),
      series: [bar, whiskers],
    },
    70 + cats.length * ROW,
  );
}
