import { NavLink } from "react-router";
import { cn } from "@/lib/cn";

const TABS = [
  { to: "/rules", label: "Rules" },
  { to: "/rules/channels", label: "Channels" },
  { to: "/rules/alerts", label: "Built-in alerts" },
] as const;

/** The links between the Rules screens (rules, channels, built-in alerts), shown on each of them. */
export function RulesTabs() {
  return (
    <nav aria-label="Rules sections" className="mb-4 flex gap-1 overflow-x-auto border-b border-slate-200">
      {TABS.map((tab) => (
        <NavLink
          key={tab.to}
          to={tab.to}
          end
          className={({ isActive }) =>
            cn(
              "-mb-px whitespace-nowrap border-b-2 px-3 py-2 text-sm font-medium",
              isActive ? "border-brand-700 text-brand-800" : "border-transparent text-slate-600 hover:text-slate-900",
            )
          }
        >
          {tab.label}
        </NavLink>
      ))}
    </nav>
  );
}
