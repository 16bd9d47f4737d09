import type { FastifyInstance } from 'fastify';
import { findNulText, NUL_TEXT_MESSAGE } from '@oj/contracts/common';
import { invalid } from '../errors.ts';

/**
 * Refuses NUL in any string of a request (path parameters, query string, JSON body) for every route,
 * before the route's own schema runs. PostgreSQL cannot store NUL in text: a string that reached a
 * query with one was a 500, and one route's schema forgetting the rule was enough. Here no route can.
 * The answer is the same 422 shape as any validation failure, naming the field.
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const path = findNulText(value);
      if (path) throw invalid([{ field: [part, ...path].join('.'), message: NUL_TEXT_MESSAGE }]);
    }
  });
}
