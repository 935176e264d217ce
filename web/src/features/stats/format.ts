import { formatMoney, formatNumber } from "@/lib/format";

/** docs/screens.md §9 display: money 2 decimals (EPV and CPV 3), ROI 1 decimal, percentages 2. */
export const money = (v: string) => formatMoney(v);
export const money3 = (v: string) => formatMoney(v, 3);
export const count = (n: number) => formatNumber(n);
export const roi = (n: number) => `${n.toFixed(1)}%`;
export const percent = (n: number) => `${n.toFixed(2)}%`;
/** Return on ad spend as a multiple: 1.25x is $1.25 of revenue per $1 of spend. */
export const roas = (n: number) => `${n.toFixed(2)}x`;

/** Profit is green at 0 or more, red below (docs/screens.md §2). */
export const profitClass = (profit: string) => (Number(profit) >= 0 ? "text-success-600" : "text-danger-600");
