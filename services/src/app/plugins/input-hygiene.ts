import type { FastifyInstance } from 'fastify';
import { DIRECTION_CONTROL_MESSAGE, findDirectionControls, findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '@oj/contracts/common';
import { invalid } from '../errors.ts';

/**
 * Refuses text PostgreSQL cannot store (NUL, unpaired surrogates) in any string of a request (path
 * parameters, query string, JSON body) for every route. A string that reached a query with NUL was a
 * 500, and one route's schema forgetting the rule was enough. It runs after the route's own validation,
 * so a field whose schema already refuses such text answers with that field's message (the spec's,
 * where it has one), and before the handler, so nothing is read or written with it. The answer is the
 * same 422 shape as any validation failure, naming the field. Direction overrides in a body's text are
 * refused the same way (contracts/common.ts `findDirectionControls`).
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    for (const [part, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const path = findUnstorableText(value);
      if (path) throw invalid([{ field: [part, ...path].join('.'), message: UNSTORABLE_TEXT_MESSAGE }]);
    }
    // Written text only (a body): parameters and filters name things, and are refused by their own rules.
    const reordering = findDirectionControls(request.body);
    if (reordering) throw invalid([{ field: ['body', ...reordering].join('.'), message: DIRECTION_CONTROL_MESSAGE }]);
  });
}
