import { formatFigure, RULE_METRIC_INFO, RULE_METRICS, type RuleFigures } from "../../../../worker/src/schemas/rules";

/** The figures worth showing in a row: every metric that has a value, "Spend $25.00 · ROI -100.0% · …". */
export const figuresText = (f: RuleFigures) =>
  RULE_METRICS.filter((m) => f[m] !== null)
    .map((m) => `${RULE_METRIC_INFO[m].label} ${formatFigure(m, f[m])}`)
    .join(" · ");
