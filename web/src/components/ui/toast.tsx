import { Toast as ToastPrimitive } from "radix-ui";
import { X } from "lucide-react";
import { useSyncExternalStore } from "react";
import { cn } from "@/lib/cn";
import { closeTopDialog } from "./dialog-focus";

export interface ToastInput {
  title: string;
  description?: string;
  variant?: "default" | "destructive";
}

interface ToastItem extends ToastInput {
  id: number;
  open: boolean;
}

/**
 * A tiny toast store (docs/screens.md §9): one toast visible at a time — a new one replaces the old — shown
 * for 5 s, swipe right to dismiss, F8 focuses the region.
 */
let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function toast(input: ToastInput) {
  const id = nextId++;
  items = [{ ...input, id, open: true }];
  emit();
  return id;
}

/** A failure toast with the server's message, or the product's fallback. */
export const toastError = (title: string, error: unknown, fallback: string) =>
  toast({ title, description: error instanceof Error && error.message ? error.message : fallback, variant: "destructive" });

function dismiss(id: number) {
  items = items.map((t) => (t.id === id ? { ...t, open: false } : t));
  emit();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function Toaster() {
  const toasts = useSyncExternalStore(subscribe, () => items);
  return (
    <ToastPrimitive.Provider duration={5000} swipeDirection="right" swipeThreshold={50} label="Notification">
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => !open && dismiss(t.id)}
          onEscapeKeyDown={(e) => {
            // A toast over a dialog would take the first Escape for itself; the dialog is what the
            // user means to close (the toast goes by itself). Escape inside a focused toast is its own.
            if (e.target instanceof Element && e.target.closest("[data-toast-viewport]")) return;
            if (closeTopDialog()) e.preventDefault();
          }}
          className={cn(
            "group pointer-events-auto relative flex w-full items-start gap-3 rounded-lg border p-4 pr-9 shadow-lg data-[swipe=cancel]:translate-x-0 data-[swipe=end]:translate-x-[var(--radix-toast-swipe-end-x)] data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[state=closed]:opacity-0 transition-[opacity,transform]",
            t.variant === "destructive" ? "border-danger-600 bg-danger-600 text-white" : "border-slate-200 bg-white text-slate-900",
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>
            {t.description ? (
              <ToastPrimitive.Description className={cn("whitespace-pre-line text-sm", t.variant === "destructive" ? "text-white/90" : "text-slate-600")}>
                {t.description}
              </ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close aria-label="Dismiss" className="absolute right-2 top-2 rounded p-1 opacity-70 hover:opacity-100">
            <X className="size-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport
        data-toast-viewport=""
        hotkey={["F8"]}
        label="Notification"
        className="fixed bottom-0 right-0 z-[100] flex max-h-dvh w-full flex-col gap-2 p-4 outline-none md:max-w-[420px]"
      />
    </ToastPrimitive.Provider>
  );
}
