import { Check, ChevronDown } from "lucide-react";
import { Popover } from "radix-ui";
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { cn } from "@/lib/cn";

export interface ComboboxOption {
  value: string;
  label: string;
  /** Shown at the right of the option, and searched too (a time zone's UTC offset, say). */
  hint?: string;
}

interface ComboboxProps {
  value: string;
  onValueChange(value: string): void;
  options: ComboboxOption[];
  placeholder?: string;
  /** Said when nothing matches what was typed. */
  empty?: string;
  /** Options drawn at once: the rest are found by typing. */
  limit?: number;
  id?: string;
  className?: string;
  "aria-label"?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}

/** Case, spaces, underscores and slashes do not matter: "new york" finds America/New_York. */
const normalise = (s: string) =>
  s
    .toLowerCase()
    .replace(/[\s_/]+/g, " ")
    .trim();

/**
 * A text box that filters a long list as you type (the ARIA combobox pattern): arrow keys move
 * through the matches, Enter chooses, Escape closes and puts the chosen value back.
 */
export function Combobox({ value, onValueChange, options, placeholder, empty = "Nothing matches", limit = 500, id, className, ...aria }: ComboboxProps) {
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const selected = options.find((o) => o.value === value);

  const matches = useMemo(() => {
    const q = query === null ? "" : normalise(query);
    const found = q ? options.filter((o) => normalise(`${o.label} ${o.hint ?? ""}`).includes(q)) : options;
    return found.slice(0, limit);
  }, [options, query, limit]);

  const optionId = (i: number) => `${listId}-${i}`;
  useEffect(() => {
    if (open) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [open, active, listId]);

  const close = () => {
    setOpen(false);
    setQuery(null);
  };
  const choose = (option: ComboboxOption) => {
    onValueChange(option.value);
    close();
  };
  const openAt = (index: number) => {
    setOpen(true);
    setActive(Math.max(0, Math.min(index, matches.length - 1)));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      if (!open)
        openAt(
          Math.max(
            0,
            matches.findIndex((o) => o.value === value),
          ),
        );
      else setActive((a) => Math.min(a + 1, matches.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (open) setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === "Enter" && open) {
      // Chooses instead of submitting the form around it.
      e.preventDefault();
      const option = matches[active];
      if (option) choose(option);
    } else if (e.key === "Escape" && open) {
      // Closes the list only, not a dialog around it.
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  };

  return (
    <Popover.Root open={open} onOpenChange={(o) => (o ? setOpen(true) : close())}>
      <Popover.Anchor asChild>
        <div className={cn("relative", className)}>
          <input
            ref={input}
            id={id}
            type="text"
            role="combobox"
            autoComplete="off"
            spellCheck={false}
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listId}
            aria-activedescendant={open && matches[active] ? optionId(active) : undefined}
            {...aria}
            value={query ?? selected?.label ?? value}
            placeholder={placeholder}
            onChange={(e) => {
              setQuery(e.target.value);
              setOpen(true);
              setActive(0);
            }}
            onFocus={(e) => e.target.select()}
            onClick={() =>
              !open &&
              openAt(
                Math.max(
                  0,
                  matches.findIndex((o) => o.value === value),
                ),
              )
            }
            onKeyDown={onKeyDown}
            className="h-9 w-full rounded-md border border-slate-300 bg-white pl-3 pr-9 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 focus-visible:border-brand-600 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-600/30 aria-[invalid=true]:border-danger-600"
          />
          <ChevronDown className="pointer-events-none absolute right-3 top-1/2 size-4 -translate-y-1/2 text-slate-500" aria-hidden="true" />
        </div>
      </Popover.Anchor>
      <Popover.Portal>
        <Popover.Content
          align="start"
          sideOffset={4}
          // Focus stays in the text box: typing goes on filtering while the list is open.
          onOpenAutoFocus={(e) => e.preventDefault()}
          onInteractOutside={(e) => {
            // A click in the text box itself is not "outside".
            if (e.target instanceof Node && input.current?.contains(e.target)) e.preventDefault();
          }}
          className="z-50 w-[var(--radix-popover-trigger-width)] min-w-64 overflow-hidden rounded-md border border-slate-200 bg-white shadow-lg"
        >
          <ul id={listId} role="listbox" aria-label={aria["aria-label"] ?? "Choices"} className="max-h-72 overflow-y-auto p-1">
            {matches.length === 0 ? (
              <li role="presentation" className="px-3 py-2 text-sm text-slate-500">
                {empty}
              </li>
            ) : (
              matches.map((o, i) => (
                <li
                  key={o.value}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === active}
                  // Keeps focus in the text box; the click chooses.
                  onMouseDown={(e) => e.preventDefault()}
                  onMouseMove={() => i !== active && setActive(i)}
                  onClick={() => choose(o)}
                  className={cn(
                    "relative flex cursor-default select-none items-center gap-3 rounded py-1.5 pl-8 pr-3 text-sm",
                    i === active && "bg-brand-50 text-brand-800",
                  )}
                >
                  {o.value === value ? <Check className="absolute left-2 size-4" aria-hidden="true" /> : null}
                  <span className="min-w-0 flex-1 truncate">{o.label}</span>
                  {o.hint ? <span className="tabular shrink-0 text-xs text-slate-500">{o.hint}</span> : null}
                </li>
              ))
            )}
          </ul>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
