import { Checkbox as CheckboxPrimitive } from "radix-ui";
import { Check } from "lucide-react";
import { useId, type ReactNode } from "react";

interface CheckboxProps {
  checked: boolean;
  onCheckedChange(checked: boolean): void;
  label: ReactNode;
  description?: ReactNode;
  disabled?: boolean;
}

/** A labelled checkbox: clicking the label toggles it. */
export function Checkbox({ checked, onCheckedChange, label, description, disabled }: CheckboxProps) {
  const id = useId();
  return (
    <div className="flex items-start gap-3">
      <CheckboxPrimitive.Root
        id={id}
        checked={checked}
        disabled={disabled}
        onCheckedChange={(v) => onCheckedChange(v === true)}
        className="mt-0.5 flex size-4 shrink-0 items-center justify-center rounded border border-slate-400 bg-white data-[state=checked]:border-brand-700 data-[state=checked]:bg-brand-700 data-[state=checked]:text-white disabled:opacity-50"
      >
        <CheckboxPrimitive.Indicator>
          <Check className="size-3" strokeWidth={3} />
        </CheckboxPrimitive.Indicator>
      </CheckboxPrimitive.Root>
      <label htmlFor={id} className="grid gap-0.5 text-sm leading-tight text-slate-800">
        {label}
        {description ? <span className="text-xs text-slate-500">{description}</span> : null}
      </label>
    </div>
  );
}
