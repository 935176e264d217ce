import { BookOpen } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";

const ReadmeSection = lazy(() => import("./readme-section"));

/**
 * "README: <section>": opens that section of the README in the app, so setup instructions are
 * one click from the screen that needs them (the running Worker has no docs site to link to).
 */
export function ReadmeLink({ section }: { section: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="inline-flex items-center gap-1 text-xs font-medium text-brand-700 underline-offset-2 hover:underline"
      >
        <BookOpen className="size-3.5" aria-hidden="true" />
        README: {section}
      </button>
      <Dialog open={open} onOpenChange={setOpen} title={`README: ${section}`} description="From README.md of this version of Trackyard." className="max-w-3xl">
        <Suspense fallback={<Spinner label="Loading the README" />}>{open ? <ReadmeSection title={section} /> : null}</Suspense>
      </Dialog>
    </>
  );
}
