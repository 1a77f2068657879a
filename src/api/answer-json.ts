/**
 * A poll's answer as JSON, each result's JSON kept with its outcome. A running
 * search is polled about once a second by each of its clients and its answer
 * lists every hit so far, so serialised whole, each hit was serialised again
 * on every poll (16% of the API thread's CPU under case 3's load). The SQLite
 * store hands out a running search's outcomes shared and frozen
 * (src/store/decoded-outcomes.ts): the JSON of such an outcome is kept against
 * the outcome itself (a WeakMap: it goes when the outcome does). The rest of
 * the answer is serialised as before and the results put where its empty list
 * is: the same bytes as serialising it whole.
 */
import type { SearchJson } from './search-response.js';

const EMPTY_RESULTS = '"results":[]';

export class AnswerJson {
  readonly #results = new WeakMap<object, string>();

  /**
   * `body` as JSON: `whole` serialises an answer (its results emptied here),
   * `result` one result, as the answer's schema does.
   */
  serialize(body: SearchJson, whole: (body: SearchJson) => string, result: (item: object) => string): string {
    const shell = whole({ ...body, results: [] });
    // Strings in JSON have their quotes escaped, so this is the results' own place.
    const at = shell.indexOf(EMPTY_RESULTS);
    if (at < 0) return whole(body);
    const items = body.results.map((item) => {
      let json = this.#results.get(item);
      if (json === undefined) {
        json = result(item);
        // Only what cannot change (a copy with linkedFrom added is not frozen, and is not kept).
        if (Object.isFrozen(item)) this.#results.set(item, json);
      }
      return json;
    });
    return `${shell.slice(0, at)}"results":[${items.join(',')}]${shell.slice(at + EMPTY_RESULTS.length)}`;
  }
}
