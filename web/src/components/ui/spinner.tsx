import { cn } from "@/lib/cn";

export const Spinner = ({ className, label = "Loading" }: { className?: string; label?: string }) => (
  <span role="status" className={cn("inline-flex items-center justify-center", className)}>
    <span className="size-5 animate-spin rounded-full border-2 border-slate-300 border-t-brand-700" aria-hidden="true" />
    <span className="sr-only">{label}</span>
  </span>
);

export const FullPageSpinner = () => (
  <div className="flex min-h-dvh items-center justify-center">
    <Spinner className="[&>span:first-child]:size-8" />
  </div>
);

export const Skeleton = ({ className }: { className?: string }) => (
  <div aria-hidden="true" className={cn("animate-pulse rounded-md bg-slate-200/80", className)} />
);
