import type { SchemaNode } from "../../../../../worker/src/openapi/description";

/** A schema's type in a few words: `string`, `integer[]`, `"a" | "b"`, `object`. */
export function typeOf(schema: SchemaNode): string {
  if (schema.$ref) return schema.$ref.split("/").pop() ?? "object";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(" | ");
  if (schema.type === "array") {
    const item = schema.items ? typeOf(schema.items) : "any";
    return item.includes(" | ") ? `(${item})[]` : `${item}[]`;
  }
  if (Array.isArray(schema.type)) return schema.type.join(" | ");
  return schema.type ?? "any";
}

/** Its limits, as the server checks them: lengths, ranges, pattern, format, default. */
export function limitsOf(schema: SchemaNode): string[] {
  const limits: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) limits.push(`${min}–${max}${unit}`);
    else if (min !== undefined) limits.push(`at least ${min}${unit}`);
    else if (max !== undefined) limits.push(`at most ${max}${unit}`);
  };
  range(schema.minLength, schema.maxLength, " characters");
  range(schema.minItems, schema.maxItems, " items");
  const max = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  if (schema.exclusiveMinimum !== undefined) limits.push(`more than ${schema.exclusiveMinimum}${max !== undefined ? `, at most ${max}` : ""}`);
  else range(schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER ? schema.minimum : undefined, max, "");
  if (schema.format) limits.push(schema.format);
  if (schema.pattern) limits.push(`matches ${schema.pattern}`);
  if (schema.default !== undefined) limits.push(`default ${JSON.stringify(schema.default)}`);
  return limits;
}

/** The fields of an object schema (through unions: each alternative's fields, merged). */
function fieldsOf(schema: SchemaNode): { name: string; schema: SchemaNode; required: boolean }[] {
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (!schema.properties && alternatives) {
    const seen = new Map<string, { name: string; schema: SchemaNode; required: boolean }>();
    for (const alternative of alternatives) for (const field of fieldsOf(alternative)) if (!seen.has(field.name)) seen.set(field.name, field);
    return [...seen.values()];
  }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({ name, schema: property, required: schema.required?.includes(name) ?? false }));
}

/** What nests inside a field: an object's fields, or an array's items' fields. */
const nested = (schema: SchemaNode): SchemaNode | undefined => {
  const inner = schema.type === "array" ? schema.items : schema;
  if (!inner) return undefined;
  const alternatives = inner.anyOf ?? inner.oneOf;
  const object = alternatives ? alternatives.find((a) => a.properties) : inner;
  return object?.properties ? object : undefined;
};

/** One field or parameter: its name, where it goes, its type, whether it is required, and its limits. */
export const FieldLine = ({ name, where, schema, required }: { name: string; where?: string; schema: SchemaNode; required: boolean }) => {
  const limits = limitsOf(schema);
  return (
    <div className="flex flex-wrap items-baseline gap-x-2 text-sm">
      <code className="font-mono text-xs font-semibold text-slate-900">{name}</code>
      {where ? <span className="text-xs text-slate-500">in {where}</span> : null}
      <span className="break-all font-mono text-xs text-brand-700">{typeOf(schema)}</span>
      {required ? <span className="text-xs font-medium text-danger-600">required</span> : <span className="text-xs text-slate-400">optional</span>}
      {limits.length ? <span className="text-xs text-slate-500">{limits.join(", ")}</span> : null}
    </div>
  );
};

/** A body schema as a list of its fields, nested ones indented: name, type, required, limits. */
export function SchemaView({ schema, depth = 0 }: { schema: SchemaNode; depth?: number }) {
  const fields = fieldsOf(schema);
  if (fields.length === 0) return <p className="text-sm text-slate-600">{typeOf(schema)}</p>;
  return (
    <ul className={depth ? "mt-1 border-l border-slate-200 pl-3" : "grid gap-1"}>
      {fields.map(({ name, schema: field, required }) => {
        const inner = nested(field);
        return (
          <li key={name} className="py-0.5 text-sm">
            <FieldLine name={name} schema={field} required={required} />
            {field.description ? <p className="text-xs text-slate-500">{field.description}</p> : null}
            {inner && depth < 4 ? <SchemaView schema={inner} depth={depth + 1} /> : null}
          </li>
        );
      })}
    </ul>
  );
}
