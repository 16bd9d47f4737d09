import { createBrowserRouter, type RouteObject } from 'react-router';
import { tradeRoutes } from '@/features/trades/routes/trade-routes.tsx';
import { HydrateFallback, RootLayout } from './root-layout.tsx';
import { GuestOnly, RequireSignedIn, RequireVerified } from './guards.tsx';
import { RouteErrorBoundary } from './route-error.tsx';
import { renderTradeShare } from './trade-share.tsx';
import type { RouteHandle } from './shell/app-shell.tsx';

/**
 * Every page is lazy-loaded so the first screen ships only the shell. Public pages sit at the top;
 * private pages sit under the guard and the shell (sidebar, top bar, footer). The trade pages come
 * from the trades feature as plain route objects and are mounted inside the shell, with the share
 * feature's trade card composed in (loaded when a trade is shared).
 */
const privateRoutes: RouteObject[] = [
  {
    path: 'dashboard',
    lazy: async () => {
      const page = await import('./routes/dashboard-page.tsx');
      return { Component: page.DashboardPage, handle: page.dashboardHandle };
    },
  },
  {
    path: 'accounts',
    lazy: async () => ({ Component: (await import('@/features/accounts/routes/accounts-route.tsx')).AccountsRoute }),
  },
  {
    path: 'calendar/income',
    lazy: async () => {
      const page = await import('./routes/income-calendar-page.tsx');
      return { Component: page.IncomeCalendarPage, handle: page.incomeCalendarHandle };
    },
  },
  {
    path: 'calendar/events',
    lazy: async () => {
      const page = await import('@/features/calendar/routes/events-route.tsx');
      return { Component: page.EventsRoute, handle: page.eventsHandle satisfies RouteHandle };
    },
  },
  {
    path: 'pulse',
    lazy: async () => {
      const page = await import('./routes/pulse-page.tsx');
      return { Component: page.PulsePage, handle: page.pulseHandle satisfies RouteHandle };
    },
  },
  { path: 'profile', lazy: async () => ({ Component: (await import('@/features/profile/routes/profile-route.tsx')).ProfileRoute }) },
  { path: 'subscription', lazy: async () => ({ Component: (await import('@/features/subscription/routes/subscription-route.tsx')).SubscriptionRoute }) },
  {
    path: 'getting-started',
    lazy: async () => ({ Component: (await import('@/features/getting-started/routes/getting-started-route.tsx')).GettingStartedRoute }),
  },
  { path: 'faq', lazy: async () => ({ Component: (await import('@/features/faq/routes/faq-route.tsx')).FaqRoute }) },
  { path: 'contact', lazy: async () => ({ Component: (await import('@/features/contact/routes/contact-route.tsx')).ContactRoute }) },
  {
    path: 'admin/messages',
    lazy: async () => ({ Component: (await import('@/features/contact/routes/admin-messages-route.tsx')).AdminMessagesRoute }),
  },
  {
    path: 'terms',
    lazy: async () => ({ Component: (await import('@/features/misc/routes/legal-route.tsx')).TermsRoute }),
  },
  {
    path: 'privacy',
    lazy: async () => ({ Component: (await import('@/features/misc/routes/legal-route.tsx')).PrivacyRoute }),
  },
  {
    path: 'operations',
    lazy: async () => ({ Component: (await import('@/features/operations/routes/operations-route.tsx')).OperationsRoute }),
  },
  {
    path: 'admin/users/user',
    lazy: async () => ({ Component: (await import('@/features/admin/routes/admin-user-route.tsx')).AdminUserRoute }),
  },
  { path: 'support/users', lazy: async () => ({ Component: (await import('@/features/support/routes/support-search-route.tsx')).SupportSearchRoute }) },
  { path: 'support/users/:uid', lazy: async () => ({ Component: (await import('@/features/support/routes/support-user-route.tsx')).SupportUserRoute }) },
  { path: 'support/access-log', lazy: async () => ({ Component: (await import('@/features/support/routes/access-log-route.tsx')).AccessLogRoute }) },
  ...tradeRoutes({ renderTradeShare }),
];

export const routes: RouteObject[] = [
  {
    Component: RootLayout,
    ErrorBoundary: RouteErrorBoundary,
    HydrateFallback,
    children: [
      { index: true, lazy: async () => ({ Component: (await import('@/features/landing/routes/landing-route.tsx')).LandingRoute }) },
      {
        Component: GuestOnly,
        children: [
          { path: 'signup', lazy: async () => ({ Component: (await import('@/features/auth/routes/sign-up-route.tsx')).SignUpRoute }) },
          { path: 'signin', lazy: async () => ({ Component: (await import('@/features/auth/routes/sign-in-route.tsx')).SignInRoute }) },
        ],
      },
      { path: 'users/account-verify', lazy: async () => ({ Component: (await import('@/features/auth/routes/verify-route.tsx')).VerifyRoute }) },
      {
        path: 'users/reset-password-request',
        lazy: async () => ({ Component: (await import('@/features/auth/routes/reset-request-route.tsx')).ResetRequestRoute }),
      },
      {
        path: 'users/password-reset-link',
        lazy: async () => ({ Component: (await import('@/features/auth/routes/reset-link-route.tsx')).ResetLinkRoute }),
      },
      { path: 'logout', lazy: async () => ({ Component: (await import('@/features/auth/routes/logout-route.tsx')).LogoutRoute }) },
      { path: 'examples/404', lazy: async () => ({ Component: (await import('@/features/misc/routes/not-found-route.tsx')).NotFoundRoute }) },
      { path: 'examples/500', lazy: async () => ({ Component: (await import('@/features/misc/routes/server-error-route.tsx')).ServerErrorRoute }) },
      {
        Component: RequireSignedIn,
        children: [
          {
            path: 'users/account-not-verified',
            lazy: async () => ({ Component: (await import('@/features/auth/routes/not-verified-route.tsx')).NotVerifiedRoute }),
          },
        ],
      },
      {
        Component: RequireVerified,
        children: [
          {
            lazy: async () => ({ Component: (await import('./shell/app-shell.tsx')).AppShell }),
            children: privateRoutes,
          },
        ],
      },
      { path: '*', lazy: async () => ({ Component: (await import('@/features/misc/routes/not-found-route.tsx')).NotFoundRoute }) },
    ],
  },
];

export const router = createBrowserRouter(routes);
