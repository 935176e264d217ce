import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { homePath, useUser } from "@/lib/auth";

export default function NotFoundScreen() {
  const { data: user } = useUser();
  return (
    <div className="flex flex-col items-center justify-center gap-4 py-24 text-center">
      <p className="text-5xl font-semibold text-slate-300">404</p>
      <h1 className="text-xl font-semibold text-slate-900">404 Page Not Found</h1>
      <p className="text-sm text-slate-500">The page you asked for does not exist or has moved.</p>
      <Button asChild variant="secondary">
        <Link to={homePath(user)}>Go to your home screen</Link>
      </Button>
    </div>
  );
}
