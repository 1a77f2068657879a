/**
 * A backend's vocabulary (compact-outcome.ts), as far as this process has seen
 * it: text → id and id → text. An id, once given, never changes, so every one
 * seen is kept (they grow with the catalogue, not with searches). The SQLite,
 * Redis and PostgreSQL vocabularies keep theirs here.
 */
export class VocabularyCache {
  readonly #ids = new Map<string, number>();
  readonly #texts = new Map<number, string>();

  remember(text: string, id: number): number {
    this.#ids.set(text, id);
    this.#texts.set(id, text);
    return id;
  }

  idOf(text: string): number | undefined {
    return this.#ids.get(text);
  }

  textOf(id: number): string | undefined {
    return this.#texts.get(id);
  }

  /** Forgets one text and its id (a write that gave it rolled back). */
  forget(text: string): void {
    const id = this.#ids.get(text);
    this.#ids.delete(text);
    if (id !== undefined) this.#texts.delete(id);
  }

  clear(): void {
    this.#ids.clear();
    this.#texts.clear();
  }
}
