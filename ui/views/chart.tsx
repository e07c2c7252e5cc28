// A small time-series chart (uPlot on a canvas): the series' names are set as text by uPlot, never as markup.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { WINDOW_MS } from "../state/host-samples";

export interface ChartProps {
  /** The chart's element id. */
  id: string;
  title: string;
  /** x: seconds since the epoch; then one array per series. */
  data: [number[], ...number[][]];
  series: string[];
}

const COLOURS = ["#2f6fdf", "#d9822b", "#3a9d5d", "#b83280", "#6b46c1", "#718096"];

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.join("\u0000");

  useEffect(() => {
    if (!box.current) return;
    plot.current = new uPlot(
      {
        title: props.title,
        width: 420,
        height: 160,
        series: [
          {},
          ...props.series.map((label, index) => ({ label, stroke: COLOURS[index % COLOURS.length]!, width: 1.5 })),
        ],
        // The x axis is always the last 15 minutes, however few samples there are yet.
        scales: { x: { time: true, range: (_plot, _min, max) => [max - WINDOW_MS / 1000, max] } },
        axes: [{}, { size: 50 }],
        legend: { show: props.series.length > 1 },
      },
      props.data,
      box.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
    // A new set of series makes a new chart; new data only updates it (below).
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);

  // How many samples it draws and the first series' largest: what a reader (or a test) can check without the canvas.
  const first = props.data[1] ?? [];
  return (
    <div
      class="chart"
      id={props.id}
      ref={box}
      data-points={props.data[0].length}
      data-max={first.length > 0 ? Math.max(...first) : 0}
    />
  );
}
