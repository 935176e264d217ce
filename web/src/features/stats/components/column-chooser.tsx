import { Columns3 } from "lucide-react";
import { Popover } from "radix-ui";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { COLUMNS } from "../columns";
import type { TablePreferences } from "../use-table-preferences";

/** Which columns show, saved for the user (Name always shows). */
export function ColumnChooser({ prefs }: { prefs: TablePreferences }) {
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <Button variant="secondary" size="sm">
          <Columns3 />
          Columns
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          sideOffset={6}
          aria-label="Choose columns"
          className="z-50 grid w-64 gap-3 rounded-card border border-slate-200 bg-white p-4 shadow-xl"
        >
          <p className="text-sm font-semibold text-slate-900">Columns</p>
          <div className="grid gap-2.5">
            {COLUMNS.map((c) => (
              <Checkbox
                key={c.key}
                checked={prefs.isVisible(c.key)}
                disabled={c.key === "name"}
                onCheckedChange={(v) => prefs.setVisible(c.key, v)}
                label={c.description}
              />
            ))}
          </div>
          <div className="flex justify-end border-t border-slate-200 pt-3">
            <Button variant="ghost" size="sm" onClick={prefs.reset}>
              Show all, default widths
            </Button>
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
