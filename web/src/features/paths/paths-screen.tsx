import { ArrowLeft, Plus, Route } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { Link, useBlocker, useParams } from "react-router";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Spinner } from "@/components/ui/spinner";
import { toast, toastError } from "@/components/ui/toast";
import { ApiError } from "@/lib/api";
import { isAdmin, useUser } from "@/lib/auth";
import { useQuery } from "@tanstack/react-query";
import { pathsQuery, useCampaignList, useLanderChoices, useOfferChoices, useSavePaths } from "./api";
import { HistoryDialog } from "./components/history-dialog";
import { SplitTestDialog } from "./components/split-test-dialog";
import { PathCard } from "./components/path-card";
import { PreviewPanel } from "./components/preview-panel";
import { addPath, movePath, problemsFromServer, problemsOf, toDraft, toPut, validate, type DraftPath, type Problems } from "./editor";

/** The form's content as the server would receive it: equal means nothing to save. */
const fingerprint = (paths: readonly DraftPath[]) => JSON.stringify(toPut(paths));

/**
 * Traffic distribution (docs/traffic-distribution.md): a campaign's rule paths, top-down, first
 * match wins, then its default path; each path's landers and offers with their weights. One Save
 * sends the whole set.
 */
export default function PathsScreen() {
  const campaignId = Number(useParams().id);
  const { data: user } = useUser();
  const admin = isAdmin(user);
  const campaigns = useCampaignList();
  const campaign = campaigns.data?.find((c) => c.id === campaignId);
  const saved = useQuery({ ...pathsQuery(campaignId), enabled: Number.isInteger(campaignId) && campaignId > 0 });
  const landers = useLanderChoices();
  const offers = useOfferChoices();
  const save = useSavePaths(campaignId);

  const [draft, setDraft] = useState<DraftPath[] | null>(null);
  const [baseline, setBaseline] = useState("");
  const [problems, setProblems] = useState<Problems>({});
  const [announcement, setAnnouncement] = useState("");
  const [historyOf, setHistoryOf] = useState<DraftPath | null>(null);
  const [splitTestOf, setSplitTestOf] = useState<DraftPath | null>(null);
  const focusAfterMove = useRef<{ key: string; direction: -1 | 1 } | null>(null);

  // The saved set becomes the form, unless the form holds changes of its own (or already holds it:
  // a Save's answer is put in the form by onSave, and remounting its paths would lose the focus).
  const savedPaths = saved.data?.paths;
  useEffect(() => {
    if (!savedPaths) return;
    const next = toDraft(savedPaths);
    const print = fingerprint(next);
    if (print === baseline || (draft && fingerprint(draft) !== baseline)) return;
    setDraft(next);
    setBaseline(print);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the saved set changes
  }, [savedPaths]);

  const dirty = draft !== null && fingerprint(draft) !== baseline;
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  useEffect(() => {
    const move = focusAfterMove.current;
    if (!move) return;
    focusAfterMove.current = null;
    const same = document.getElementById(`move-${move.direction < 0 ? "up" : "down"}-${move.key}`) as HTMLButtonElement | null;
    const other = document.getElementById(`move-${move.direction < 0 ? "down" : "up"}-${move.key}`) as HTMLButtonElement | null;
    (same && !same.disabled ? same : other)?.focus();
  }, [draft]);

  const landerChoices = useMemo(() => (landers.data ?? []).map((l) => ({ id: l.id, name: l.name })), [landers.data]);
  const offerChoices = useMemo(() => (offers.data ?? []).map((o) => ({ id: o.id, name: o.name })), [offers.data]);

  /**
   * An edited path's problems shrink to those its new content still has (a fixed one goes, and a
   * server's refusal goes once the path is worked on); the other paths' stay until the next Save.
   */
  const changePath = (key: string, path: DraftPath) => {
    if (!draft) return;
    const next = draft.map((p) => (p.key === key ? path : p));
    setDraft(next);
    if (Object.keys(problems).some((k) => k.startsWith(`${key}/`))) {
      const now = validate(next);
      setProblems((old) => Object.fromEntries(Object.entries(old).filter(([k]) => !k.startsWith(`${key}/`) || k in now)));
    }
  };

  const onSave = () => {
    if (!draft) return;
    const found = validate(draft);
    setProblems(found);
    if (Object.keys(found).length) {
      toast({ title: "Validation error", description: "Some paths need attention: see the messages beside them.", variant: "destructive" });
      return;
    }
    const sent = draft;
    save.mutate(toPut(sent), {
      onSuccess: (answer) => {
        const next = toDraft(answer.paths);
        setDraft(next);
        setBaseline(fingerprint(next));
        setProblems({});
        toast({ title: "Traffic distribution saved", description: `${campaign?.name ?? "Campaign"}: ${next.length} ${next.length === 1 ? "path" : "paths"}` });
      },
      onError: (err) => {
        if (err instanceof ApiError && err.status === 400) setProblems(problemsFromServer(sent, err.details, err.message));
        toastError("Error", err, "Failed to save traffic distribution");
      },
    });
  };

  const title = "Traffic distribution";
  const header = (
    <PageHeader
      title={title}
      description={
        <>
          <Link to="/campaigns" className="inline-flex items-center gap-1 font-medium text-brand-700 hover:underline">
            <ArrowLeft className="size-3.5" aria-hidden="true" />
            Campaigns
          </Link>
          <span aria-hidden="true"> / </span>
          {campaign?.name ?? (campaigns.isPending ? "…" : `Campaign #${campaignId}`)}
        </>
      }
      actions={
        admin && draft ? (
          <>
            {dirty ? (
              <span className="text-xs font-medium text-amber-700" role="status">
                Unsaved changes
              </span>
            ) : null}
            <Button variant="secondary" onClick={() => setDraft(addPath(draft))}>
              <Plus />
              Add rule path
            </Button>
            <Button onClick={onSave} disabled={save.isPending || !dirty}>
              {save.isPending ? "Saving..." : "Save"}
            </Button>
          </>
        ) : null
      }
    />
  );

  if (saved.isError || !draft)
    return (
      <>
        {header}
        <Card>
          {saved.isError ? (
            <EmptyState
              icon={<Route />}
              title={saved.error instanceof ApiError && saved.error.status === 404 ? "Campaign not found" : "Could not load the paths"}
            >
              {saved.error.message}
            </EmptyState>
          ) : (
            <div className="flex justify-center py-16">
              <Spinner label="Loading paths..." />
            </div>
          )}
        </Card>
      </>
    );

  return (
    <>
      {header}
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
      {problems.paths ? (
        <div role="alert" className="mb-4 rounded-md border border-danger-200 bg-danger-50 px-4 py-3 text-sm text-danger-700">
          {problems.paths}
        </div>
      ) : null}
      <div className="grid items-start gap-6 xl:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="grid gap-3">
          <p className="text-sm text-slate-600">
            {draft.some((p) => !p.isDefault)
              ? "Rule paths are tried from the top; a visitor takes the first whose conditions all match. Everyone else takes the default path, always last."
              : `No rule paths yet: every visitor takes the default path.${admin ? " Add a rule path to send a country, a device or an hour elsewhere." : ""}`}
          </p>
          <ol className="grid gap-4" aria-label="Paths in evaluation order">
            {draft.map((p, i) => (
              <li key={p.key}>
                <PathCard
                  path={p}
                  index={i}
                  count={draft.length}
                  problems={problemsOf(problems, p.key)}
                  landers={landerChoices}
                  offers={offerChoices}
                  readOnly={!admin}
                  onChange={(next) => changePath(p.key, next)}
                  onMove={(direction) => {
                    focusAfterMove.current = { key: p.key, direction };
                    const next = movePath(draft, i, direction);
                    setDraft(next);
                    setAnnouncement(`${p.name || "Path"} moved to position ${next.indexOf(p) + 1} of ${next.length}`);
                  }}
                  onRemove={() => {
                    setDraft(draft.filter((x) => x.key !== p.key));
                    setAnnouncement(`${p.name || "Path"} removed; Save to apply`);
                  }}
                  onHistory={() => setHistoryOf(p)}
                  onSplitTest={() => setSplitTestOf(p)}
                />
              </li>
            ))}
          </ol>
        </div>
        <PreviewPanel campaignId={campaignId} dirty={dirty} landers={landerChoices} offers={offerChoices} />
      </div>
      {historyOf?.id !== undefined ? (
        <HistoryDialog
          campaignId={campaignId}
          pathId={historyOf.id}
          pathName={historyOf.name}
          landers={landerChoices}
          offers={offerChoices}
          onClose={() => setHistoryOf(null)}
        />
      ) : null}
      {splitTestOf?.id !== undefined ? (
        <SplitTestDialog campaignId={campaignId} pathId={splitTestOf.id} pathName={splitTestOf.name} onClose={() => setSplitTestOf(null)} />
      ) : null}
      <ConfirmDialog
        open={blocker.state === "blocked"}
        onOpenChange={(open) => !open && blocker.state === "blocked" && blocker.reset()}
        title="Discard unsaved changes?"
        description="The paths have changes that are not saved. Leaving this screen discards them."
        confirmLabel="Discard changes"
        onConfirm={() => blocker.state === "blocked" && blocker.proceed()}
      />
    </>
  );
}
