import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import type { z } from "zod";
import { api, unwrap } from "@/lib/api";
import { withReauth } from "@/lib/reauth";
import { userQuery } from "@/lib/auth";
import { entityKeys, usersQuery } from "@/lib/entities";
import {
  mediaBuyerAssignmentsSchema,
  mediaBuyerIdSchema,
  permissionsSchema,
  sparkAssignmentsSchema,
  vcnAssignmentsSchema,
  type CreateUserInput,
} from "../../../../worker/src/schemas/users";

export type UserRow = InferResponseType<typeof api.users.$get, 200>[number];

const usersKey = entityKeys.users;
export const useUsers = () => useQuery(usersQuery);

export { assignmentOptionsQuery } from "@/lib/entities";

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateUserInput) => unwrap(api.users.$post({ json: input })),
    onSuccess: () => qc.invalidateQueries({ queryKey: usersKey }),
  });
}

export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.users[":id"].$delete({ param: { id } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: usersKey }),
  });
}

const byId = api.users[":id"];

/**
 * A per-user assignment: how to read it, the call's body for a list of checked values and the
 * API's own schema for that body (the dialog checks the list with it; saving sends what it parsed),
 * and, where a value may be typed in, the schema of one value.
 */
interface AssignmentSpec<Body> {
  key(id: string): readonly unknown[];
  read(id: string): Promise<string[]>;
  body(values: string[]): unknown;
  schema: z.ZodType<Body>;
  post(id: string, json: Body): Promise<unknown>;
  item?: z.ZodType<string, string>;
}

const assignment = <Body>(spec: AssignmentSpec<Body>) => ({
  ...spec,
  save: async (id: string, values: string[]) => {
    await spec.post(id, spec.schema.parse(spec.body(values)));
  },
});

export const assignments = {
  permissions: assignment({
    key: (id) => [...usersKey, id, "permissions"],
    read: async (id) => (await unwrap(byId.permissions.$get({ param: { id } }))).map((p) => p.feature as string),
    body: (values) => ({ features: values }),
    schema: permissionsSchema,
    post: (id, json) => unwrap(byId.permissions.$post({ param: { id }, json })),
  }),
  vcns: assignment({
    key: (id) => [...usersKey, id, "vcn-assignments"],
    read: async (id) => (await unwrap(byId["vcn-assignments"].$get({ param: { id } }))).map((v) => v.vcnNickname),
    body: (values) => ({ vcnNicknames: values }),
    schema: vcnAssignmentsSchema,
    post: (id, json) => unwrap(byId["vcn-assignments"].$post({ param: { id }, json })),
  }),
  mediaBuyers: assignment({
    key: (id) => [...usersKey, id, "media-buyers"],
    read: async (id) => (await unwrap(byId["media-buyers"].$get({ param: { id } }))).map((v) => v.subid1),
    body: (values) => ({ subid1s: values }),
    schema: mediaBuyerAssignmentsSchema,
    post: (id, json) => unwrap(byId["media-buyers"].$post({ param: { id }, json })),
    item: mediaBuyerIdSchema,
  }),
  sparks: assignment({
    key: (id) => [...usersKey, id, "spark-assignments"],
    read: async (id) => (await unwrap(byId["spark-assignments"].$get({ param: { id } }))).map((s) => String(s.sparkId)),
    body: (values) => ({ sparkIds: values.map(Number) }),
    schema: sparkAssignmentsSchema,
    post: (id, json) => unwrap(byId["spark-assignments"].$post({ param: { id }, json })),
  }),
};

export type AssignmentKind = keyof typeof assignments;

export function useAssignment(kind: AssignmentKind, userId: string, enabled: boolean) {
  const a = assignments[kind];
  return useQuery({ queryKey: a.key(userId), queryFn: () => a.read(userId), enabled });
}

export function useSaveAssignment(kind: AssignmentKind, userId: string) {
  const qc = useQueryClient();
  const a = assignments[kind];
  return useMutation({
    mutationFn: (values: string[]) => a.save(userId, values),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: a.key(userId) });
      // docs/screens.md §4: saving permissions also refreshes the current user.
      if (kind === "permissions") await qc.invalidateQueries({ queryKey: userQuery.queryKey });
    },
  });
}

/**
 * An admin's changes to someone else's account: role, a new password, resetting the second factor.
 * Each asks for the admin's password again when the server wants a fresh re-authentication (lib/reauth.ts).
 */
export function useSetRole() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: "user" | "admin" }) => withReauth(() => unwrap(byId.role.$put({ param: { id }, json: { role } }))),
    onSuccess: () => qc.invalidateQueries({ queryKey: usersKey }),
  });
}

export const useResetPassword = () =>
  useMutation({
    mutationFn: ({ id, password }: { id: string; password: string }) => withReauth(() => unwrap(byId.password.$post({ param: { id }, json: { password } }))),
  });

export function useResetTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => withReauth(() => unwrap(byId["two-factor"].reset.$post({ param: { id } }))),
    onSuccess: () => qc.invalidateQueries({ queryKey: usersKey }),
  });
}

export const twoFactorRequirementQuery = queryOptions({
  queryKey: [...usersKey, "two-factor-requirement"],
  queryFn: () => unwrap(api.users["two-factor-requirement"].$get()),
});

export function useSetTwoFactorRequirement() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (required: boolean) => unwrap(api.users["two-factor-requirement"].$put({ json: { required } })),
    onSuccess: (data) => qc.setQueryData(twoFactorRequirementQuery.queryKey, data),
  });
}
