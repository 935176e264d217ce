import type { HTMLAttributes } from "react";
import { cn } from "@/lib/cn";

const VARIANTS = {
  default: "bg-brand-700 text-white",
  secondary: "bg-slate-100 text-slate-700 ring-1 ring-inset ring-slate-200",
  destructive: "bg-danger-600 text-white",
  success: "bg-emerald-50 text-emerald-700 ring-1 ring-inset ring-emerald-200",
  warning: "bg-amber-50 text-amber-800 ring-1 ring-inset ring-amber-200",
  outline: "text-slate-700 ring-1 ring-inset ring-slate-300",
} as const;

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  variant?: keyof typeof VARIANTS;
}

export const Badge = ({ variant = "default", className, ...props }: BadgeProps) => (
  <span className={cn("inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium", VARIANTS[variant], className)} {...props} />
);
