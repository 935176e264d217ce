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

export const CardContent = ({ className, ...props }: HTMLAttributes<HTMLDivElement>) => (
  <div className={cn("p-5 pt-0", className)} {...props} />
);

interface StatCardProps {
  label: string;
  value: React.ReactNode;
  note?: React.ReactNode;
  icon?: React.ReactNode;
  valueClassName?: string;
}

/** A summary figure: label, big tabular number, optional note. */
export const StatCard = ({ label, value, note, icon, valueClassName }: StatCardProps) => (
  <Card>
    <div className="flex items-start justify-between gap-3 p-5">
      <div className="min-w-0">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</p>
        <p className={cn("tabular mt-1.5 truncate text-2xl font-semibold text-slate-900", valueClassName)}>{value}</p>
        {note ? <p className="mt-1 text-xs text-slate-500">{note}</p> : null}
      </div>
      {icon ? <div className="rounded-md bg-brand-50 p-2 text-brand-700 [&_svg]:size-5">{icon}</div> : null}
    </div>
  </Card>
);
