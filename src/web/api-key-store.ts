/**
 * The professional API key, kept in the browser's local storage (never in a URL).
 */
const API_KEY_STORAGE = 'userscout.apiKey';

export interface KeyStore {
  get(): string | undefined;
  set(key: string): void;
  clear(): void;
}

export function localKeyStore(storage: Storage | undefined = globalThis.localStorage): KeyStore {
  // Storage can be missing or throw (private mode, disabled cookies): then the key lives for this page only.
  let memory: string | undefined;
  return {
    get() {
      try {
        return storage?.getItem(API_KEY_STORAGE) ?? memory;
      } catch {
        return memory;
      }
    },
    set(key) {
      memory = key;
      try {
        storage?.setItem(API_KEY_STORAGE, key);
      } catch {
        // kept in memory only
      }
    },
    clear() {
      memory = undefined;
      try {
        storage?.removeItem(API_KEY_STORAGE);
      } catch {
        // nothing stored
      }
    },
  };
}
