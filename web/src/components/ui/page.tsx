import type { ReactNode } from "react";

/** The title block every screen starts with; `actions` sit on the right (below on phones). */
export const PageHeader = ({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) => (
  <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
    <div className="min-w-0">
      {/* Focusable from script: where focus goes when a dialog's opener is gone (dialog-focus.ts). */}
      <h1 tabIndex={-1} className="text-2xl font-semibold tracking-tight text-slate-900 focus:outline-none">
        {title}
      </h1>
      {description ? <p className="mt-1 text-sm text-slate-500">{description}</p> : null}
    </div>
    {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
  </div>
);

export const EmptyState = ({ title, children, icon }: { title: ReactNode; children?: ReactNode; icon?: ReactNode }) => (
  <div className="flex flex-col items-center justify-center gap-2 px-6 py-12 text-center">
    {icon ? <div className="mb-1 rounded-full bg-slate-100 p-3 text-slate-500 [&_svg]:size-6">{icon}</div> : null}
    <p className="text-sm font-medium text-slate-800">{title}</p>
    {children ? <div className="max-w-md text-sm text-slate-500">{children}</div> : null}
  </div>
);
