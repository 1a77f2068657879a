/**
 * The username check every entry point applies before anything is sent (the API,
 * the CLI, watchlists): `usernameProblem` as the error the service answers with.
 * Apart from username-rule.ts, which the web page bundles without imports.
 */
import { UserscoutError } from '../errors.js';
import { usernameProblem } from './username-rule.js';

/** Throws 400 invalid_username naming the rule broken (and the name, when `named`). */
export function checkUsername(username: string, named = false): void {
  const problem = usernameProblem(username);
  if (problem)
    throw new UserscoutError(
      'invalid_username',
      named ? `username ${JSON.stringify(username)} ${problem}` : `username ${problem}`,
      named ? { details: { username } } : undefined,
    );
}
