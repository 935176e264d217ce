import { NavLink } from "react-router";
import { cn } from "@/lib/cn";

/** The Rules area's tabs: the rules here, the channels and built-in alerts on their own screens. */
const TABS = [
  { to: "/rules", label: "Rules", end: true },
  { to: "/rules/channels", label: "Channels", end: false },
  { to: "/rules/alerts", label: "Built-in alerts", end: false },
];

export function RulesTabs() {
  return (
    <nav aria-label="Rules sections" className="mb-4 inline-flex max-w-full items-center gap-1 overflow-x-auto rounded-lg bg-slate-100 p-1">
      {TABS.map((t) => (
        <NavLink
          key={t.to}
          to={t.to}
          end={t.end}
          className={({ isActive }) =>
            cn(
              "whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-600/40",
              isActive && "bg-white text-slate-900 shadow-sm",
            )
          }
        >
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}
