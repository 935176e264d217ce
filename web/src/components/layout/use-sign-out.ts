import { useNavigate } from "react-router";
import { toastError } from "@/components/ui/toast";
import { useLogout } from "@/lib/auth";

/** Logout from anywhere: back to the sign-in screen, or the product's 'Logout failed' toast. */
export function useSignOut() {
  const logout = useLogout();
  const navigate = useNavigate();
  const signOut = () =>
    logout.mutate(undefined, {
      onSuccess: () => navigate("/auth", { replace: true }),
      onError: (err) => toastError("Logout failed", err, "Logout failed"),
    });
  return { signOut, isPending: logout.isPending };
}
