import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { toastError } from "@/components/ui/toast";
import { preferencesQuery, useSavePreferences, type Preferences } from "./api";
import { clampWidth, COLUMN_KEYS, type ColumnKey } from "./columns";

/** A drag sends many widths a second: the server hears the last one, this long after it settles. */
export const SAVE_DELAY_MS = 600;

const EMPTY: Preferences = { visibleColumns: [], columnWidths: {} };

/**
 * The user's columns (which show, how wide), saved per user on the server so they follow them to
 * any browser. Changes apply at once on screen and are saved debounced; a pending save is sent
 * when the screen closes.
 */
export function useTablePreferences() {
  const stored = useQuery(preferencesQuery);
  const save = useSavePreferences();
  const [local, setLocal] = useState<Preferences | null>(null);
  const pending = useRef<Preferences | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sending = useRef(false);
  const { mutateAsync } = save;

  // One save at a time, the newest pending one next: two saves in flight could reach the server in
  // either order and leave an older width stored. Chained on the promise, not on mutate's
  // callbacks, so a save still pending when the screen closes is sent after the one in flight.
  const flush = useCallback(() => {
    clearTimeout(timer.current);
    const next = pending.current;
    if (!next || sending.current) return;
    pending.current = null;
    sending.current = true;
    mutateAsync(next)
      .catch((err: unknown) => toastError("Could not save your columns", err, "Failed to save column preferences"))
      .finally(() => {
        sending.current = false;
        if (pending.current) flush();
      });
  }, [mutateAsync]);

  useEffect(() => flush, [flush]);

  const prefs = local ?? stored.data ?? EMPTY;

  // Built on the latest value (not this render's): a drag can change the width twice per frame.
  const update = (change: (p: Preferences) => Preferences) => {
    setLocal((previous) => {
      const next = change(previous ?? stored.data ?? EMPTY);
      pending.current = next;
      return next;
    });
    clearTimeout(timer.current);
    timer.current = setTimeout(flush, SAVE_DELAY_MS);
  };

  const isVisible = (key: ColumnKey) => key === "name" || prefs.visibleColumns.length === 0 || prefs.visibleColumns.includes(key);

  return {
    prefs,
    loaded: !stored.isPending,
    isVisible,
    /** Shows or hides a column; Name always shows. All columns chosen is stored as "all" (an empty list). */
    setVisible(key: ColumnKey, visible: boolean) {
      if (key === "name") return;
      update((p) => {
        const current = COLUMN_KEYS.filter((k) => k === "name" || p.visibleColumns.length === 0 || p.visibleColumns.includes(k));
        const chosen = visible ? [...new Set([...current, key])] : current.filter((k) => k !== key);
        return { ...p, visibleColumns: chosen.length === COLUMN_KEYS.length ? [] : COLUMN_KEYS.filter((k) => chosen.includes(k)) };
      });
    },
    setWidth(key: ColumnKey, px: number) {
      update((p) => ({ ...p, columnWidths: { ...p.columnWidths, [key]: clampWidth(px) } }));
    },
    resetWidth(key: ColumnKey) {
      update((p) => {
        const { [key]: _dropped, ...rest } = p.columnWidths;
        return { ...p, columnWidths: rest };
      });
    },
    reset() {
      update(() => EMPTY);
    },
  };
}

export type TablePreferences = ReturnType<typeof useTablePreferences>;
