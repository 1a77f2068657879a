/** API keys: the role of a store that the API's authentication and the `keys` command use. */

import type { RoleMethods } from './role.js';
import type { Tier } from './search-store.js';

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  readonly hash: string;
  readonly createdAt: number;
  readonly revokedAt?: number | undefined;
}

export interface KeyStore {
  /** Throws UserscoutError 'duplicate_id' when a key has this id or this hash already. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists (or it was revoked already). */
  revokeApiKey(id: string, at: number): Promise<boolean>;
}

export const KEY_STORE_METHODS: RoleMethods<KeyStore> = {
  createApiKey: true,
  findApiKeyByHash: true,
  listApiKeys: true,
  revokeApiKey: true,
};
