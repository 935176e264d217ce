import type { LucideIcon } from "lucide-react";
import type { HTMLAttributes } from "react";
import { cn } from "@/lib/cn";

export const Card = ({ className, ...props }: HTMLAttributes<HTMLDivElement>) => (
  <div className={cn("rounded-card border border-slate-200 bg-white shadow-sm", className)} {...props} />
);

export const CardHeader = ({ className, ...props }: HTMLAttributes<HTMLDivElement>) => (
  <div className={cn("flex flex-col gap-1 p-5 pb-3", className)} {...props} />
);

/** A card's heading; `icon` (a lucide icon) goes before the text in the brand colour. */
export const CardTitle = ({ className, icon: Icon, children, ...props }: HTMLAttributes<HTMLHeadingElement> & { icon?: LucideIcon }) => (
  <h2 className={cn("text-base font-semibold text-slate-900", Icon && "flex items-center gap-2", className)} {...props}>
    {Icon ? <Icon className="size-4 shrink-0 text-brand-700" aria-hidden="true" /> : null}
    {children}
  </h2>
);

export const CardDescription = ({ className, ...props }: HTMLAttributes<HTMLParagraphElement>) => (
  <p className={cn("text-sm text-slate-500", className)} {...props} />
);

export const CardContent = ({ className, ...props }: HTMLAttributes<HTMLDivElement>) => <div className={cn("p-5 pt-0", className)} {...props} />;

interface StatCardProps {
  label: string;
  value: React.ReactNode;
  note?: React.ReactNode;
  icon?: React.ReactNode;
  valueClassName?: string;
}

/**
 * A summary figure: label, big tabular number, optional note. The icon sits in the corner beside
 * the label only, so the figure and its note have the card's whole width (four cards in a row at
 * 1280 px keep one line each).
 */
export const StatCard = ({ label, value, note, icon, valueClassName }: StatCardProps) => (
  <Card className="relative">
    <div className="min-w-0 p-5">
      <p className={cn("text-xs font-medium uppercase tracking-wide text-slate-500", icon && "pr-10")}>{label}</p>
      <p className={cn("tabular mt-1.5 truncate text-2xl font-semibold text-slate-900", valueClassName)}>{value}</p>
      {note ? <p className="mt-1 text-xs text-slate-500">{note}</p> : null}
    </div>
    {icon ? <div className="absolute right-4 top-4 rounded-md bg-brand-50 p-1.5 text-brand-700 [&_svg]:size-4">{icon}</div> : null}
  </Card>
);
