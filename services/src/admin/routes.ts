import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newYorkDate } from '@oj/contracts/business-date';
import { errorBody } from '@oj/contracts/common';
import { adminUser, adminUserParams } from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import { findUserByEmail } from '../identity/users.ts';
import { principalOf } from '../app/principal.ts';
import { recordAccess } from '../audit/access-log.ts';
import { auditUserOf } from '../audit/queries.ts';

/** The reason an Admin's user lookup is logged under: the screen asks for none (part 2, admin user lookup). */
export const ADMIN_LOOKUP_REASON = 'Admin user lookup';

export const adminMessages = { userNotFound: 'User not found.' } as const;

export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/admin/users/:email',
    {
      onRequest: app.requireRole('Admin'),
      schema: { tags: ['admin'], security: [{ bearer: [] }], params: adminUserParams, response: { 200: adminUser, 401: errorBody, 403: errorBody, 404: errorBody, 422: errorBody } },
    },
    async (request) => {
      const user = await findUserByEmail(db, request.params.email);
      if (!user) throw new AppError('not_found', adminMessages.userNotFound);
      // A read of another user's profile is in their access log, as staff reads of their history are
      // (docs/audit.md): the trader sees who looked. Recorded before the answer leaves; an Admin looking
      // themselves up is not logged.
      const principal = principalOf(request);
      if (user.uid !== principal.userId) {
        await recordAccess(app.deps, { principal, target: auditUserOf(user), reason: ADMIN_LOOKUP_REASON, view: 'profile', detail: 'looked up by e-mail', requestId: request.id });
      }
      return {
        name: user.name,
        uid: user.uid,
        email: user.email,
        username: user.username,
        // The New York date, as every date of the product (an evening sign-up is not tomorrow's).
        user_since: newYorkDate(user.created_at),
        bio: user.bio,
        website: user.website,
        account_confirmed: user.account_confirmed,
        has_trade_account: user.has_trade_account,
        agreed_to_terms: user.agreed_to_terms,
        role_uid: user.role,
      };
    },
  );
};
