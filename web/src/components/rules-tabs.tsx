import { Link, useLocation } from "react-router";
import { cn } from "@/lib/cn";

/**
 * The Rules area's tabs, the same on each of its screens (docs/rules.md): the rules (the list and
 * a rule's editor at /rules/new, /rules/:id), the channels and the built-in alerts. Drawn like the
 * app's other tabs (components/ui/tabs.tsx), but each tab is a link to its own screen.
 */
const TABS = [
  { to: "/rules/channels", label: "Channels" },
  { to: "/rules/alerts", label: "Built-in alerts" },
] as const;

const within = (pathname: string, to: string) => pathname === to || pathname.startsWith(`${to}/`);

export function RulesTabs() {
  const { pathname } = useLocation();
  const other = TABS.find((t) => within(pathname, t.to));
  const tabs = [{ to: "/rules", label: "Rules", current: other === undefined }, ...TABS.map((t) => ({ ...t, current: t === other }))];
  return (
    <nav aria-label="Rules sections" className="mb-4 inline-flex max-w-full items-center gap-1 overflow-x-auto rounded-lg bg-slate-100 p-1">
      {tabs.map((t) => (
        <Link
          key={t.to}
          to={t.to}
          aria-current={t.current ? "page" : undefined}
          className={cn(
            "whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-600/40",
            t.current && "bg-white text-slate-900 shadow-sm",
          )}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
