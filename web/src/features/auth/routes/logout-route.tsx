import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { FullScreenSpinner } from '@/components/ui/spinner.tsx';
import { logout } from '../session-store.ts';

/** /logout: ends the session on the server (even if that fails), forgets everything, goes to /signin. */
export function LogoutRoute() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    let cancelled = false;
    void logout().then(() => {
      queryClient.clear();
      if (!cancelled) navigate('/signin', { replace: true });
    });
    return () => {
      cancelled = true;
    };
  }, [navigate, queryClient]);
  return <FullScreenSpinner label="Signing out" />;
}
