import { Fragment } from "react";

/**
 * The document's descriptions use two bits of CommonMark, `**strong**` and `` `code` ``: rendered as
 * such, paragraph by paragraph (blank lines), and everything else as text.
 */
export function RichText({ text, className }: { text: string; className?: string }) {
  return (
    <div className={className}>
      {text.split(/\n\n+/).map((paragraph, i) => (
        <p key={i} className="mt-1 first:mt-0">
          {paragraph.split(/(\*\*[^*]+\*\*|`[^`]+`)/).map((part, j) =>
            part.startsWith("**") && part.endsWith("**") && part.length > 4 ? (
              <strong key={j} className="font-semibold text-slate-800">
                {part.slice(2, -2)}
              </strong>
            ) : part.startsWith("`") && part.endsWith("`") && part.length > 2 ? (
              <code key={j} className="rounded bg-slate-100 px-1 font-mono text-xs text-slate-800">
                {part.slice(1, -1)}
              </code>
            ) : (
              <Fragment key={j}>{part}</Fragment>
            ),
          )}
        </p>
      ))}
    </div>
  );
}
