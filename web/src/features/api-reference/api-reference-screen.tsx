import { ArrowLeft, Download, Search } from "lucide-react";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { HTTP_METHODS, type ApiDescription, type HttpMethod, type OperationDescription } from "../../../../worker/src/openapi/description";
import { useApiDescription } from "./api";
import { RichText } from "./components/rich-text";
import { OperationCard } from "./components/operation-card";

interface Entry {
  method: HttpMethod;
  path: string;
  operation: OperationDescription;
}

/** The document's operations by tag, in the document's tag order, keeping those `query` finds. */
function byTag(doc: ApiDescription, query: string) {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const groups = new Map<string, Entry[]>(doc.tags.map((t) => [t.name, []]));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const haystack = `${method} ${path} ${operation.summary} ${operation["x-api-key-scopes"].join(" ")} ${operation.tags.join(" ")}`.toLowerCase();
      if (!words.every((w) => haystack.includes(w))) continue;
      for (const tag of operation.tags) groups.get(tag)?.push({ method, path, operation });
    }
  }
  return doc.tags.map((tag) => ({ ...tag, entries: groups.get(tag.name) ?? [] })).filter((t) => t.entries.length > 0);
}

const anchorOf = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** /account/api: the API's OpenAPI description, read: tags, and each operation with who may call it, its inputs and answers. */
export default function ApiReferenceScreen() {
  const description = useApiDescription();
  const [query, setQuery] = useState("");
  const groups = useMemo(() => (description.data ? byTag(description.data, query) : []), [description.data, query]);

  return (
    <>
      <PageHeader
        title="API reference"
        description="Every route of Trackyard's API, generated from the schemas the server checks requests with."
        actions={
          <>
            <Button asChild variant="secondary">
              <Link to="/account">
                <ArrowLeft />
                Account
              </Link>
            </Button>
            <Button asChild variant="secondary">
              <a href="/api/openapi.json" download="trackyard-openapi.json">
                <Download />
                openapi.json
              </a>
            </Button>
          </>
        }
      />
      {description.isPending ? (
        <div className="flex justify-center py-16">
          <Spinner />
        </div>
      ) : description.isError ? (
        <p className="text-sm text-danger-600">{description.error.message}</p>
      ) : (
        <div className="grid grid-cols-1 gap-6">
          <div className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-600">
            <RichText text={description.data.info.description} />
            <p>
              OpenAPI {description.data.openapi}: import <code className="rounded bg-slate-100 px-1 font-mono text-xs">/api/openapi.json</code> into Postman,
              Insomnia or a client generator.
            </p>
          </div>
          <div className="relative max-w-md">
            <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
            <Input
              type="search"
              aria-label="Filter routes"
              placeholder="Filter: path, summary, scope…"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              className="pl-9"
            />
          </div>
          {groups.length === 0 ? (
            <EmptyState title="No route matches">Try part of a path, such as offers, or a scope, such as clicks:read.</EmptyState>
          ) : (
            <>
              <nav aria-label="API sections" className="flex flex-wrap gap-2">
                {groups.map((group) => (
                  <a
                    key={group.name}
                    href={`#${anchorOf(group.name)}`}
                    className="rounded-full bg-white px-3 py-1 text-xs font-medium text-slate-700 ring-1 ring-inset ring-slate-200 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-brand-600"
                  >
                    {group.name} <span className="text-slate-400">{group.entries.length}</span>
                  </a>
                ))}
              </nav>
              {groups.map((group) => (
                <section key={group.name} aria-labelledby={anchorOf(group.name)} className="grid grid-cols-1 gap-2">
                  <div>
                    <h2 id={anchorOf(group.name)} className="scroll-mt-20 text-lg font-semibold text-slate-900">
                      {group.name}
                    </h2>
                    {group.description ? <p className="text-sm text-slate-500">{group.description}</p> : null}
                  </div>
                  {group.entries.map(({ method, path, operation }) => (
                    <OperationCard key={`${method} ${path}`} method={method} path={path} operation={operation} components={description.data.components} />
                  ))}
                </section>
              ))}
            </>
          )}
        </div>
      )}
    </>
  );
}
