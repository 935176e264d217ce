import type { ReactNode } from "react";
import readme from "../../../README.md?raw";

/**
 * A section of the repository's README (bundled at build time, so it is the README of the
 * running version): from its `## title` heading to the next `## ` heading. Null when missing.
 */
export function readmeSection(title: string, text: string = readme): string | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join("\n")
    .trim();
}

/** `code` and **bold**, the inline marks the README's sections use. */
function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*)/g).map((part, i) => {
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
      return (
        <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.8em] text-slate-800">
          {part.slice(1, -1)}
        </code>
      );
    }
    if (part.startsWith("**") && part.endsWith("**") && part.length > 3) return <strong key={i}>{part.slice(2, -2)}</strong>;
    return part;
  });
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());

/**
 * The few Markdown blocks the README uses (paragraphs, lists, tables, fenced code, headings),
 * enough to read a section in the app. Not a general Markdown renderer.
 */
export function MarkdownBlocks({ text }: { text: string }) {
  const lines = text.split("\n");
  const blocks: ReactNode[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
    } else if (line.startsWith("```")) {
      const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
      const body = lines.slice(i + 1, end < 0 ? undefined : end).join("\n");
      blocks.push(
        <pre
          key={i}
          className="overflow-x-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs text-slate-800"
        >
          {body}
        </pre>,
      );
      i = end < 0 ? lines.length : end + 1;
    } else if (line.startsWith("|")) {
      const rows: string[] = [];
      while (i < lines.length && lines[i]!.startsWith("|")) rows.push(lines[i++]!);
      const [head = "", , ...body] = rows;
      blocks.push(
        <div key={i} className="overflow-x-auto">
          <table className="w-full border-collapse text-left text-xs">
            <thead>
              <tr>
                {cells(head).map((c, j) => (
                  <th key={j} scope="col" className="border-b border-slate-200 px-2 py-1.5 font-semibold text-slate-700">
                    {inline(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {body.map((r, k) => (
                <tr key={k}>
                  {cells(r).map((c, j) => (
                    <td key={j} className="border-b border-slate-100 px-2 py-1.5 align-top text-slate-600">
                      {inline(c)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
    } else if (/^\s*- /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && lines[i]!.trim() && !lines[i]!.startsWith("```")) {
        const l = lines[i++]!;
        if (/^\s*- /.test(l)) items.push(l.replace(/^\s*- /, ""));
        else items[items.length - 1] += ` ${l.trim()}`;
      }
      blocks.push(
        <ul key={i} className="list-disc space-y-1 pl-5">
          {items.map((it, k) => (
            <li key={k}>{inline(it)}</li>
          ))}
        </ul>,
      );
    } else if (line.startsWith("#")) {
      blocks.push(
        <h3 key={i} className="font-semibold text-slate-900">
          {inline(line.replace(/^#+\s*/, ""))}
        </h3>,
      );
      i++;
    } else {
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() && !/^(\||```|#|\s*- )/.test(lines[i]!)) para.push(lines[i++]!.trim());
      blocks.push(<p key={i}>{inline(para.join(" "))}</p>);
    }
  }
  return <div className="grid gap-3 text-sm leading-relaxed text-slate-700">{blocks}</div>;
}

/** The section, rendered; loaded on demand so the README is not in the screens' own bundles. */
export default function ReadmeSection({ title }: { title: string }) {
  const section = readmeSection(title);
  return section === null ? <p className="text-sm text-slate-600">The README has no section named {title}.</p> : <MarkdownBlocks text={section} />;
}
