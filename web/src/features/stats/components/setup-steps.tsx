import { ChevronRight } from "lucide-react";
import { useId, useState } from "react";
import { ReadmeLink } from "@/components/readme-link";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/lib/cn";

/** A Worker setting to set or correct, as the API explains it (`settingsToFix` in worker/src/sync/config.ts). */
export interface SettingToFix {
  name: string;
  secret: boolean;
  what: string;
  problem: string;
}

const code = "rounded bg-slate-100 px-1 font-mono text-[0.7rem] text-slate-800 break-words";

function CommandBlock({ label, text }: { label: string; text: string }) {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-1">
      <p className="text-slate-500">{label}</p>
      <div className="flex items-start gap-2">
        <pre className="min-w-0 flex-1 overflow-x-auto rounded-md border border-slate-200 bg-slate-50 px-2 py-1.5 font-mono text-[0.7rem] text-slate-800">
          {text}
        </pre>
        <CopyButton text={text} label={`Copy: ${label}`} className="size-7 [&_svg]:size-3.5" />
      </div>
    </div>
  );
}

/**
 * What is missing and where each setting goes: a Worker secret put with wrangler (a [vars] entry
 * for a var), and locally a line in .dev.vars, which `npm start` reads. The exact commands for
 * just these settings are one click away, so the card stays short on the dashboard. `problems`
 * no setting explains are said as they are.
 */
export function SetupSteps({ label, fix, problems, readme }: { label: string; fix: SettingToFix[]; problems: string[]; readme: string }) {
  const [open, setOpen] = useState(false);
  const secrets = fix.filter((f) => f.secret);
  const vars = fix.filter((f) => !f.secret);
  const other = problems.filter((p) => !fix.some((f) => f.problem === p));
  const stepsId = useId();
  return (
    <div className="mt-1 grid grid-cols-[minmax(0,1fr)] gap-1.5 text-xs text-slate-600">
      <ul className="grid gap-1" aria-label={`${label} settings to set`}>
        {fix.map((f) => (
          <li key={f.name}>
            <code className={code}>{f.name}</code> ({f.secret ? "secret" : "var"}) {f.problem.slice(f.name.length).trim()}: {f.what}.
          </li>
        ))}
        {other.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      {fix.length ? (
        <>
          <p className="text-slate-500">
            Secrets: <code className={code}>npx wrangler secret put NAME</code>; locally, <code className={code}>NAME=…</code> lines in{" "}
            <code className={code}>.dev.vars</code>, then restart <code className={code}>npm start</code>.
          </p>
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
            <button
              type="button"
              aria-expanded={open}
              aria-controls={stepsId}
              onClick={() => setOpen((o) => !o)}
              className="inline-flex items-center gap-1 text-xs font-medium text-brand-700 underline-offset-2 hover:underline"
            >
              <ChevronRight className={cn("size-3.5 transition-transform", open && "rotate-90")} aria-hidden="true" />
              Commands for these settings
            </button>
            <ReadmeLink section={readme} />
          </div>
        </>
      ) : null}
      {open ? (
        <div id={stepsId} className="grid grid-cols-[minmax(0,1fr)] gap-2">
          {secrets.length ? (
            <CommandBlock
              label="On Cloudflare (each asks for the value; the Worker has it at once):"
              text={secrets.map((f) => `npx wrangler secret put ${f.name}`).join("\n")}
            />
          ) : null}
          {vars.length ? (
            <CommandBlock label="On Cloudflare, under [vars] in wrangler.toml, then deploy:" text={vars.map((f) => `${f.name} = "…"`).join("\n")} />
          ) : null}
          <CommandBlock label="Locally, in .dev.vars (then restart npm start):" text={fix.map((f) => `${f.name}=…`).join("\n")} />
        </div>
      ) : null}
    </div>
  );
}
