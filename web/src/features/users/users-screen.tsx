import { useQuery } from "@tanstack/react-query";
import { CreditCard, ShieldCheck, Sparkles, Trash2, UserCog, UserPlus, Users as UsersIcon, Wallet } from "lucide-react";
import { useState } from "react";
import { Instant, ZoneOfColumn } from "@/components/instant";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toast, toastError } from "@/components/ui/toast";
import { useUser } from "@/lib/auth";
import { FEATURE_LABELS, FEATURE_NAMES, FEATURE_NOTES } from "../../../../worker/src/schemas/users";
import { assignmentOptionsQuery, useDeleteUser, useUsers, type AssignmentKind, type UserRow } from "./api";
import { AccountDialog } from "./components/account-dialog";
import { AssignmentDialog, type AssignmentCopy } from "./components/assignment-dialog";
import { CreateUserDialog } from "./components/create-user-dialog";
import { TwoFactorRequirementCard } from "./components/two-factor-requirement";

const COPY: Record<AssignmentKind, AssignmentCopy> = {
  permissions: {
    title: "Permissions",
    description: "Choose the features this user can see.",
    empty: "No features available.",
    success: "Permissions updated",
    failure: "Failed to update permissions",
  },
  vcns: {
    title: "Assign VCNs",
    description: "The user sees billing transactions of these virtual cards only.",
    empty: "No VCNs available. Upload transactions first to see VCN options.",
    success: "VCNs assigned",
    failure: "Failed to assign VCNs",
  },
  mediaBuyers: {
    title: "Media Buyers",
    description: "The user sees performance stats of these media buyers (CAKE sub1) only.",
    empty: "No media buyers seen in the stats yet. Add one by its sub1 value below.",
    success: "Media buyers assigned",
    failure: "Failed to assign media buyers",
    addLabel: "Media buyer sub1 value",
  },
  sparks: {
    title: "Assign Sparks",
    description: "The user sees and manages these sparks.",
    empty: "No sparks created yet.",
    success: "Sparks assigned",
    failure: "Failed to assign sparks",
  },
};

export default function UsersScreen() {
  const { data: me } = useUser();
  const users = useUsers();
  const deleteUser = useDeleteUser();
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<{ kind: AssignmentKind; user: UserRow } | null>(null);
  const [deleting, setDeleting] = useState<UserRow | null>(null);
  const [managing, setManaging] = useState<UserRow | null>(null);
  const options = useQuery({ ...assignmentOptionsQuery, enabled: dialog !== null && dialog.kind !== "permissions" });

  const optionsFor = (kind: AssignmentKind) => {
    const o = options.data;
    switch (kind) {
      case "permissions":
        return FEATURE_NAMES.map((f) => ({ value: f, label: FEATURE_LABELS[f], description: FEATURE_NOTES[f] }));
      case "vcns":
        return (o?.vcnNicknames ?? []).map((v) => ({ value: v, label: v }));
      case "mediaBuyers":
        return (o?.mediaBuyers ?? []).map((v) => ({ value: v, label: v }));
      case "sparks":
        return (o?.sparks ?? []).map((s) => ({ value: String(s.id), label: s.name, description: `Spark ID ${s.sparkId}` }));
    }
  };

  const onDelete = () => {
    if (!deleting) return;
    deleteUser.mutate(deleting.id, {
      onSuccess: () => {
        toast({ title: "User deleted", description: `${deleting.username} was removed and signed out.` });
        setDeleting(null);
      },
      onError: (err) => toastError("Failed to delete user", err, "Failed to delete user"),
    });
  };

  const rows = users.data ?? [];

  return (
    <>
      <PageHeader
        title="User Management"
        description="Create team accounts, grant features and assign cards, media buyers and sparks."
        actions={
          <Button onClick={() => setCreating(true)}>
            <UserPlus />
            Create New User
          </Button>
        }
      />
      <TwoFactorRequirementCard />
      <Card>
        <Table>
          <TableHeader>
            <TableRow>
              <TableHead>Username</TableHead>
              <TableHead>Role</TableHead>
              <TableHead className="hidden sm:table-cell">
                Created
                <ZoneOfColumn />
              </TableHead>
              <TableHead className="text-right">Actions</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            <QueryRows query={users} rows={rows} colSpan={4} loading="Loading users..." emptyState={<EmptyState icon={<UsersIcon />} title="No users yet" />}>
              {(u) => (
                <TableRow key={u.id}>
                  <TableCell className="font-medium text-slate-900">
                    {u.username}
                    {u.id === me?.id ? <span className="ml-2 text-xs font-normal text-slate-500">(you)</span> : null}
                  </TableCell>
                  <TableCell>
                    <div className="flex flex-wrap gap-1">
                      <Badge variant={u.role === "admin" ? "default" : "secondary"}>{u.role === "admin" ? "Admin" : "User"}</Badge>
                      {u.twoFactorEnabled ? <Badge variant="success">2FA</Badge> : null}
                    </div>
                  </TableCell>
                  <TableCell className="tabular hidden text-slate-600 sm:table-cell">
                    <Instant at={u.createdAt} show="day" />
                  </TableCell>
                  <TableCell>
                    <div className="flex flex-wrap justify-end gap-1.5">
                      {u.role === "user" ? (
                        <>
                          <Button size="sm" variant="secondary" onClick={() => setDialog({ kind: "permissions", user: u })}>
                            <ShieldCheck />
                            Permissions
                          </Button>
                          <Button size="sm" variant="secondary" onClick={() => setDialog({ kind: "vcns", user: u })}>
                            <CreditCard />
                            Assign VCNs
                          </Button>
                          <Button size="sm" variant="secondary" onClick={() => setDialog({ kind: "mediaBuyers", user: u })}>
                            <Wallet />
                            Media Buyers
                          </Button>
                          <Button size="sm" variant="secondary" onClick={() => setDialog({ kind: "sparks", user: u })}>
                            <Sparkles />
                            Sparks
                          </Button>
                        </>
                      ) : null}
                      {u.id !== me?.id ? (
                        <Button size="sm" variant="secondary" aria-label={`Account of ${u.username}`} onClick={() => setManaging(u)}>
                          <UserCog />
                          Account
                        </Button>
                      ) : null}
                      {u.id !== me?.id ? (
                        <Button size="icon" variant="ghost" aria-label={`Delete ${u.username}`} onClick={() => setDeleting(u)}>
                          <Trash2 className="text-danger-600" />
                        </Button>
                      ) : null}
                    </div>
                  </TableCell>
                </TableRow>
              )}
            </QueryRows>
          </TableBody>
        </Table>
      </Card>

      <CreateUserDialog open={creating} onOpenChange={setCreating} />
      {dialog ? (
        <AssignmentDialog
          key={`${dialog.kind}-${dialog.user.id}`}
          kind={dialog.kind}
          userId={dialog.user.id}
          username={dialog.user.username}
          options={optionsFor(dialog.kind)}
          optionsLoading={dialog.kind !== "permissions" && options.isPending}
          copy={COPY[dialog.kind]}
          note={dialog.kind === "permissions" ? "Admins always have full access." : undefined}
          open
          onOpenChange={(o) => !o && setDialog(null)}
        />
      ) : null}
      {managing ? (
        <AccountDialog key={managing.id} user={rows.find((r) => r.id === managing.id) ?? managing} onOpenChange={(o) => !o && setManaging(null)} />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title="Delete user?"
        description={`${deleting?.username ?? "This user"} will be signed out everywhere and lose access. This cannot be undone.`}
        confirmLabel="Delete user"
        busy={deleteUser.isPending}
        onConfirm={onDelete}
      />
    </>
  );
}
