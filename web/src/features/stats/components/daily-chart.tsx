import { format } from "date-fns";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fromDay } from "@/lib/date-ranges";
import { formatMoney } from "@/lib/format";
import type { Report } from "../api";

const COLORS = { revenue: "#0d9488", spend: "#94a3b8", profit: "#7c3aed" };

const compactMoney = (n: number) =>
  `${n < 0 ? "-" : ""}$${new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(Math.abs(n))}`;

/**
 * Revenue and spend per day as bars, profit as a line. Loaded on its own (recharts is large),
 * so the table and cards never wait for it. No animation: the figures refresh every 30 seconds,
 * and a chart that redraws itself each time distracts more than it tells.
 */
export default function DailyChart({ daily }: { daily: Report["daily"] }) {
  const data = daily.map((d) => ({ date: d.date, revenue: Number(d.revenue), spend: Number(d.spend), profit: Number(d.profit) }));
  const dayLabel = (d: string) => format(fromDay(d), "MMM d");
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#e2e8f0" vertical={false} />
        <XAxis
          dataKey="date"
          tickFormatter={dayLabel}
          tick={{ fontSize: 12, fill: "#64748b" }}
          tickLine={false}
          axisLine={{ stroke: "#cbd5e1" }}
          minTickGap={16}
        />
        <YAxis tickFormatter={compactMoney} tick={{ fontSize: 12, fill: "#64748b" }} tickLine={false} axisLine={false} width={56} />
        <ReferenceLine y={0} stroke="#cbd5e1" />
        <Tooltip
          formatter={(value, name) => [formatMoney(Number(value)), String(name)]}
          labelFormatter={(label) => format(fromDay(String(label)), "EEE, MMM d, yyyy")}
          contentStyle={{ borderRadius: 8, borderColor: "#e2e8f0", fontSize: 12 }}
        />
        {/* In the order drawn (revenue, spend, profit), not alphabetical. */}
        <Legend iconType="circle" iconSize={8} wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
        <Bar dataKey="revenue" name="Revenue" fill={COLORS.revenue} radius={[3, 3, 0, 0]} maxBarSize={28} isAnimationActive={false} />
        <Bar dataKey="spend" name="Spend" fill={COLORS.spend} radius={[3, 3, 0, 0]} maxBarSize={28} isAnimationActive={false} />
        <Line dataKey="profit" name="Profit" type="monotone" stroke={COLORS.profit} strokeWidth={2} dot={data.length <= 31} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
