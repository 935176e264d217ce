import { ChevronRight } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/lib/cn";
import type { ApiDescription, HttpMethod, JsonValue, OperationDescription, ResponseDescription } from "../../../../../worker/src/openapi/description";
import { RichText } from "./rich-text";
import { FieldLine, SchemaView } from "./schema-view";

const METHOD_STYLES: Record<HttpMethod, string> = {
  get: "bg-sky-50 text-sky-800 ring-sky-200",
  post: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  put: "bg-amber-50 text-amber-800 ring-amber-200",
  patch: "bg-violet-50 text-violet-800 ring-violet-200",
  delete: "bg-red-50 text-red-800 ring-red-200",
};

export const MethodBadge = ({ method }: { method: HttpMethod }) => (
  <span
    className={cn(
      "inline-flex w-16 shrink-0 justify-center rounded px-1.5 py-0.5 font-mono text-xs font-semibold uppercase ring-1 ring-inset",
      METHOD_STYLES[method],
    )}
  >
    {method}
  </span>
);

/** How a caller gets in: nobody needs to, a session only, or a session or an API key with a scope. */
export function authOf(operation: OperationDescription): { label: string; scopes: string[] } {
  if (operation.security.length === 0) return { label: "Public", scopes: [] };
  if (operation.security.some((s) => "bearerAuth" in s)) return { label: "Session or API key", scopes: operation["x-api-key-scopes"] };
  return { label: "Session only (API keys refused)", scopes: [] };
}

const Example = ({ value, label }: { value: JsonValue; label: string }) => {
  const text = JSON.stringify(value, null, 2);
  return (
    <div className="relative">
      <pre className="overflow-x-auto rounded-md bg-slate-900 p-3 pr-12 font-mono text-xs leading-relaxed text-slate-100">{text}</pre>
      <CopyButton text={text} label={label} className="absolute right-2 top-2" />
    </div>
  );
};

const Section = ({ title, children }: { title: string; children: React.ReactNode }) => (
  <section className="grid grid-cols-1 gap-2">
    <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</h4>
    {children}
  </section>
);

/** One operation: its line (method, path, summary), opened to who may call it, parameters, body and answers. */
export function OperationCard({
  method,
  path,
  operation,
  components,
}: {
  method: HttpMethod;
  path: string;
  operation: OperationDescription;
  components: ApiDescription["components"];
}) {
  const auth = authOf(operation);
  const body = operation.requestBody?.content["application/json"];
  const responses = Object.entries(operation.responses).map(([status, response]) => {
    const resolved: ResponseDescription | undefined = "$ref" in response ? components.responses[response.$ref.split("/").pop() ?? ""] : response;
    return { status, response: resolved };
  });
  return (
    <details id={operation.operationId} className="group rounded-lg border border-slate-200 bg-white open:shadow-sm">
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 rounded-lg px-3 py-2.5 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-brand-600 [&::-webkit-details-marker]:hidden">
        <ChevronRight className="size-4 shrink-0 text-slate-400 transition-transform group-open:rotate-90" aria-hidden="true" />
        <MethodBadge method={method} />
        <code className="min-w-0 break-all font-mono text-sm text-slate-900">{path}</code>
        <span className="basis-full pl-7 text-sm text-slate-600 sm:basis-auto sm:pl-0">{operation.summary}</span>
      </summary>
      <div className="grid grid-cols-1 gap-4 border-t border-slate-100 px-4 py-4">
        <RichText text={operation.description} className="text-sm text-slate-600" />
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <Badge variant={auth.scopes.length ? "secondary" : "outline"}>{auth.label}</Badge>
          {auth.scopes.map((scope) => (
            <Badge key={scope} variant="success" title="The API key scope this needs">
              scope {scope}
            </Badge>
          ))}
        </div>
        {operation.parameters?.length ? (
          <Section title="Parameters">
            <ul className="grid gap-1">
              {operation.parameters.map((p) => (
                <li key={`${p.in}:${p.name}`}>
                  <FieldLine name={p.name} where={p.in} schema={p.schema} required={p.required} />
                </li>
              ))}
            </ul>
          </Section>
        ) : null}
        {body?.schema ? (
          <Section title={`Request body (JSON${operation.requestBody?.required ? "" : ", optional"})`}>
            <SchemaView schema={body.schema} />
            {body.example !== undefined ? <Example value={body.example} label={`Copy the example body of ${method.toUpperCase()} ${path}`} /> : null}
          </Section>
        ) : null}
        <Section title="Responses">
          <ul className="grid grid-cols-1 gap-2">
            {responses.map(({ status, response }) => {
              const example = response?.content?.["application/json"]?.example;
              return (
                <li key={status} className="grid grid-cols-1 gap-1.5">
                  <div className="flex flex-wrap items-baseline gap-2 text-sm">
                    <span className={cn("font-mono text-xs font-semibold", status.startsWith("2") ? "text-emerald-700" : "text-danger-600")}>{status}</span>
                    {response ? <RichText text={response.description} className="text-slate-600" /> : null}
                    {response?.content?.["text/csv"] ? <span className="text-xs text-slate-500">(CSV)</span> : null}
                    {response?.headers ? <span className="text-xs text-slate-500">Headers: {Object.keys(response.headers).join(", ")}</span> : null}
                  </div>
                  {example !== undefined && status.startsWith("2") ? (
                    <Example value={example} label={`Copy the example answer of ${method.toUpperCase()} ${path}`} />
                  ) : null}
                </li>
              );
            })}
          </ul>
        </Section>
      </div>
    </details>
  );
}
