import { Chart } from '@/components/charts/chart.tsx';
import { useChartColors } from '@/components/charts/chart-theme.ts';

export interface PulseGaugeProps {
  label: string;
  value: number | null;
  /** The gauge's end (part 2 §9: 60 days, 100 percent); a larger value fills it and shows its number. */
  max: number;
  unit: '%' | 'days';
  /** Override of the arc colour (the win-rate colours). */
  color?: string;
}

/** A radial gauge; null (nothing closed or opened in the window) shows an empty arc and a dash. */
export function PulseGauge({ label, value, max, unit, color }: PulseGaugeProps) {
  const c = useChartColors();
  const text = value === null ? '—' : unit === '%' ? `${value.toFixed(2)}%` : `${value.toFixed(1)}`;
  return (
    <figure className="pulse-gauge" data-testid={`gauge-${label}`}>
      <Chart
        label={`${label}: ${text}${unit === 'days' && value !== null ? ' days' : ''}`}
        height={150}
        option={{
          series: [
            {
              type: 'gauge',
              startAngle: 220,
              endAngle: -40,
              min: 0,
              max,
              radius: '92%',
              center: ['50%', '58%'],
              progress: { show: value !== null, roundCap: true, width: 12, itemStyle: { color: color ?? c.primary } },
              axisLine: { roundCap: true, lineStyle: { width: 12, color: [[1, c.dark ? '#1b2842' : '#eef2f7']] } },
              pointer: { show: false },
              axisTick: { show: false },
              splitLine: { show: false },
              axisLabel: { show: false },
              anchor: { show: false },
              title: { show: false },
              detail: {
                valueAnimation: true,
                offsetCenter: [0, '0%'],
                fontSize: 20,
                fontWeight: 700,
                color: c.text,
                formatter: () => text,
              },
              data: [{ value: value === null ? 0 : Math.max(0, Math.min(value, max)) }],
            },
          ],
        }}
      />
      <figcaption>
        {label}
        {unit === 'days' && <span className="muted"> (days)</span>}
      </figcaption>
    </figure>
  );
}

/** Part 2 §9 win-rate colours: yellow below 50, mid green from 50, dark green from 80. */
export function winRateColor(v: number | null): string | undefined {
  if (v === null) return undefined;
  return v < 50 ? '#e0a800' : v < 80 ? '#2fb380' : '#0b7a50';
}
