import { Select as SelectPrimitive } from "radix-ui";
import { Check, ChevronDown } from "lucide-react";
import { forwardRef } from "react";
import { cn } from "@/lib/cn";

export interface SelectOption {
  value: string;
  label: string;
}

interface SelectProps {
  value: string;
  onValueChange(value: string): void;
  options: SelectOption[];
  placeholder?: string;
  /** Accessible name when there is no visible <Label htmlFor>. */
  "aria-label"?: string;
  id?: string;
  className?: string;
  disabled?: boolean;
}

/** A single-choice select on Radix (keyboard and screen-reader ready). Values must be non-empty. */
export const Select = forwardRef<HTMLButtonElement, SelectProps>(({ value, onValueChange, options, placeholder, className, disabled, ...aria }, ref) => (
  <SelectPrimitive.Root value={value} onValueChange={onValueChange} disabled={disabled}>
    <SelectPrimitive.Trigger
      ref={ref}
      {...aria}
      className={cn(
        "flex h-9 w-full items-center justify-between gap-2 rounded-md border border-slate-300 bg-white px-3 text-left text-sm shadow-sm focus-visible:border-brand-600 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-600/30 disabled:bg-slate-100 data-[placeholder]:text-slate-400",
        className,
      )}
    >
      <span className="truncate">
        <SelectPrimitive.Value placeholder={placeholder} />
      </span>
      <SelectPrimitive.Icon>
        <ChevronDown className="size-4 text-slate-500" />
      </SelectPrimitive.Icon>
    </SelectPrimitive.Trigger>
    <SelectPrimitive.Portal>
      <SelectPrimitive.Content
        position="popper"
        sideOffset={4}
        className="z-50 max-h-[min(var(--radix-select-content-available-height),20rem)] min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border border-slate-200 bg-white shadow-lg"
      >
        <SelectPrimitive.Viewport className="p-1">
          {options.map((o) => (
            <SelectPrimitive.Item
              key={o.value}
              value={o.value}
              className="relative flex cursor-default select-none items-center rounded py-1.5 pl-8 pr-3 text-sm outline-none data-[highlighted]:bg-brand-50 data-[highlighted]:text-brand-800"
            >
              <SelectPrimitive.ItemIndicator className="absolute left-2">
                <Check className="size-4" />
              </SelectPrimitive.ItemIndicator>
              <SelectPrimitive.ItemText>{o.label}</SelectPrimitive.ItemText>
            </SelectPrimitive.Item>
          ))}
        </SelectPrimitive.Viewport>
      </SelectPrimitive.Content>
    </SelectPrimitive.Portal>
  </SelectPrimitive.Root>
));
Select.displayName = "Select";
